//===- OptimizerTest.cpp - The CUDA global norm and optimizer updates -----===//
//
// tfrt_cuda_{sum_squares,global_norm,adam_update,sgd_update}_f32 and
// kernels/optimizer.cu, emulated. The norm against a double-precision norm,
// its partial sums against the striding the kernel documents (block b sums
// the elements whose index modulo kGlobalNormBlocks · kGlobalNormThreads
// lies in [b · kGlobalNormThreads, (b + 1) · kGlobalNormThreads)), so that
// the norm depends on the shapes only. The updates against
// shared/OptimizerMath.h applied element by element on the host, bit for
// bit: the emulation compiles that header as the host sees it, and a GPU
// rounds its operations one by one too (rounded::), so the kernels' only
// freedom is which element a thread takes, which must change nothing.
//===----------------------------------------------------------------------===//
#include "CudaEntryPoints.h"
#include "DeviceTesting.h"
#include "Grid.h"

#include "shared/OptimizerMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

namespace {

using namespace transfuse::emu;
using transfuse::rt::AdamScalars;
using transfuse::rt::AdamSettings;
using transfuse::rt::kGlobalNormBlocks;
using transfuse::rt::kGlobalNormThreads;
using transfuse::rt::SgdSettings;

//===----------------------------------------------------------------------===//
// The global norm
//===----------------------------------------------------------------------===//

/// Partial sums that the kernels must overwrite.
std::vector<double> unwrittenPartials(size_t count) {
  return std::vector<double>(count, NAN);
}

bool samePartials(const std::vector<double> &a, const std::vector<double> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

/// Tensors of no element, one, fewer than a block's threads, one more pass
/// of the grid than fits (the blocks stride, the first seven threads
/// twice) and many passes; their scales differ, so that a tensor summed
/// into the wrong slots shows. Each tensor costs its kGlobalNormBlocks
/// emulated blocks, whatever its size.
std::vector<std::vector<float>>
normTensors(std::initializer_list<size_t> pick = {0, 1, 2, 3, 4}) {
  const int64_t sizes[] = {0, 1, 255,
                           kGlobalNormBlocks * kGlobalNormThreads + 7, 300001};
  const float scales[] = {1.0f, 3.0f, 0.01f, 100.0f, 0.5f};
  std::vector<std::vector<float>> tensors;
  for (size_t t : pick) {
    tensors.push_back(uniformFloats(sizes[t], -1, 1, 60 + t));
    for (float &value : tensors.back())
      value *= scales[t];
  }
  return tensors;
}

struct Norm {
  std::vector<double> partials;
  float norm;
};

/// The norm of `tensors` as the training step takes it: each tensor's
/// partial sums into its own kGlobalNormBlocks slots, then one sum.
Norm cudaNorm(const std::vector<std::vector<float>> &tensors) {
  Norm result{unwrittenPartials(tensors.size() * kGlobalNormBlocks), NAN};
  EXPECT_EQ(runOnDevice([&] {
              for (size_t t = 0; t < tensors.size(); ++t)
                tfrt_cuda_sum_squares_f32(
                    tensors[t].size(), tensors[t].data(), kGlobalNormBlocks,
                    result.partials.data() + t * kGlobalNormBlocks);
              tfrt_cuda_global_norm_f32(result.partials.size(),
                                        result.partials.data(), &result.norm);
            }),
            "");
  return result;
}

TEST(CudaOptimizer, GlobalNormMatchesReference) {
  std::vector<std::vector<float>> tensors = normTensors();
  Norm got = cudaNorm(tensors);
  long double total = 0;
  constexpr int64_t pass = kGlobalNormBlocks * kGlobalNormThreads;
  for (size_t t = 0; t < tensors.size(); ++t) {
    SCOPED_TRACE("tensor " + std::to_string(t) + " of " +
                 std::to_string(tensors[t].size()) + " elements");
    std::vector<double> want(kGlobalNormBlocks);
    for (size_t i = 0; i < tensors[t].size(); ++i) {
      double value = tensors[t][i];
      want[i % pass / kGlobalNormThreads] += value * value;
      total += value * value;
    }
    // Each slot sums its squares (exact in double) in a different order
    // from `want`: a relative error of at most a few thousand terms times
    // 2^-53. Empty slots are exactly 0.
    std::vector<double> slots(got.partials.begin() + t * kGlobalNormBlocks,
                              got.partials.begin() +
                                  (t + 1) * kGlobalNormBlocks);
    for (int64_t b = 0; b < kGlobalNormBlocks; ++b)
      EXPECT_NEAR(slots[b], want[b], 1e-12 * want[b]) << "slot " << b;
  }
  // One rounding to f32 of a square root that double sums get right to
  // ~1e-13: at most half an ulp, below 2^-24 of the norm.
  double norm = std::sqrt(double(total));
  EXPECT_NEAR(got.norm, norm, 0x1p-24 * norm * (1 + 1e-6));
}

// Twice the same bits, the second time with the blocks in another order:
// each block's partial sum goes to its own slot, and one block sums the
// slots in a fixed order.
TEST(CudaOptimizer, GlobalNormIsDeterministic) {
  std::vector<std::vector<float>> tensors = normTensors({2, 4});
  Norm first = cudaNorm(tensors);
  ShuffledBlocks shuffled;
  Norm again = cudaNorm(tensors);
  EXPECT_TRUE(samePartials(first.partials, again.partials));
  EXPECT_TRUE(sameBits({first.norm}, {again.norm}));
}

TEST(CudaOptimizer, GlobalNormOfNothingIsZero) {
  float norm = NAN;
  double partial = NAN;
  EXPECT_EQ(runOnDevice([&] { tfrt_cuda_global_norm_f32(0, &partial, &norm); }),
            "");
  EXPECT_EQ(norm, 0.0f);
}

TEST(CudaOptimizer, RejectsBadArguments) {
  float x = 1;
  std::vector<double> partials = unwrittenPartials(2 * kGlobalNormBlocks);
  std::vector<double> untouched = partials;
  for (int64_t slots : {int64_t(64), int64_t(256), int64_t(0)}) {
    EXPECT_EQ(runOnDevice([&] {
                tfrt_cuda_sum_squares_f32(1, &x, slots, partials.data());
              }),
              "tfrt_cuda_sum_squares_f32: the artifact plans " +
                  std::to_string(slots) +
                  " partial sums per tensor, this runtime computes 128");
    EXPECT_TRUE(samePartials(partials, untouched)) << slots << " slots";
  }
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_sum_squares_f32(-1, &x, kGlobalNormBlocks,
                                        partials.data());
            }),
            "tfrt_cuda_sum_squares_f32: n must not be negative, got -1");
  float norm = NAN;
  EXPECT_EQ(runOnDevice(
                [&] { tfrt_cuda_global_norm_f32(-5, partials.data(), &norm); }),
            "tfrt_cuda_global_norm_f32: count must not be negative, got -5");
  EXPECT_TRUE(std::isnan(norm));
  float scalar = 1;
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_adam_update_f32(-2, &x, &x, &x, &x, 0.9f, 0.1f, 0.999f,
                                        0.001f, 1e-8f, 0.0f, &scalar, &scalar,
                                        &scalar, &scalar);
            }),
            "tfrt_cuda_adam_update_f32: n must not be negative, got -2");
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_sgd_update_f32(-3, &x, &x, nullptr, 0.0f, 0.0f, 0,
                                       &scalar, &scalar);
            }),
            "tfrt_cuda_sgd_update_f32: n must not be negative, got -3");
  // The first failure stops the entry point: what follows does nothing.
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_sum_squares_f32(1, &x, 64, partials.data());
              tfrt_cuda_sum_squares_f32(1, &x, kGlobalNormBlocks,
                                        partials.data());
            }),
            "tfrt_cuda_sum_squares_f32: the artifact plans 64 partial sums "
            "per tensor, this runtime computes 128");
  EXPECT_TRUE(samePartials(partials, untouched));
}

//===----------------------------------------------------------------------===//
// The updates
//===----------------------------------------------------------------------===//

/// 1029 elements: four full blocks of kPerItemThreads and a part of one.
constexpr size_t kElements = 1029;

/// Gradients with the values that stress the arithmetic: zeros, denormals,
/// squares that underflow or overflow to infinity.
std::vector<float> gradsWithExtremes(size_t count, unsigned seed) {
  std::vector<float> grads = uniformFloats(count, -1, 1, seed);
  const float extremes[] = {0.0f,  -0.0f,  1e-40f, -1e-30f, 1e-20f,
                            3e19f, -1e25f, 1e-3f,  -5e3f,   1e30f};
  for (size_t i = 0; i < std::size(extremes); ++i)
    grads[97 * i + 3] = extremes[i];
  return grads;
}

struct AdamCase {
  const char *name;
  AdamSettings settings;
  /// The step's scalars, as the step computes them for steps 1, 2, 3.
  AdamScalars scalars[3];
};

/// Adam, Adam with L2 decay and a clip factor, AdamW with its decay factor:
/// each step's scalars as nn-optimizer computes them (in double, rounded).
std::vector<AdamCase> adamCases() {
  auto scalars = [](double lr, double beta1, double beta2, int step, float clip,
                    double decoupledDecay) {
    return AdamScalars{float(lr / (1 - std::pow(beta1, step))),
                       float(std::sqrt(1 - std::pow(beta2, step))), clip,
                       float(1 - lr * decoupledDecay)};
  };
  AdamSettings defaults{0.9f, float(1 - 0.9), 0.999f, float(1 - 0.999), 1e-8f,
                        0.0f};
  AdamSettings l2 = defaults;
  l2.weightDecay = 0.05f;
  return {
      {"Adam",
       defaults,
       {scalars(1e-3, 0.9, 0.999, 1, 1.0f, 0),
        scalars(1e-3, 0.9, 0.999, 2, 1.0f, 0),
        scalars(1e-3, 0.9, 0.999, 3, 1.0f, 0)}},
      {"Adam, L2 decay, clipped",
       l2,
       {scalars(1e-2, 0.9, 0.999, 1, 0.37f, 0),
        scalars(1e-2, 0.9, 0.999, 2, 1.0f, 0),
        scalars(1e-2, 0.9, 0.999, 3, 0.05f, 0)}},
      {"AdamW, clipped",
       defaults,
       {scalars(1e-2, 0.9, 0.999, 1, 0.8f, 0.1),
        scalars(1e-2, 0.9, 0.999, 2, 0.6f, 0.1),
        scalars(1e-2, 0.9, 0.999, 3, 1.0f, 0.1)}},
  };
}

struct AdamBuffers {
  std::vector<float> param, expAvg, expAvgSq;
};

AdamBuffers initialAdam(size_t n) {
  return {uniformFloats(n, -2, 2, 70), std::vector<float>(n, 0.0f),
          std::vector<float>(n, 0.0f)};
}

/// adamStep of every element, on the host.
void hostAdam(AdamBuffers &b, const std::vector<float> &grad,
              const AdamSettings &s, const AdamScalars &k) {
  for (size_t i = 0; i < b.param.size(); ++i)
    transfuse::rt::adamStep(b.param[i], grad[i], b.expAvg[i], b.expAvgSq[i], s,
                            k);
}

void expectSameAdam(const AdamBuffers &got, const AdamBuffers &want) {
  EXPECT_TRUE(sameBits(got.param, want.param)) << "param";
  EXPECT_TRUE(sameBits(got.expAvg, want.expAvg)) << "exp_avg";
  EXPECT_TRUE(sameBits(got.expAvgSq, want.expAvgSq)) << "exp_avg_sq";
}

TEST(CudaOptimizer, AdamUpdateIsAdamStepBitForBit) {
  for (const AdamCase &c : adamCases()) {
    SCOPED_TRACE(c.name);
    AdamBuffers device = initialAdam(kElements), host = device;
    for (int step = 0; step < 3; ++step) {
      std::vector<float> grad = gradsWithExtremes(kElements, 71 + step);
      const AdamScalars &k = c.scalars[step];
      const AdamSettings &s = c.settings;
      EXPECT_EQ(runOnDevice([&] {
                  tfrt_cuda_adam_update_f32(
                      kElements, device.param.data(), grad.data(),
                      device.expAvg.data(), device.expAvgSq.data(), s.beta1,
                      s.oneMinusBeta1, s.beta2, s.oneMinusBeta2, s.eps,
                      s.weightDecay, &k.stepSize, &k.biasCorrection2Sqrt,
                      &k.clipFactor, &k.decayFactor);
                }),
                "");
      hostAdam(host, grad, s, k);
      SCOPED_TRACE("step " + std::to_string(step + 1));
      expectSameAdam(device, host);
    }
  }
}

// The launchers cover the elements with a thread each up to 65535 blocks:
// a smaller grid, where threads stride, is launched directly. It also
// passes AdamSettings by value through the emulation's parameters, as
// cuLaunchKernel copies a struct parameter: sizeof(AdamSettings) bytes from
// its pointer.
TEST(CudaOptimizer, AdamThreadsStrideOverTheElements) {
  AdamCase c = adamCases()[1];
  AdamBuffers device = initialAdam(kElements), host = device;
  std::vector<float> grad = gradsWithExtremes(kElements, 74);
  const AdamScalars &k = c.scalars[0];
  int64_t n = kElements;
  EXPECT_EQ(launchKernel(
                "tf_adam_update_f32", {3}, {64}, 0, n, device.param.data(),
                static_cast<const float *>(grad.data()), device.expAvg.data(),
                device.expAvgSq.data(), c.settings, &k.stepSize,
                &k.biasCorrection2Sqrt, &k.clipFactor, &k.decayFactor),
            "");
  hostAdam(host, grad, c.settings, k);
  expectSameAdam(device, host);
}

struct SgdCase {
  const char *name;
  SgdSettings settings;
  /// Whether the update has a momentum buffer (nn-optimizer passes one
  /// exactly when the momentum is not 0).
  bool buffer;
};

const SgdCase kSgdCases[] = {
    {"plain", {0.0f, 0.0f, false}, false},
    {"plain, decay", {0.0f, 0.01f, false}, false},
    {"momentum", {0.9f, 0.0f, false}, true},
    {"momentum, decay", {0.5f, 0.01f, false}, true},
    {"Nesterov", {0.9f, 0.0f, true}, true},
    {"Nesterov, decay", {0.5f, 0.01f, true}, true},
};

constexpr float kSgdClipFactors[] = {1.0f, 0.37f, 0.8f};

/// sgdStep of every element, on the host.
void hostSgd(std::vector<float> &param, std::vector<float> *buffer,
             const std::vector<float> &grad, float lr, float clip,
             const SgdSettings &s) {
  for (size_t i = 0; i < param.size(); ++i)
    transfuse::rt::sgdStep(param[i], grad[i], buffer ? &(*buffer)[i] : nullptr,
                           lr, clip, s);
}

TEST(CudaOptimizer, SgdUpdateIsSgdStepBitForBit) {
  for (const SgdCase &c : kSgdCases) {
    SCOPED_TRACE(c.name);
    std::vector<float> param = uniformFloats(kElements, -2, 2, 80),
                       host = param;
    std::vector<float> buffer(kElements, 0.0f), hostBuffer = buffer;
    float lr = 0.05f;
    for (int step = 0; step < 3; ++step) {
      std::vector<float> grad = gradsWithExtremes(kElements, 81 + step);
      float clip = kSgdClipFactors[step];
      EXPECT_EQ(runOnDevice([&] {
                  tfrt_cuda_sgd_update_f32(
                      kElements, param.data(), grad.data(),
                      c.buffer ? buffer.data() : nullptr, c.settings.momentum,
                      c.settings.weightDecay, c.settings.nesterov, &lr, &clip);
                }),
                "");
      hostSgd(host, c.buffer ? &hostBuffer : nullptr, grad, lr, clip,
              c.settings);
      SCOPED_TRACE("step " + std::to_string(step + 1));
      EXPECT_TRUE(sameBits(param, host)) << "param";
      // Without momentum the buffer is not passed, and stays zeros.
      EXPECT_TRUE(sameBits(buffer, hostBuffer)) << "momentum_buffer";
    }
  }
}

TEST(CudaOptimizer, SgdThreadsStrideOverTheElements) {
  for (const SgdCase &c : {kSgdCases[1], kSgdCases[5]}) {
    SCOPED_TRACE(c.name);
    std::vector<float> param = uniformFloats(kElements, -2, 2, 84),
                       host = param;
    std::vector<float> buffer(kElements, 0.25f), hostBuffer = buffer;
    std::vector<float> grad = gradsWithExtremes(kElements, 85);
    float lr = 0.1f, clip = 0.5f;
    int64_t n = kElements;
    float *deviceBuffer = c.buffer ? buffer.data() : nullptr;
    EXPECT_EQ(launchKernel("tf_sgd_update_f32", {2}, {96}, 0, n, param.data(),
                           static_cast<const float *>(grad.data()),
                           deviceBuffer, c.settings,
                           static_cast<const float *>(&lr),
                           static_cast<const float *>(&clip)),
              "");
    hostSgd(host, c.buffer ? &hostBuffer : nullptr, grad, lr, clip, c.settings);
    EXPECT_TRUE(sameBits(param, host));
    EXPECT_TRUE(sameBits(buffer, hostBuffer));
  }
}

TEST(CudaOptimizer, BlockOrderChangesNoBit) {
  AdamCase c = adamCases()[2];
  const AdamScalars &k = c.scalars[0];
  std::vector<float> grad = gradsWithExtremes(kElements, 90);
  auto update = [&] {
    AdamBuffers b = initialAdam(kElements);
    const AdamSettings &s = c.settings;
    EXPECT_EQ(runOnDevice([&] {
                tfrt_cuda_adam_update_f32(
                    kElements, b.param.data(), grad.data(), b.expAvg.data(),
                    b.expAvgSq.data(), s.beta1, s.oneMinusBeta1, s.beta2,
                    s.oneMinusBeta2, s.eps, s.weightDecay, &k.stepSize,
                    &k.biasCorrection2Sqrt, &k.clipFactor, &k.decayFactor);
              }),
              "");
    return b;
  };
  AdamBuffers ascending = update();
  ShuffledBlocks shuffled;
  expectSameAdam(update(), ascending);
}

// No elements launch nothing: a grid of no blocks, which the driver (and
// the emulation) refuses, would fail the execution. The buffers keep their
// values, and the step's scalars (NaN here) are not read.
TEST(CudaOptimizer, NoElementsLaunchNothing) {
  AdamCase c = adamCases()[1];
  float nan = NAN;
  AdamBuffers b = initialAdam(4), before = b;
  std::vector<float> grad = uniformFloats(4, -1, 1, 91);
  const AdamSettings &s = c.settings;
  std::vector<float> buffer(4, 0.5f), bufferBefore = buffer;
  EXPECT_EQ(
      runOnDevice([&] {
        tfrt_cuda_adam_update_f32(0, b.param.data(), grad.data(),
                                  b.expAvg.data(), b.expAvgSq.data(), s.beta1,
                                  s.oneMinusBeta1, s.beta2, s.oneMinusBeta2,
                                  s.eps, s.weightDecay, &nan, &nan, &nan, &nan);
        tfrt_cuda_sgd_update_f32(0, b.param.data(), grad.data(), buffer.data(),
                                 0.9f, 0.01f, 1, &nan, &nan);
        tfrt_cuda_sgd_update_f32(0, b.param.data(), grad.data(), nullptr, 0.0f,
                                 0.0f, 0, &nan, &nan);
      }),
      "");
  expectSameAdam(b, before);
  EXPECT_TRUE(sameBits(buffer, bufferBefore));
  // What the launchers avoid.
  int64_t n = 0;
  EXPECT_NE(launchKernel("tf_sgd_update_f32", {0}, {256}, 0, n, b.param.data(),
                         static_cast<const float *>(grad.data()),
                         static_cast<float *>(nullptr),
                         SgdSettings{0.9f, 0.01f, true},
                         static_cast<const float *>(&nan),
                         static_cast<const float *>(&nan)),
            "");
}

} // namespace
