//===- OptimizerTest.cpp - The CUDA global norm and optimizer updates -----===//
//
// tfrt_cuda_{sum_squares,global_norm,adam_update,sgd_update}_f32 and
// kernels/optimizer.cu, emulated, each call over several tensors as the
// step makes it (launched kBatchTensors at a time). The norm against a
// double-precision norm, its partial sums against the striding the kernel
// documents (block b sums the elements whose index modulo kGlobalNormBlocks ·
// kGlobalNormThreads lies in [b · kGlobalNormThreads, (b + 1) ·
// kGlobalNormThreads)), so that the norm depends on the shapes only. The
// updates against shared/OptimizerMath.h applied element by element on the
// host, bit for bit: the emulation compiles that header as the host sees it,
// and a GPU rounds its operations one by one too (rounded::), so the kernels'
// only freedom is which element a thread takes, which must change nothing.
//===----------------------------------------------------------------------===//
#include "CudaEntryPoints.h"
#include "DeviceTesting.h"
#include "Grid.h"

#include "shared/OptimizerMath.h"
#include "shared/TensorBatch.h"

#include <gtest/gtest.h>

#include <array>
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
using transfuse::rt::kBatchBlockElements;
using transfuse::rt::kBatchTensors;
using transfuse::rt::kGlobalNormBlocks;
using transfuse::rt::kGlobalNormThreads;
using transfuse::rt::SgdSettings;
using transfuse::rt::TensorBatch;

/// The sizes of `tensors`, and their addresses, as the step passes them.
std::vector<int64_t> sizesOf(const std::vector<std::vector<float>> &tensors) {
  std::vector<int64_t> sizes;
  for (const std::vector<float> &tensor : tensors)
    sizes.push_back(static_cast<int64_t>(tensor.size()));
  return sizes;
}

std::vector<float *> addressesOf(std::vector<std::vector<float>> &tensors) {
  std::vector<float *> addresses;
  for (std::vector<float> &tensor : tensors)
    addresses.push_back(tensor.data());
  return addresses;
}

std::vector<const float *>
inputAddressesOf(const std::vector<std::vector<float>> &tensors) {
  std::vector<const float *> addresses;
  for (const std::vector<float> &tensor : tensors)
    addresses.push_back(tensor.data());
  return addresses;
}

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
  std::vector<int64_t> sizes = sizesOf(tensors);
  std::vector<const float *> addresses = inputAddressesOf(tensors);
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_sum_squares_f32(sizes.size(), sizes.data(),
                                        addresses.data(), kGlobalNormBlocks,
                                        result.partials.data());
              tfrt_cuda_global_norm_f32(result.partials.size(),
                                        result.partials.data(), &result.norm);
            }),
            "");
  return result;
}

// Tensors past the first kBatchTensors (a second launch, its partial sums
// after the first's) cost 128 emulated blocks each, too slow here:
// tools/gpu-check.sh checks them, in the global norms of char_lm (67
// gradients), transformer_small (88) and transformer_base (256).
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
  float *address = &x;
  const float *readOnly = &x;
  int64_t one = 1;
  std::vector<double> partials = unwrittenPartials(2 * kGlobalNormBlocks);
  std::vector<double> untouched = partials;
  for (int64_t slots : {int64_t(64), int64_t(256), int64_t(0)}) {
    EXPECT_EQ(runOnDevice([&] {
                tfrt_cuda_sum_squares_f32(1, &one, &readOnly, slots,
                                          partials.data());
              }),
              "tfrt_cuda_sum_squares_f32: the artifact plans " +
                  std::to_string(slots) +
                  " partial sums per tensor, this runtime computes 128");
    EXPECT_TRUE(samePartials(partials, untouched)) << slots << " slots";
  }
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_sum_squares_f32(-1, &one, &readOnly, kGlobalNormBlocks,
                                        partials.data());
            }),
            "tfrt_cuda_sum_squares_f32: count must not be negative, got -1");
  // A negative size is found before anything is launched.
  int64_t sizes[] = {1, -7};
  const float *tensors[] = {&x, &x};
  float *params[] = {&x, &x};
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_sum_squares_f32(2, sizes, tensors, kGlobalNormBlocks,
                                        partials.data());
            }),
            "tfrt_cuda_sum_squares_f32: sizes[1] must not be negative, got -7");
  EXPECT_TRUE(samePartials(partials, untouched));
  float norm = NAN;
  EXPECT_EQ(runOnDevice(
                [&] { tfrt_cuda_global_norm_f32(-5, partials.data(), &norm); }),
            "tfrt_cuda_global_norm_f32: count must not be negative, got -5");
  EXPECT_TRUE(std::isnan(norm));
  float scalar = 1;
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_adam_update_f32(-2, &one, &address, &readOnly, &address,
                                        &address, 0.9f, 0.1f, 0.999f, 0.001f,
                                        1e-8f, 0.0f, &scalar, &scalar, &scalar,
                                        &scalar);
            }),
            "tfrt_cuda_adam_update_f32: count must not be negative, got -2");
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_sgd_update_f32(2, sizes, params, tensors, nullptr, 0.0f,
                                       0.0f, 0, &scalar, &scalar);
            }),
            "tfrt_cuda_sgd_update_f32: sizes[1] must not be negative, got -7");
  EXPECT_EQ(x, 1.0f);
  // The first failure stops the entry point: what follows does nothing.
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_sum_squares_f32(1, &one, &readOnly, 64,
                                        partials.data());
              tfrt_cuda_sum_squares_f32(1, &one, &readOnly, kGlobalNormBlocks,
                                        partials.data());
            }),
            "tfrt_cuda_sum_squares_f32: the artifact plans 64 partial sums "
            "per tensor, this runtime computes 128");
  EXPECT_TRUE(samePartials(partials, untouched));
}

//===----------------------------------------------------------------------===//
// The updates
//===----------------------------------------------------------------------===//

/// The tensors of an update call: 1029 elements (four passes of a block's
/// 256 threads and a part of one), none, two blocks and a part of a third,
/// one element.
const std::vector<int64_t> kUpdateSizes = {1029, 0, 2 * kBatchBlockElements + 5,
                                           1};

/// Gradients with the values that stress the arithmetic: zeros, denormals,
/// squares that underflow or overflow to infinity (where the tensor has
/// room for them).
std::vector<float> gradsWithExtremes(size_t count, unsigned seed) {
  std::vector<float> grads = uniformFloats(count, -1, 1, seed);
  const float extremes[] = {0.0f,  -0.0f,  1e-40f, -1e-30f, 1e-20f,
                            3e19f, -1e25f, 1e-3f,  -5e3f,   1e30f};
  for (size_t i = 0; i < std::size(extremes) && 97 * i + 3 < count; ++i)
    grads[97 * i + 3] = extremes[i];
  return grads;
}

std::vector<std::vector<float>> gradsFor(const std::vector<int64_t> &sizes,
                                         unsigned seed) {
  std::vector<std::vector<float>> grads;
  for (size_t t = 0; t < sizes.size(); ++t)
    grads.push_back(gradsWithExtremes(sizes[t], seed + 10 * t));
  return grads;
}

std::vector<std::vector<float>> filled(const std::vector<int64_t> &sizes,
                                       float value) {
  std::vector<std::vector<float>> tensors;
  for (int64_t size : sizes)
    tensors.emplace_back(size, value);
  return tensors;
}

std::vector<std::vector<float>> initialParams(const std::vector<int64_t> &sizes,
                                              unsigned seed) {
  std::vector<std::vector<float>> params;
  for (size_t t = 0; t < sizes.size(); ++t)
    params.push_back(uniformFloats(sizes[t], -2, 2, seed + t));
  return params;
}

::testing::AssertionResult
sameTensors(const std::vector<std::vector<float>> &got,
            const std::vector<std::vector<float>> &want) {
  for (size_t t = 0; t < want.size(); ++t)
    if (::testing::AssertionResult same = sameBits(got[t], want[t]); !same)
      return same << " (tensor " << t << ")";
  return ::testing::AssertionSuccess();
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

struct AdamTensors {
  std::vector<std::vector<float>> param, expAvg, expAvgSq;
};

AdamTensors initialAdam(const std::vector<int64_t> &sizes) {
  return {initialParams(sizes, 70), filled(sizes, 0.0f), filled(sizes, 0.0f)};
}

/// adamStep of every element, on the host.
void hostAdam(AdamTensors &b, const std::vector<std::vector<float>> &grads,
              const AdamSettings &s, const AdamScalars &k) {
  for (size_t t = 0; t < b.param.size(); ++t)
    for (size_t i = 0; i < b.param[t].size(); ++i)
      transfuse::rt::adamStep(b.param[t][i], grads[t][i], b.expAvg[t][i],
                              b.expAvgSq[t][i], s, k);
}

/// One tfrt_cuda_adam_update_f32 call over all of `b`'s tensors.
void cudaAdam(AdamTensors &b, const std::vector<std::vector<float>> &grads,
              const AdamSettings &s, const AdamScalars &k) {
  std::vector<int64_t> sizes = sizesOf(b.param);
  std::vector<float *> params = addressesOf(b.param),
                       expAvgs = addressesOf(b.expAvg),
                       expAvgSqs = addressesOf(b.expAvgSq);
  std::vector<const float *> gradAddresses = inputAddressesOf(grads);
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_adam_update_f32(
                  sizes.size(), sizes.data(), params.data(),
                  gradAddresses.data(), expAvgs.data(), expAvgSqs.data(),
                  s.beta1, s.oneMinusBeta1, s.beta2, s.oneMinusBeta2, s.eps,
                  s.weightDecay, &k.stepSize, &k.biasCorrection2Sqrt,
                  &k.clipFactor, &k.decayFactor);
            }),
            "");
}

void expectSameAdam(const AdamTensors &got, const AdamTensors &want) {
  EXPECT_TRUE(sameTensors(got.param, want.param)) << "param";
  EXPECT_TRUE(sameTensors(got.expAvg, want.expAvg)) << "exp_avg";
  EXPECT_TRUE(sameTensors(got.expAvgSq, want.expAvgSq)) << "exp_avg_sq";
}

TEST(CudaOptimizer, AdamUpdateIsAdamStepBitForBit) {
  for (const AdamCase &c : adamCases()) {
    SCOPED_TRACE(c.name);
    AdamTensors device = initialAdam(kUpdateSizes), host = device;
    for (int step = 0; step < 3; ++step) {
      std::vector<std::vector<float>> grads = gradsFor(kUpdateSizes, 71 + step);
      cudaAdam(device, grads, c.settings, c.scalars[step]);
      hostAdam(host, grads, c.settings, c.scalars[step]);
      SCOPED_TRACE("step " + std::to_string(step + 1));
      expectSameAdam(device, host);
    }
  }
}

// More tensors than a launch takes: two launches, the second starting at
// tensor kBatchTensors.
TEST(CudaOptimizer, AdamUpdatesManyTensors) {
  std::vector<int64_t> sizes;
  for (int t = 0; t < kBatchTensors + 3; ++t)
    sizes.push_back(t % 7 * 3 + 1);
  AdamCase c = adamCases()[1];
  AdamTensors device = initialAdam(sizes), host = device;
  std::vector<std::vector<float>> grads = gradsFor(sizes, 75);
  cudaAdam(device, grads, c.settings, c.scalars[0]);
  hostAdam(host, grads, c.settings, c.scalars[0]);
  expectSameAdam(device, host);
}

/// A batch of `tensors`' buffers, each tensor's blocks after the previous
/// one's, as the launchers build it.
template <int Arrays>
TensorBatch<Arrays>
handBatch(const std::vector<std::array<float *, Arrays>> &buffers,
          const std::vector<int64_t> &sizes) {
  TensorBatch<Arrays> batch{};
  batch.count = static_cast<int32_t>(sizes.size());
  uint32_t blocks = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    for (int a = 0; a < Arrays; ++a)
      batch.data[a][t] = buffers[t][a];
    batch.size[t] = sizes[t];
    batch.firstBlock[t] = blocks;
    blocks += transfuse::rt::blocksOfTensor(sizes[t]);
  }
  batch.firstBlock[sizes.size()] = blocks;
  return batch;
}

// Blocks of fewer threads than the launchers' stride over their elements;
// the block after a tensor's last takes the next tensor. It also passes the
// batch and AdamSettings by value through the emulation's parameters, as
// cuLaunchKernel copies a struct parameter: sizeof bytes from its pointer.
TEST(CudaOptimizer, AdamBlocksFindTheirTensor) {
  std::vector<int64_t> sizes = {kBatchBlockElements + 1, 10};
  AdamCase c = adamCases()[1];
  const AdamScalars &k = c.scalars[0];
  AdamTensors device = initialAdam(sizes), host = device;
  std::vector<std::vector<float>> grads = gradsFor(sizes, 74);
  std::vector<std::array<float *, 4>> buffers;
  for (size_t t = 0; t < sizes.size(); ++t)
    buffers.push_back({device.param[t].data(), grads[t].data(),
                       device.expAvg[t].data(), device.expAvgSq[t].data()});
  TensorBatch<4> batch = handBatch<4>(buffers, sizes);
  EXPECT_EQ(launchKernel("tf_adam_update_f32", {3}, {64}, 0, batch, c.settings,
                         &k.stepSize, &k.biasCorrection2Sqrt, &k.clipFactor,
                         &k.decayFactor),
            "");
  hostAdam(host, grads, c.settings, k);
  expectSameAdam(device, host);
}

struct SgdCase {
  const char *name;
  SgdSettings settings;
  /// Whether the update has momentum buffers (nn-optimizer passes them
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

/// sgdStep of every element, on the host; `buffers` is null without
/// momentum.
void hostSgd(std::vector<std::vector<float>> &params,
             std::vector<std::vector<float>> *buffers,
             const std::vector<std::vector<float>> &grads, float lr, float clip,
             const SgdSettings &s) {
  for (size_t t = 0; t < params.size(); ++t)
    for (size_t i = 0; i < params[t].size(); ++i)
      transfuse::rt::sgdStep(params[t][i], grads[t][i],
                             buffers ? &(*buffers)[t][i] : nullptr, lr, clip,
                             s);
}

TEST(CudaOptimizer, SgdUpdateIsSgdStepBitForBit) {
  for (const SgdCase &c : kSgdCases) {
    SCOPED_TRACE(c.name);
    std::vector<std::vector<float>> params = initialParams(kUpdateSizes, 80),
                                    host = params;
    std::vector<std::vector<float>> buffers = filled(kUpdateSizes, 0.0f),
                                    hostBuffers = buffers;
    std::vector<int64_t> sizes = kUpdateSizes;
    std::vector<float *> paramAddresses = addressesOf(params),
                         bufferAddresses = addressesOf(buffers);
    float lr = 0.05f;
    for (int step = 0; step < 3; ++step) {
      std::vector<std::vector<float>> grads = gradsFor(kUpdateSizes, 81 + step);
      std::vector<const float *> gradAddresses = inputAddressesOf(grads);
      float clip = kSgdClipFactors[step];
      EXPECT_EQ(runOnDevice([&] {
                  tfrt_cuda_sgd_update_f32(
                      sizes.size(), sizes.data(), paramAddresses.data(),
                      gradAddresses.data(),
                      c.buffer ? bufferAddresses.data() : nullptr,
                      c.settings.momentum, c.settings.weightDecay,
                      c.settings.nesterov, &lr, &clip);
                }),
                "");
      hostSgd(host, c.buffer ? &hostBuffers : nullptr, grads, lr, clip,
              c.settings);
      SCOPED_TRACE("step " + std::to_string(step + 1));
      EXPECT_TRUE(sameTensors(params, host)) << "param";
      // Without momentum the buffers are not passed, and stay zeros.
      EXPECT_TRUE(sameTensors(buffers, hostBuffers)) << "momentum_buffer";
    }
  }
}

TEST(CudaOptimizer, SgdBlocksFindTheirTensor) {
  for (const SgdCase &c : {kSgdCases[1], kSgdCases[5]}) {
    SCOPED_TRACE(c.name);
    std::vector<int64_t> sizes = {10, kBatchBlockElements + 3};
    std::vector<std::vector<float>> params = initialParams(sizes, 84),
                                    host = params;
    std::vector<std::vector<float>> buffers = filled(sizes, 0.25f),
                                    hostBuffers = buffers;
    std::vector<std::vector<float>> grads = gradsFor(sizes, 85);
    std::vector<std::array<float *, 3>> arrays;
    for (size_t t = 0; t < sizes.size(); ++t)
      arrays.push_back({params[t].data(), grads[t].data(),
                        c.buffer ? buffers[t].data() : nullptr});
    float lr = 0.1f, clip = 0.5f;
    EXPECT_EQ(launchKernel("tf_sgd_update_f32", {3}, {96}, 0,
                           handBatch<3>(arrays, sizes), c.settings,
                           static_cast<const float *>(&lr),
                           static_cast<const float *>(&clip)),
              "");
    hostSgd(host, c.buffer ? &hostBuffers : nullptr, grads, lr, clip,
            c.settings);
    EXPECT_TRUE(sameTensors(params, host));
    EXPECT_TRUE(sameTensors(buffers, hostBuffers));
  }
}

TEST(CudaOptimizer, BlockOrderChangesNoBit) {
  AdamCase c = adamCases()[2];
  std::vector<std::vector<float>> grads = gradsFor(kUpdateSizes, 90);
  auto update = [&] {
    AdamTensors b = initialAdam(kUpdateSizes);
    cudaAdam(b, grads, c.settings, c.scalars[0]);
    return b;
  };
  AdamTensors ascending = update();
  ShuffledBlocks shuffled;
  expectSameAdam(update(), ascending);
}

// No elements launch nothing: a grid of no blocks, which the driver (and
// the emulation) refuses, would fail the execution. The buffers keep their
// values, and the step's scalars (NaN here) are not read.
TEST(CudaOptimizer, NoElementsLaunchNothing) {
  AdamCase c = adamCases()[1];
  float nan = NAN;
  std::vector<int64_t> sizes = {0, 0};
  AdamTensors b = initialAdam(sizes);
  std::vector<std::vector<float>> grads = filled(sizes, 0.0f);
  float *none[] = {nullptr, nullptr};
  const float *noGrads[] = {nullptr, nullptr};
  const AdamSettings &s = c.settings;
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_adam_update_f32(2, sizes.data(), none, noGrads, none,
                                        none, s.beta1, s.oneMinusBeta1, s.beta2,
                                        s.oneMinusBeta2, s.eps, s.weightDecay,
                                        &nan, &nan, &nan, &nan);
              tfrt_cuda_adam_update_f32(0, nullptr, nullptr, nullptr, nullptr,
                                        nullptr, s.beta1, s.oneMinusBeta1,
                                        s.beta2, s.oneMinusBeta2, s.eps,
                                        s.weightDecay, &nan, &nan, &nan, &nan);
              tfrt_cuda_sgd_update_f32(2, sizes.data(), none, noGrads, none,
                                       0.9f, 0.01f, 1, &nan, &nan);
              tfrt_cuda_sgd_update_f32(0, nullptr, nullptr, nullptr, nullptr,
                                       0.0f, 0.0f, 0, &nan, &nan);
              tfrt_cuda_sum_squares_f32(0, nullptr, nullptr, kGlobalNormBlocks,
                                        nullptr);
            }),
            "");
  // What the launchers avoid.
  EXPECT_NE(launchKernel("tf_sgd_update_f32", {0}, {256}, 0,
                         handBatch<3>({{nullptr, nullptr, nullptr}}, {0}),
                         SgdSettings{0.9f, 0.01f, true},
                         static_cast<const float *>(&nan),
                         static_cast<const float *>(&nan)),
            "");
}

} // namespace
