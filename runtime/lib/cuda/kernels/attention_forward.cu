//===- attention_forward.cu - Fused attention, forward --------------------===//
//
// out = softmax(scale · q kᵀ, masked) v without materialising the scores:
// each block owns a tile of query rows of one (batch, head) pair, keeps
// them in shared memory and streams the pair's keys and values past them a
// tile at a time. Per row it keeps the online softmax's running maximum
// and sum (shared/OnlineSoftmax.h) and an accumulator of the weighted
// values, rescaled whenever the maximum grows; the lanes of a row hold
// partial sums over their own keys, added up once at the end.
//
// Dropout zeroes the weights of the dropped probabilities after they are
// summed, so the sum and the lse are of the probabilities before dropout,
// and scales the kept ones; its mask is drawn per score from Philox, never
// stored. Causal attention with a -inf fill stops each tile at its last
// visible key. The lse ([batch, heads, sq]) is written when asked for:
// it is all the backward needs to recompute the probabilities.
//===----------------------------------------------------------------------===//
#include "attention_tiles.cuh"

using namespace transfuse::rt;
using namespace transfuse::rt::attn;

namespace {

/// Folds this thread's scores of one key tile into the running state of
/// its rows: rescales the accumulators, and leaves in s the weights of the
/// values, after dropout.
template <int kRM, int kRN, int kGroups>
__device__ __forceinline__ void
foldTile(const Problem &p, Dropout dropout, const BlockTile &tile, int64_t j0,
         float (&s)[kRM][kRN], SoftmaxState (&state)[kRM],
         float4 (&acc)[kRM][kGroups], Lane lane) {
#pragma unroll
  for (int m = 0; m < kRM; ++m) {
    float tileMaximum = -INFINITY;
#pragma unroll
    for (int n = 0; n < kRN; ++n)
      tileMaximum = fmaxf(tileMaximum, s[m][n]);
    float factor = raiseMaximum(state[m], acrossRow(tileMaximum, cuda::Max()));
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      acc[m][g].x *= factor;
      acc[m][g].y *= factor;
      acc[m][g].z *= factor;
      acc[m][g].w *= factor;
    }
    int64_t i = tile.start + lane.row + kThreadRows * m;
#pragma unroll
    for (int n = 0; n < kRN; ++n) {
      float weight = softmaxWeight(s[m][n], state[m].maximum);
      state[m].sum += weight;
      // A weight of 0 (a -inf score, or a key or row past the end) stays 0.
      bool kept = weight == 0.0f || keeps(p, dropout, tile.b, tile.h, i,
                                          j0 + lane.col + kThreadCols * n);
      s[m][n] = applyDropout(weight, kept, p.keepScale);
    }
  }
}

/// Replaces this thread's dot products by the masked scores; -inf for rows
/// past sq and keys past `keys` (the end of the keys the tile visits).
template <int kRM, int kRN>
__device__ __forceinline__ void
maskScores(const Problem &p, const BlockTile &tile, int64_t j0, int64_t keys,
           float (&s)[kRM][kRN], Lane lane) {
#pragma unroll
  for (int m = 0; m < kRM; ++m) {
    int r = lane.row + kThreadRows * m;
#pragma unroll
    for (int n = 0; n < kRN; ++n) {
      int64_t j = j0 + lane.col + kThreadCols * n;
      s[m][n] =
          r < tile.count && j < keys
              ? maskedScore(p, tile.b, tile.h, tile.start + r, j, s[m][n]).value
              : -INFINITY;
    }
  }
}

/// Writes the weights of this thread's scores into the weight tile.
template <int kRM, int kRN, int kCols>
__device__ __forceinline__ void
storeWeights(float *weights, const float (&s)[kRM][kRN], Lane lane) {
#pragma unroll
  for (int m = 0; m < kRM; ++m)
#pragma unroll
    for (int n = 0; n < kRN; ++n)
      weights[(lane.row + kThreadRows * m) * weightStride(kCols) + lane.col +
              kThreadCols * n] = s[m][n];
}

/// The output rows and lse of this thread's rows, once every key is folded.
template <int kRM, int kGroups>
__device__ __forceinline__ void
writeRows(const Problem &p, const ForwardOutputs &o, const BlockTile &tile,
          SoftmaxState (&state)[kRM], const float4 (&acc)[kRM][kGroups],
          Lane lane) {
#pragma unroll
  for (int m = 0; m < kRM; ++m) {
    state[m].sum = acrossRow(state[m].sum, cuda::Sum());
    int r = lane.row + kThreadRows * m;
    if (r >= tile.count)
      continue;
    int64_t i = tile.start + r;
    if (o.lse && lane.col == 0)
      o.lse[rowIndex(p, tile.b, tile.h, i)] = logSumExp(state[m]);
    storeRow(o.out.at(tile.b, tile.h, i), acc, m, outputFactor(state[m], p.sk),
             p.dv, lane);
  }
}

template <int kHeadDim>
__device__ __forceinline__ void attend(const Problem &p,
                                       const ForwardOutputs &o) {
  constexpr TileShape kTile = forwardTile(kHeadDim);
  constexpr int kRM = kTile.rows / kThreadRows, kRN = kTile.cols / kThreadCols;
  constexpr int kGroups = kColumnGroups<kHeadDim>;
  constexpr ForwardLayout kLayout = forwardLayout(kHeadDim);
  float *shared = sharedFloats();
  float *queries = shared + kLayout.queries, *keys = shared + kLayout.keys;
  float *values = shared + kLayout.values, *weights = shared + kLayout.weights;
  Lane lane = laneOf();
  BlockTile tile = blockTile(p, p.sq, kTile.rows);
  Dropout dropout = dropoutOf(p);

  loadTile<kTile.rows, kHeadDim>(queries, p.q.at(tile.b, tile.h, tile.start),
                                 p.q.row, tile.count, p.dk);
  SoftmaxState state[kRM];
#pragma unroll
  for (int m = 0; m < kRM; ++m)
    state[m] = emptySoftmax();
  float4 acc[kRM][kGroups];
  clear(acc);
  int64_t end = keyEnd(p, tile.start, tile.count);
  for (int64_t j0 = 0; j0 < end; j0 += kTile.cols) {
    int count = static_cast<int>(end - j0 < kTile.cols ? end - j0 : kTile.cols);
    // The previous tile's products are done with the keys, values and
    // weights.
    __syncthreads();
    loadKeysAndValues<kTile.cols, kHeadDim>(keys, values, p, tile.b, tile.h, j0,
                                            count);
    __syncthreads();
    float s[kRM][kRN];
    rowProducts<kRM, kRN, kHeadDim>(s, queries, keys, p.dk, lane);
    maskScores(p, tile, j0, end, s, lane);
    foldTile(p, dropout, tile, j0, s, state, acc, lane);
    storeWeights<kRM, kRN, kTile.cols>(weights, s, lane);
    __syncthreads();
    addWeightedRows<kRM, kTile.cols, kHeadDim>(acc, weights, values, count,
                                               lane);
  }
  writeRows(p, o, tile, state, acc, lane);
}

} // namespace

#define TF_ATTENTION_FORWARD(headDim)                                          \
  extern "C" __global__ void __launch_bounds__(kThreads, 1)                    \
      tf_attention_forward_d##headDim(Problem p, ForwardOutputs o) {           \
    attend<headDim>(p, o);                                                     \
  }

TF_ATTENTION_FORWARD(32)
TF_ATTENTION_FORWARD(64)
TF_ATTENTION_FORWARD(128)
TF_ATTENTION_FORWARD(256)
