//===- AttentionBackward.cpp - tfrt_attention_backward_f32 ----------------===//
//
// The gradients of out = (softmax(x) ∘ M / (1 - rate)) v, x = scale · q kᵀ
// masked and M the dropout mask (all ones without dropout), the way
// FlashAttention-2 computes them: never materialising x, its probabilities
// or M, but recomputing them a tile at a time from the row log-sum-exps the
// forward kept (tfrt_attention_stats_f32) and from the dropout key. Per
// query row i and key j, with m_ij = M_ij / (1 - rate):
//
//   P  = e^(x - lse_i)        dv_j += m_ij P_ij · dout_i
//   D_i = dout_i · out_i      dP_ij = m_ij · dout_i · v_j
//   dS = scale · P ∘ (dP - D) dq_i += dS_ij · k_j,  dk_j += dS_ij · q_i
//
// D is still rowsum(P ∘ dP), as the softmax's gradient needs: out_i is
// Σ_j m_ij P_ij v_j. A hidden score is the fill, a constant: its dS is
// zero. The float mask is an input and gets no gradient. A row whose lse is
// too large for a float to carry the precision P needs recomputes its
// maximum and sum first.
//
// Per (batch, head) pair, kᵀ and vᵀ are packed once and dk, dv accumulate
// in scratch ([sk, dk] and [sk, dv]); every tile of kRows query rows walks
// the keys kKeys at a time with the tiles of the forward (AttentionTiles.h)
// and accumulates its own dq. Pairs run in parallel.
//===----------------------------------------------------------------------===//
#include "AttentionTiles.h"

namespace transfuse::rt::attention {
namespace {

struct Backward {
  View out, gradOut;
  const float *lse; // [batch, heads, sq] dense
  Out gradQ, gradK, gradV;
};

/// Scratch of one thread, sized for the problem.
struct Scratch : TileScratch {
  std::vector<float> valuesT;    // [dv][roundUp(sk, kLanes)], zero padded
  std::vector<float> gradScores; // [kRows][kKeys]: dP, then dS
  std::vector<float> gradQuery;  // [kRows][dk]
  std::vector<float> gradKeys;   // [sk][dk]
  std::vector<float> gradValues; // [sk][dv]

  explicit Scratch(const Problem &p)
      : TileScratch(p), valuesT(p.dv * roundUp(p.sk, kLanes)),
        gradScores(kRows * kKeys), gradQuery(kRows * p.dk),
        gradKeys(p.sk * p.dk), gradValues(p.sk * p.dv) {}
};

/// How each row of a tile turns its scores x into probabilities,
/// P = e^(x - shift) · norm, and its D.
struct RowSoftmax {
  float shift[kRows], norm[kRows], delta[kRows];
};

TF_INLINE float dot(const float *a, const float *b, int64_t n) {
  int64_t vectorEnd = n / kLanes * kLanes;
  v16 sum = {};
  for (int64_t d = 0; d < vectorEnd; d += kLanes)
    sum += load(a + d) * load(b + d);
  float total = horizontalSum(sum);
  for (int64_t d = vectorEnd; d < n; ++d)
    total += a[d] * b[d];
  return total;
}

/// From this |lse| on, a float's rounding of the lse (half an ulp, 6e-5
/// at 1024) would show as a relative error of the probabilities.
constexpr float kCoarseLse = 1024.0f;

/// The rows' shifts, norms and D. A row whose lse is coarse gets its
/// maximum and sum recomputed instead, the way the forward found them, with
/// one more pass over the tile's scores: a row whose every key is hidden by
/// a fill of -1e9 has lse fill + log(sk), which rounds to the fill, while
/// its probabilities are 1/sk.
template <typename Vector>
TF_INLINE RowSoftmax rowSoftmax(const Problem &p, const Backward &g, Scratch &s,
                                const Tile &t, const float *const *gradOut) {
  const float *out[kRows];
  t.rowsOf(g.out, out);
  RowSoftmax rs;
  bool coarse[kRows], anyCoarse = false;
  for (int64_t r = 0; r < kRows; ++r) {
    float lse = r < t.rows ? g.lse[p.rowIndex(t.b, t.h, t.i0 + r)] : kNegInf;
    // Past the last row, or every key hidden by -inf: no probability, zero
    // gradients (out is NaN there; D would be too).
    bool none = lse == kNegInf;
    rs.shift[r] = none ? 0.0f : lse;
    rs.norm[r] = none ? 0.0f : 1.0f;
    rs.delta[r] = none ? 0.0f : dot(gradOut[r], out[r], p.dv);
    coarse[r] = !none && std::abs(lse) >= kCoarseLse;
    anyCoarse |= coarse[r];
  }
  if (!anyCoarse)
    return rs;
  float maximum[kRows], sum[kRows];
  std::fill(maximum, maximum + kRows, kNegInf);
  std::fill(sum, sum + kRows, 0.0f);
  int64_t keyEnd = t.keyEnd(p);
  for (int64_t j0 = 0; j0 < keyEnd; j0 += kKeys) {
    int64_t n = std::min(kKeys, keyEnd - j0);
    maskedScores<Vector>(p, s, t, j0, n);
    for (int64_t r = 0; r < kRows; ++r)
      if (coarse[r])
        foldScores(s.scores.data() + r * kKeys, roundUp(n, kLanes), maximum[r],
                   sum[r]);
  }
  for (int64_t r = 0; r < kRows; ++r)
    if (coarse[r]) {
      rs.shift[r] = maximum[r];
      rs.norm[r] = 1.0f / sum[r];
    }
  return rs;
}

/// Turns the tile's scores into the dropped probabilities m ∘ P that
/// weigh dout for dv, and its dout · vᵀ into dS, in place, for keys
/// [j0, j0 + n).
TF_INLINE void scoreGradients(const Problem &p, Scratch &s, const Tile &t,
                              const RowSoftmax &rs, int64_t j0, int64_t n) {
  int64_t padded = roundUp(n, kLanes);
  for (int64_t r = 0; r < kRows; ++r) {
    float *probs = s.scores.data() + r * kKeys;
    float *grads = s.gradScores.data() + r * kKeys;
    // Past the last row P is 0: nothing to drop.
    bool drops = p.dropout > 0.0f && r < t.rows;
    v16i keep[kKeys / kLanes + 7];
    if (drops)
      t.kept(p, r, j0, padded, keep);
    for (int64_t j = 0; j < padded; j += kLanes) {
      v16 prob = exp16(load(probs + j) - rs.shift[r]) * rs.norm[r];
      v16 dropped = prob, gradProb = load(grads + j);
      if (drops) {
        v16i kept = keep[j / kLanes];
        dropped = select(kept, prob * p.keepScale, splat(0.0f));
        gradProb = select(kept, gradProb * p.keepScale, splat(0.0f));
      }
      store(probs + j, dropped);
      store(grads + j, prob * (gradProb - rs.delta[r]) * p.scale);
    }
    if (!p.hidesKeys() || r >= t.rows)
      continue;
    const int32_t *hidden = s.hidden.data() + t.maskSlot(p, r) * p.sk;
    int64_t i = t.i0 + r, j = j0;
    for (; j + kLanes <= j0 + n; j += kLanes)
      store(grads + j - j0, select(hiddenLanes(p, hidden, i, j), splat(0.0f),
                                   load(grads + j - j0)));
    for (; j < j0 + n; ++j)
      if (isHidden(p, hidden, i, j))
        grads[j - j0] = 0.0f;
  }
}

/// Copies n dense rows to rows [i0, i0 + n) of pair (b, h) of t.
void writeRows(Out t, int64_t b, int64_t h, int64_t i0, const float *rows,
               int64_t n, int64_t width) {
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(t.at(b, h, i0 + i), rows + i * width, width * sizeof(float));
}

/// Instantiated per instruction set (onHostVectors).
struct BackwardPair {
  template <typename Vector>
  TF_INLINE static void run(const Problem &p, const Backward &g, Scratch &s,
                            int64_t b, int64_t h) {
    packTransposed(p, p.k, b, h, p.sk, p.dk, s.keysT.data());
    packTransposed(p, p.v, b, h, p.sk, p.dv, s.valuesT.data());
    std::fill(s.gradKeys.begin(), s.gradKeys.end(), 0.0f);
    std::fill(s.gradValues.begin(), s.gradValues.end(), 0.0f);
    for (int64_t i0 = 0; i0 < p.sq; i0 += kRows) {
      Tile t(p, b, h, i0);
      readMasks(p, s, t);
      const float *gradOut[kRows];
      t.rowsOf(g.gradOut, gradOut);
      RowSoftmax rs = rowSoftmax<Vector>(p, g, s, t, gradOut);
      std::fill(s.gradQuery.begin(), s.gradQuery.end(), 0.0f);
      int64_t keyEnd = t.keyEnd(p);
      for (int64_t j0 = 0; j0 < keyEnd; j0 += kKeys) {
        int64_t n = std::min(kKeys, keyEnd - j0);
        maskedScores<Vector>(p, s, t, j0, n);
        dotTile<Vector>(p, gradOut, s.valuesT.data(), p.dv, j0, n, 1.0f,
                        s.gradScores.data());
        scoreGradients(p, s, t, rs, j0, n);
        addWeightedTile<Vector>(s.gradValues.data() + j0 * p.dv,
                                s.scores.data(), gradOut, p.dv, n);
        addWeightedTile<Vector>(s.gradKeys.data() + j0 * p.dk,
                                s.gradScores.data(), t.query, p.dk, n);
        addWeightedRows<Vector>(s.gradQuery.data(), s.gradScores.data(),
                                p.k.at(b, h, j0), p.k.row, p.dk, n);
      }
      writeRows(g.gradQ, b, h, i0, s.gradQuery.data(), t.rows, p.dk);
    }
    writeRows(g.gradK, b, h, 0, s.gradKeys.data(), p.sk, p.dk);
    writeRows(g.gradV, b, h, 0, s.gradValues.data(), p.sk, p.dv);
  }
};

} // namespace
} // namespace transfuse::rt::attention

using namespace transfuse::rt;
using namespace transfuse::rt::attention;

extern "C" void tfrt_attention_backward_f32(
    int64_t batch, int64_t heads, int64_t sq, int64_t sk, int64_t dk,
    int64_t dv, const float *q, int64_t q_sb, int64_t q_sh, int64_t q_ss,
    const float *k, int64_t k_sb, int64_t k_sh, int64_t k_ss, const float *v,
    int64_t v_sb, int64_t v_sh, int64_t v_ss, const void *mask,
    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk,
    float scale, int32_t causal, float mask_fill, const float *out,
    int64_t o_sb, int64_t o_sh, int64_t o_ss, const float *lse,
    const float *grad_out, int64_t go_sb, int64_t go_sh, int64_t go_ss,
    float *grad_q, int64_t gq_sb, int64_t gq_sh, int64_t gq_ss, float *grad_k,
    int64_t gk_sb, int64_t gk_sh, int64_t gk_ss, float *grad_v, int64_t gv_sb,
    int64_t gv_sh, int64_t gv_ss, float dropout, uint64_t dropout_key,
    int64_t dropout_stream) {
  Problem p =
      makeProblem("tfrt_attention_backward_f32", batch, heads, sq, sk, dk, dv,
                  q, q_sb, q_sh, q_ss, k, k_sb, k_sh, k_ss, v, v_sb, v_sh, v_ss,
                  mask, mask_kind, m_sb, m_sh, m_sq, m_sk, scale, causal,
                  mask_fill, dropout, dropout_key, dropout_stream);
  Backward g{{out, o_sb, o_sh, o_ss},
             {grad_out, go_sb, go_sh, go_ss},
             lse,
             {grad_q, gq_sb, gq_sh, gq_ss},
             {grad_k, gk_sb, gk_sh, gk_ss},
             {grad_v, gv_sb, gv_sh, gv_ss}};
  parallelFor(batch * heads, 1, [&](int64_t begin, int64_t end) {
    Scratch scratch(p);
    for (int64_t pair = begin; pair < end; ++pair)
      onHostVectors<BackwardPair>(p, g, scratch, pair / heads, pair % heads);
  });
}
