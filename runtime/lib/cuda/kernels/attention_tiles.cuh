//===- attention_tiles.cuh - What the attention kernels are built of -----===//
//
// The pieces the forward (attention_forward.cu) and the backward
// (attention_backward.cu) share, on the thread grid and the tiles of
// shared/AttentionTiling.h: loading tiles of rows into shared memory, the
// two register-tiled products (scores of two tiles of rows, and a tile of
// weights times a tile of rows), reductions across the lanes that share a
// row, and the backward's per-row statistics and per-score gradients.
//
// Tiles are zero beyond the rows and columns they hold, and weights are
// zero beyond the scores that exist, so every product may run over whole
// groups of 4 and add nothing from there. Every function is called by all
// threads of the block unless it says otherwise; none synchronises the
// block itself: the kernels do, around the loads.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_KERNELS_ATTENTION_TILES_CUH
#define TRANSFUSE_RUNTIME_LIB_CUDA_KERNELS_ATTENTION_TILES_CUH

#include "reduce.cuh"
#include "shared/AttentionTiling.h"
#include "shared/OnlineSoftmax.h"

#include <cstdint>

namespace transfuse::rt::attn {

using cuda::shuffleXor;

/// Output columns of a thread per row: float4 groups of kThreadCols lanes.
template <int kHeadDim> constexpr int kColumnGroups = kHeadDim / 32;
static_assert(kThreadCols * 4 == 32, "a lane group covers 32 columns");

/// This thread's place in the kThreadRows × kThreadCols grid.
struct Lane {
  int row, col;
};

__device__ __forceinline__ Lane laneOf() {
  return {static_cast<int>(threadIdx.x) / kThreadCols,
          static_cast<int>(threadIdx.x) % kThreadCols};
}

/// The block's dynamic shared memory, 16-byte aligned.
__device__ __forceinline__ float *sharedFloats() {
  extern __shared__ float4 attentionShared[];
  return reinterpret_cast<float *>(attentionShared);
}

/// The block's work item: pair (b, h) and the first row `start` of the tile
/// of `tileRows` rows it owns, from blockIdx.x = pair · tiles + tile over
/// `length` rows.
struct BlockTile {
  int64_t b, h, start;
  int count; // rows of the tile that exist
};

__device__ __forceinline__ BlockTile blockTile(const Problem &p, int64_t length,
                                               int tileRows) {
  // The host keeps batch · heads · length below 2^31, so 32-bit division
  // (inline, unlike 64-bit) decodes the index.
  unsigned tiles = static_cast<unsigned>(ceilDiv(length, tileRows));
  unsigned pair = blockIdx.x / tiles, heads = static_cast<unsigned>(p.heads);
  int64_t start = static_cast<int64_t>(blockIdx.x % tiles) * tileRows;
  int64_t left = length - start;
  return {pair / heads, pair % heads, start,
          static_cast<int>(left < tileRows ? left : tileRows)};
}

/// Copies `count` rows of `width` floats, `stride` apart from `first`, into
/// a tile of kRows rows of kHeadDim (operandStride apart), zero past count
/// and width. Global reads are coalesced along the rows.
template <int kRows, int kHeadDim>
__device__ __forceinline__ void
loadTile(float *tile, const float *__restrict__ first, int64_t stride,
         int count, int64_t width) {
  constexpr int kElements = kRows * kHeadDim;
  static_assert(kElements % kThreads == 0, "every thread loads as many");
#pragma unroll 8
  for (int step = 0; step < kElements / kThreads; ++step) {
    int e = step * kThreads + static_cast<int>(threadIdx.x);
    int r = e / kHeadDim, c = e % kHeadDim;
    tile[r * operandStride(kHeadDim) + c] =
        r < count && c < width ? first[r * stride + c] : 0.0f;
  }
}

/// The keys and values of pair (b, h)'s `count` rows from j0 into the tiles
/// `keys` and `values` of kRows rows: the stream a query tile is taken past.
template <int kRows, int kHeadDim>
__device__ __forceinline__ void
loadKeysAndValues(float *keys, float *values, const Problem &p, int64_t b,
                  int64_t h, int64_t j0, int count) {
  loadTile<kRows, kHeadDim>(keys, p.k.at(b, h, j0), p.k.row, count, p.dk);
  loadTile<kRows, kHeadDim>(values, p.v.at(b, h, j0), p.v.row, count, p.dv);
}

/// s[m][n] = Σ_d a[lane.row + kThreadRows·m][d] · b[lane.col +
/// kThreadCols·n][d] over d < depth (rounded up to 4), for two tiles of rows
/// of kHeadDim: this thread's scores of the rows of `a` against those of
/// `b`. The sum runs in the order of d, one fused multiply-add per term.
template <int kRM, int kRN, int kHeadDim>
__device__ __forceinline__ void rowProducts(float (&s)[kRM][kRN],
                                            const float *a, const float *b,
                                            int64_t depth, Lane lane) {
  constexpr int kStride = operandStride(kHeadDim);
  const float *aRows = a + lane.row * kStride, *bRows = b + lane.col * kStride;
#pragma unroll
  for (int m = 0; m < kRM; ++m)
#pragma unroll
    for (int n = 0; n < kRN; ++n)
      s[m][n] = 0.0f;
  for (int d = 0; d < depth; d += 4) {
    float4 x[kRM], y[kRN];
#pragma unroll
    for (int m = 0; m < kRM; ++m)
      x[m] = *reinterpret_cast<const float4 *>(aRows +
                                               m * kThreadRows * kStride + d);
#pragma unroll
    for (int n = 0; n < kRN; ++n)
      y[n] = *reinterpret_cast<const float4 *>(bRows +
                                               n * kThreadCols * kStride + d);
#pragma unroll
    for (int m = 0; m < kRM; ++m)
#pragma unroll
      for (int n = 0; n < kRN; ++n) {
        s[m][n] = fmaf(x[m].x, y[n].x, s[m][n]);
        s[m][n] = fmaf(x[m].y, y[n].y, s[m][n]);
        s[m][n] = fmaf(x[m].z, y[n].z, s[m][n]);
        s[m][n] = fmaf(x[m].w, y[n].w, s[m][n]);
      }
  }
}

/// acc += weight · row, four columns at once.
__device__ __forceinline__ void addScaled(float4 &acc, float weight,
                                          float4 row) {
  acc.x = fmaf(weight, row.x, acc.x);
  acc.y = fmaf(weight, row.y, acc.y);
  acc.z = fmaf(weight, row.z, acc.z);
  acc.w = fmaf(weight, row.w, acc.w);
}

/// acc[m][g] += Σ_j w[lane.row + kThreadRows·m][j] · t[j][this thread's
/// columns of group g] over j < count (rounded up to 4): this thread's part
/// of a tile of weights (kCols wide) times a tile of kCols rows of
/// kHeadDim.
template <int kRM, int kCols, int kHeadDim>
__device__ __forceinline__ void
addWeightedRows(float4 (&acc)[kRM][kColumnGroups<kHeadDim>], const float *w,
                const float *t, int count, Lane lane) {
  constexpr int kWeightStride = weightStride(kCols);
  constexpr int kStride = operandStride(kHeadDim);
  const float *wRows = w + lane.row * kWeightStride;
  const float *columns = t + 4 * lane.col;
  for (int j = 0; j < count; j += 4) {
    float4 weights[kRM];
#pragma unroll
    for (int m = 0; m < kRM; ++m)
      weights[m] = *reinterpret_cast<const float4 *>(
          wRows + m * kThreadRows * kWeightStride + j);
#pragma unroll
    for (int g = 0; g < kColumnGroups<kHeadDim>; ++g) {
      const float *column = columns + j * kStride + 4 * kThreadCols * g;
      float4 row0 = *reinterpret_cast<const float4 *>(column);
      float4 row1 = *reinterpret_cast<const float4 *>(column + kStride);
      float4 row2 = *reinterpret_cast<const float4 *>(column + 2 * kStride);
      float4 row3 = *reinterpret_cast<const float4 *>(column + 3 * kStride);
#pragma unroll
      for (int m = 0; m < kRM; ++m) {
        addScaled(acc[m][g], weights[m].x, row0);
        addScaled(acc[m][g], weights[m].y, row1);
        addScaled(acc[m][g], weights[m].z, row2);
        addScaled(acc[m][g], weights[m].w, row3);
      }
    }
  }
}

/// Zeroes accumulators.
template <int kRM, int kGroups>
__device__ __forceinline__ void clear(float4 (&acc)[kRM][kGroups]) {
#pragma unroll
  for (int m = 0; m < kRM; ++m)
#pragma unroll
    for (int g = 0; g < kGroups; ++g)
      acc[m][g] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

/// Writes row m of this thread's accumulators, times `factor`, to `row`:
/// the columns below `width`.
template <int kRM, int kGroups>
__device__ __forceinline__ void
storeRow(float *row, const float4 (&acc)[kRM][kGroups], int m, float factor,
         int64_t width, Lane lane) {
#pragma unroll
  for (int g = 0; g < kGroups; ++g) {
    int64_t c = 4 * (lane.col + kThreadCols * g);
    const float4 &x = acc[m][g];
    if (c < width)
      row[c] = x.x * factor;
    if (c + 1 < width)
      row[c + 1] = x.y * factor;
    if (c + 2 < width)
      row[c + 2] = x.z * factor;
    if (c + 3 < width)
      row[c + 3] = x.w * factor;
  }
}

/// Writes this thread's accumulators of rows [start, start + count) of
/// pair (b, h) of `result`, columns below `width`.
template <int kRM, int kGroups>
__device__ __forceinline__ void
storeRows(Result result, const float4 (&acc)[kRM][kGroups],
          const BlockTile &tile, int64_t width, Lane lane) {
#pragma unroll
  for (int m = 0; m < kRM; ++m) {
    int r = lane.row + kThreadRows * m;
    if (r < tile.count)
      storeRow(result.at(tile.b, tile.h, tile.start + r), acc, m, 1.0f, width,
               lane);
  }
}

/// `value` combined over the kThreadCols lanes that share a row, in each of
/// them. Every lane of the warp must call it.
template <typename Op>
__device__ __forceinline__ float acrossRow(float value, Op op) {
#pragma unroll
  for (int mask = kThreadCols / 2; mask > 0; mask /= 2)
    value = op(value, shuffleXor(value, mask));
  return value;
}

/// What the backward needs of each query row of a tile of `rows`: its lse,
/// residual and D, in three arrays of `rows` floats.
struct RowStats {
  const float *lse, *residual, *delta;
};

/// dout · out of one row, by one thread, summed as rowProducts sums.
__device__ __forceinline__ float rowDot(const float *__restrict__ gradOut,
                                        const float *__restrict__ out,
                                        int64_t width) {
  float sum = 0.0f;
  for (int64_t d = 0; d < width; ++d)
    sum = fmaf(gradOut[d], out[d], sum);
  return sum;
}

/// Fills `stats` (3 · rows floats) for query rows [i0, i0 + count) of pair
/// (b, h) from the lse and the scratch of the backward's first kernel (D of
/// an ordinary row, the residual of a coarse one, whose D is taken here).
/// Rows past count are dead.
__device__ __forceinline__ void
stageRowStats(const Problem &p, const BackwardOperands &g, int64_t b, int64_t h,
              int64_t i0, int count, int rows, float *stats) {
  for (int r = threadIdx.x; r < rows; r += kThreads) {
    float lse = -INFINITY, residual = 0.0f, delta = 0.0f;
    if (r < count) {
      int64_t row = rowIndex(p, b, h, i0 + r);
      lse = g.lse[row];
      RowKind kind = rowKind(lse);
      if (kind == RowKind::Ordinary)
        delta = g.scratch[row];
      if (kind == RowKind::Coarse) {
        residual = g.scratch[row];
        delta =
            rowDot(g.gradOut.at(b, h, i0 + r), g.out.at(b, h, i0 + r), p.dv);
      }
    }
    stats[r] = lse;
    stats[rows + r] = residual;
    stats[2 * rows + r] = delta;
  }
}

/// The gradients of score (i, j), whose q_i · k_j is `dot` and dout_i · v_j
/// `gradDot`, in a row with `stats` at `r`: dropped P for dv and dS.
__device__ __forceinline__ ScoreGradients scoreGradientsAt(
    const Problem &p, Dropout dropout, int64_t b, int64_t h, int64_t i,
    int64_t j, float dot, float gradDot, RowStats stats, int r) {
  MaskedScore x = maskedScore(p, b, h, i, j, dot);
  float probability = rowProbability(x.value, stats.lse[r], stats.residual[r]);
  return scoreGradients(probability, gradDot, stats.delta[r], p.scale,
                        keeps(p, dropout, b, h, i, j), p.keepScale, x.hidden);
}

} // namespace transfuse::rt::attn

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_KERNELS_ATTENTION_TILES_CUH
