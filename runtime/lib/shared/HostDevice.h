//===- HostDevice.h - Code compiled by both g++ and nvcc --------*- C++ -*-===//
//
// The headers in runtime/lib/shared/ hold the arithmetic the CPU runtime,
// the CUDA kernels and the host unit tests must agree on (the dropout
// stream, the online-softmax update, the layer-norm, loss and optimizer
// formulas). They include nothing of the standard library but <cstdint>
// and <cmath>, and mark every function TF_HOST_DEVICE.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_HOSTDEVICE_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_HOSTDEVICE_H

#ifdef __CUDACC__
#define TF_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TF_HOST_DEVICE inline
#endif

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_HOSTDEVICE_H
