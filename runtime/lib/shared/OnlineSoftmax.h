//===- OnlineSoftmax.h - Softmax arithmetic of fused attention --*- C++ -*-===//
//
// The per-row arithmetic of the attention kernels, as the CPU kernels
// (runtime/lib/Attention.cpp, AttentionBackward.cpp) define it:
//
// Forward: a row's scores arrive a block at a time. The running state is
// the largest score so far and the sum of e^(x - maximum) over the scores
// so far; a block that raises the maximum rescales the sum, and whatever
// else was accumulated relative to the old maximum, by e^(old - new). A
// score of -inf weighs 0. A row whose every score is -inf has sum 0: its
// output is NaN (the softmax of all -inf) and its log-sum-exp -inf; with no
// keys at all the output is the empty product, 0. A finite fill such as
// -1e9 is an ordinary score: a row hidden entirely by it is uniform.
//
// Backward: probabilities are recomputed from the forward's log-sum-exp,
// P = e^(x - lse). From |lse| >= kCoarseLse on, the float lse has lost
// digits P needs (a row hidden by a fill of -1e9 has lse = fill + log(sk),
// which rounds to the fill), so such a "coarse" row carries a residual r,
// the difference between its true log-sum-exp and lse, recomputed from its
// scores: P = e^((x - lse) - r). x - lse is exact wherever P is not
// negligible (x and lse then lie within a factor of 2 of each other).
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_ONLINESOFTMAX_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_ONLINESOFTMAX_H

#include "HostDevice.h"

#include <cmath>
#include <cstdint>

namespace transfuse::rt {

/// The running maximum of a row's scores and the sum of e^(x - maximum)
/// over them.
struct SoftmaxState {
  float maximum, sum;
};

/// The state before any score.
TF_HOST_DEVICE SoftmaxState emptySoftmax() { return {-INFINITY, 0.0f}; }

/// e^(from - to): what carries a sum taken relative to maximum `from` over
/// to the maximum `to` >= from. 1 while every score is -inf (to = -inf),
/// when there is nothing to carry.
TF_HOST_DEVICE float softmaxRescale(float from, float to) {
  return to == -INFINITY ? 1.0f : expf(from - to);
}

/// e^(x - maximum), the weight of score x under the running maximum; 0
/// while every score is -inf.
TF_HOST_DEVICE float softmaxWeight(float x, float maximum) {
  return maximum == -INFINITY ? 0.0f : expf(x - maximum);
}

/// Raises the running maximum to cover a block of scores whose largest is
/// `blockMaximum`, rescaling the sum. Returns the factor, which anything
/// else accumulated relative to the old maximum needs too.
TF_HOST_DEVICE float raiseMaximum(SoftmaxState &state, float blockMaximum) {
  float maximum = fmaxf(state.maximum, blockMaximum);
  float factor = softmaxRescale(state.maximum, maximum);
  state.maximum = maximum;
  state.sum *= factor;
  return factor;
}

/// The row's log-sum-exp: -inf when every score is -inf.
TF_HOST_DEVICE float logSumExp(SoftmaxState state) {
  return state.sum == 0.0f ? -INFINITY : state.maximum + logf(state.sum);
}

/// What turns the row's accumulated Σ e^(x - maximum) v into its output:
/// 1 / sum; NaN when every score is -inf; 0 when there are no keys.
TF_HOST_DEVICE float outputFactor(SoftmaxState state, int64_t keys) {
  if (keys == 0)
    return 0.0f;
  return state.sum == 0.0f ? NAN : 1.0f / state.sum;
}

/// From this |lse| on, half an ulp of the lse (6e-5 at 1024) would show in
/// the probabilities: the row is coarse.
constexpr float kCoarseLse = 1024.0f;

/// How the backward treats a query row, by its lse.
enum class RowKind {
  /// lse = -inf: every score is -inf, no probability, zero gradients.
  Dead,
  /// P = e^(x - lse).
  Ordinary,
  /// P = e^((x - lse) - residual).
  Coarse,
};

TF_HOST_DEVICE RowKind rowKind(float lse) {
  if (lse == -INFINITY)
    return RowKind::Dead;
  return fabsf(lse) >= kCoarseLse ? RowKind::Coarse : RowKind::Ordinary;
}

/// The residual of a coarse row whose scores have `state`: its true
/// log-sum-exp, maximum + log(sum), minus the rounded `lse`. maximum - lse
/// is exact: both are large and within log(sum) of each other.
TF_HOST_DEVICE float lseResidual(SoftmaxState state, float lse) {
  return (state.maximum - lse) + logf(state.sum);
}

/// The probability of score x in a row with `lse` and `residual` (0 for
/// an ordinary row); 0 in a dead row.
TF_HOST_DEVICE float rowProbability(float x, float lse, float residual) {
  return lse == -INFINITY ? 0.0f : expf((x - lse) - residual);
}

/// x after dropout: scaled by keepScale = 1 / (1 - rate) where kept, 0
/// where dropped. Without dropout every element is kept with keepScale 1,
/// which leaves x exactly as it is.
TF_HOST_DEVICE float applyDropout(float x, bool kept, float keepScale) {
  return kept ? x * keepScale : 0.0f;
}

/// What one score passes back: `weight`, the dropped probability m·P that
/// weighs dout into dv, and `score`, dS = scale · P (m·dP - D), the
/// gradient of the scaled score. A hidden score is the fill, a constant:
/// its dS is 0, while its probability still weighs dout.
struct ScoreGradients {
  float weight, score;
};

/// The gradients of one score: probability p, dP = dout · v_j (before
/// dropout), delta = D = dout · out of the row.
TF_HOST_DEVICE ScoreGradients scoreGradients(float p, float gradP, float delta,
                                             float scale, bool kept,
                                             float keepScale, bool hidden) {
  float weight = applyDropout(p, kept, keepScale);
  float score =
      hidden ? 0.0f
             : p * (applyDropout(gradP, kept, keepScale) - delta) * scale;
  return {weight, score};
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_ONLINESOFTMAX_H
