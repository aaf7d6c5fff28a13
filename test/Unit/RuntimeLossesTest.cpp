//===- RuntimeLossesTest.cpp - The CPU runtime's cross entropy ------------===//
//
// runtime/lib/Losses.cpp against torch.nn.CrossEntropyLoss's formula
// written out in double: the mean smoothed loss over counted rows and its
// gradient, with ignored rows, a label outside the classes, int32 and
// int64 labels, class counts that do and do not fill its 16-float vectors;
// NaN when no row counts; the same bits on one thread and on two.
//===----------------------------------------------------------------------===//
#include "transfuse/transfuse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

constexpr int64_t kIgnore = -100;

struct Reference {
  double loss;
  std::vector<double> grad;
};

/// (1 - ls) · -log p[label] + ls · mean_c -log p[c] per counted row, its
/// mean, and d mean / d logits, all in double.
Reference reference(const std::vector<float> &logits,
                    const std::vector<int64_t> &labels, int64_t classes,
                    double smoothing) {
  int64_t rows = static_cast<int64_t>(labels.size()), count = 0;
  for (int64_t label : labels)
    count += label != kIgnore;
  Reference r{0.0, std::vector<double>(logits.size(), 0.0)};
  for (int64_t row = 0; row < rows; ++row) {
    if (labels[row] == kIgnore)
      continue;
    const float *x = logits.data() + row * classes;
    double max = x[0], sum = 0.0, meanLogP = 0.0;
    for (int64_t c = 0; c < classes; ++c)
      max = std::max(max, double(x[c]));
    for (int64_t c = 0; c < classes; ++c)
      sum += std::exp(x[c] - max);
    double logSum = max + std::log(sum);
    for (int64_t c = 0; c < classes; ++c)
      meanLogP += (x[c] - logSum) / classes;
    int64_t label = labels[row];
    bool inRange = label >= 0 && label < classes;
    double hard = inRange ? logSum - x[label] : NAN;
    r.loss +=
        (smoothing == 0.0 ? hard
                          : (1 - smoothing) * hard - smoothing * meanLogP) /
        count;
    for (int64_t c = 0; c < classes; ++c) {
      double target = smoothing / classes + (c == label ? 1 - smoothing : 0.0);
      r.grad[row * classes + c] =
          (std::exp(x[c] - logSum) - target) / double(count);
    }
  }
  return r;
}

struct Case {
  int64_t rows, classes;
  float smoothing;
};

std::vector<float> randomLogits(int64_t n, unsigned seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> logit(0.0f, 3.0f);
  std::vector<float> logits(n);
  for (float &x : logits)
    x = logit(generator);
  return logits;
}

TEST(RuntimeLosses, CrossEntropyAndItsGradientMatchTheFormula) {
  unsigned seed = 0;
  for (Case c : {Case{7, 1, 0.0f}, Case{7, 15, 0.1f}, Case{9, 16, 0.0f},
                 Case{5, 37, 0.2f}, Case{12, 10000, 0.1f}}) {
    std::vector<float> logits = randomLogits(c.rows * c.classes, ++seed);
    std::vector<int64_t> labels(c.rows);
    for (int64_t row = 0; row < c.rows; ++row)
      labels[row] = row % 4 == 1 ? kIgnore : (row * 7919) % c.classes;
    std::vector<int32_t> labels32(labels.begin(), labels.end());
    Reference expected = reference(logits, labels, c.classes, c.smoothing);
    std::vector<float> scratch(c.rows), grad(logits.size(), -1.0f);
    float loss = 0.0f;
    tfrt_cross_entropy_f32(c.rows, c.classes, logits.data(), labels.data(), 64,
                           kIgnore, c.smoothing, &loss, scratch.data());
    EXPECT_NEAR(loss, expected.loss, 2e-6 * std::max(1.0, expected.loss))
        << c.classes << " classes";
    tfrt_cross_entropy_grad_f32(c.rows, c.classes, logits.data(),
                                labels32.data(), 32, kIgnore, c.smoothing,
                                grad.data(), scratch.data());
    double worst = 0.0;
    for (size_t e = 0; e < grad.size(); ++e)
      worst = std::max(worst, std::abs(grad[e] - expected.grad[e]));
    EXPECT_LT(worst, 1e-7) << c.classes << " classes";
    // Ignored rows' gradients are zero, not left alone.
    for (int64_t col = 0; col < c.classes; ++col)
      ASSERT_EQ(grad[1 * c.classes + col], 0.0f);
  }
}

TEST(RuntimeLosses, ALabelOutsideTheClassesIsNaNAndNoRowCountingIsNaN) {
  std::vector<float> logits = randomLogits(3 * 20, 5), scratch(3);
  std::vector<int64_t> labels = {3, 20, 4};
  float loss = 0.0f;
  tfrt_cross_entropy_f32(3, 20, logits.data(), labels.data(), 64, kIgnore, 0.0f,
                         &loss, scratch.data());
  EXPECT_TRUE(std::isnan(loss));
  // Its gradient has no label element: every class is off-label.
  std::vector<float> grad(60);
  tfrt_cross_entropy_grad_f32(3, 20, logits.data(), labels.data(), 64, kIgnore,
                              0.0f, grad.data(), scratch.data());
  Reference expected = reference(logits, labels, 20, 0.0);
  for (int64_t c = 0; c < 20; ++c)
    EXPECT_NEAR(grad[20 + c], expected.grad[20 + c], 1e-7) << c;
  labels = {kIgnore, kIgnore, kIgnore};
  tfrt_cross_entropy_f32(3, 20, logits.data(), labels.data(), 64, kIgnore, 0.0f,
                         &loss, scratch.data());
  EXPECT_TRUE(std::isnan(loss));
  tfrt_cross_entropy_grad_f32(3, 20, logits.data(), labels.data(), 64, kIgnore,
                              0.0f, grad.data(), scratch.data());
  for (float g : grad)
    ASSERT_EQ(g, 0.0f);
}

TEST(RuntimeLosses, TheSameBitsOnOneThreadAndOnTwo) {
  const int64_t rows = 64, classes = 1000;
  std::vector<float> logits = randomLogits(rows * classes, 9), scratch(rows);
  std::vector<int64_t> labels(rows);
  for (int64_t row = 0; row < rows; ++row)
    labels[row] = row % 5 == 0 ? kIgnore : row * 13 % classes;
  float loss[2];
  std::vector<float> grad[2];
  for (int32_t threads : {1, 2}) {
    ASSERT_EQ(tf_set_num_threads(threads), TF_OK);
    grad[threads - 1].resize(logits.size());
    tfrt_cross_entropy_f32(rows, classes, logits.data(), labels.data(), 64,
                           kIgnore, 0.1f, &loss[threads - 1], scratch.data());
    tfrt_cross_entropy_grad_f32(rows, classes, logits.data(), labels.data(), 64,
                                kIgnore, 0.1f, grad[threads - 1].data(),
                                scratch.data());
  }
  EXPECT_EQ(loss[0], loss[1]);
  EXPECT_EQ(grad[0], grad[1]);
}

} // namespace
