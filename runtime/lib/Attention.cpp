//===- Attention.cpp - tfrt_attention_f32, fused attention ----------------===//
//
// out = softmax(scale · q kᵀ, masked) v, one (batch, head) pair at a time,
// never materialising the score matrix. Per pair, kᵀ and v are packed once
// into contiguous scratch; then every tile of kRows query rows walks the
// keys kKeys at a time with an online softmax (running maximum and sum per
// row, the accumulator rescaled when the maximum grows), so memory is
// O(kRows · kKeys) whatever the sequence length.
//
// The loops use GCC vector extensions (16 floats) and the per-pair function
// is cloned for AVX-512, AVX2 and the baseline, picked at load time.
// Causal attention with a -inf fill stops each tile at its last visible key.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace transfuse::rt {
namespace {

using v16 = float __attribute__((vector_size(64)));
using v16i = int32_t __attribute__((vector_size(64)));
constexpr int64_t kLanes = 16;
/// Query rows per register tile: each packed key vector feeds kRows FMAs.
constexpr int64_t kRows = 4;
/// Keys per online-softmax step; a multiple of kLanes.
constexpr int64_t kKeys = 256;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// The helpers are inlined into each clone of attendPair, so that they are
/// compiled for its instruction set too.
#define TF_INLINE inline __attribute__((always_inline))

TF_INLINE v16 load(const float *p) {
  v16 x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
TF_INLINE void store(float *p, v16 x) { std::memcpy(p, &x, sizeof x); }
TF_INLINE v16 splat(float x) { return v16{} + x; }
TF_INLINE int64_t roundUp(int64_t n, int64_t to) {
  return (n + to - 1) / to * to;
}

/// e^x: Cephes' single-precision range reduction and polynomial (about
/// 1 ulp), branch-free. Below -87.3 (e^x under FLT_MIN) it is 0, so a -inf
/// score gives exactly 0; NaN stays NaN.
TF_INLINE v16 exp16(v16 x) {
  const v16 hi = splat(88.3762626647949f), lo = splat(-87.3365478515625f);
  v16i tiny = x < lo;
  x = x > hi ? hi : x;
  x = x < lo ? lo : x;
  v16 fx = x * 1.44269504088896341f + 0.5f;
  v16 truncated =
      __builtin_convertvector(__builtin_convertvector(fx, v16i), v16);
  v16 n = truncated - __builtin_convertvector((truncated > fx) & 1, v16);
  x = x - n * 0.693359375f - n * -2.12194440e-4f;
  v16 y = splat(1.9875691500e-4f);
  y = y * x + 1.3981999507e-3f;
  y = y * x + 8.3334519073e-3f;
  y = y * x + 4.1665795894e-2f;
  y = y * x + 1.6666665459e-1f;
  y = y * x + 5.0000001201e-1f;
  y = y * x * x + x + 1.0f;
  v16i bits = (__builtin_convertvector(n, v16i) + 127) << 23;
  v16 result = y * (v16)bits;
  return tiny ? splat(0.0f) : result;
}

TF_INLINE float horizontalMax(v16 x) {
  float m = x[0];
  for (int i = 1; i < kLanes; ++i)
    m = std::max(m, x[i]);
  return m;
}
TF_INLINE float horizontalSum(v16 x) {
  float s = 0.0f;
  for (int i = 0; i < kLanes; ++i)
    s += x[i];
  return s;
}

struct View {
  const float *data;
  int64_t batch, head, row; // strides in elements; the last dim is dense
  const float *at(int64_t b, int64_t h, int64_t i) const {
    return data + b * batch + h * head + i * row;
  }
};

struct Problem {
  int64_t batch, heads, sq, sk, dk, dv;
  View q, k, v;
  const void *mask;
  int32_t maskKind; // 0 none, 1 bytes (nonzero hides), 2 f32 added
  int64_t maskStrides[4];
  float scale;
  bool causal;
  float fill;
  float *out;
  int64_t outStrides[3];
};

enum MaskKind : int32_t { kNoMask = 0, kByteMask = 1, kFloatMask = 2 };

/// Scratch of one thread, sized for the problem.
struct Scratch {
  std::vector<float> keysT;    // [dk][roundUp(sk, kLanes)], zero padded
  std::vector<float> values;   // [sk][dv]
  std::vector<float> scores;   // [kRows][kKeys]
  std::vector<float> bias;     // [sk]: the mask of one query row, as a bias
  std::vector<uint8_t> hidden; // [sk]: whether a key is hidden
  std::vector<float> acc;      // [kRows][dv]

  explicit Scratch(const Problem &p)
      : keysT(p.dk * roundUp(p.sk, kLanes)), values(p.sk * p.dv),
        scores(kRows * kKeys), bias(p.sk), hidden(p.sk), acc(kRows * p.dv) {}
};

/// Fills s.hidden / s.bias with the mask of query row i of pair (b, h).
TF_INLINE void maskRow(const Problem &p, Scratch &s, int64_t b, int64_t h,
                       int64_t i) {
  const int64_t *st = p.maskStrides;
  int64_t base = b * st[0] + h * st[1] + i * st[2];
  if (p.maskKind == kByteMask) {
    const auto *m = static_cast<const uint8_t *>(p.mask) + base;
    for (int64_t j = 0; j < p.sk; ++j)
      s.hidden[j] = m[j * st[3]] != 0;
  } else if (p.maskKind == kFloatMask) {
    const float *m = static_cast<const float *>(p.mask) + base;
    for (int64_t j = 0; j < p.sk; ++j)
      s.bias[j] = m[j * st[3]];
  }
}

/// Scores of rows[0, kRows) against keys [j0, j0 + n) into s.scores, padded
/// with -inf to a multiple of kLanes.
TF_INLINE void score(const Problem &p, Scratch &s, const float *const *rows,
                     int64_t j0, int64_t n) {
  int64_t stride = roundUp(p.sk, kLanes);
  for (int64_t jb = 0; jb < n; jb += kLanes) {
    v16 acc[kRows] = {};
    const float *keys = s.keysT.data() + j0 + jb;
    for (int64_t d = 0; d < p.dk; ++d) {
      v16 key = load(keys + d * stride);
      for (int64_t r = 0; r < kRows; ++r)
        acc[r] += rows[r][d] * key;
    }
    for (int64_t r = 0; r < kRows; ++r)
      store(s.scores.data() + r * kKeys + jb, acc[r] * p.scale);
  }
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = n; j < roundUp(n, kLanes); ++j)
      s.scores[r * kKeys + j] = kNegInf;
}

/// Applies the causal rule and the mask to the scores of query row i.
TF_INLINE void applyMask(const Problem &p, const Scratch &s, float *row,
                         int64_t i, int64_t j0, int64_t n) {
  if (p.maskKind == kFloatMask) {
    for (int64_t j = 0; j < n; ++j) {
      float x = p.causal && j0 + j > i ? p.fill : row[j];
      row[j] = x + s.bias[j0 + j];
    }
    return;
  }
  bool bytes = p.maskKind == kByteMask;
  if (!p.causal && !bytes)
    return;
  for (int64_t j = 0; j < n; ++j) {
    bool hide = (p.causal && j0 + j > i) || (bytes && s.hidden[j0 + j]);
    row[j] = hide ? p.fill : row[j];
  }
}

/// One step of the online softmax for row r: folds keys [j0, j0 + n) into
/// its maximum and sum, rescales its accumulator, and leaves the keys'
/// unnormalised probabilities in its score row.
TF_INLINE void softmaxStep(const Problem &p, Scratch &s, int64_t r, int64_t n,
                           float &maximum, float &sum) {
  float *row = s.scores.data() + r * kKeys;
  int64_t padded = roundUp(n, kLanes);
  v16 top = splat(kNegInf);
  for (int64_t j = 0; j < padded; j += kLanes) {
    v16 x = load(row + j);
    top = x > top ? x : top;
  }
  float next = std::max(maximum, horizontalMax(top));
  if (next == kNegInf) {
    // Every key so far is hidden by -inf: nothing to add yet.
    std::fill(row, row + padded, 0.0f);
    return;
  }
  float correction = std::exp(maximum - next);
  v16 total = {};
  for (int64_t j = 0; j < padded; j += kLanes) {
    v16 e = exp16(load(row + j) - next);
    store(row + j, e);
    total += e;
  }
  sum = sum * correction + horizontalSum(total);
  maximum = next;
  float *acc = s.acc.data() + r * p.dv;
  for (int64_t d = 0; d < p.dv; ++d)
    acc[d] *= correction;
}

/// acc[r] += Σ_j probability[r][j] · v[j0 + j] for every row of the tile.
/// Each block of kLanes value columns stays in registers for all rows
/// while the keys stream past, so every v load feeds kRows FMAs.
TF_INLINE void addWeightedValues(const Problem &p, Scratch &s, int64_t j0,
                                 int64_t n) {
  int64_t vectorEnd = p.dv / kLanes * kLanes;
  const float *values = s.values.data() + j0 * p.dv;
  const float *probs = s.scores.data();
  for (int64_t d = 0; d < vectorEnd; d += kLanes) {
    v16 acc[kRows];
    for (int64_t r = 0; r < kRows; ++r)
      acc[r] = load(s.acc.data() + r * p.dv + d);
    for (int64_t j = 0; j < n; ++j) {
      v16 value = load(values + j * p.dv + d);
      for (int64_t r = 0; r < kRows; ++r)
        acc[r] += probs[r * kKeys + j] * value;
    }
    for (int64_t r = 0; r < kRows; ++r)
      store(s.acc.data() + r * p.dv + d, acc[r]);
  }
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t d = vectorEnd; d < p.dv; ++d)
        s.acc[r * p.dv + d] += probs[r * kKeys + j] * values[j * p.dv + d];
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void
attendPair(const Problem &p, Scratch &s, int64_t b, int64_t h) {
  int64_t stride = roundUp(p.sk, kLanes);
  for (int64_t j = 0; j < p.sk; ++j) {
    const float *key = p.k.at(b, h, j);
    for (int64_t d = 0; d < p.dk; ++d)
      s.keysT[d * stride + j] = key[d];
    std::memcpy(s.values.data() + j * p.dv, p.v.at(b, h, j),
                p.dv * sizeof(float));
  }
  bool rowInvariantMask = p.maskKind != kNoMask && p.maskStrides[2] == 0;
  if (rowInvariantMask)
    maskRow(p, s, b, h, 0);
  bool skipFuture = p.causal && p.fill == kNegInf;
  for (int64_t i0 = 0; i0 < p.sq; i0 += kRows) {
    int64_t rows = std::min(kRows, p.sq - i0);
    const float *query[kRows];
    for (int64_t r = 0; r < kRows; ++r)
      query[r] = p.q.at(b, h, i0 + std::min(r, rows - 1));
    float maximum[kRows], sum[kRows];
    std::fill(maximum, maximum + kRows, kNegInf);
    std::fill(sum, sum + kRows, 0.0f);
    std::fill(s.acc.begin(), s.acc.end(), 0.0f);
    int64_t keyEnd = skipFuture ? std::min(p.sk, i0 + rows) : p.sk;
    for (int64_t j0 = 0; j0 < keyEnd; j0 += kKeys) {
      int64_t n = std::min(kKeys, keyEnd - j0);
      score(p, s, query, j0, n);
      for (int64_t r = 0; r < rows; ++r) {
        if (p.maskKind != kNoMask && !rowInvariantMask)
          maskRow(p, s, b, h, i0 + r);
        applyMask(p, s, s.scores.data() + r * kKeys, i0 + r, j0, n);
        softmaxStep(p, s, r, n, maximum[r], sum[r]);
      }
      addWeightedValues(p, s, j0, n);
    }
    for (int64_t r = 0; r < rows; ++r) {
      float *out = p.out + b * p.outStrides[0] + h * p.outStrides[1] +
                   (i0 + r) * p.outStrides[2];
      // A row whose keys are all hidden by -inf has sum 0 and gives NaN,
      // as the softmax of all -inf does.
      float inverse = 1.0f / sum[r];
      const float *acc = s.acc.data() + r * p.dv;
      for (int64_t d = 0; d < p.dv; ++d)
        out[d] = sum[r] == 0.0f ? std::numeric_limits<float>::quiet_NaN()
                                : acc[d] * inverse;
    }
  }
}

[[noreturn]] void abortWith(const char *what) {
  std::fprintf(stderr, "tfrt_attention_f32: %s\n", what);
  std::abort();
}

} // namespace
} // namespace transfuse::rt

using namespace transfuse::rt;

extern "C" void
tfrt_attention_f32(int64_t batch, int64_t heads, int64_t sq, int64_t sk,
                   int64_t dk, int64_t dv, const float *q, int64_t q_sb,
                   int64_t q_sh, int64_t q_ss, const float *k, int64_t k_sb,
                   int64_t k_sh, int64_t k_ss, const float *v, int64_t v_sb,
                   int64_t v_sh, int64_t v_ss, const void *mask,
                   int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq,
                   int64_t m_sk, float scale, int32_t causal, float mask_fill,
                   float *out, int64_t o_sb, int64_t o_sh, int64_t o_ss) {
  // The generated code passes static shapes; anything else is a compiler
  // bug, not an input error, and must not read out of bounds.
  if (batch < 0 || heads < 0 || sq < 0 || sk < 0 || dk < 0 || dv < 0)
    abortWith("negative size");
  if (mask_kind < kNoMask || mask_kind > kFloatMask ||
      (mask_kind != kNoMask && !mask))
    abortWith("bad mask");
  if (batch == 0 || heads == 0 || sq == 0 || dv == 0)
    return;
  if (sk == 0) {
    // No keys: the product with an empty v, zeros.
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < sq; ++i)
          std::fill_n(out + b * o_sb + h * o_sh + i * o_ss, dv, 0.0f);
    return;
  }
  Problem p{batch,
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
            out,
            {o_sb, o_sh, o_ss}};
  parallelFor(batch * heads, 1, [&](int64_t begin, int64_t end) {
    Scratch scratch(p);
    for (int64_t pair = begin; pair < end; ++pair)
      attendPair(p, scratch, pair / heads, pair % heads);
  });
}
