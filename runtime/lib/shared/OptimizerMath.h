//===- OptimizerMath.h - Adam, AdamW and SGD on one element -----*- C++ -*-===//
//
// The per-element arithmetic of nn.adam_update and nn.sgd_update, in f32
// and in the order of the elementwise chain nn-optimizer builds for the CPU
// target (torch.optim's single-tensor steps), so that the CUDA kernels and
// the CPU artifact compute the same values. On the device every product,
// sum, quotient and square root is rounded on its own (__fmul_rn and
// friends): nvcc would otherwise contract a product and a sum into one
// fused multiply-add, which the CPU code does not do.
//
// The global norm's partial sums: kGlobalNormBlocks blocks per tensor, each
// summing the squares of the elements it strides over in double, so that
// the norm depends on the shapes only, never on the device.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_OPTIMIZERMATH_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_OPTIMIZERMATH_H

#include "HostDevice.h"

#include <cmath>
#include <cstdint>

namespace transfuse::rt {

/// Partial sums of squares per tensor of a global norm, and the threads of
/// each block that computes one.
constexpr int64_t kGlobalNormBlocks = 128;
constexpr unsigned kGlobalNormThreads = 256;

namespace rounded {
#ifdef __CUDA_ARCH__
TF_HOST_DEVICE float add(float a, float b) { return __fadd_rn(a, b); }
TF_HOST_DEVICE float sub(float a, float b) { return __fsub_rn(a, b); }
TF_HOST_DEVICE float mul(float a, float b) { return __fmul_rn(a, b); }
TF_HOST_DEVICE float div(float a, float b) { return __fdiv_rn(a, b); }
TF_HOST_DEVICE float sqrt(float a) { return __fsqrt_rn(a); }
#else
TF_HOST_DEVICE float add(float a, float b) { return a + b; }
TF_HOST_DEVICE float sub(float a, float b) { return a - b; }
TF_HOST_DEVICE float mul(float a, float b) { return a * b; }
TF_HOST_DEVICE float div(float a, float b) { return a / b; }
TF_HOST_DEVICE float sqrt(float a) { return std::sqrt(a); }
#endif
} // namespace rounded

/// The settings of an Adam or AdamW update that do not change with the
/// step; 1 - β is rounded from double, as the chain's constants are.
struct AdamSettings {
  float beta1, oneMinusBeta1, beta2, oneMinusBeta2, eps;
  /// Adam's L2 decay (AdamW's is decayFactor).
  float weightDecay;
};

/// The step's scalars: lr / (1 - β1^t), sqrt(1 - β2^t), the clipping
/// factor and AdamW's 1 - lr · weight_decay (1 for Adam).
struct AdamScalars {
  float stepSize, biasCorrection2Sqrt, clipFactor, decayFactor;
};

/// One element of nn.adam_update: param, exp_avg and exp_avg_sq in place.
TF_HOST_DEVICE void adamStep(float &param, float grad, float &expAvg,
                             float &expAvgSq, const AdamSettings &s,
                             const AdamScalars &k) {
  using namespace rounded;
  float g = mul(grad, k.clipFactor);
  if (s.weightDecay != 0.0f)
    g = add(g, mul(param, s.weightDecay));
  float p = mul(param, k.decayFactor);
  float m = add(mul(expAvg, s.beta1), mul(g, s.oneMinusBeta1));
  float v = add(mul(expAvgSq, s.beta2), mul(mul(g, g), s.oneMinusBeta2));
  float denominator = add(div(sqrt(v), k.biasCorrection2Sqrt), s.eps);
  param = sub(p, mul(div(m, denominator), k.stepSize));
  expAvg = m;
  expAvgSq = v;
}

struct SgdSettings {
  float momentum, weightDecay;
  bool nesterov;
};

/// One element of nn.sgd_update: param and, unless null, the momentum
/// buffer's element in place.
TF_HOST_DEVICE void sgdStep(float &param, float grad, float *buffer, float lr,
                            float clipFactor, const SgdSettings &s) {
  using namespace rounded;
  float g = mul(grad, clipFactor);
  if (s.weightDecay != 0.0f)
    g = add(g, mul(param, s.weightDecay));
  float direction = g;
  if (buffer) {
    float updated = add(mul(*buffer, s.momentum), g);
    *buffer = updated;
    direction = s.nesterov ? add(g, mul(updated, s.momentum)) : updated;
  }
  param = sub(param, mul(direction, lr));
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_OPTIMIZERMATH_H
