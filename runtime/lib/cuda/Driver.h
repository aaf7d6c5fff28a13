//===- Driver.h - The CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// The runtime links no CUDA library: libcuda.so.1 (the driver) is opened
// the first time a session of a CUDA artifact needs it, so the runtime
// loads, and runs CPU artifacts, on machines without a GPU. Every kernel,
// generated or hand-written, is loaded and launched through the driver API
// (modules from cubin, PTX or fatbin images); cuBLASLt is opened the same
// way (CublasLt.h).
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_DRIVER_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_DRIVER_H

#include <cuda.h>

#include <string>

namespace transfuse::rt::cuda {

// The driver functions the runtime uses. cuda.h maps most names to
// versioned symbols (cuMemAlloc is cuMemAlloc_v2): the table's members are
// spelt through the same macros, so each is loaded by the symbol its
// declaration names.
#define TF_CUDA_DRIVER_FUNCTIONS(X)                                            \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemGetInfo)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleGetFunctionCount)                                                  \
  X(cuModuleEnumerateFunctions)                                                \
  X(cuFuncGetName)                                                             \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphDestroy)                                                            \
  X(cuGraphExecDestroy)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)

struct Driver {
#define TF_CUDA_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  TF_CUDA_DRIVER_FUNCTIONS(TF_CUDA_DECLARE_MEMBER)
#undef TF_CUDA_DECLARE_MEMBER
  /// The driver's CUDA version (13000 for 13.0).
  int version = 0;
};

/// The driver, loaded and initialised once. Throws TF_ERROR_UNSUPPORTED
/// with one line saying what is missing when there is no driver or no GPU.
const Driver &driver();

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string errorText(CUresult result);

/// Throws TF_ERROR_EXECUTION "<what>: <errorText>" unless `result` is
/// CUDA_SUCCESS.
void check(CUresult result, const std::string &what);

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_DRIVER_H
