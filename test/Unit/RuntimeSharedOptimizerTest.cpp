//===- RuntimeSharedOptimizerTest.cpp - Adam, AdamW and SGD formulas ------===//
//
// runtime/lib/shared/OptimizerMath.h, which the CUDA optimizer kernels
// compute with, against double-precision steps written from torch.optim's
// single-tensor Adam, AdamW and SGD (no dampening; torch starts the momentum
// buffer as a copy of the first gradient, the runtime as zeros), and
// against the f32 elementwise chain that nn-optimizer builds for the CPU
// target (compiler/lib/Transforms/Optimizer.cpp, update()), which it must
// match bit for bit. Each step's scalars are computed in double and rounded
// to f32, as nn-optimizer computes them.
//===----------------------------------------------------------------------===//
#include "RandomFloats.h"
#include "shared/OptimizerMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace transfuse::rt;

/// The unit roundoff of f32: one rounding to nearest errs by at most this
/// much relative to its exact result.
constexpr double kUnit = 0x1p-24;

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Whether |got - want| <= bound, with a message naming `what`.
::testing::AssertionResult within(const std::string &what, float got,
                                  double want, double bound) {
  if (std::abs(got - want) <= bound)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << " = " << got << ", expected " << want << " within " << bound
         << " (off by " << std::abs(got - want) << ")";
}

//===----------------------------------------------------------------------===//
// Adam and AdamW
//===----------------------------------------------------------------------===//

/// torch.optim.Adam / AdamW hyperparameters, as Python floats.
struct AdamConfig {
  double lr, beta1, beta2, eps, weightDecay;
  /// AdamW: the decay multiplies the parameter instead of adding to the
  /// gradient.
  bool decoupled;
};

/// The settings as nn-optimizer passes them to the kernel: each constant,
/// 1 - β included, computed in double and rounded once.
AdamSettings adamSettings(const AdamConfig &c) {
  return {float(c.beta1), float(1.0 - c.beta1),
          float(c.beta2), float(1.0 - c.beta2),
          float(c.eps),   c.decoupled ? 0.0f : float(c.weightDecay)};
}

/// Step `step`'s scalars (from 1), computed in double and rounded once.
AdamScalars adamScalars(const AdamConfig &c, int step, float clipFactor) {
  return {float(c.lr / (1.0 - std::pow(c.beta1, step))),
          float(std::sqrt(1.0 - std::pow(c.beta2, step))), clipFactor,
          c.decoupled ? float(1.0 - c.lr * c.weightDecay) : 1.0f};
}

/// One element's Adam state.
struct AdamState {
  float param, expAvg, expAvgSq;
};

/// torch.optim's single-tensor Adam or AdamW step in double from `s`, and
/// first-order bounds on the error of an f32 evaluation that rounds every
/// constant and every operation once.
///
/// With u = 2^-24, G = |grad · clip| + |param · weight_decay| (the
/// magnitudes that make up g), M = β1 |m| + (1 - β1) G and V = β2 v +
/// (1 - β2) G², counting one rounding per constant and per operation:
/// g errs by 3u G, m' by 6u M, v' by 11u V (g² by 7u G²). sqrt(v')
/// errs relatively by 5.5u V / v' + u, the denominator sqrt(v') / √bc2 +
/// eps by 3u more, m' / denominator (relative to M / denominator) by 1u
/// more than the sum, and the product with step_size by 2u more: the
/// update errs by at most (13 + 5.5 V / v') u · U with U = step_size · M /
/// denominator, below 19.5u · U · V / v' as V >= v'. The decayed parameter
/// errs by 2u |p| and the final subtraction by u (|p| + |update|). Hence
/// bounds of 8u M, 12u V and 24u (|p| + U · V / v'), with room for the
/// second-order terms: about 1e-3 of the smallest effect of the mistakes
/// ReferenceRejectsWrongSteps makes (a bias correction off by a step, a
/// decay missed or applied twice, the clip factor ignored).
struct AdamReference {
  double param, expAvg, expAvgSq;
  double paramBound, expAvgBound, expAvgSqBound;
};

AdamReference adamReference(const AdamConfig &c, int step, double clipFactor,
                            const AdamState &s, double grad) {
  double p = s.param, m = s.expAvg, v = s.expAvgSq;
  double g = grad * clipFactor, magnitude = std::abs(g);
  if (!c.decoupled && c.weightDecay != 0) {
    g += p * c.weightDecay;
    magnitude += std::abs(p * c.weightDecay);
  }
  double decayed = c.decoupled ? p * (1 - c.lr * c.weightDecay) : p;
  // exp_avg.lerp_(grad, 1 - beta1), exp_avg_sq.mul_(beta2).addcmul_(grad,
  // grad, value=1 - beta2).
  double mNew = m + (g - m) * (1 - c.beta1);
  double vNew = v * c.beta2 + g * g * (1 - c.beta2);
  double stepSize = c.lr / (1 - std::pow(c.beta1, step));
  double denominator =
      std::sqrt(vNew) / std::sqrt(1 - std::pow(c.beta2, step)) + c.eps;
  double mBound = c.beta1 * std::abs(m) + (1 - c.beta1) * magnitude;
  double vBound = c.beta2 * v + (1 - c.beta2) * magnitude * magnitude;
  // v' = 0 only where g and v are 0, and then so is V.
  double update =
      stepSize * mBound / denominator * (vNew > 0 ? vBound / vNew : 1.0);
  return {decayed - stepSize * mNew / denominator,
          mNew,
          vNew,
          24 * kUnit * (std::abs(p) + update),
          8 * kUnit * mBound,
          12 * kUnit * vBound};
}

/// Whether adamStep of every element of `state` matches the reference;
/// applies it.
::testing::AssertionResult adamStepMatches(const AdamConfig &c, int step,
                                           float clipFactor,
                                           const AdamScalars &scalars,
                                           std::vector<AdamState> &state,
                                           const std::vector<float> &grads) {
  AdamSettings settings = adamSettings(c);
  for (size_t i = 0; i < state.size(); ++i) {
    AdamReference want = adamReference(c, step, clipFactor, state[i], grads[i]);
    AdamState &s = state[i];
    adamStep(s.param, grads[i], s.expAvg, s.expAvgSq, settings, scalars);
    std::string where =
        "[" + std::to_string(i) + "] at step " + std::to_string(step);
    for (::testing::AssertionResult result :
         {within("param" + where, s.param, want.param, want.paramBound),
          within("exp_avg" + where, s.expAvg, want.expAvg, want.expAvgBound),
          within("exp_avg_sq" + where, s.expAvgSq, want.expAvgSq,
                 want.expAvgSqBound)})
      if (!result)
        return result;
  }
  return ::testing::AssertionSuccess();
}

/// The clip factor of each step: the norm, hence the factor, changes from
/// step to step, which Adam's invariance to the gradient's scale would
/// otherwise hide.
constexpr float kClipFactors[] = {1.0f, 0.37f, 0.8f, 0.05f, 1.0f, 0.6f};

/// Six steps of 500 elements, from zero state, each compared with the
/// reference from the state adamStep left.
void expectAdamMatchesReference(const AdamConfig &c, unsigned seed) {
  std::vector<float> params = uniformFloats(500, -2.0f, 2.0f, seed);
  std::vector<AdamState> state;
  for (float p : params)
    state.push_back({p, 0.0f, 0.0f});
  int step = 0;
  for (float clip : kClipFactors) {
    ++step;
    std::vector<float> grads =
        uniformFloats(state.size(), -1.0f, 1.0f, seed + step);
    ASSERT_TRUE(adamStepMatches(c, step, clip, adamScalars(c, step, clip),
                                state, grads));
  }
}

TEST(RuntimeSharedAdam, MatchesTorchAdam) {
  expectAdamMatchesReference({1e-3, 0.9, 0.999, 1e-8, 0.0, false}, 1);
  // A learning rate and betas away from the defaults, and an eps that
  // matters next to sqrt(v).
  expectAdamMatchesReference({3e-2, 0.8, 0.95, 1e-2, 0.0, false}, 2);
}

TEST(RuntimeSharedAdam, MatchesTorchAdamWithL2Decay) {
  expectAdamMatchesReference({1e-2, 0.9, 0.999, 1e-8, 0.05, false}, 3);
}

TEST(RuntimeSharedAdam, MatchesTorchAdamW) {
  // lr · weight_decay = 1e-3 shrinks each parameter by 1e-3 of itself, far
  // beyond the bound.
  expectAdamMatchesReference({1e-2, 0.9, 0.999, 1e-8, 0.1, true}, 4);
}

// The reference and its bounds reject the mistakes a kernel could make,
// each in one step from a warm state: the test can fail.
TEST(RuntimeSharedAdam, ReferenceRejectsWrongSteps) {
  AdamConfig adam{1e-2, 0.9, 0.999, 1e-8, 0.05, false};
  AdamConfig adamW{1e-2, 0.9, 0.999, 1e-8, 0.1, true};
  auto warmState = [](const AdamConfig &c) {
    std::vector<float> params = uniformFloats(200, -2.0f, 2.0f, 5);
    std::vector<AdamState> state;
    for (float p : params)
      state.push_back({p, 0.0f, 0.0f});
    for (int step = 1; step <= 3; ++step)
      EXPECT_TRUE(adamStepMatches(c, step, 1.0f, adamScalars(c, step, 1.0f),
                                  state,
                                  uniformFloats(200, -1.0f, 1.0f, 5 + step)));
    return state;
  };
  std::vector<float> grads = uniformFloats(200, -1.0f, 1.0f, 9);
  struct Wrong {
    const char *what;
    AdamConfig config;
    float clip;
    AdamScalars scalars;
  };
  AdamScalars right = adamScalars(adam, 4, 0.5f);
  AdamScalars rightW = adamScalars(adamW, 4, 0.5f);
  AdamScalars biasCorrection1 = right, biasCorrection2 = right, noClip = right,
              decayTwice = rightW, noDecay = rightW;
  biasCorrection1.stepSize = adamScalars(adam, 5, 0.5f).stepSize;
  biasCorrection2.biasCorrection2Sqrt =
      adamScalars(adam, 3, 0.5f).biasCorrection2Sqrt;
  noClip.clipFactor = 1.0f;
  decayTwice.decayFactor *= decayTwice.decayFactor;
  noDecay.decayFactor = 1.0f;
  for (const Wrong &wrong :
       {Wrong{"step size of step 5", adam, 0.5f, biasCorrection1},
        Wrong{"bias correction 2 of step 3", adam, 0.5f, biasCorrection2},
        Wrong{"clip factor ignored", adam, 0.5f, noClip},
        Wrong{"decay applied twice", adamW, 0.5f, decayTwice},
        Wrong{"decay missed", adamW, 0.5f, noDecay}}) {
    std::vector<AdamState> state = warmState(wrong.config);
    EXPECT_FALSE(adamStepMatches(wrong.config, 4, wrong.clip, wrong.scalars,
                                 state, grads))
        << wrong.what;
  }
  // The right scalars pass from the same state.
  for (const AdamConfig &c : {adam, adamW}) {
    std::vector<AdamState> state = warmState(c);
    EXPECT_TRUE(
        adamStepMatches(c, 4, 0.5f, adamScalars(c, 4, 0.5f), state, grads));
  }
}

/// One element of update()'s chain for Adam or AdamW: one statement per nn
/// op, each rounded to f32, the optional ones (the clip factor's product,
/// the decays) left out as update() leaves them out.
void adamChain(float &p, float grad, float &m, float &v, const AdamConfig &c,
               const AdamScalars &k, bool clips) {
  float g = grad;
  if (clips)
    g = g * k.clipFactor;
  if (c.weightDecay != 0 && !c.decoupled) {
    float decay = p * float(c.weightDecay);
    g = g + decay;
  }
  if (c.decoupled && c.weightDecay != 0)
    p = p * k.decayFactor;
  float mBeta = m * float(c.beta1);
  float gBeta = g * float(1.0 - c.beta1);
  float mNew = mBeta + gBeta;
  float vBeta = v * float(c.beta2);
  float square = g * g;
  float squareBeta = square * float(1.0 - c.beta2);
  float vNew = vBeta + squareBeta;
  m = mNew;
  v = vNew;
  float root = std::sqrt(vNew);
  float corrected = root / k.biasCorrection2Sqrt;
  float denominator = corrected + float(c.eps);
  float direction = mNew / denominator;
  float scaled = direction * k.stepSize;
  p = p - scaled;
}

/// Gradients with the values that stress the arithmetic: zeros, denormals,
/// squares that underflow or overflow to infinity.
std::vector<float> gradsWithExtremes(size_t count, unsigned seed) {
  std::vector<float> grads = uniformFloats(count, -1.0f, 1.0f, seed);
  const float extremes[] = {0.0f,  -0.0f,  1e-40f, -1e-30f, 1e-20f,
                            3e19f, -1e25f, 1e-3f,  -5e3f,   1e30f};
  for (size_t i = 0; i < std::size(extremes) && 7 * i < count; ++i)
    grads[7 * i] = extremes[i];
  return grads;
}

void expectAdamIsTheChain(const AdamConfig &c, bool clips, unsigned seed) {
  std::vector<float> params = uniformFloats(1000, -2.0f, 2.0f, seed);
  std::vector<AdamState> kernel, chain;
  for (float p : params) {
    kernel.push_back({p, 0.0f, 0.0f});
    chain.push_back({p, 0.0f, 0.0f});
  }
  AdamSettings settings = adamSettings(c);
  for (int step = 1; step <= 6; ++step) {
    float clip = clips ? kClipFactors[step - 1] : 1.0f;
    AdamScalars scalars = adamScalars(c, step, clip);
    std::vector<float> grads = gradsWithExtremes(params.size(), seed + step);
    for (size_t i = 0; i < params.size(); ++i) {
      AdamState &k = kernel[i], &w = chain[i];
      adamStep(k.param, grads[i], k.expAvg, k.expAvgSq, settings, scalars);
      adamChain(w.param, grads[i], w.expAvg, w.expAvgSq, c, scalars, clips);
      ASSERT_TRUE(sameBits(k.param, w.param) && sameBits(k.expAvg, w.expAvg) &&
                  sameBits(k.expAvgSq, w.expAvgSq))
          << "element " << i << " at step " << step << ", grad " << grads[i]
          << ": (" << k.param << ", " << k.expAvg << ", " << k.expAvgSq
          << "), the chain (" << w.param << ", " << w.expAvg << ", "
          << w.expAvgSq << ")";
    }
  }
}

// What makes the CUDA kernels agree with the CPU artifact: with clip
// factor 1, decay factor 1 and no L2 decay (the values nn-optimizer passes
// when it neither clips nor decays), adamStep is the plain chain.
TEST(RuntimeSharedAdam, PlainAdamIsTheChainBitForBit) {
  expectAdamIsTheChain({1e-3, 0.9, 0.999, 1e-8, 0.0, false}, false, 11);
  expectAdamIsTheChain({3e-2, 0.8, 0.95, 1e-2, 0.0, false}, false, 12);
}

TEST(RuntimeSharedAdam, ClippedAndDecayedAdamIsTheChainBitForBit) {
  expectAdamIsTheChain({1e-2, 0.9, 0.999, 1e-8, 0.05, false}, true, 13);
  expectAdamIsTheChain({1e-2, 0.9, 0.999, 1e-8, 0.1, true}, true, 14);
}

//===----------------------------------------------------------------------===//
// SGD
//===----------------------------------------------------------------------===//

struct SgdConfig {
  double lr, momentum, weightDecay;
  bool nesterov;
};

/// torch.optim.SGD's single-tensor step in double (dampening 0), and a
/// first-order bound on the error of an f32 evaluation that rounds every
/// constant and operation once. With u = 2^-24, G = |grad · clip| +
/// |param · weight_decay|, B = μ |buf| + G and D the magnitude of the
/// direction (G without momentum, B without Nesterov, G + μ B with it): g
/// errs by 3u G, the buffer by 6u B, the direction by 9u D, its product
/// with lr (rounded too) by 11u lr D and the parameter by u (|p| + lr D)
/// more. Hence 16u (|p| + lr D) for the parameter and 8u B for the buffer.
struct SgdReference {
  double param, buffer;
  double paramBound, bufferBound;
};

SgdReference sgdReference(const SgdConfig &c, double clipFactor, double p,
                          double grad, double buffer, bool first) {
  double g = grad * clipFactor, magnitude = std::abs(g);
  if (c.weightDecay != 0) {
    g += p * c.weightDecay;
    magnitude += std::abs(p * c.weightDecay);
  }
  double direction = g, directionBound = magnitude, bufferBound = 0;
  if (c.momentum != 0) {
    // torch: buf = clone(d_p) on the first step, buf.mul_(momentum).add_(d_p)
    // after.
    buffer = first ? g : buffer * c.momentum + g;
    bufferBound = c.momentum * std::abs(buffer) + magnitude;
    direction = c.nesterov ? g + buffer * c.momentum : buffer;
    directionBound =
        c.nesterov ? magnitude + c.momentum * bufferBound : bufferBound;
  }
  return {p - c.lr * direction, buffer,
          16 * kUnit * (std::abs(p) + c.lr * directionBound),
          8 * kUnit * bufferBound};
}

/// Six steps of 500 elements, the buffer (when there is momentum) from
/// zeros, each compared with the reference from the state sgdStep left.
void expectSgdMatchesReference(const SgdConfig &c, unsigned seed) {
  std::vector<float> params = uniformFloats(500, -2.0f, 2.0f, seed);
  std::vector<float> buffers(params.size(), 0.0f);
  SgdSettings settings{float(c.momentum), float(c.weightDecay), c.nesterov};
  float lr = float(c.lr);
  int step = 0;
  for (float clip : kClipFactors) {
    ++step;
    std::vector<float> grads =
        uniformFloats(params.size(), -1.0f, 1.0f, seed + step);
    for (size_t i = 0; i < params.size(); ++i) {
      SgdReference want =
          sgdReference(c, clip, params[i], grads[i], buffers[i], step == 1);
      sgdStep(params[i], grads[i], c.momentum != 0 ? &buffers[i] : nullptr, lr,
              clip, settings);
      std::string where =
          "[" + std::to_string(i) + "] at step " + std::to_string(step);
      ASSERT_TRUE(
          within("param" + where, params[i], want.param, want.paramBound));
      if (c.momentum != 0)
        ASSERT_TRUE(within("momentum_buffer" + where, buffers[i], want.buffer,
                           want.bufferBound));
      else
        ASSERT_EQ(buffers[i], 0.0f) << "buffer" << where;
    }
  }
}

TEST(RuntimeSharedSgd, MatchesTorchSgd) {
  expectSgdMatchesReference({0.1, 0.0, 0.0, false}, 21);
  expectSgdMatchesReference({0.05, 0.0, 0.01, false}, 22);
}

TEST(RuntimeSharedSgd, MatchesTorchSgdWithMomentum) {
  expectSgdMatchesReference({0.1, 0.9, 0.0, false}, 23);
  expectSgdMatchesReference({0.05, 0.5, 0.01, false}, 24);
}

TEST(RuntimeSharedSgd, MatchesTorchSgdWithNesterov) {
  expectSgdMatchesReference({0.1, 0.9, 0.0, true}, 25);
  expectSgdMatchesReference({0.05, 0.5, 0.01, true}, 26);
}

TEST(RuntimeSharedSgd, ReferenceRejectsWrongSteps) {
  SgdConfig c{0.1, 0.9, 0.01, true};
  SgdSettings settings{0.9f, 0.01f, true};
  std::vector<float> grads = uniformFloats(100, -1.0f, 1.0f, 27);
  std::vector<float> params = uniformFloats(100, -2.0f, 2.0f, 28);
  auto rejects = [&](float lr, float clip, SgdSettings s) {
    for (size_t i = 0; i < params.size(); ++i) {
      float p = params[i], buffer = 0.5f;
      SgdReference want = sgdReference(c, 0.5, p, grads[i], buffer, false);
      sgdStep(p, grads[i], &buffer, lr, clip, s);
      if (!within("param", p, want.param, want.paramBound) ||
          !within("buffer", buffer, want.buffer, want.bufferBound))
        return true;
    }
    return false;
  };
  EXPECT_FALSE(rejects(0.1f, 0.5f, settings));
  EXPECT_TRUE(rejects(0.1f, 1.0f, settings)) << "clip factor ignored";
  EXPECT_TRUE(rejects(0.1f, 0.5f, {0.9f, 0.01f, false})) << "no Nesterov";
  EXPECT_TRUE(rejects(0.1f, 0.5f, {0.9f, 0.0f, true})) << "no decay";
  EXPECT_TRUE(rejects(0.1f * (1 + 1e-4f), 0.5f, settings)) << "lr off by 1e-4";
}

/// update()'s chain for SGD, one statement per nn op.
void sgdChain(float &p, float grad, float *buffer, float lr, float clip,
              const SgdConfig &c, bool clips) {
  float g = grad;
  if (clips)
    g = g * clip;
  if (c.weightDecay != 0) {
    float decay = p * float(c.weightDecay);
    g = g + decay;
  }
  float direction = g;
  if (c.momentum != 0) {
    float kept = *buffer * float(c.momentum);
    float updated = kept + g;
    *buffer = updated;
    if (c.nesterov) {
      float ahead = updated * float(c.momentum);
      direction = g + ahead;
    } else {
      direction = updated;
    }
  }
  float scaled = direction * lr;
  p = p - scaled;
}

TEST(RuntimeSharedSgd, IsTheChainBitForBit) {
  for (SgdConfig c :
       {SgdConfig{0.1, 0.0, 0.0, false}, SgdConfig{0.05, 0.0, 0.01, false},
        SgdConfig{0.1, 0.9, 0.0, false}, SgdConfig{0.05, 0.5, 0.01, false},
        SgdConfig{0.1, 0.9, 0.0, true}, SgdConfig{0.05, 0.5, 0.01, true}}) {
    for (bool clips : {false, true}) {
      SCOPED_TRACE("momentum " + std::to_string(c.momentum) + ", decay " +
                   std::to_string(c.weightDecay) +
                   (c.nesterov ? ", Nesterov" : "") +
                   (clips ? ", clipped" : ""));
      std::vector<float> kernel = uniformFloats(1000, -2.0f, 2.0f, 31);
      std::vector<float> chain = kernel, kernelBuffer(kernel.size(), 0.0f),
                         chainBuffer = kernelBuffer;
      SgdSettings settings{float(c.momentum), float(c.weightDecay), c.nesterov};
      float lr = float(c.lr);
      for (int step = 1; step <= 6; ++step) {
        float clip = clips ? kClipFactors[step - 1] : 1.0f;
        std::vector<float> grads = gradsWithExtremes(kernel.size(), 31 + step);
        for (size_t i = 0; i < kernel.size(); ++i) {
          bool momentum = c.momentum != 0;
          sgdStep(kernel[i], grads[i], momentum ? &kernelBuffer[i] : nullptr,
                  lr, clip, settings);
          sgdChain(chain[i], grads[i], momentum ? &chainBuffer[i] : nullptr, lr,
                   clip, c, clips);
          ASSERT_TRUE(sameBits(kernel[i], chain[i]) &&
                      sameBits(kernelBuffer[i], chainBuffer[i]))
              << "element " << i << " at step " << step << ": " << kernel[i]
              << ", the chain " << chain[i];
        }
      }
    }
  }
}

// nn.sgd_update has no buffer without momentum: a null buffer is plain
// SGD, whatever the settings' momentum and Nesterov flag.
TEST(RuntimeSharedSgd, NullBufferIsPlainSgd) {
  std::vector<float> params = uniformFloats(300, -2.0f, 2.0f, 41);
  std::vector<float> grads = gradsWithExtremes(params.size(), 42);
  for (float decay : {0.0f, 0.01f}) {
    for (size_t i = 0; i < params.size(); ++i) {
      float plain = params[i], ignoring = params[i];
      sgdStep(plain, grads[i], nullptr, 0.1f, 0.7f, {0.0f, decay, false});
      sgdStep(ignoring, grads[i], nullptr, 0.1f, 0.7f, {0.9f, decay, true});
      float g = grads[i] * 0.7f;
      if (decay != 0)
        g = g + params[i] * decay;
      float want = params[i] - g * 0.1f;
      ASSERT_TRUE(sameBits(plain, want)) << i << ": " << plain << ", " << want;
      ASSERT_TRUE(sameBits(ignoring, want))
          << i << ": " << ignoring << ", " << want;
    }
  }
}

} // namespace
