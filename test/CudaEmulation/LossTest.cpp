//===- LossTest.cpp - The CUDA losses against a reference -----------------===//
//
// tfrt_cuda_{cross_entropy,nll_loss}{,_grad}_f32 and kernels/losses.cu,
// emulated, against double-precision losses and gradients written from
// torch.nn.CrossEntropyLoss and NLLLoss (reduction="mean", ignore_index,
// label_smoothing) with the runtime's rule for a counted label outside the
// classes (shared/LossMath.h): a NaN loss, and a gradient in which no class
// is the label.
//===----------------------------------------------------------------------===//
#include "CudaEntryPoints.h"
#include "DeviceTesting.h"
#include "Grid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

using namespace transfuse::emu;

constexpr int64_t kIgnore = -100;

struct Loss {
  double value;
  std::vector<double> grad;
};

bool isClass(int64_t label, int64_t classes) {
  return label >= 0 && label < classes;
}

/// The mean loss over the rows whose label is not kIgnore, and its
/// gradient: cross entropy of logits, or with `nll` the NLL of
/// log-probabilities.
Loss referenceLoss(bool nll, int64_t classes, const std::vector<float> &x,
                   const std::vector<int64_t> &labels, double smoothing) {
  Loss loss{0, std::vector<double>(x.size())};
  double counted = 0;
  for (int64_t label : labels)
    counted += label != kIgnore;
  for (size_t r = 0; r < labels.size(); ++r) {
    int64_t label = labels[r];
    if (label == kIgnore)
      continue;
    const float *row = x.data() + r * classes;
    double *grad = loss.grad.data() + r * classes;
    double target = isClass(label, classes) ? row[label] : NAN;
    if (nll) {
      loss.value -= target;
      if (isClass(label, classes))
        grad[label] = -1 / counted;
      continue;
    }
    double maximum = -INFINITY, sum = 0, mean = 0;
    for (int64_t c = 0; c < classes; ++c)
      maximum = std::max(maximum, double(row[c]));
    for (int64_t c = 0; c < classes; ++c) {
      sum += std::exp(row[c] - maximum);
      mean += row[c] / double(classes);
    }
    double logSumExp = maximum + std::log(sum);
    loss.value += (1 - smoothing) * (logSumExp - target) +
                  (smoothing > 0 ? smoothing * (logSumExp - mean) : 0);
    for (int64_t c = 0; c < classes; ++c)
      grad[c] = (std::exp(row[c] - logSumExp) -
                 (c == label ? 1 - smoothing : 0) - smoothing / classes) /
                counted;
  }
  loss.value /= counted;
  return loss;
}

struct LossF32 {
  float value;
  std::vector<float> grad;
};

/// The loss and gradient of the CUDA entry points, labels stored as Index.
template <typename Index>
LossF32 cudaLoss(bool nll, int64_t classes, const std::vector<float> &x,
                 const std::vector<int64_t> &labels64, float smoothing,
                 int64_t ignoreIndex = kIgnore) {
  std::vector<Index> labels(labels64.begin(), labels64.end());
  int64_t rows = labels.size();
  int32_t bits = 8 * sizeof(Index);
  std::vector<float> loss = unwritten(1), grad = unwritten(x.size()),
                     scratch = unwritten(rows);
  EXPECT_EQ(runOnDevice([&] {
              if (nll) {
                tfrt_cuda_nll_loss_f32(rows, classes, x.data(), labels.data(),
                                       bits, ignoreIndex, loss.data(),
                                       scratch.data());
                tfrt_cuda_nll_loss_grad_f32(rows, classes, x.data(),
                                            labels.data(), bits, ignoreIndex,
                                            grad.data(), scratch.data());
              } else {
                tfrt_cuda_cross_entropy_f32(
                    rows, classes, x.data(), labels.data(), bits, ignoreIndex,
                    smoothing, loss.data(), scratch.data());
                tfrt_cuda_cross_entropy_grad_f32(
                    rows, classes, x.data(), labels.data(), bits, ignoreIndex,
                    smoothing, grad.data(), scratch.data());
              }
            }),
            "");
  return {loss[0], grad};
}

/// Labels of `rows` rows: random classes, every `ignoreEvery`-th row from
/// the second kIgnore (none when 0).
std::vector<int64_t> randomLabels(int64_t rows, int64_t classes,
                                  int ignoreEvery) {
  std::mt19937 generator(7);
  std::vector<int64_t> labels(rows);
  for (int64_t r = 0; r < rows; ++r)
    labels[r] = ignoreEvery && r % ignoreEvery == 1
                    ? kIgnore
                    : int64_t(generator() % uint64_t(classes));
  return labels;
}

void expectLoss(bool nll, int64_t classes, const std::vector<float> &x,
                const std::vector<int64_t> &labels, float smoothing) {
  Loss want = referenceLoss(nll, classes, x, labels, smoothing);
  LossF32 got = cudaLoss<int64_t>(nll, classes, x, labels, smoothing);
  if (std::isnan(want.value))
    EXPECT_TRUE(std::isnan(got.value)) << got.value;
  else
    EXPECT_NEAR(got.value, want.value,
                2e-6 * std::max(1.0, std::abs(want.value)));
  EXPECT_TRUE(near("grad", got.grad, want.grad, 2e-7));
}

TEST(CudaLoss, CrossEntropyMatchesReference) {
  struct Case {
    int64_t rows, classes;
    float smoothing;
  };
  // Rows of 1 to 1000 classes take 32 to 256 threads, 3000 take 512.
  for (Case c : {Case{5, 1, 0.1f}, Case{5, 2, 0.0f}, Case{1, 37, 0.1f},
                 Case{5, 37, 0.0f}, Case{5, 37, 0.1f}, Case{5, 1000, 0.0f},
                 Case{5, 1000, 0.1f}, Case{2, 3000, 0.1f}}) {
    SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.classes) +
                 ", smoothing " + std::to_string(c.smoothing));
    expectLoss(false, c.classes, uniformFloats(c.rows * c.classes, -4, 4, 8),
               randomLabels(c.rows, c.classes, 3), c.smoothing);
  }
}

TEST(CudaLoss, CrossEntropyEdgeCases) {
  {
    SCOPED_TRACE("logits far from 0");
    expectLoss(false, 50, uniformFloats(4 * 50, 9000, 9400, 10),
               randomLabels(4, 50, 0), 0.2f);
  }
  {
    SCOPED_TRACE("labels outside the classes");
    expectLoss(false, 10, uniformFloats(3 * 10, -1, 1, 11), {1, 10, kIgnore},
               0.1f);
    expectLoss(false, 10, uniformFloats(3 * 10, -1, 1, 11), {-1, 2, 3}, 0.0f);
  }
  // Nothing counts: the mean is 0 / 0 and the gradient zero.
  LossF32 none = cudaLoss<int64_t>(false, 10, uniformFloats(4 * 10, -1, 1, 12),
                                   {kIgnore, kIgnore, kIgnore, kIgnore}, 0.1f);
  EXPECT_TRUE(std::isnan(none.value));
  EXPECT_TRUE(near("grad", none.grad, std::vector<double>(40), 0));
  LossF32 noClasses = cudaLoss<int64_t>(false, 0, {}, {kIgnore, 0}, 0.1f);
  EXPECT_TRUE(std::isnan(noClasses.value));
  // An ignore_index that is a class is compared first.
  LossF32 ignoredClass = cudaLoss<int64_t>(
      false, 5, uniformFloats(2 * 5, -1, 1, 13), {3, 3}, 0, 3);
  EXPECT_TRUE(std::isnan(ignoredClass.value));
  EXPECT_TRUE(near("grad", ignoredClass.grad, std::vector<double>(10), 0));
}

TEST(CudaLoss, NllMatchesReference) {
  struct Case {
    int64_t rows, classes;
  };
  // 300 rows take two blocks of one row per thread.
  for (Case c : {Case{1, 3}, Case{5, 1}, Case{5, 1000}, Case{300, 3}}) {
    SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.classes));
    expectLoss(true, c.classes, uniformFloats(c.rows * c.classes, -5, 0, 14),
               randomLabels(c.rows, c.classes, 4), 0);
  }
  SCOPED_TRACE("labels outside the classes");
  expectLoss(true, 5, uniformFloats(3 * 5, -1, 0, 15), {0, 7, 2}, 0);
  LossF32 none = cudaLoss<int64_t>(true, 5, uniformFloats(3 * 5, -1, 0, 16),
                                   {kIgnore, kIgnore, kIgnore}, 0);
  EXPECT_TRUE(std::isnan(none.value));
  EXPECT_TRUE(near("grad", none.grad, std::vector<double>(15), 0));
}

TEST(CudaLoss, Int32LabelsGiveTheSameBits) {
  std::vector<float> x = uniformFloats(9 * 40, -3, 3, 17);
  std::vector<int64_t> labels = randomLabels(9, 40, 3);
  labels[4] = 40;
  for (bool nll : {false, true}) {
    LossF32 wide = cudaLoss<int64_t>(nll, 40, x, labels, 0.1f);
    LossF32 narrow = cudaLoss<int32_t>(nll, 40, x, labels, 0.1f);
    EXPECT_TRUE(sameBits({wide.value}, {narrow.value}));
    EXPECT_TRUE(sameBits(wide.grad, narrow.grad));
  }
}

// The launchers cover the rows with a block each (a thread each for NLL)
// up to 65535 blocks: smaller grids, where blocks stride, are launched
// directly.
TEST(CudaLoss, BlocksStrideOverTheRows) {
  int64_t rows = 29, classes = 70, ignore = kIgnore;
  float smoothing = 0.1f;
  std::vector<float> x = uniformFloats(rows * classes, -3, 3, 18);
  std::vector<int64_t> labels = randomLabels(rows, classes, 5);
  Loss want = referenceLoss(false, classes, x, labels, smoothing);
  std::vector<float> scratch = unwritten(rows), loss = unwritten(1),
                     grad = unwritten(x.size());
  const float *logits = x.data();
  EXPECT_EQ(launchKernel("tf_cross_entropy_rows_i64", {4}, {32}, 0, rows,
                         classes, logits, labels.data(), ignore, smoothing,
                         scratch.data()),
            "");
  EXPECT_EQ(launchKernel("tf_loss_mean_i64", {1}, {64}, 0, rows, labels.data(),
                         ignore, static_cast<const float *>(scratch.data()),
                         loss.data()),
            "");
  EXPECT_NEAR(loss[0], want.value, 2e-6 * std::abs(want.value));
  EXPECT_EQ(launchKernel("tf_loss_count_i64", {1}, {32}, 0, rows, labels.data(),
                         ignore, scratch.data()),
            "");
  EXPECT_EQ(launchKernel("tf_cross_entropy_grad_rows_i64", {3}, {64}, 0, rows,
                         classes, logits, labels.data(), ignore, smoothing,
                         static_cast<const float *>(scratch.data()),
                         grad.data()),
            "");
  EXPECT_TRUE(near("grad", grad, want.grad, 2e-7));
  std::vector<float> nll = unwritten(rows);
  EXPECT_EQ(launchKernel("tf_nll_loss_rows_i64", {1}, {32}, 0, rows, classes,
                         logits, labels.data(), ignore, nll.data()),
            "");
  for (int64_t r = 0; r < rows; ++r) {
    if (labels[r] != kIgnore)
      EXPECT_EQ(nll[r], -x[r * classes + labels[r]]) << r;
  }
}

TEST(CudaLoss, BlockOrderChangesNoBit) {
  std::vector<float> x = uniformFloats(12 * 333, -3, 3, 19);
  std::vector<int64_t> labels = randomLabels(12, 333, 5);
  LossF32 ascending = cudaLoss<int64_t>(false, 333, x, labels, 0.1f);
  ShuffledBlocks shuffled;
  LossF32 again = cudaLoss<int64_t>(false, 333, x, labels, 0.1f);
  EXPECT_TRUE(sameBits({ascending.value}, {again.value}));
  EXPECT_TRUE(sameBits(ascending.grad, again.grad));
}

TEST(CudaLoss, RejectsBadArguments) {
  float f = 0;
  int64_t label = 0;
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_cross_entropy_f32(1, 1, &f, &label, 16, kIgnore, 0.0f,
                                          &f, &f);
            }),
            "tfrt_cuda_cross_entropy_f32: index_bits must be 32 or 64, got 16");
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_cross_entropy_grad_f32(1, 1, &f, &label, 64, kIgnore,
                                               NAN, &f, &f);
            }),
            "tfrt_cuda_cross_entropy_grad_f32: label_smoothing must lie in "
            "[0, 1], got nan");
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_nll_loss_grad_f32(1, -2, &f, &label, 64, kIgnore, &f,
                                          &f);
            }),
            "tfrt_cuda_nll_loss_grad_f32: classes must not be negative, got "
            "-2");
}

} // namespace
