//===- KernelLibrary.h - The runtime's hand-written kernels -----*- C++ -*-===//
//
// Each kernels/<family>.cu is compiled by nvcc into a fatbin (a cubin for
// every architecture the build targets and PTX for later ones) that is
// embedded in the runtime library; a session loads every family as a
// module of its own and launches kernels by their extern "C" names.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_KERNELLIBRARY_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_KERNELLIBRARY_H

#include "Driver.h"

#include <vector>

namespace transfuse::rt::cuda {

/// Loads every family into the current context.
std::vector<CUmodule> loadKernelLibrary();

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_KERNELLIBRARY_H
