//===- KernelLibrary.h - The runtime's hand-written kernels -----*- C++ -*-===//
//
// Each kernels/<family>.cu is compiled by nvcc into a fatbin (a cubin for
// every architecture the build targets and PTX for later ones) that is
// embedded in the runtime library; a session loads every family as a
// module of its own and launches kernels by their extern "C" names, which
// are unique across the families.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_KERNELLIBRARY_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_KERNELLIBRARY_H

#include "Driver.h"

#include <map>
#include <string>
#include <vector>

namespace transfuse::rt::cuda {

/// Every family's module and the kernels each defines, by name.
struct KernelLibrary {
  std::vector<CUmodule> modules;
  std::map<std::string, CUfunction> kernels;
};

/// Loads every family into the current context and lists its kernels from
/// the module itself, so that a lookup never asks the driver for a name a
/// module lacks (which compute-sanitizer reports as an API error).
KernelLibrary loadKernelLibrary();

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_KERNELLIBRARY_H
