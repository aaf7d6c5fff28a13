//===- CudaEmulation.h - CUDA built-ins on the CPU --------------*- C++ -*-===//
//
// Included before a kernel family (runtime/lib/cuda/kernels/<family>.cu),
// it lets the unmodified source compile as C++ and run on the CPU through
// Grid.h: every CUDA thread of a block is a std::thread, __syncthreads is a
// barrier of the block's threads, and a warp shuffle a barrier of the
// warp's lanes around per-warp slots. Only what the kernels use is here; a
// kernel that uses more fails to compile rather than run differently.
//
// A static __shared__ array is a function-local static: blocks run one at
// a time, so it is the block's, but it keeps what the previous block left
// (on a GPU, undefined). `extern __shared__` cannot be spelt with a static
// __shared__: EmulatedAttentionTiles.h compiles the one such declaration.
// __CUDACC__ and __CUDA_ARCH__ stay undefined, so the shared headers
// (runtime/lib/shared/) compile as the host sees them. Unlike on a GPU, a
// shuffle orders the memory accesses of the lanes it joins, and
// __launch_bounds__ is not checked against the launches.
//
// Sanitizers, which CI does not run. For AddressSanitizer (reads past
// the buffers, and past the dynamic shared memory a launch asked for) and
// UndefinedBehaviorSanitizer, configure a build of its own with
//   -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
// then build and run TransfuseCudaEmulationTests. For ThreadSanitizer
// (races between the threads of a block: a missing __syncthreads),
// configure another with -DCMAKE_CXX_FLAGS=-fsanitize=thread and build and
// run with LD_LIBRARY_PATH=<a build without it>/lib (the build runs the
// tests to list them): the runtime library's CPU kernels dispatch through
// ifunc resolvers (target_clones), which crash as an instrumented library
// loads, before ThreadSanitizer is set up.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_CUDAEMULATION_CUDAEMULATION_H
#define TRANSFUSE_TEST_CUDAEMULATION_CUDAEMULATION_H

#include "Grid.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

inline thread_local transfuse::emu::Dim3 threadIdx;
inline transfuse::emu::Dim3 blockIdx, blockDim, gridDim;

struct alignas(16) float4 {
  float x, y, z, w;
};

inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}

inline void __syncthreads() { transfuse::emu::syncThreads(); }

template <typename T> T __shfl_xor_sync(unsigned mask, T value, int laneMask) {
  static_assert(std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                "CUDA shuffles 4- and 8-byte numbers");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = transfuse::emu::shuffleXor(mask, bits, laneMask);
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

#endif // TRANSFUSE_TEST_CUDAEMULATION_CUDAEMULATION_H
