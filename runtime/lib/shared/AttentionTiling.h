//===- AttentionTiling.h - The CUDA attention's arguments -------*- C++ -*-===//
//
// What the host side of the CUDA attention kernels (cuda/Attention.cpp)
// and the kernels (cuda/kernels/attention_*.cu) agree on: the arguments,
// passed to every kernel by value as one struct of the same layout on both
// sides; the masking, dropout-index and key-range rules of the CPU kernels
// (runtime/lib/AttentionTiles.h); and the kernels' tiles and shared-memory
// layouts, from which the host takes the launch shapes.
//
// Every kernel runs kThreads threads as a kThreadRows × kThreadCols grid.
// A kernel owns a tile of `rows` rows of one operand (queries, or keys for
// the dk/dv kernel) and streams tiles of `cols` rows of the other past it;
// the thread at (r, c) of the grid computes the scores of rows
// r + kThreadRows·m against streamed rows c + kThreadCols·n, and the output
// columns 4·(c + kThreadCols·g) .. +3 of its rows.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_ATTENTIONTILING_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_ATTENTIONTILING_H

#include "HostDevice.h"
#include "Philox.h"

#include <cmath>
#include <cstdint>

namespace transfuse::rt::attn {

/// A [batch, heads, seq, dim] tensor: its first element and its strides in
/// elements over the first three dims; the last dim is dense.
template <typename T> struct Strided {
  T *data;
  int64_t batch, head, row;

  TF_HOST_DEVICE T *at(int64_t b, int64_t h, int64_t i) const {
    return data + b * batch + h * head + i * row;
  }
};
using Operand = Strided<const float>;
using Result = Strided<float>;

enum MaskKind : int32_t { kNoMask = 0, kByteMask = 1, kFloatMask = 2 };

/// The inputs of both directions, as the C arguments give them.
struct Problem {
  int64_t batch, heads, sq, sk, dk, dv;
  Operand q, k, v;
  /// Broadcast to [batch, heads, sq, sk] through maskStrides (0 repeats).
  const void *mask;
  int64_t maskStrides[4];
  int32_t maskKind, causal;
  float scale;
  /// What a hidden score becomes (-inf when the op had no fill).
  float fill;
  /// The dropout rate, the factor of a kept probability (1 / (1 - rate),
  /// 0 at rate 1), the device address of the 64-bit key (read only when
  /// dropout > 0), the stream of the dropout site and the number of this
  /// replica's first element (dropoutSite in Philox.h).
  float dropout, keepScale;
  const uint64_t *dropoutKey;
  uint64_t dropoutStream, dropoutFirst;
};

/// What the forward writes.
struct ForwardOutputs {
  Result out;
  /// [batch, heads, sq] dense, or null.
  float *lse;
};

/// What the backward reads besides the problem, and writes.
struct BackwardOperands {
  Operand out, gradOut;
  /// [batch, heads, sq] dense, as the forward wrote it.
  const float *lse;
  /// [batch, heads, sq] dense, one float per query row (cuda/Attention.cpp).
  float *scratch;
  Result gradQ, gradK, gradV;
};

/// Query row i's entry of a [batch, heads, sq] dense array.
TF_HOST_DEVICE int64_t rowIndex(const Problem &p, int64_t b, int64_t h,
                                int64_t i) {
  return (b * p.heads + h) * p.sq + i;
}

/// The element of the [batch, heads, sq, sk] probabilities that dropout
/// draws for score (i, j): the mask is of the probabilities, whatever the
/// layouts of the operands.
TF_HOST_DEVICE uint64_t dropoutElement(const Problem &p, int64_t b, int64_t h,
                                       int64_t i, int64_t j) {
  return p.dropoutFirst +
         static_cast<uint64_t>(rowIndex(p, b, h, i)) *
             static_cast<uint64_t>(p.sk) +
         static_cast<uint64_t>(j);
}

/// The dropout of a kernel: whether it drops anything, and its key.
struct Dropout {
  bool active;
  uint64_t key;
};

TF_HOST_DEVICE Dropout dropoutOf(const Problem &p) {
  if (!(p.dropout > 0.0f))
    return {false, 0};
  return {true, *p.dropoutKey};
}

/// Whether dropout keeps the probability of score (i, j); always without
/// dropout.
TF_HOST_DEVICE bool keeps(const Problem &p, Dropout dropout, int64_t b,
                          int64_t h, int64_t i, int64_t j) {
  return !dropout.active ||
         dropoutKeeps(dropout.key, p.dropoutStream,
                      dropoutElement(p, b, h, i, j), p.dropout);
}

/// A score after masking, and whether key j was hidden from query i.
struct MaskedScore {
  float value;
  bool hidden;
};

/// Score (i, j) from the dot product q_i · k_j: scaled, the fill where the
/// causal rule or the byte mask hides the key, then the float mask added.
TF_HOST_DEVICE MaskedScore maskedScore(const Problem &p, int64_t b, int64_t h,
                                       int64_t i, int64_t j, float dot) {
  const int64_t *s = p.maskStrides;
  int64_t at = b * s[0] + h * s[1] + i * s[2] + j * s[3];
  bool hidden =
      (p.causal && j > i) ||
      (p.maskKind == kByteMask && static_cast<const uint8_t *>(p.mask)[at]);
  float value = hidden ? p.fill : dot * p.scale;
  if (p.maskKind == kFloatMask)
    value += static_cast<const float *>(p.mask)[at];
  return {value, hidden};
}

/// Whether the keys after a query's own are hidden by -inf: they then weigh
/// nothing in either direction and the kernels skip them.
TF_HOST_DEVICE bool skipsFutureKeys(const Problem &p) {
  return p.causal && p.fill == -INFINITY;
}

/// The keys that query rows [i0, i0 + rows) visit: keys from this one on
/// are hidden by -inf from all of them.
TF_HOST_DEVICE int64_t keyEnd(const Problem &p, int64_t i0, int64_t rows) {
  if (!skipsFutureKeys(p))
    return p.sk;
  return i0 + rows < p.sk ? i0 + rows : p.sk;
}

/// The first row of the first tile of `tileRows` query rows that sees any
/// key from j0 on: the tiles before it see those keys hidden by -inf.
TF_HOST_DEVICE int64_t queryStart(const Problem &p, int64_t j0,
                                  int64_t tileRows) {
  return skipsFutureKeys(p) ? j0 / tileRows * tileRows : 0;
}

TF_HOST_DEVICE int64_t ceilDiv(int64_t n, int64_t d) { return (n + d - 1) / d; }

constexpr int kThreads = 128;
constexpr int kThreadRows = 16;
/// The lanes that share a row: consecutive lanes of one warp.
constexpr int kThreadCols = kThreads / kThreadRows;
/// The widest head the kernels take (dk and dv).
constexpr int kMaxHeadDim = 256;

/// The head width a kernel is instantiated for: the smallest of 32, 64,
/// 128 and 256 that holds dk and dv; 0 beyond kMaxHeadDim.
TF_HOST_DEVICE constexpr int headDimBucket(int64_t dk, int64_t dv) {
  int64_t width = dk > dv ? dk : dv;
  for (int bucket = 32; bucket <= kMaxHeadDim; bucket *= 2)
    if (width <= bucket)
      return bucket;
  return 0;
}

/// A kernel's tile: `rows` rows of the operand it owns, `cols` rows of the
/// one it streams.
struct TileShape {
  int rows, cols;
};

/// Query rows × keys of the forward. Wider heads take fewer rows so that
/// each thread's accumulators (rows / kThreadRows × headDim / kThreadCols
/// floats) stay in registers.
TF_HOST_DEVICE constexpr TileShape forwardTile(int headDim) {
  return headDim <= 64    ? TileShape{64, 64}
         : headDim <= 128 ? TileShape{64, 32}
                          : TileShape{32, 32};
}

/// Keys × query rows of the kernel that accumulates dk and dv, which holds
/// two sets of accumulators.
TF_HOST_DEVICE constexpr TileShape keyGradTile(int headDim) {
  return headDim <= 64    ? TileShape{64, 64}
         : headDim <= 128 ? TileShape{32, 64}
                          : TileShape{16, 32};
}

/// Query rows × keys of the kernel that accumulates dq.
TF_HOST_DEVICE constexpr TileShape queryGradTile(int headDim) {
  return forwardTile(headDim);
}

/// Floats between the rows of an operand tile in shared memory. The 4
/// extra make the stride 16 bytes more than a multiple of 128, so that the
/// 16-byte loads of 8 lanes from 8 different rows hit different banks.
TF_HOST_DEVICE constexpr int operandStride(int headDim) { return headDim + 4; }

/// Floats between the rows of a tile of weights (probabilities, dS) with
/// `cols` columns. The 8 extra spread the stores of a warp's 4 thread rows
/// × 8 columns over all 32 banks.
TF_HOST_DEVICE constexpr int weightStride(int cols) { return cols + 8; }

/// Where the forward's tiles lie in its shared memory, in floats.
struct ForwardLayout {
  int queries, keys, values, weights, total;
};

TF_HOST_DEVICE constexpr ForwardLayout forwardLayout(int headDim) {
  TileShape t = forwardTile(headDim);
  int operand = operandStride(headDim);
  int keys = t.rows * operand, values = keys + t.cols * operand;
  int weights = values + t.cols * operand;
  return {0, keys, values, weights, weights + t.rows * weightStride(t.cols)};
}

/// Where the dk/dv kernel's tiles lie: its keys and values, the streamed
/// queries and gradOut rows, the transposed dropped probabilities and dS
/// (keys × queries), and three floats per streamed query row (lse,
/// residual, D).
struct KeyGradLayout {
  int keys, values, queries, gradOuts, weights, gradScores, rowStats, total;
};

TF_HOST_DEVICE constexpr KeyGradLayout keyGradLayout(int headDim) {
  TileShape t = keyGradTile(headDim);
  int operand = operandStride(headDim), weight = t.rows * weightStride(t.cols);
  int values = t.rows * operand, queries = values + t.rows * operand;
  int gradOuts = queries + t.cols * operand;
  int weights = gradOuts + t.cols * operand, gradScores = weights + weight;
  int rowStats = gradScores + weight;
  return {0,       values,     queries,  gradOuts,
          weights, gradScores, rowStats, rowStats + 3 * t.cols};
}

/// Where the dq kernel's tiles lie: its queries and gradOut rows, the
/// streamed keys and values, dS (queries × keys), and three floats per
/// query row.
struct QueryGradLayout {
  int queries, gradOuts, keys, values, gradScores, rowStats, total;
};

TF_HOST_DEVICE constexpr QueryGradLayout queryGradLayout(int headDim) {
  TileShape t = queryGradTile(headDim);
  int operand = operandStride(headDim);
  int gradOuts = t.rows * operand, keys = gradOuts + t.rows * operand;
  int values = keys + t.cols * operand, gradScores = values + t.cols * operand;
  int rowStats = gradScores + t.rows * weightStride(t.cols);
  return {
      0, gradOuts, keys, values, gradScores, rowStats, rowStats + 3 * t.rows};
}

} // namespace transfuse::rt::attn

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_ATTENTIONTILING_H
