//===- reduce.cuh - Deterministic warp and block reductions ----*- CUDA -*-===//
//
// Reductions that give the same bits on every run: the values combine in a
// tree fixed by the block's shape (a butterfly across the lanes of each
// warp, then the same across the warps' results), never in the order in
// which threads happen to arrive, and no atomics. Every combining operation
// here is commutative, so each lane of the butterfly computes the same
// operations on the same operands and all threads get identical results.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_KERNELS_REDUCE_CUH
#define TRANSFUSE_RUNTIME_LIB_CUDA_KERNELS_REDUCE_CUH

#include <cmath>

namespace transfuse::rt::cuda {

constexpr unsigned kFullWarp = 0xffffffffu;
constexpr unsigned kWarpSize = 32;

/// Two sums reduced together, at the cost of one set of barriers.
struct FloatPair {
  float first, second;
};

__device__ __forceinline__ FloatPair operator+(FloatPair a, FloatPair b) {
  return {a.first + b.first, a.second + b.second};
}

/// The value of lane (this lane ^ mask).
template <typename T>
__device__ __forceinline__ T shuffleXor(T value, int mask) {
  return __shfl_xor_sync(kFullWarp, value, mask);
}

__device__ __forceinline__ FloatPair shuffleXor(FloatPair value, int mask) {
  return {shuffleXor(value.first, mask), shuffleXor(value.second, mask)};
}

struct Sum {
  template <typename T> __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/// `value` combined over the lanes of the warp, in every lane. All 32 lanes
/// must call it.
template <typename T, typename Op>
__device__ __forceinline__ T warpReduce(T value, Op op) {
  for (int mask = kWarpSize / 2; mask > 0; mask /= 2)
    value = op(value, shuffleXor(value, mask));
  return value;
}

/// `value` combined over the threads of the block, in every thread;
/// `identity` fills the lanes beyond the block's warps. blockDim.x must be a
/// multiple of 32 (at most 1024) and every thread of the block must call it:
/// it synchronises the block.
template <typename T, typename Op>
__device__ __forceinline__ T blockReduce(T value, Op op, T identity) {
  __shared__ T warpResults[kWarpSize];
  unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  value = warpReduce(value, op);
  if (lane == 0)
    warpResults[warp] = value;
  __syncthreads();
  value = lane < blockDim.x / kWarpSize ? warpResults[lane] : identity;
  value = warpReduce(value, op);
  // The next reduction writes warpResults again: every warp must have read
  // this one's first.
  __syncthreads();
  return value;
}

template <typename T> __device__ __forceinline__ T blockSum(T value) {
  return blockReduce(value, Sum(), T{});
}

__device__ __forceinline__ float blockMax(float value) {
  return blockReduce(value, Max(), -INFINITY);
}

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_KERNELS_REDUCE_CUH
