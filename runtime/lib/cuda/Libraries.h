//===- Libraries.h - Opening NVIDIA's libraries at run time ----*- C++ -*-===//
//
// cuBLASLt and NCCL are large and needed only where a CUDA artifact uses
// them, so the runtime opens them on first use instead of linking them.
// Each is looked for where an environment variable names it, then on the
// loader's path, then in the CUDA toolkit the runtime was built against.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_LIBRARIES_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_LIBRARIES_H

#include <string>

namespace transfuse::rt::cuda {

/// dlopen of `soname` (e.g. "libnccl.so.2") from the first place that has
/// it: $`variable`, the loader's path, the toolkit's library directory. A
/// TF_ERROR_UNSUPPORTED naming `what`, the variable and every reason
/// otherwise.
void *openNvidiaLibrary(const std::string &soname, const char *variable,
                        const char *what);

#define TF_CUDA_STRINGIFY_EXPANDED(name) TF_CUDA_STRINGIFY(name)
#define TF_CUDA_STRINGIFY(name) #name

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_LIBRARIES_H
