//===- attention_backward.cu - Fused attention, backward ------------------===//
//
// The gradients of out = (P ∘ M / (1 - rate)) v, P = softmax(scale · q kᵀ,
// masked) and M the dropout mask, recomputing P tile by tile from the lse
// the forward kept and M from the dropout key (shared/OnlineSoftmax.h has
// the per-score rule). Three kernels, no atomics, so that every bit of the
// result is the same from run to run:
//
//   tf_attention_backward_rows   one thread per query row: D = dout · out
//                                into the scratch; for a coarse row (large
//                                |lse|) the residual of its lse instead,
//                                from its maximum and sum recomputed.
//   tf_attention_backward_kv_d*  one block per tile of keys: walks every
//                                tile of query rows that sees them,
//                                recomputes P and dP = dout vᵀ transposed
//                                (keys × queries), and accumulates
//                                dv += (M P)ᵀ dout and dk += dSᵀ q.
//   tf_attention_backward_q_d*   one block per tile of query rows: walks
//                                the keys like the forward and accumulates
//                                dq += dS k.
//
// Both tile kernels compute the scores with the forward's products, in the
// same order, so P matches the lse the forward wrote. Each gradient element
// is written once, by the block that owns its row.
//===----------------------------------------------------------------------===//
#include "attention_tiles.cuh"

using namespace transfuse::rt;
using namespace transfuse::rt::attn;

namespace {

/// The maximum and sum of the masked scores of query row i of pair (b, h)
/// over all its keys, with the scores computed as the tile kernels compute
/// them (one fused multiply-add per term, in the order of d).
__device__ __forceinline__ SoftmaxState rowSoftmax(const Problem &p, int64_t b,
                                                   int64_t h, int64_t i) {
  const float *query = p.q.at(b, h, i);
  SoftmaxState state = emptySoftmax();
  for (int64_t j = 0; j < p.sk; ++j) {
    const float *key = p.k.at(b, h, j);
    float dot = 0.0f;
    for (int64_t d = 0; d < p.dk; ++d)
      dot = fmaf(query[d], key[d], dot);
    float x = maskedScore(p, b, h, i, j, dot).value;
    raiseMaximum(state, x);
    state.sum += softmaxWeight(x, state.maximum);
  }
  return state;
}

/// The scratch of every query row (attention_tiles.cuh, stageRowStats), one
/// thread per row. D is summed in the order dP = dout · v is, so that where
/// out is one value row, dP - D is exactly 0. A coarse row's residual takes
/// a pass over all its keys; such rows (hidden entirely by a finite fill, or
/// with scores in the thousands) are rare.
__device__ __forceinline__ void prepareRows(const Problem &p,
                                            const BackwardOperands &g) {
  // The host keeps batch · heads · sq below 2^31: 32-bit division (inline,
  // unlike 64-bit) decodes the row.
  unsigned row = blockIdx.x * kThreads + threadIdx.x;
  if (row >= p.batch * p.heads * p.sq)
    return;
  unsigned sq = static_cast<unsigned>(p.sq);
  unsigned heads = static_cast<unsigned>(p.heads);
  unsigned i = row % sq, pair = row / sq, b = pair / heads, h = pair % heads;
  float lse = g.lse[row], value = 0.0f;
  RowKind kind = rowKind(lse);
  if (kind == RowKind::Ordinary)
    value = rowDot(g.gradOut.at(b, h, i), g.out.at(b, h, i), p.dv);
  if (kind == RowKind::Coarse)
    value = lseResidual(rowSoftmax(p, b, h, i), lse);
  g.scratch[row] = value;
}

/// dk and dv of a tile of keys.
template <int kHeadDim>
__device__ __forceinline__ void keyGradients(const Problem &p,
                                             const BackwardOperands &g) {
  constexpr TileShape kTile = keyGradTile(kHeadDim);
  constexpr int kRM = kTile.rows / kThreadRows, kRN = kTile.cols / kThreadCols;
  constexpr int kGroups = kColumnGroups<kHeadDim>;
  constexpr KeyGradLayout kLayout = keyGradLayout(kHeadDim);
  float *shared = sharedFloats();
  float *keys = shared + kLayout.keys, *values = shared + kLayout.values;
  float *queries = shared + kLayout.queries;
  float *gradOuts = shared + kLayout.gradOuts;
  float *weights = shared + kLayout.weights;
  float *gradScores = shared + kLayout.gradScores;
  float *stats = shared + kLayout.rowStats;
  RowStats rowStats{stats, stats + kTile.cols, stats + 2 * kTile.cols};
  Lane lane = laneOf();
  BlockTile tile = blockTile(p, p.sk, kTile.rows);
  Dropout dropout = dropoutOf(p);

  loadTile<kTile.rows, kHeadDim>(keys, p.k.at(tile.b, tile.h, tile.start),
                                 p.k.row, tile.count, p.dk);
  loadTile<kTile.rows, kHeadDim>(values, p.v.at(tile.b, tile.h, tile.start),
                                 p.v.row, tile.count, p.dv);
  float4 gradK[kRM][kGroups], gradV[kRM][kGroups];
  clear(gradK);
  clear(gradV);
  for (int64_t i0 = queryStart(p, tile.start, kTile.cols); i0 < p.sq;
       i0 += kTile.cols) {
    int count =
        static_cast<int>(p.sq - i0 < kTile.cols ? p.sq - i0 : kTile.cols);
    // The previous tile's products are done with the query tiles, the
    // weights and the row statistics.
    __syncthreads();
    loadTile<kTile.cols, kHeadDim>(queries, p.q.at(tile.b, tile.h, i0), p.q.row,
                                   count, p.dk);
    loadTile<kTile.cols, kHeadDim>(gradOuts, g.gradOut.at(tile.b, tile.h, i0),
                                   g.gradOut.row, count, p.dv);
    stageRowStats(p, g, tile.b, tile.h, i0, count, kTile.cols, stats);
    __syncthreads();
    float s[kRM][kRN], gradP[kRM][kRN];
    rowProducts<kRM, kRN, kHeadDim>(s, keys, queries, p.dk, lane);
    rowProducts<kRM, kRN, kHeadDim>(gradP, values, gradOuts, p.dv, lane);
#pragma unroll
    for (int m = 0; m < kRM; ++m) {
      int r = lane.row + kThreadRows * m;
#pragma unroll
      for (int n = 0; n < kRN; ++n) {
        int c = lane.col + kThreadCols * n;
        ScoreGradients x{0.0f, 0.0f};
        if (r < tile.count && c < count)
          x = scoreGradientsAt(p, dropout, tile.b, tile.h, i0 + c,
                               tile.start + r, s[m][n], gradP[m][n], rowStats,
                               c);
        weights[r * weightStride(kTile.cols) + c] = x.weight;
        gradScores[r * weightStride(kTile.cols) + c] = x.score;
      }
    }
    __syncthreads();
    addWeightedRows<kRM, kTile.cols, kHeadDim>(gradV, weights, gradOuts, count,
                                               lane);
    addWeightedRows<kRM, kTile.cols, kHeadDim>(gradK, gradScores, queries,
                                               count, lane);
  }
  storeRows(g.gradK, gradK, tile, p.dk, lane);
  storeRows(g.gradV, gradV, tile, p.dv, lane);
}

/// dq of a tile of query rows.
template <int kHeadDim>
__device__ __forceinline__ void queryGradients(const Problem &p,
                                               const BackwardOperands &g) {
  constexpr TileShape kTile = queryGradTile(kHeadDim);
  constexpr int kRM = kTile.rows / kThreadRows, kRN = kTile.cols / kThreadCols;
  constexpr int kGroups = kColumnGroups<kHeadDim>;
  constexpr QueryGradLayout kLayout = queryGradLayout(kHeadDim);
  float *shared = sharedFloats();
  float *queries = shared + kLayout.queries;
  float *gradOuts = shared + kLayout.gradOuts;
  float *keys = shared + kLayout.keys, *values = shared + kLayout.values;
  float *gradScores = shared + kLayout.gradScores;
  float *stats = shared + kLayout.rowStats;
  RowStats rowStats{stats, stats + kTile.rows, stats + 2 * kTile.rows};
  Lane lane = laneOf();
  BlockTile tile = blockTile(p, p.sq, kTile.rows);
  Dropout dropout = dropoutOf(p);

  loadTile<kTile.rows, kHeadDim>(queries, p.q.at(tile.b, tile.h, tile.start),
                                 p.q.row, tile.count, p.dk);
  loadTile<kTile.rows, kHeadDim>(gradOuts,
                                 g.gradOut.at(tile.b, tile.h, tile.start),
                                 g.gradOut.row, tile.count, p.dv);
  stageRowStats(p, g, tile.b, tile.h, tile.start, tile.count, kTile.rows,
                stats);
  float4 gradQ[kRM][kGroups];
  clear(gradQ);
  int64_t end = keyEnd(p, tile.start, tile.count);
  for (int64_t j0 = 0; j0 < end; j0 += kTile.cols) {
    int count = static_cast<int>(end - j0 < kTile.cols ? end - j0 : kTile.cols);
    // The previous tile's product is done with the keys and dS (and, the
    // first time, the query tiles and row statistics are in place).
    __syncthreads();
    loadKeysAndValues<kTile.cols, kHeadDim>(keys, values, p, tile.b, tile.h, j0,
                                            count);
    __syncthreads();
    float s[kRM][kRN], gradP[kRM][kRN];
    rowProducts<kRM, kRN, kHeadDim>(s, queries, keys, p.dk, lane);
    rowProducts<kRM, kRN, kHeadDim>(gradP, gradOuts, values, p.dv, lane);
#pragma unroll
    for (int m = 0; m < kRM; ++m) {
      int r = lane.row + kThreadRows * m;
#pragma unroll
      for (int n = 0; n < kRN; ++n) {
        int c = lane.col + kThreadCols * n;
        float score = 0.0f;
        if (r < tile.count && c < count)
          score = scoreGradientsAt(p, dropout, tile.b, tile.h, tile.start + r,
                                   j0 + c, s[m][n], gradP[m][n], rowStats, r)
                      .score;
        gradScores[r * weightStride(kTile.cols) + c] = score;
      }
    }
    __syncthreads();
    addWeightedRows<kRM, kTile.cols, kHeadDim>(gradQ, gradScores, keys, count,
                                               lane);
  }
  storeRows(g.gradQ, gradQ, tile, p.dk, lane);
}

} // namespace

extern "C" __global__ void __launch_bounds__(kThreads, 1)
    tf_attention_backward_rows(Problem p, BackwardOperands g) {
  prepareRows(p, g);
}

#define TF_ATTENTION_BACKWARD(headDim)                                         \
  extern "C" __global__ void __launch_bounds__(kThreads, 1)                    \
      tf_attention_backward_kv_d##headDim(Problem p, BackwardOperands g) {     \
    keyGradients<headDim>(p, g);                                               \
  }                                                                            \
  extern "C" __global__ void __launch_bounds__(kThreads, 1)                    \
      tf_attention_backward_q_d##headDim(Problem p, BackwardOperands g) {      \
    queryGradients<headDim>(p, g);                                             \
  }

TF_ATTENTION_BACKWARD(32)
TF_ATTENTION_BACKWARD(64)
TF_ATTENTION_BACKWARD(128)
TF_ATTENTION_BACKWARD(256)
