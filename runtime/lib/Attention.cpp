//===- Attention.cpp - tfrt_attention_f32, fused attention ----------------===//
//
// out = softmax(scale · q kᵀ, masked) v, one (batch, head) pair at a time,
// never materialising the score matrix. Per pair, kᵀ is packed once into
// contiguous scratch (v is read where it is, a dense row per key); then
// every tile of kRows query rows walks the keys kKeys at a time with an
// online softmax (running maximum and sum per row, the accumulator rescaled
// when the maximum grows), so memory is O(kRows · kKeys) whatever the
// sequence length. A tile of a single row computes that row alone, and a
// single query (a decoding step's) takes a dot product with each key where
// it is instead of packing kᵀ.
//
// tfrt_attention_stats_f32 also keeps each row's log-sum-exp, all the
// backward (AttentionBackward.cpp) needs to recompute the probabilities;
// tfrt_attention_f32 is it without them, and without dropout. Dropout
// zeroes the weights of the dropped keys once they are summed, so the sum
// and the lse are of the probabilities before dropout, and scales the kept
// ones; its mask (Philox.h) is recomputed tile by tile, never stored.
//
// The loops use GCC vector extensions (16 floats, AttentionTiles.h) and the
// per-pair function is instantiated for AVX-512, AVX2 with FMA and the
// baseline, each on its own registers, and picked at load time. Causal
// attention with a -inf fill stops each tile at its last visible key, and a
// byte mask that hides the keys past some point from every row (a decoding
// step's, over the cache) stops the pair there.
//===----------------------------------------------------------------------===//
#include "AttentionTiles.h"

namespace transfuse::rt::attention {
namespace {

struct Forward {
  Out out;
  float *lse; // [batch, heads, sq] dense, or null
};

/// Scratch of one thread, sized for the problem.
struct Scratch : TileScratch {
  std::vector<float> acc; // [kRows][dv]

  explicit Scratch(const Problem &p) : TileScratch(p), acc(kRows * p.dv) {}
};

/// Drops row r's weights e^(x - maximum) of keys [j0, j0 + padded) and
/// scales the kept ones by 1 / (1 - rate).
TF_INLINE void dropWeights(const Problem &p, const Tile &t, int64_t r,
                           int64_t j0, float *row, int64_t padded) {
  v16i keep[kKeys / kLanes + 7];
  t.kept(p, r, j0, padded, keep);
  for (int64_t j = 0; j < padded; j += kLanes)
    store(row + j,
          select(keep[j / kLanes], load(row + j) * p.keepScale, splat(0.0f)));
}

/// The online softmax of tile `t` over keys [0, keyEnd) into `maximum`,
/// `sum` and s.acc, computed for `Rows` query rows: kRows, or 1 for a
/// tile of one row (a decoding step's), which then costs a quarter.
template <typename Vector, int64_t Rows>
TF_INLINE void foldKeys(const Problem &p, Scratch &s, const Tile &t, int64_t b,
                        int64_t h, int64_t keyEnd, float *maximum, float *sum) {
  for (int64_t j0 = 0; j0 < keyEnd; j0 += kKeys) {
    int64_t n = std::min(kKeys, keyEnd - j0);
    if constexpr (Rows == 1) {
      if (p.sq == 1) {
        rowScores<Vector>(p, t.query[0], b, h, j0, n, s.scores.data());
        maskScores<1>(p, s, t, j0, n);
      } else {
        maskedScores<Vector, 1>(p, s, t, j0, n);
      }
    } else {
      maskedScores<Vector, Rows>(p, s, t, j0, n);
    }
    for (int64_t r = 0; r < t.rows; ++r) {
      float *row = s.scores.data() + r * kKeys;
      int64_t padded = roundUp(n, kLanes);
      float correction = foldScores(row, padded, maximum[r], sum[r]);
      if (p.dropout > 0.0f)
        dropWeights(p, t, r, j0, row, padded);
      float *acc = s.acc.data() + r * p.dv;
      for (int64_t d = 0; d < p.dv; ++d)
        acc[d] *= correction;
    }
    // The values are read where they are: each key's row is dense.
    addWeightedRows<Vector, Rows>(s.acc.data(), s.scores.data(),
                                  p.v.at(b, h, j0), p.v.row, p.dv, n);
  }
}

/// The pair's attention over its first `keys` keys. Keys past them that
/// the mask hides still count for a row whose visible scores are all within
/// kUnderflow of the fill, since e^(fill - maximum) is then no zero: such a
/// row makes it return false, and the caller starts again with every key.
/// Instantiated per instruction set (onHostVectors).
struct AttendKeys {
  template <typename Vector>
  TF_INLINE static bool run(const Problem &p, const Forward &f, Scratch &s,
                            int64_t b, int64_t h, int64_t keys) {
    constexpr float kUnderflow = 128.0f;
    // A single query row scores the keys where they are (rowScores).
    if (p.sq > 1)
      packTransposed(p, p.k, b, h, keys, p.dk, s.keysT.data());
    for (int64_t i0 = 0; i0 < p.sq; i0 += kRows) {
      Tile t(p, b, h, i0);
      readMasks(p, s, t);
      float maximum[kRows], sum[kRows];
      std::fill(maximum, maximum + kRows, kNegInf);
      std::fill(sum, sum + kRows, 0.0f);
      std::fill(s.acc.begin(), s.acc.end(), 0.0f);
      int64_t keyEnd = std::min(t.keyEnd(p), keys);
      if (t.rows == 1)
        foldKeys<Vector, 1>(p, s, t, b, h, keyEnd, maximum, sum);
      else
        foldKeys<Vector, kRows>(p, s, t, b, h, keyEnd, maximum, sum);
      for (int64_t r = 0; keys < p.sk && r < t.rows; ++r)
        if (!(maximum[r] > p.fill + kUnderflow))
          return false;
      for (int64_t r = 0; r < t.rows; ++r) {
        // A row whose keys are all hidden by -inf has sum 0: NaN, as the
        // softmax of all -inf is, and a log-sum-exp of -inf.
        if (f.lse)
          f.lse[p.rowIndex(b, h, i0 + r)] =
              sum[r] == 0.0f ? kNegInf : maximum[r] + std::log(sum[r]);
        float *out = f.out.at(b, h, i0 + r);
        float inverse = 1.0f / sum[r];
        const float *acc = s.acc.data() + r * p.dv;
        for (int64_t d = 0; d < p.dv; ++d)
          out[d] = sum[r] == 0.0f ? std::numeric_limits<float>::quiet_NaN()
                                  : acc[d] * inverse;
      }
    }
    return true;
  }
};

void attendPair(const Problem &p, const Forward &f, Scratch &s, int64_t b,
                int64_t h) {
  if (!onHostVectors<AttendKeys>(p, f, s, b, h, visibleKeyEnd(p, b, h)))
    onHostVectors<AttendKeys>(p, f, s, b, h, p.sk);
}

} // namespace
} // namespace transfuse::rt::attention

using namespace transfuse::rt;
using namespace transfuse::rt::attention;

extern "C" void tfrt_attention_stats_f32(
    int64_t batch, int64_t heads, int64_t sq, int64_t sk, int64_t dk,
    int64_t dv, const float *q, int64_t q_sb, int64_t q_sh, int64_t q_ss,
    const float *k, int64_t k_sb, int64_t k_sh, int64_t k_ss, const float *v,
    int64_t v_sb, int64_t v_sh, int64_t v_ss, const void *mask,
    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk,
    float scale, int32_t causal, float mask_fill, float *out, int64_t o_sb,
    int64_t o_sh, int64_t o_ss, float *lse, float dropout, uint64_t dropout_key,
    int64_t dropout_stream) {
  Problem p =
      makeProblem("tfrt_attention_f32", batch, heads, sq, sk, dk, dv, q, q_sb,
                  q_sh, q_ss, k, k_sb, k_sh, k_ss, v, v_sb, v_sh, v_ss, mask,
                  mask_kind, m_sb, m_sh, m_sq, m_sk, scale, causal, mask_fill,
                  dropout, dropout_key, dropout_stream);
  Forward f{{out, o_sb, o_sh, o_ss}, lse};
  if (sk == 0) {
    // No keys: the product with an empty v, zeros; the log of an empty sum.
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < sq; ++i) {
          std::fill_n(f.out.at(b, h, i), dv, 0.0f);
          if (lse)
            lse[p.rowIndex(b, h, i)] = kNegInf;
        }
    return;
  }
  parallelFor(batch * heads, 1, [&](int64_t begin, int64_t end) {
    Scratch scratch(p);
    for (int64_t pair = begin; pair < end; ++pair)
      attendPair(p, f, scratch, pair / heads, pair % heads);
  });
}

extern "C" void
tfrt_attention_f32(int64_t batch, int64_t heads, int64_t sq, int64_t sk,
                   int64_t dk, int64_t dv, const float *q, int64_t q_sb,
                   int64_t q_sh, int64_t q_ss, const float *k, int64_t k_sb,
                   int64_t k_sh, int64_t k_ss, const float *v, int64_t v_sb,
                   int64_t v_sh, int64_t v_ss, const void *mask,
                   int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq,
                   int64_t m_sk, float scale, int32_t causal, float mask_fill,
                   float *out, int64_t o_sb, int64_t o_sh, int64_t o_ss) {
  tfrt_attention_stats_f32(
      batch, heads, sq, sk, dk, dv, q, q_sb, q_sh, q_ss, k, k_sb, k_sh, k_ss, v,
      v_sb, v_sh, v_ss, mask, mask_kind, m_sb, m_sh, m_sq, m_sk, scale, causal,
      mask_fill, out, o_sb, o_sh, o_ss, nullptr, 0.0f, 0, 0);
}
