//===- LayerNormMath.h - Layer normalisation and its gradient ---*- C++ -*-===//
//
// The per-element arithmetic of nn.layer_norm and nn.layer_norm_grad as
// their CPU lowering computes it (torch.nn.LayerNorm): the statistics of a
// row of `cols` elements x are mean = Σx / cols and the biased variance
// var = Σ(x - mean)² / cols, rstd = 1 / sqrt(var + epsilon), and
// xhat = (x - mean) · rstd. The sums themselves are the caller's (a block
// reduction on the GPU).
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_LAYERNORMMATH_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_LAYERNORMMATH_H

#include "HostDevice.h"

#include <cmath>
#include <cstdint>

namespace transfuse::rt {

/// The mean of a row from the sum of its elements.
TF_HOST_DEVICE float layerNormMean(float sum, int64_t cols) {
  return sum / static_cast<float>(cols);
}

/// 1 / sqrt(var + epsilon) from Σ(x - mean)², the variance being biased
/// (divided by cols, not cols - 1) as torch.nn.LayerNorm's.
TF_HOST_DEVICE float layerNormRstd(float centredSquareSum, int64_t cols,
                                   float epsilon) {
  return 1.0f / sqrtf(centredSquareSum / static_cast<float>(cols) + epsilon);
}

/// The normalised element xhat.
TF_HOST_DEVICE float layerNormXhat(float x, float mean, float rstd) {
  return (x - mean) * rstd;
}

/// The layer norm's output element: xhat · gamma + beta.
TF_HOST_DEVICE float layerNormOutput(float x, float mean, float rstd,
                                     float gamma, float beta) {
  return layerNormXhat(x, mean, rstd) * gamma + beta;
}

/// d loss / d x of one element: rstd · (g - mean(g) - xhat · mean(g · xhat))
/// with g = grad · gamma, from the row's means of g and g · xhat.
TF_HOST_DEVICE float layerNormGradInput(float g, float xhat, float meanG,
                                        float meanGXhat, float rstd) {
  return rstd * (g - meanG - xhat * meanGXhat);
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_LAYERNORMMATH_H
