//===- embedding.cu - The embedding gradient ------------------------------===//
//
// grad_table[ids[p]] += grad[p] for every position p, summed in the order
// of the positions, as the CPU lowering of nn.embedding_grad sums them, so
// that the result is deterministic and the same bits on both targets
// (floating-point addition is not associative: atomics would make it
// neither). Each position first finds the next one with the same id
// (embedding_next_occurrence); the first position of each id (its leader)
// then walks that chain and writes the id's row, one thread per column, so
// no two threads write the same element. Finding the chains compares every
// pair of positions, tiled through shared memory: quadratic in the
// positions of one batch (a few thousand), which is cheap next to the
// chains' sums.
//===----------------------------------------------------------------------===//
#include <cstdint>

namespace {

constexpr int kTile = 256;

/// next[p]: the first q > p with ids[q] == ids[p], or -1; leader[p]: 1 if
/// no q < p has ids[q] == ids[p].
template <typename Index>
__device__ void nextOccurrence(int64_t positions, const Index *__restrict ids,
                               int32_t *__restrict next,
                               uint8_t *__restrict leader) {
  __shared__ Index tile[kTile];
  int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  Index id = p < positions ? ids[p] : Index(0);
  int64_t found = -1;
  bool first = true;
  for (int64_t start = 0; start < positions; start += kTile) {
    __syncthreads();
    if (start + threadIdx.x < positions)
      tile[threadIdx.x] = ids[start + threadIdx.x];
    __syncthreads();
    int64_t count = positions - start < kTile ? positions - start : kTile;
    if (p >= positions)
      continue;
    for (int64_t i = 0; i < count; ++i) {
      int64_t q = start + i;
      if (tile[i] != id)
        continue;
      if (q < p)
        first = false;
      else if (q > p && found < 0)
        found = q;
    }
  }
  if (p < positions) {
    next[p] = static_cast<int32_t>(found);
    leader[p] = first ? 1 : 0;
  }
}

/// For each leader position p and column c: table[ids[p]][c] = the sum of
/// grad[q][c] over the chain p, next[p], next[next[p]], ... in that order.
template <typename Index>
__device__ void
sumChains(int64_t positions, int64_t width, const float *__restrict grad,
          const Index *__restrict ids, const int32_t *__restrict next,
          const uint8_t *__restrict leader, float *__restrict table) {
  int64_t p = blockIdx.x;
  int64_t c = int64_t(blockIdx.y) * blockDim.x + threadIdx.x;
  if (p >= positions || c >= width || !leader[p])
    return;
  float sum = 0.0f;
  for (int64_t q = p; q >= 0; q = next[q])
    sum += grad[q * width + c];
  table[int64_t(ids[p]) * width + c] = sum;
}

} // namespace

extern "C" __global__ void __launch_bounds__(kTile)
    tf_embedding_next_occurrence_i64(int64_t positions, const int64_t *ids,
                                     int32_t *next, uint8_t *leader) {
  nextOccurrence(positions, ids, next, leader);
}

extern "C" __global__ void __launch_bounds__(kTile)
    tf_embedding_next_occurrence_i32(int64_t positions, const int32_t *ids,
                                     int32_t *next, uint8_t *leader) {
  nextOccurrence(positions, ids, next, leader);
}

extern "C" __global__ void __launch_bounds__(kTile)
    tf_embedding_sum_chains_i64(int64_t positions, int64_t width,
                                const float *grad, const int64_t *ids,
                                const int32_t *next, const uint8_t *leader,
                                float *table) {
  sumChains(positions, width, grad, ids, next, leader, table);
}

extern "C" __global__ void __launch_bounds__(kTile)
    tf_embedding_sum_chains_i32(int64_t positions, int64_t width,
                                const float *grad, const int32_t *ids,
                                const int32_t *next, const uint8_t *leader,
                                float *table) {
  sumChains(positions, width, grad, ids, next, leader, table);
}
