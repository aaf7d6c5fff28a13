//===- AttentionTiles.h - What both attention kernels are built of -*- C++ -*-//
//
// The forward (Attention.cpp) and the backward (AttentionBackward.cpp) walk
// the same tiles: kRows query rows against kKeys keys at a time, with kᵀ of
// the (batch, head) pair packed once and the mask of the tile's rows read
// once. This header holds the pieces they share, on 16-float vectors
// (Vectors.h): the softmax's e^x, the problem as the C arguments give it,
// the masked scores of a tile, the online softmax step, the dropout mask of
// a tile, and the two register-tiled products (a tile of weights times rows
// of a matrix, and its transpose).
//
// Everything is inlined into the kernels' per-pair functions, which are
// cloned for AVX-512, AVX2 with FMA and the baseline, so it is compiled for
// each.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_ATTENTIONTILES_H
#define TRANSFUSE_RUNTIME_LIB_ATTENTIONTILES_H

#include "Philox.h"
#include "Runtime.h"
#include "Vectors.h"
#include "shared/Philox.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace transfuse::rt::attention {

/// Query rows per register tile: each packed key vector feeds kRows FMAs.
constexpr int64_t kRows = 8;
/// Keys per step of a tile; a multiple of kLanes.
constexpr int64_t kKeys = 256;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// A [batch, heads, seq, dim] tensor: its first element and its strides in
/// elements over the first three dims; the last dim is dense.
template <typename T> struct Strided {
  T *data;
  int64_t batch, head, row;
  T *at(int64_t b, int64_t h, int64_t i) const {
    return data + b * batch + h * head + i * row;
  }
};
using View = Strided<const float>;
using Out = Strided<float>;

enum MaskKind : int32_t { kNoMask = 0, kByteMask = 1, kFloatMask = 2 };

/// The inputs both directions take, as the C arguments give them.
struct Problem {
  int64_t batch, heads, sq, sk, dk, dv;
  View q, k, v;
  const void *mask;
  int32_t maskKind;
  int64_t maskStrides[4];
  float scale;
  bool causal;
  float fill;
  /// The dropout of the probabilities (Philox.h): the rate, the factor of
  /// a kept probability, 1 / (1 - rate), and the key and stream of the mask.
  /// The stream is the site's and the first element this replica's
  /// (dropoutSite in shared/Philox.h).
  float dropout, keepScale;
  uint64_t dropoutKey, dropoutStream, dropoutFirst;

  /// Whether the causal rule or a byte mask can hide a key.
  bool hidesKeys() const { return causal || maskKind == kByteMask; }
  /// Whether every query row has the same mask (stride 0 over sq).
  bool rowInvariantMask() const { return maskStrides[2] == 0; }
  /// Query row i's entry of a [batch, heads, sq] dense array (the lse).
  int64_t rowIndex(int64_t b, int64_t h, int64_t i) const {
    return (b * heads + h) * sq + i;
  }
};

/// Checks what the generated code passes and aborts naming `kernel` when
/// it is wrong: static shapes make any mistake a compiler bug, and the
/// kernel must not read out of bounds.
inline Problem
makeProblem(const char *kernel, int64_t batch, int64_t heads, int64_t sq,
            int64_t sk, int64_t dk, int64_t dv, const float *q, int64_t q_sb,
            int64_t q_sh, int64_t q_ss, const float *k, int64_t k_sb,
            int64_t k_sh, int64_t k_ss, const float *v, int64_t v_sb,
            int64_t v_sh, int64_t v_ss, const void *mask, int32_t mask_kind,
            int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk, float scale,
            int32_t causal, float mask_fill, float dropout,
            uint64_t dropout_key, int64_t dropout_stream) {
  if (batch < 0 || heads < 0 || sq < 0 || sk < 0 || dk < 0 || dv < 0)
    abortWith(kernel, "negative size");
  if (mask_kind < kNoMask || mask_kind > kFloatMask ||
      (mask_kind != kNoMask && !mask))
    abortWith(kernel, "bad mask");
  if (!(dropout >= 0.0f && dropout <= 1.0f))
    abortWith(kernel, "dropout rate outside [0, 1]");
  DropoutSite site =
      dropoutSite(static_cast<uint64_t>(dropout_stream),
                  static_cast<uint64_t>(batch * heads * sq * sk));
  return {batch,
          heads,
          sq,
          sk,
          dk,
          dv,
          {q, q_sb, q_sh, q_ss},
          {k, k_sb, k_sh, k_ss},
          {v, v_sb, v_sh, v_ss},
          mask,
          mask_kind,
          {m_sb, m_sh, m_sq, m_sk},
          scale,
          causal != 0,
          mask_fill,
          dropout,
          // A rate of 1 keeps nothing: zeros, not 0 · inf.
          dropout < 1.0f ? 1.0f / (1.0f - dropout) : 0.0f,
          dropout_key,
          site.stream,
          site.firstElement};
}

/// Scratch of one thread that both directions use.
struct TileScratch {
  std::vector<float> keysT;    // [dk][roundUp(sk, kLanes)], zero padded
  std::vector<float> scores;   // [kRows][kKeys]
  std::vector<float> bias;     // [kRows][sk]: mask rows, as biases
  std::vector<int32_t> hidden; // [kRows][sk]: -1 where a key is hidden, or 0

  explicit TileScratch(const Problem &p)
      : keysT(p.dk * roundUp(p.sk, kLanes)), scores(kRows * kKeys),
        bias(kRows * p.sk), hidden(kRows * p.sk) {}
};

/// kRows query rows of one pair, starting at i0. Past the end of sq the
/// tile repeats its last row, so every loop can run over all kRows.
struct Tile {
  int64_t b, h, i0, rows;
  const float *query[kRows];

  Tile(const Problem &p, int64_t b, int64_t h, int64_t i0)
      : b(b), h(h), i0(i0), rows(std::min(kRows, p.sq - i0)) {
    rowsOf(p.q, query);
  }
  /// The tile's rows of a [batch, heads, sq, ·] tensor.
  void rowsOf(View t, const float **out) const {
    for (int64_t r = 0; r < kRows; ++r)
      out[r] = t.at(b, h, i0 + std::min(r, rows - 1));
  }
  /// Where row r's mask is in the scratch: row-invariant masks are read
  /// into the first slot only.
  int64_t maskSlot(const Problem &p, int64_t r) const {
    return p.rowInvariantMask() ? 0 : r;
  }
  /// Keys past this are hidden by -inf from every row of the tile.
  int64_t keyEnd(const Problem &p) const {
    bool skipFuture = p.causal && p.fill == kNegInf;
    return skipFuture ? std::min(p.sk, i0 + rows) : p.sk;
  }
  /// Which probabilities of row r against keys [j0, j0 + padded) dropout
  /// keeps, kLanes to a vector of `keep` (-1 in a kept lane; padded a
  /// multiple of kLanes, `keep` room for kKeys / kLanes + 7): the mask is
  /// of the [batch, heads, sq, sk] probabilities, whatever the layouts of
  /// the operands. Where the row's elements start a Philox block (sk a
  /// multiple of 4), 128 come from one philoxLanes2 (64 for a short rest);
  /// otherwise each vector's lanes find their blocks.
  TF_INLINE void kept(const Problem &p, int64_t r, int64_t j0, int64_t padded,
                      v16i *keep) const {
    uint64_t e =
        p.dropoutFirst + ((b * p.heads + h) * p.sq + i0 + r) * p.sk + j0;
    int64_t vectors = padded / kLanes;
    if (e % 4 != 0) {
      for (int64_t v = 0; v < vectors; ++v)
        keep[v] = philoxKeep16(p.dropoutKey, p.dropoutStream, e + v * kLanes,
                               p.dropout);
      return;
    }
    for (int64_t v = 0; v < vectors;) {
      uint64_t first = e + v * kLanes;
      if (vectors - v > 4) {
        philoxKeep128(p.dropoutKey, p.dropoutStream, first, p.dropout,
                      keep + v);
        v += 8;
      } else {
        philoxKeep64(p.dropoutKey, p.dropoutStream, first, p.dropout, keep + v);
        v += 4;
      }
    }
  }
};

/// Packs the rows [0, n) of pair (b, h) of t transposed into
/// packed[d * stride + j], once per pair, so that a tile's dot products
/// load kLanes consecutive keys per vector. The stride is that of all sk
/// keys, whichever n are packed.
TF_INLINE void packTransposed(const Problem &p, View t, int64_t b, int64_t h,
                              int64_t n, int64_t depth, float *packed) {
  // kLanes keys at a time, their rows (in L1 after the first d) read
  // across and each packed line written whole: a key at a time, each of its
  // elements went to another line, `stride` floats apart (a third of a
  // head of 64's forward).
  int64_t stride = roundUp(p.sk, kLanes);
  for (int64_t j0 = 0; j0 < n; j0 += kLanes) {
    int64_t keys = std::min(kLanes, n - j0);
    const float *row[kLanes];
    for (int64_t j = 0; j < keys; ++j)
      row[j] = t.at(b, h, j0 + j);
    for (int64_t d = 0; d < depth; ++d)
      for (int64_t j = 0; j < keys; ++j)
        packed[d * stride + j0 + j] = row[j][d];
  }
}

/// Reads the mask rows of the tile into the scratch.
TF_INLINE void readMasks(const Problem &p, TileScratch &s, const Tile &t) {
  if (p.maskKind == kNoMask)
    return;
  const int64_t *st = p.maskStrides;
  int64_t slots = p.rowInvariantMask() ? 1 : t.rows;
  for (int64_t r = 0; r < slots; ++r) {
    int64_t base = t.b * st[0] + t.h * st[1] + (t.i0 + r) * st[2];
    if (p.maskKind == kByteMask) {
      const auto *m = static_cast<const uint8_t *>(p.mask) + base;
      for (int64_t j = 0; j < p.sk; ++j)
        s.hidden[r * p.sk + j] = m[j * st[3]] != 0 ? -1 : 0;
    } else {
      const float *m = static_cast<const float *>(p.mask) + base;
      for (int64_t j = 0; j < p.sk; ++j)
        s.bias[r * p.sk + j] = m[j * st[3]];
    }
  }
}

/// One past the last key a byte mask leaves visible to some query row of
/// pair (b, h); sk when a row sees no key at all (a finite fill then
/// spreads its softmax over every key), and with no byte mask or with the
/// causal rule (Tile::keyEnd skips the future keys). A decoding step's
/// query sees the cache up to its position: the rows after it need not be
/// read.
inline int64_t visibleKeyEnd(const Problem &p, int64_t b, int64_t h) {
  if (p.maskKind != kByteMask || p.causal)
    return p.sk;
  const int64_t *st = p.maskStrides;
  int64_t rows = p.rowInvariantMask() ? 1 : p.sq, end = 0;
  for (int64_t i = 0; i < rows; ++i) {
    const auto *m = static_cast<const uint8_t *>(p.mask) + b * st[0] +
                    h * st[1] + i * st[2];
    int64_t j = p.sk;
    while (j > 0 && m[(j - 1) * st[3]] != 0)
      --j;
    if (j == 0)
      return p.sk;
    end = std::max(end, j);
  }
  return end;
}

/// Whether key j is hidden from query i, whose mask row is `hidden`.
TF_INLINE bool isHidden(const Problem &p, const int32_t *hidden, int64_t i,
                        int64_t j) {
  return (p.causal && j > i) || (p.maskKind == kByteMask && hidden[j]);
}

/// isHidden for keys j to j + kLanes - 1, each lane all ones (hidden) or
/// all zeros.
TF_INLINE v16i hiddenLanes(const Problem &p, const int32_t *hidden, int64_t i,
                           int64_t j) {
  const v16i lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  v16i hide = p.maskKind == kByteMask ? loadInts(hidden + j) : v16i{};
  if (p.causal)
    hide |= lane + static_cast<int32_t>(j - i) > 0;
  return hide;
}

/// Registers of columns a tile's products keep in flight per row: two where
/// there are 32 registers (AVX-512: 2 · kRows accumulators keep both FMA
/// pipes busy, where kRows alone wait on each FMA's latency), one where
/// there are 16 (AVX2, SSE: kRows accumulators, the column and a broadcast
/// row element fill them).
template <typename Vector>
constexpr int64_t kTileColumns = kWidthOf<Vector> == kLanes ? 2 : 1;

/// out[r * kKeys + c * W + j] = factor · rows[r] · columns[c * W + j] for
/// `Columns` registers of W packed columns (`stride` apart per depth):
/// Columns · Rows independent sums.
template <typename Vector, int64_t Rows, int64_t Columns>
TF_INLINE void dotBlocks(const float *const *rows, const float *columns,
                         int64_t stride, int64_t depth, float factor,
                         float *out) {
  constexpr int64_t kWidth = kWidthOf<Vector>;
  Vector acc[Columns][Rows] = {};
  for (int64_t d = 0; d < depth; ++d) {
    Vector column[Columns];
    for (int64_t c = 0; c < Columns; ++c)
      column[c] = loadPart<Vector>(columns + d * stride + c * kWidth);
    for (int64_t r = 0; r < Rows; ++r)
      for (int64_t c = 0; c < Columns; ++c)
        acc[c][r] += rows[r][d] * column[c];
  }
  for (int64_t r = 0; r < Rows; ++r)
    for (int64_t c = 0; c < Columns; ++c)
      storePart(out + r * kKeys + c * kWidth, acc[c][r] * factor);
}

/// out[r * kKeys + j] = factor · rows[r] · packed column j0 + j, for every
/// row of the tile and the keys [j0, j0 + n) rounded up to kLanes (columns
/// past the packed ones are zero). packed is [depth][roundUp(sk, kLanes)].
/// kTileColumns registers of keys at a time, then one. Every score sums
/// over d in the same order whatever the registers.
template <typename Vector, int64_t Rows = kRows>
TF_INLINE void dotTile(const Problem &p, const float *const *rows,
                       const float *packed, int64_t depth, int64_t j0,
                       int64_t n, float factor, float *out) {
  constexpr int64_t kColumns = kTileColumns<Vector>;
  constexpr int64_t kWidth = kWidthOf<Vector>, kStep = kColumns * kWidth;
  int64_t stride = roundUp(p.sk, kLanes), padded = roundUp(n, kLanes);
  int64_t jb = 0;
  for (; jb + kStep <= padded; jb += kStep)
    dotBlocks<Vector, Rows, kColumns>(rows, packed + j0 + jb, stride, depth,
                                      factor, out + jb);
  for (; jb < padded; jb += kWidth)
    dotBlocks<Vector, Rows, 1>(rows, packed + j0 + jb, stride, depth, factor,
                               out + jb);
}

/// Where lane l of a round of sumLanesOf16 with halves of W lanes takes its
/// first term: lanes [2Wk, 2Wk + W) from block k of a, the next W from
/// block k of b (b's lanes numbered from 16); the second term is W on.
constexpr int foldedLane(int w, int l) {
  int block = l / (2 * w), offset = l % (2 * w);
  return offset < w ? 2 * w * block + offset : 16 + 2 * w * block + offset - w;
}

/// One round of sumLanesOf16: the two halves of each block of 2·W lanes of
/// a and of b, added, side by side.
template <int W, int... L>
TF_INLINE v16 foldHalves(v16 a, v16 b, std::integer_sequence<int, L...>) {
  return __builtin_shufflevector(a, b, foldedLane(W, L)...) +
         __builtin_shufflevector(a, b, (foldedLane(W, L) + W)...);
}

/// Lane l of the result is the sum of the lanes of x[bitReversed(l)]: four
/// rounds of foldHalves (8 + 4 + 2 + 1 vector additions for 16 sums, where
/// a horizontal sum of each vector would take 15 dependent scalar
/// additions).
TF_INLINE v16 sumLanesOf16(v16 *x) {
  constexpr auto lanes = std::make_integer_sequence<int, kLanes>();
  for (int i = 0; i < 8; ++i)
    x[i] = foldHalves<8>(x[2 * i], x[2 * i + 1], lanes);
  for (int i = 0; i < 4; ++i)
    x[i] = foldHalves<4>(x[2 * i], x[2 * i + 1], lanes);
  for (int i = 0; i < 2; ++i)
    x[i] = foldHalves<2>(x[2 * i], x[2 * i + 1], lanes);
  return foldHalves<1>(x[0], x[1], lanes);
}

/// The sum of the 16 lanes of a v16 held as kPartsOf<Vector> registers,
/// in horizontalSum's order (lane l plus lane l + 8, then l + 4, l + 2,
/// l + 1): the parts first, then the halves of the register.
template <typename Vector> TF_INLINE float sumLanes(Vector *parts) {
  for (int64_t half = kPartsOf<Vector> / 2; half > 0; half /= 2)
    for (int64_t q = 0; q < half; ++q)
      parts[q] += parts[q + half];
  if constexpr (kWidthOf<Vector> == kLanes) {
    return horizontalSum(parts[0]);
  } else {
    v4 x;
    if constexpr (kWidthOf<Vector> == 8)
      x = __builtin_shufflevector(parts[0], parts[0], 0, 1, 2, 3) +
          __builtin_shufflevector(parts[0], parts[0], 4, 5, 6, 7);
    else
      x = parts[0];
    return (x[0] + x[2]) + (x[1] + x[3]);
  }
}

/// The scaled scores of one query row against keys [j0, j0 + n) of pair
/// (b, h) into `out`, each a dot product with the key's row where it is:
/// for a single query row, cheaper than transposing the keys first. Out is
/// written up to n rounded up to kLanes, the keys past n repeating the last
/// one. Each key has its own accumulators (independent FMA chains) and its
/// lanes are summed in horizontalSum's order, on every instruction set:
/// sixteen keys at a time with AVX-512, their lanes summed together
/// (sumLanesOf16); with narrower registers as many as eight accumulators
/// hold, each summed alone (sumLanes).
template <typename Vector>
TF_INLINE void rowScores(const Problem &p, const float *query, int64_t b,
                         int64_t h, int64_t j0, int64_t n, float *out) {
  constexpr int64_t kParts = kPartsOf<Vector>, kWidth = kWidthOf<Vector>;
  // Eight accumulators where a v16 takes several registers.
  constexpr int64_t kKeysPerPass = kParts == 1 ? kLanes : 8 / kParts;
  // AVX-512: key j goes to slot bitReversed(j), so that lane j of the sums
  // is key j.
  static constexpr int kSlot[kLanes] = {0, 8, 4, 12, 2, 10, 6, 14,
                                        1, 9, 5, 13, 3, 11, 7, 15};
  int64_t vectorEnd = p.dk / kLanes * kLanes;
  for (int64_t jb = 0; jb < roundUp(n, kLanes); jb += kKeysPerPass) {
    const float *key[kKeysPerPass];
    for (int64_t j = 0; j < kKeysPerPass; ++j)
      key[j] = p.k.at(b, h, j0 + std::min(jb + j, n - 1));
    Vector acc[kKeysPerPass][kParts] = {};
    for (int64_t d = 0; d < vectorEnd; d += kLanes)
      for (int64_t q = 0; q < kParts; ++q) {
        Vector x = loadPart<Vector>(query + d + q * kWidth);
        for (int64_t j = 0; j < kKeysPerPass; ++j) {
          int64_t slot = kParts == 1 ? kSlot[j] : j;
          acc[slot][q] += x * loadPart<Vector>(key[j] + d + q * kWidth);
        }
      }
    float scores[kKeysPerPass];
    if constexpr (kParts == 1) {
      v16 sums[kLanes];
      for (int64_t j = 0; j < kLanes; ++j)
        sums[j] = acc[j][0];
      store(scores, sumLanesOf16(sums));
    } else {
      for (int64_t j = 0; j < kKeysPerPass; ++j)
        scores[j] = sumLanes(acc[j]);
    }
    for (int64_t d = vectorEnd; d < p.dk; ++d)
      for (int64_t j = 0; j < kKeysPerPass; ++j)
        scores[j] += query[d] * key[j][d];
    for (int64_t j = 0; j < kKeysPerPass; ++j)
      out[jb + j] = scores[j] * p.scale;
  }
}

/// Masks the scores of the tile against keys [j0, j0 + n) in s.scores and
/// pads them with -inf to a multiple of kLanes. A hidden score becomes the
/// fill; the float mask is added after that. kLanes keys at a time, then
/// one at a time for the rest, each key the same select and add.
template <int64_t Rows = kRows>
TF_INLINE void maskScores(const Problem &p, TileScratch &s, const Tile &t,
                          int64_t j0, int64_t n) {
  bool hides = p.hidesKeys(), adds = p.maskKind == kFloatMask;
  for (int64_t r = 0; r < Rows; ++r) {
    float *row = s.scores.data() + r * kKeys;
    std::fill(row + n, row + roundUp(n, kLanes), kNegInf);
    if (r >= t.rows || (!hides && !adds))
      continue;
    int64_t slot = t.maskSlot(p, r) * p.sk, i = t.i0 + r;
    const int32_t *hidden = s.hidden.data() + slot;
    const float *bias = s.bias.data() + slot;
    int64_t j = j0;
    for (; j + kLanes <= j0 + n; j += kLanes) {
      v16 x = load(row + j - j0);
      if (hides)
        x = select(hiddenLanes(p, hidden, i, j), splat(p.fill), x);
      store(row + j - j0, adds ? x + load(bias + j) : x);
    }
    for (; j < j0 + n; ++j) {
      float x = hides && isHidden(p, hidden, i, j) ? p.fill : row[j - j0];
      row[j - j0] = adds ? x + bias[j] : x;
    }
  }
}

/// The scaled, masked scores of the tile against keys [j0, j0 + n) into
/// s.scores (maskScores), from the keys packed transposed in s.keysT.
template <typename Vector, int64_t Rows = kRows>
TF_INLINE void maskedScores(const Problem &p, TileScratch &s, const Tile &t,
                            int64_t j0, int64_t n) {
  dotTile<Vector, Rows>(p, t.query, s.keysT.data(), p.dk, j0, n, p.scale,
                        s.scores.data());
  maskScores<Rows>(p, s, t, j0, n);
}

/// One step of the online softmax for a row of scores (padded to kLanes):
/// folds them into the running maximum and sum and leaves e^(x - maximum)
/// in the row. Returns the factor the earlier sum was rescaled by, which
/// anything accumulated over the earlier keys needs too.
TF_INLINE float foldScores(float *row, int64_t padded, float &maximum,
                           float &sum) {
  v16 top = splat(kNegInf);
  for (int64_t j = 0; j < padded; j += kLanes) {
    v16 x = load(row + j);
    top = x > top ? x : top;
  }
  float next = std::max(maximum, horizontalMax(top));
  if (next == kNegInf) {
    // Every key so far is hidden by -inf: nothing to add yet.
    std::fill(row, row + padded, 0.0f);
    return 1.0f;
  }
  float correction = std::exp(maximum - next);
  v16 total = {};
  for (int64_t j = 0; j < padded; j += kLanes) {
    v16 e = softmaxExp16(load(row + j) - next);
    store(row + j, e);
    total += e;
  }
  sum = sum * correction + horizontalSum(total);
  maximum = next;
  return correction;
}

/// acc[r][c * W + j] += Σ_i weights[r][i] · columns[i][c * W + j] for
/// `Columns` registers of W columns of n matrix rows (`stride` apart), acc
/// rows `width` apart: Columns · Rows independent sums.
template <typename Vector, int64_t Rows, int64_t Columns>
TF_INLINE void weightedBlocks(float *acc, const float *weights,
                              const float *columns, int64_t stride,
                              int64_t width, int64_t n) {
  constexpr int64_t kWidth = kWidthOf<Vector>;
  Vector sums[Columns][Rows];
  for (int64_t r = 0; r < Rows; ++r)
    for (int64_t c = 0; c < Columns; ++c)
      sums[c][r] = loadPart<Vector>(acc + r * width + c * kWidth);
  for (int64_t i = 0; i < n; ++i) {
    Vector x[Columns];
    for (int64_t c = 0; c < Columns; ++c)
      x[c] = loadPart<Vector>(columns + i * stride + c * kWidth);
    for (int64_t r = 0; r < Rows; ++r)
      for (int64_t c = 0; c < Columns; ++c)
        sums[c][r] += weights[r * kKeys + i] * x[c];
  }
  for (int64_t r = 0; r < Rows; ++r)
    for (int64_t c = 0; c < Columns; ++c)
      storePart(acc + r * width + c * kWidth, sums[c][r]);
}

/// acc[c * W + j] += Σ_i weights[i] · columns[i][c * W + j] for `Columns`
/// registers of W columns of n matrix rows (`stride` apart), for a single
/// row: the even and the odd i go to separate sums, added at the end, for
/// 2 · Columns independent FMA chains.
template <typename Vector, int64_t Columns>
TF_INLINE void weightedRowBlocks(float *acc, const float *weights,
                                 const float *columns, int64_t stride,
                                 int64_t n) {
  constexpr int64_t kWidth = kWidthOf<Vector>;
  Vector even[Columns], odd[Columns] = {};
  for (int64_t c = 0; c < Columns; ++c)
    even[c] = loadPart<Vector>(acc + c * kWidth);
  int64_t i = 0;
  for (; i + 1 < n; i += 2)
    for (int64_t c = 0; c < Columns; ++c) {
      even[c] +=
          weights[i] * loadPart<Vector>(columns + i * stride + c * kWidth);
      odd[c] += weights[i + 1] *
                loadPart<Vector>(columns + (i + 1) * stride + c * kWidth);
    }
  for (; i < n; ++i)
    for (int64_t c = 0; c < Columns; ++c)
      even[c] +=
          weights[i] * loadPart<Vector>(columns + i * stride + c * kWidth);
  for (int64_t c = 0; c < Columns; ++c)
    storePart(acc + c * kWidth, even[c] + odd[c]);
}

/// acc[r] += Σ_j weights[r][j] · matrix[j] for every row of the tile, over
/// n rows of `matrix` (`stride` apart, `width` long). Each register of
/// columns stays in registers for all rows while the matrix streams past,
/// so every load feeds Rows FMAs; kTileColumns registers at a time (as in
/// dotTile).
template <typename Vector, int64_t Rows = kRows>
TF_INLINE void addWeightedRows(float *acc, const float *weights,
                               const float *matrix, int64_t stride,
                               int64_t width, int64_t n) {
  constexpr int64_t kWidth = kWidthOf<Vector>;
  constexpr int64_t kColumns = kTileColumns<Vector>;
  int64_t vectorEnd = width / kWidth * kWidth;
  int64_t block = 0;
  if constexpr (Rows == 1) {
    // One row (a decoding step's query): four registers at a time, eight
    // sums (a head of 64 in one pass over the rows with AVX-512).
    for (; block + 4 * kWidth <= vectorEnd; block += 4 * kWidth)
      weightedRowBlocks<Vector, 4>(acc + block, weights, matrix + block, stride,
                                   n);
    for (; block < vectorEnd; block += kWidth)
      weightedRowBlocks<Vector, 1>(acc + block, weights, matrix + block, stride,
                                   n);
  }
  for (; block + kColumns * kWidth <= vectorEnd; block += kColumns * kWidth)
    weightedBlocks<Vector, Rows, kColumns>(acc + block, weights, matrix + block,
                                           stride, width, n);
  for (; block < vectorEnd; block += kWidth)
    weightedBlocks<Vector, Rows, 1>(acc + block, weights, matrix + block,
                                    stride, width, n);
  for (int64_t r = 0; r < Rows; ++r)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t d = vectorEnd; d < width; ++d)
        acc[r * width + d] += weights[r * kKeys + j] * matrix[j * stride + d];
}

/// The transpose: target[j] += Σ_r weights[r][j] · rows[r] for the n rows
/// of `target` (dense, `width` long). The tile's rows stay in registers
/// while the target rows stream past.
template <typename Vector>
TF_INLINE void addWeightedTile(float *target, const float *weights,
                               const float *const *rows, int64_t width,
                               int64_t n) {
  constexpr int64_t kWidth = kWidthOf<Vector>;
  int64_t vectorEnd = width / kWidth * kWidth;
  for (int64_t d = 0; d < vectorEnd; d += kWidth) {
    Vector x[kRows];
    for (int64_t r = 0; r < kRows; ++r)
      x[r] = loadPart<Vector>(rows[r] + d);
    for (int64_t j = 0; j < n; ++j) {
      Vector sum = loadPart<Vector>(target + j * width + d);
      for (int64_t r = 0; r < kRows; ++r)
        sum += weights[r * kKeys + j] * x[r];
      storePart(target + j * width + d, sum);
    }
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t d = vectorEnd; d < width; ++d)
      for (int64_t r = 0; r < kRows; ++r)
        target[j * width + d] += weights[r * kKeys + j] * rows[r][d];
}

} // namespace transfuse::rt::attention

#endif // TRANSFUSE_RUNTIME_LIB_ATTENTIONTILES_H
