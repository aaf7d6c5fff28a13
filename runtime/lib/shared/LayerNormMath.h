//===- LayerNormMath.h - Layer normalisation and its gradient ---*- C++ -*-===//
//
// The per-element arithmetic of nn.layer_norm and nn.layer_norm_grad as
// their CPU lowering computes it, in each of the op's forms: a row of
// `cols` elements x has mean = Σx / cols (0 for the mean square, RMSNorm),
// the sum of squares Σ(x - mean)², the variance var = that sum / M (M =
// cols, or cols - 1 for the unbiased variance), and the scale s = 1 /
// sqrt(var + epsilon), or 1 / (sqrt(var) + epsilon) with epsilon on the
// std; xhat = (x - mean) · s. The sums themselves are the caller's (a
// block reduction on the GPU).
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_LAYERNORMMATH_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_LAYERNORMMATH_H

#include "HostDevice.h"

#include <cmath>
#include <cstdint>

namespace transfuse::rt {

/// The runtime calls' `form` argument (docs/artifact.md): nn.layer_norm's
/// statistic in the low bits, kNormEpsilonOnStd or'ed in.
enum LayerNormFormBits : int32_t {
  kNormVariance = 0,
  kNormUnbiasedVariance = 1,
  kNormMeanSquare = 2,
  kNormStatisticMask = 3,
  kNormEpsilonOnStd = 4,
};

/// A decoded `form`.
struct LayerNormForm {
  bool centred, unbiased, epsilonOnStd;
};

/// Whether `form` names one of the op's forms.
TF_HOST_DEVICE bool isLayerNormForm(int32_t form) {
  return (form & ~(kNormStatisticMask | kNormEpsilonOnStd)) == 0 &&
         (form & kNormStatisticMask) != kNormStatisticMask;
}

TF_HOST_DEVICE LayerNormForm decodeLayerNormForm(int32_t form) {
  int32_t statistic = form & kNormStatisticMask;
  return {statistic != kNormMeanSquare, statistic == kNormUnbiasedVariance,
          (form & kNormEpsilonOnStd) != 0};
}

/// The mean of a row from the sum of its elements.
TF_HOST_DEVICE float layerNormMean(float sum, int64_t cols) {
  return sum / static_cast<float>(cols);
}

/// M, what the sum of squares is divided by.
TF_HOST_DEVICE float layerNormDivisor(LayerNormForm form, int64_t cols) {
  return static_cast<float>(form.unbiased ? cols - 1 : cols);
}

/// The scale s from Σ(x - mean)².
TF_HOST_DEVICE float layerNormScale(float squareSum, int64_t cols,
                                    float epsilon, LayerNormForm form) {
  float variance = squareSum / layerNormDivisor(form, cols);
  return form.epsilonOnStd ? 1.0f / (sqrtf(variance) + epsilon)
                           : 1.0f / sqrtf(variance + epsilon);
}

/// The normalised element xhat.
TF_HOST_DEVICE float layerNormXhat(float x, float mean, float scale) {
  return (x - mean) * scale;
}

/// The layer norm's output element: xhat · gamma + beta.
TF_HOST_DEVICE float layerNormOutput(float x, float mean, float scale,
                                     float gamma, float beta) {
  return layerNormXhat(x, mean, scale) * gamma + beta;
}

/// Σ(g · xhat) / D, the weight of xhat in grad_input: D = M, or M · sqrt(var)
/// · s with epsilon on the std (ds/dσ is -s² there against -s³ σ).
TF_HOST_DEVICE float layerNormXhatWeight(float sumGXhat, float squareSum,
                                         float scale, int64_t cols,
                                         LayerNormForm form) {
  float divisor = layerNormDivisor(form, cols);
  if (!form.epsilonOnStd)
    return sumGXhat / divisor;
  return sumGXhat / (divisor * sqrtf(squareSum / divisor) * scale);
}

/// d loss / d x of one element: s · (g - mean(g) - xhat · xhatWeight) with
/// g = grad · gamma, mean(g) the row's (0 for a form that does not centre).
TF_HOST_DEVICE float layerNormGradInput(float g, float xhat, float meanG,
                                        float xhatWeight, float scale) {
  return scale * (g - meanG - xhat * xhatWeight);
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_LAYERNORMMATH_H
