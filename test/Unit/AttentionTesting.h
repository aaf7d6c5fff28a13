//===- AttentionTesting.h - Inputs and reference of the attention tests -*-===//
//
// The attention kernels' tests draw random inputs laid out through explicit
// strides, then compare with a plain double-precision softmax(s) v, the
// score matrix materialised, with the kernels' masking rules and the
// dropout mask of the contract in runtime/lib/Philox.h.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_UNIT_ATTENTIONTESTING_H
#define TRANSFUSE_TEST_UNIT_ATTENTIONTESTING_H

#include "Philox.h"
#include "transfuse/transfuse.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace transfuse::test {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct AttentionCase {
  int64_t batch, heads, sq, sk, dk, dv;
  bool causal = false;
  int32_t maskKind = 0;    // 0 none, 1 bytes, 2 f32
  bool maskPerRow = false; // [b, 1, sq, sk] instead of [b, 1, 1, sk]
  double fill = -kInf;
  bool headsInner = false; // q, k, v and out laid out [b, s, h, d]
  /// q, k, v (and their gradients) interleaved in one [b, s, 3, h, d]
  /// buffer, as a fused projection writes them; needs sq == sk, dk == dv.
  bool fusedQkv = false;
  float magnitude = 1.0f; // spread of the inputs: large scores test overflow
  /// With a byte mask: batch b sees only its first prefix + b keys, as a
  /// decoding step sees the cache up to its position (0: a random mask).
  int64_t prefix = 0;
  /// Dropout of the probabilities (training kernels only).
  float dropout = 0.0f;
  uint64_t dropoutKey = 0x243f6a8885a308d3;
  int64_t dropoutStream = 3;
};

inline std::string describe(const AttentionCase &c) {
  return "b" + std::to_string(c.batch) + " h" + std::to_string(c.heads) +
         " sq" + std::to_string(c.sq) + " sk" + std::to_string(c.sk) + " dk" +
         std::to_string(c.dk) + " dv" + std::to_string(c.dv) + " causal " +
         std::to_string(c.causal) + " mask " + std::to_string(c.maskKind) +
         (c.maskPerRow ? " per row" : "") + " fill " + std::to_string(c.fill) +
         (c.headsInner ? " [b,s,h,d]" : "") + (c.fusedQkv ? " fused qkv" : "") +
         (c.dropout > 0 ? " dropout " + std::to_string(c.dropout) + " key " +
                              std::to_string(c.dropoutKey) + " stream " +
                              std::to_string(c.dropoutStream)
                        : "");
}

/// A [b, h, s, d] tensor seen through its strides; copies share storage.
struct Tensor {
  std::shared_ptr<std::vector<float>> storage;
  float *data;
  int64_t sb, sh, ss;
  float &at(int64_t b, int64_t h, int64_t i, int64_t d) const {
    return data[b * sb + h * sh + i * ss + d];
  }
};

/// A [b, h, s, d] tensor of the case's layout, filled with `value`.
inline Tensor makeTensor(const AttentionCase &c, int64_t s, int64_t d,
                         float value = 0.0f) {
  auto storage =
      std::make_shared<std::vector<float>>(c.batch * c.heads * s * d, value);
  return {storage, storage->data(), c.heads * s * d, c.headsInner ? d : s * d,
          c.headsInner ? c.heads * d : d};
}

/// q, k, v, or their gradients: three tensors, or with c.fusedQkv three
/// views of one [b, s, 3, h, d] buffer.
inline std::array<Tensor, 3> makeQkv(const AttentionCase &c,
                                     float value = 0.0f) {
  if (!c.fusedQkv)
    return {makeTensor(c, c.sq, c.dk, value), makeTensor(c, c.sk, c.dk, value),
            makeTensor(c, c.sk, c.dv, value)};
  int64_t width = c.heads * c.dk, row = 3 * width;
  auto storage =
      std::make_shared<std::vector<float>>(c.batch * c.sq * row, value);
  std::array<Tensor, 3> parts;
  for (int64_t part = 0; part < 3; ++part)
    parts[part] = {storage, storage->data() + part * width, c.sq * row, c.dk,
                   row};
  return parts;
}

inline void fillRandom(const Tensor &t, float magnitude, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-magnitude, magnitude);
  for (float &x : *t.storage)
    x = dist(rng);
}

/// Pair (b, h) of t, its rows [0, s) of width d, dense in double.
inline std::vector<double> dense(const Tensor &t, int64_t b, int64_t h,
                                 int64_t s, int64_t d) {
  std::vector<double> x(s * d);
  for (int64_t i = 0; i < s; ++i)
    for (int64_t e = 0; e < d; ++e)
      x[i * d + e] = t.at(b, h, i, e);
  return x;
}

/// One (batch, head) pair in double precision, dense row-major.
struct Pair {
  int64_t sq, sk, dk, dv;
  double scale, fill;
  std::vector<double> q, k, v;
  std::vector<uint8_t> hidden; // [sq][sk]: the causal rule or the byte mask
  std::vector<double> bias;    // [sq][sk]: the float mask, or 0
  /// [sq][sk]: what dropout multiplies a probability by, 1 / (1 - rate)
  /// where it keeps it and 0 where it drops it; 1 without dropout.
  std::vector<double> keep;
};

/// Whether dropout keeps element e, as the contract states it, from the
/// Philox block alone.
inline bool keeps(const AttentionCase &c, uint64_t e) {
  uint64_t key = c.dropoutKey, stream = c.dropoutStream, block = e / 4;
  std::array<uint32_t, 4> x = transfuse::rt::philox4x32_10<uint32_t>(
      {uint32_t(block), uint32_t(block >> 32), uint32_t(stream),
       uint32_t(stream >> 32)},
      {uint32_t(key), uint32_t(key >> 32)});
  return float(x[e % 4] >> 8) * 0x1p-24f >= c.dropout;
}

/// Random inputs of a case: q, k, v and a mask [b, 1, 1 or sq, sk],
/// broadcast over heads (stride 0).
struct AttentionInputs {
  AttentionCase c;
  Tensor q, k, v;
  std::vector<uint8_t> bytes;
  std::vector<float> bias;
  int64_t msb, msq;
  float scale;

  explicit AttentionInputs(const AttentionCase &c, std::mt19937 &rng)
      : c(c), msb((c.maskPerRow ? c.sq : 1) * c.sk),
        msq(c.maskPerRow ? c.sk : 0), scale(1.0f / std::sqrt(float(c.dk))) {
    auto qkv = makeQkv(c);
    q = qkv[0], k = qkv[1], v = qkv[2];
    fillRandom(q, c.magnitude, rng); // with fusedQkv, k and v too
    if (!c.fusedQkv) {
      fillRandom(k, c.magnitude, rng);
      fillRandom(v, c.magnitude, rng);
    }
    bytes.resize(c.batch * msb);
    bias.resize(bytes.size());
    std::bernoulli_distribution hide(0.3);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = hide(rng);
      bias[i] = dist(rng);
    }
    if (c.prefix > 0) {
      for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = int64_t(i % c.sk) >= c.prefix + int64_t(i / msb);
      return;
    }
    // Row 0 of batch 0 hides every key: NaN with -inf, uniform otherwise.
    std::fill_n(bytes.begin(), c.sk, 1);
  }

  const void *mask() const {
    return c.maskKind == 1   ? static_cast<const void *>(bytes.data())
           : c.maskKind == 2 ? bias.data()
                             : nullptr;
  }

  Pair pair(int64_t b, int64_t h) const {
    Pair p{c.sq, c.sk, c.dk, c.dv, scale, c.fill};
    p.q = dense(q, b, h, c.sq, c.dk), p.k = dense(k, b, h, c.sk, c.dk);
    p.v = dense(v, b, h, c.sk, c.dv);
    double keepScale = 1.0 / (1.0 - c.dropout);
    for (int64_t i = 0; i < c.sq; ++i)
      for (int64_t j = 0; j < c.sk; ++j) {
        int64_t m = b * msb + i * msq + j;
        p.hidden.push_back((c.causal && j > i) ||
                           (c.maskKind == 1 && bytes[m]));
        p.bias.push_back(c.maskKind == 2 ? bias[m] : 0.0);
        uint64_t e = ((b * c.heads + h) * c.sq + i) * c.sk + j;
        p.keep.push_back(c.dropout == 0 ? 1.0 : keeps(c, e) ? keepScale : 0.0);
      }
    return p;
  }
};

/// Runs tfrt_attention_stats_f32 into out and lse, or tfrt_attention_f32
/// (no dropout) when lse is null.
inline void runAttention(const AttentionInputs &in, const Tensor &out,
                         float *lse) {
  const AttentionCase &c = in.c;
  if (lse)
    tfrt_attention_stats_f32(
        c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, in.q.data, in.q.sb, in.q.sh,
        in.q.ss, in.k.data, in.k.sb, in.k.sh, in.k.ss, in.v.data, in.v.sb,
        in.v.sh, in.v.ss, in.mask(), c.maskKind, in.msb, 0, in.msq, 1, in.scale,
        c.causal, float(c.fill), out.data, out.sb, out.sh, out.ss, lse,
        c.dropout, c.dropoutKey, c.dropoutStream);
  else
    tfrt_attention_f32(c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, in.q.data,
                       in.q.sb, in.q.sh, in.q.ss, in.k.data, in.k.sb, in.k.sh,
                       in.k.ss, in.v.data, in.v.sb, in.v.sh, in.v.ss, in.mask(),
                       c.maskKind, in.msb, 0, in.msq, 1, in.scale, c.causal,
                       float(c.fill), out.data, out.sb, out.sh, out.ss);
}

/// The reference forward of a pair: the probabilities [sq][sk] (before
/// dropout), out [sq][dv] (after) and the row log-sum-exps. A row whose
/// scores are all -inf has NaN probabilities and out, and lse -inf.
struct Softmax {
  std::vector<double> probs, out, lse;
};

inline Softmax softmax(const Pair &p) {
  Softmax f{std::vector<double>(p.sq * p.sk), std::vector<double>(p.sq * p.dv),
            std::vector<double>(p.sq)};
  for (int64_t i = 0; i < p.sq; ++i) {
    double *s = f.probs.data() + i * p.sk;
    for (int64_t j = 0; j < p.sk; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < p.dk; ++d)
        dot += p.q[i * p.dk + d] * p.k[j * p.dk + d];
      s[j] = (p.hidden[i * p.sk + j] ? p.fill : dot * p.scale) +
             p.bias[i * p.sk + j];
    }
    // No keys: lse -inf and out 0, the product with an empty v. All
    // -inf: exp(-inf + inf) makes every probability and out NaN.
    double top = std::accumulate(
        s, s + p.sk, -kInf, [](double a, double b) { return std::max(a, b); });
    double sum = 0;
    for (int64_t j = 0; j < p.sk; ++j)
      sum += (s[j] = std::exp(s[j] - top));
    f.lse[i] = top == -kInf ? -kInf : top + std::log(sum);
    for (int64_t j = 0; j < p.sk; ++j)
      s[j] /= sum;
    for (int64_t d = 0; d < p.dv; ++d)
      for (int64_t j = 0; j < p.sk; ++j)
        f.out[i * p.dv + d] += s[j] * p.keep[i * p.sk + j] * p.v[j * p.dv + d];
  }
  return f;
}

} // namespace transfuse::test

#endif // TRANSFUSE_TEST_UNIT_ATTENTIONTESTING_H
