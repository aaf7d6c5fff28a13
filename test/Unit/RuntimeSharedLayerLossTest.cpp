//===- RuntimeSharedLayerLossTest.cpp - Layer-norm and loss formulas ------===//
//
// runtime/lib/shared/LayerNormMath.h, LossMath.h and RowBlocks.h, which the
// CUDA kernels compute with, against double-precision references written
// from the definitions: torch.nn.LayerNorm (biased variance), its gradient
// by central differences of a double forward, and torch.nn.CrossEntropyLoss
// / NLLLoss with reduction="mean", ignore_index and label smoothing. Each
// test composes the formulas the way the kernels do, in float, with the
// row sums taken in plain order.
//===----------------------------------------------------------------------===//
#include "RandomFloats.h"
#include "shared/LayerNormMath.h"
#include "shared/LossMath.h"
#include "shared/RowBlocks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace transfuse::rt;

/// |actual - expected| <= tolerance · max(1, |expected|) for every element.
void expectClose(const std::vector<float> &actual,
                 const std::vector<double> &expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i],
                tolerance * std::max(1.0, std::fabs(expected[i])))
        << "element " << i;
}

//===----------------------------------------------------------------------===//
// Launch shapes
//===----------------------------------------------------------------------===//

TEST(RuntimeSharedRowBlocks, RowThreadsIsTheSmallestFittingPowerOfTwo) {
  EXPECT_EQ(rowThreads(0), 32u);
  EXPECT_EQ(rowThreads(1), 32u);
  EXPECT_EQ(rowThreads(128), 32u);
  EXPECT_EQ(rowThreads(129), 64u);
  EXPECT_EQ(rowThreads(512), 128u);
  EXPECT_EQ(rowThreads(37000), kRowThreadsMax);
  EXPECT_EQ(rowThreads(int64_t(1) << 40), kRowThreadsMax);
  for (int64_t width = 0; width < 5000; width += 7) {
    unsigned threads = rowThreads(width);
    EXPECT_EQ(threads % 32, 0u) << width;
    EXPECT_EQ(threads & (threads - 1), 0u) << width;
    EXPECT_LE(threads, kRowThreadsMax) << width;
    if (threads > 32) {
      // Half as many threads would have been too few.
      EXPECT_GT(width, int64_t(threads / 2) * kRowElementsPerThread) << width;
    }
  }
}

TEST(RuntimeSharedRowBlocks, GridBlocksStaysWithinTheCap) {
  EXPECT_EQ(gridBlocks(1), 1u);
  EXPECT_EQ(gridBlocks(kGridBlocksMax), unsigned(kGridBlocksMax));
  EXPECT_EQ(gridBlocks(int64_t(1) << 40), unsigned(kGridBlocksMax));
  EXPECT_LE(kRowThreadsMax, 1024u);
  EXPECT_EQ(kReduceBlockThreads % 32, 0u);
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

struct LayerNormCase {
  int64_t rows, cols;
  std::vector<float> x, gamma, beta;
  float epsilon;
};

LayerNormCase makeLayerNormCase(int64_t rows, int64_t cols, float offset,
                                unsigned seed) {
  LayerNormCase c{rows,
                  cols,
                  uniformFloats(rows * cols, -2.0f, 2.0f, seed),
                  uniformFloats(cols, 0.5f, 1.5f, seed + 1),
                  uniformFloats(cols, -0.5f, 0.5f, seed + 2),
                  1e-5f};
  for (float &value : c.x)
    value += offset;
  return c;
}

struct Statistics {
  float mean, squares, rstd;
};

/// torch.nn.LayerNorm's form; the others are checked against a double
/// reference through the emulated kernels (test/CudaEmulation).
constexpr LayerNormForm kTorchForm{/*centred=*/true, /*unbiased=*/false,
                                   /*epsilonOnStd=*/false};

/// A row's statistics as the kernels take them: the sum, then the centred
/// squares, each added in float.
Statistics rowStatistics(const float *x, int64_t cols, float epsilon) {
  float sum = 0.0f;
  for (int64_t c = 0; c < cols; ++c)
    sum += x[c];
  float mean = layerNormMean(sum, cols);
  float squares = 0.0f;
  for (int64_t c = 0; c < cols; ++c)
    squares += (x[c] - mean) * (x[c] - mean);
  return {mean, squares, layerNormScale(squares, cols, epsilon, kTorchForm)};
}

std::vector<float> layerNormWithHeader(const LayerNormCase &c) {
  std::vector<float> out(c.x.size());
  for (int64_t r = 0; r < c.rows; ++r) {
    const float *x = c.x.data() + r * c.cols;
    Statistics stats = rowStatistics(x, c.cols, c.epsilon);
    for (int64_t col = 0; col < c.cols; ++col)
      out[r * c.cols + col] = layerNormOutput(x[col], stats.mean, stats.rstd,
                                              c.gamma[col], c.beta[col]);
  }
  return out;
}

/// torch.nn.LayerNorm in double, with x, gamma and beta as given.
std::vector<double> layerNormReference(int64_t rows, int64_t cols,
                                       const std::vector<double> &x,
                                       const std::vector<double> &gamma,
                                       const std::vector<double> &beta,
                                       double epsilon) {
  std::vector<double> out(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = x.data() + r * cols;
    double mean = 0.0, variance = 0.0;
    for (int64_t c = 0; c < cols; ++c)
      mean += row[c] / double(cols);
    for (int64_t c = 0; c < cols; ++c)
      variance += (row[c] - mean) * (row[c] - mean) / double(cols);
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] =
          (row[c] - mean) / std::sqrt(variance + epsilon) * gamma[c] + beta[c];
  }
  return out;
}

std::vector<double> widen(const std::vector<float> &values) {
  return {values.begin(), values.end()};
}

std::vector<double> layerNormReference(const LayerNormCase &c) {
  return layerNormReference(c.rows, c.cols, widen(c.x), widen(c.gamma),
                            widen(c.beta), c.epsilon);
}

TEST(RuntimeSharedLayerNorm, ForwardMatchesTheDefinition) {
  for (int64_t cols : {2, 7, 64, 333}) {
    LayerNormCase c = makeLayerNormCase(5, cols, 0.0f, unsigned(cols));
    expectClose(layerNormWithHeader(c), layerNormReference(c), 2e-6);
  }
}

TEST(RuntimeSharedLayerNorm, ForwardUsesTheBiasedVariance) {
  // Two elements ±1: the biased variance is 1, the unbiased one 2.
  LayerNormCase c{1, 2, {-1.0f, 1.0f}, {1.0f, 1.0f}, {0.0f, 0.0f}, 0.0f};
  std::vector<float> out = layerNormWithHeader(c);
  EXPECT_FLOAT_EQ(out[0], -1.0f);
  EXPECT_FLOAT_EQ(out[1], 1.0f);
}

TEST(RuntimeSharedLayerNorm, ForwardOfLargeOffsetsKeepsTheSpread) {
  // A mean far from zero: the centred second pass keeps the variance that
  // E[x²] - E[x]² would lose to cancellation.
  LayerNormCase c = makeLayerNormCase(3, 96, 1000.0f, 11);
  expectClose(layerNormWithHeader(c), layerNormReference(c), 2e-4);
}

TEST(RuntimeSharedLayerNorm, SingleColumnGivesBeta) {
  // One element is its own mean: xhat = 0, so the output is beta.
  LayerNormCase c = makeLayerNormCase(4, 1, 0.0f, 3);
  std::vector<float> out = layerNormWithHeader(c);
  for (float value : out)
    EXPECT_EQ(value, c.beta[0]);
}

TEST(RuntimeSharedLayerNorm, EpsilonBoundsAConstantRow) {
  LayerNormCase c{
      1,    3, {2.0f, 2.0f, 2.0f}, {1.0f, 1.0f, 1.0f}, {0.25f, 0.25f, 0.25f},
      1e-5f};
  for (float value : layerNormWithHeader(c))
    EXPECT_EQ(value, 0.25f);
  EXPECT_NEAR(layerNormScale(0.0f, 3, 1e-5f, kTorchForm), 1.0 / std::sqrt(1e-5),
              1e-2);
}

struct LayerNormGrads {
  std::vector<float> input, gamma, beta;
};

/// nn.layer_norm_grad composed as the kernels compose it: per row, the
/// statistics, then the means of g and g · xhat, then grad_input; the column
/// sums over the rows in order.
LayerNormGrads layerNormGradWithHeader(const LayerNormCase &c,
                                       const std::vector<float> &grad) {
  LayerNormGrads result{std::vector<float>(c.x.size()),
                        std::vector<float>(c.cols, 0.0f),
                        std::vector<float>(c.cols, 0.0f)};
  for (int64_t r = 0; r < c.rows; ++r) {
    const float *x = c.x.data() + r * c.cols;
    const float *dy = grad.data() + r * c.cols;
    Statistics stats = rowStatistics(x, c.cols, c.epsilon);
    float sumG = 0.0f, sumGXhat = 0.0f;
    for (int64_t col = 0; col < c.cols; ++col) {
      float xhat = layerNormXhat(x[col], stats.mean, stats.rstd);
      float g = dy[col] * c.gamma[col];
      sumG += g;
      sumGXhat += g * xhat;
      result.gamma[col] += dy[col] * xhat;
      result.beta[col] += dy[col];
    }
    float meanG = layerNormMean(sumG, c.cols);
    float xhatWeight = layerNormXhatWeight(sumGXhat, stats.squares, stats.rstd,
                                           c.cols, kTorchForm);
    for (int64_t col = 0; col < c.cols; ++col) {
      float xhat = layerNormXhat(x[col], stats.mean, stats.rstd);
      result.input[r * c.cols + col] = layerNormGradInput(
          dy[col] * c.gamma[col], xhat, meanG, xhatWeight, stats.rstd);
    }
  }
  return result;
}

/// d/dv Σ grad · layer_norm(x, gamma, beta) for v each element of
/// `*varied` (one of x, gamma, beta), by central differences in double.
std::vector<double>
finiteDifferences(const LayerNormCase &c, const std::vector<double> &grad,
                  std::vector<double> &x, std::vector<double> &gamma,
                  std::vector<double> &beta, std::vector<double> *varied) {
  auto objective = [&] {
    std::vector<double> out =
        layerNormReference(c.rows, c.cols, x, gamma, beta, c.epsilon);
    double total = 0.0;
    for (size_t i = 0; i < out.size(); ++i)
      total += grad[i] * out[i];
    return total;
  };
  constexpr double kStep = 1e-5;
  std::vector<double> derivative(varied->size());
  for (size_t i = 0; i < varied->size(); ++i) {
    double saved = (*varied)[i];
    (*varied)[i] = saved + kStep;
    double up = objective();
    (*varied)[i] = saved - kStep;
    double down = objective();
    (*varied)[i] = saved;
    derivative[i] = (up - down) / (2 * kStep);
  }
  return derivative;
}

TEST(RuntimeSharedLayerNorm, BackwardMatchesFiniteDifferences) {
  for (int64_t cols : {1, 5, 48}) {
    LayerNormCase c = makeLayerNormCase(3, cols, 0.5f, 20 + unsigned(cols));
    std::vector<float> grad = uniformFloats(c.x.size(), -1.0f, 1.0f, 99);
    LayerNormGrads ours = layerNormGradWithHeader(c, grad);
    std::vector<double> x = widen(c.x), gamma = widen(c.gamma),
                        beta = widen(c.beta), dy = widen(grad);
    SCOPED_TRACE("cols " + std::to_string(cols));
    expectClose(ours.input, finiteDifferences(c, dy, x, gamma, beta, &x), 2e-5);
    expectClose(ours.gamma, finiteDifferences(c, dy, x, gamma, beta, &gamma),
                2e-5);
    expectClose(ours.beta, finiteDifferences(c, dy, x, gamma, beta, &beta),
                2e-5);
  }
}

TEST(RuntimeSharedLayerNorm, BackwardOfAShiftIsZero) {
  // Adding the same amount to a whole row changes nothing after the norm:
  // the gradient sums to zero over each row.
  LayerNormCase c = makeLayerNormCase(4, 40, 0.0f, 5);
  std::vector<float> grad = uniformFloats(c.x.size(), -1.0f, 1.0f, 6);
  LayerNormGrads ours = layerNormGradWithHeader(c, grad);
  for (int64_t r = 0; r < c.rows; ++r) {
    double sum = 0.0, magnitude = 0.0;
    for (int64_t col = 0; col < c.cols; ++col) {
      sum += ours.input[r * c.cols + col];
      magnitude += std::fabs(ours.input[r * c.cols + col]);
    }
    EXPECT_GT(magnitude, 1.0);
    EXPECT_NEAR(sum, 0.0, 1e-5 * magnitude);
  }
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

constexpr int64_t kIgnore = -100;

struct LossCase {
  int64_t rows, classes;
  std::vector<float> scores;
  std::vector<int64_t> labels;
};

LossCase makeLossCase(int64_t rows, int64_t classes, float low, float high,
                      unsigned seed) {
  LossCase c{rows, classes, uniformFloats(rows * classes, low, high, seed),
             std::vector<int64_t>(rows)};
  std::mt19937 generator(seed + 1);
  std::uniform_int_distribution<int64_t> label(0, classes - 1);
  for (int64_t &value : c.labels)
    value = label(generator);
  return c;
}

struct RowSoftmax {
  float max, sumExp, shiftedSum;
};

/// The softmax statistics as the kernels take them, in float.
RowSoftmax rowSoftmax(const float *x, int64_t classes) {
  float max = -std::numeric_limits<float>::infinity();
  for (int64_t c = 0; c < classes; ++c)
    max = std::max(max, x[c]);
  float sumExp = 0.0f, shiftedSum = 0.0f;
  for (int64_t c = 0; c < classes; ++c) {
    sumExp += std::exp(x[c] - max);
    shiftedSum += x[c] - max;
  }
  return {max, sumExp, shiftedSum};
}

/// nn.cross_entropy composed as the kernels compose it: the loss of each
/// counted row, then their mean.
float crossEntropyWithHeader(const LossCase &c, float smoothing) {
  double sum = 0.0;
  int64_t count = 0;
  for (int64_t r = 0; r < c.rows; ++r) {
    LabelKind kind = classifyLabel(c.labels[r], kIgnore, c.classes);
    if (kind == LabelKind::Ignored)
      continue;
    const float *x = c.scores.data() + r * c.classes;
    RowSoftmax stats = rowSoftmax(x, c.classes);
    sum += smoothedCrossEntropy(stats.max, stats.sumExp,
                                labelScore(x, c.labels[r], kind),
                                stats.shiftedSum, c.classes, smoothing);
    ++count;
  }
  return meanLoss(sum, count);
}

/// torch.nn.CrossEntropyLoss(reduction="mean", ignore_index=kIgnore,
/// label_smoothing) in double, on scores given in double.
double crossEntropyReference(int64_t rows, int64_t classes,
                             const std::vector<double> &x,
                             const std::vector<int64_t> &labels,
                             double smoothing) {
  double total = 0.0;
  int64_t count = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (labels[r] == kIgnore)
      continue;
    const double *row = x.data() + r * classes;
    double max = *std::max_element(row, row + classes), sumExp = 0.0;
    for (int64_t c = 0; c < classes; ++c)
      sumExp += std::exp(row[c] - max);
    double logSumExp = max + std::log(sumExp);
    double uniform = 0.0;
    for (int64_t c = 0; c < classes; ++c)
      uniform += (logSumExp - row[c]) / double(classes);
    total +=
        (1.0 - smoothing) * (logSumExp - row[labels[r]]) + smoothing * uniform;
    ++count;
  }
  return total / double(count);
}

double crossEntropyReference(const LossCase &c, double smoothing) {
  return crossEntropyReference(c.rows, c.classes, widen(c.scores), c.labels,
                               smoothing);
}

TEST(RuntimeSharedCrossEntropy, MatchesTheDefinition) {
  for (float smoothing : {0.0f, 0.1f, 0.5f, 1.0f}) {
    LossCase c = makeLossCase(6, 13, -3.0f, 3.0f, 7);
    c.labels[2] = kIgnore;
    EXPECT_NEAR(crossEntropyWithHeader(c, smoothing),
                crossEntropyReference(c, smoothing), 2e-6)
        << "label_smoothing " << smoothing;
  }
}

TEST(RuntimeSharedCrossEntropy, ManyClasses) {
  // A translation vocabulary: the sums run over tens of thousands of terms.
  LossCase c = makeLossCase(2, 37000, -4.0f, 4.0f, 8);
  for (float smoothing : {0.0f, 0.1f})
    EXPECT_NEAR(crossEntropyWithHeader(c, smoothing),
                crossEntropyReference(c, smoothing), 1e-4)
        << "label_smoothing " << smoothing;
}

TEST(RuntimeSharedCrossEntropy, LargeLogitsDoNotOverflow) {
  // exp(200) overflows float: only the shift by the row's maximum keeps the
  // sums finite. An offset of 1e4 must not cancel the mean over classes.
  LossCase c = makeLossCase(3, 9, -200.0f, 200.0f, 9);
  for (float &value : c.scores)
    value += 1e4f;
  for (float smoothing : {0.0f, 0.2f}) {
    float loss = crossEntropyWithHeader(c, smoothing);
    ASSERT_TRUE(std::isfinite(loss));
    EXPECT_NEAR(loss, crossEntropyReference(c, smoothing),
                1e-5 * crossEntropyReference(c, smoothing));
  }
}

TEST(RuntimeSharedCrossEntropy, NegativeInfinityElsewhereWithoutSmoothing) {
  // A class with a -inf logit (masked out) has probability 0: the loss of
  // another label is finite without smoothing, and infinite with it.
  float inf = std::numeric_limits<float>::infinity();
  LossCase c{1, 3, {1.0f, -inf, 2.0f}, {0}};
  double expected = std::log(std::exp(1.0) + std::exp(2.0)) - 1.0;
  EXPECT_NEAR(crossEntropyWithHeader(c, 0.0f), expected, 1e-6);
  EXPECT_EQ(crossEntropyWithHeader(c, 0.1f), inf);
}

TEST(RuntimeSharedCrossEntropy, IgnoredRowsAreLeftOutOfTheMean) {
  LossCase c = makeLossCase(4, 5, -1.0f, 1.0f, 10);
  LossCase counted{2, 5, {}, {c.labels[1], c.labels[3]}};
  counted.scores.assign(c.scores.begin() + 5, c.scores.begin() + 10);
  counted.scores.insert(counted.scores.end(), c.scores.begin() + 15,
                        c.scores.end());
  c.labels[0] = kIgnore;
  c.labels[2] = kIgnore;
  EXPECT_FLOAT_EQ(crossEntropyWithHeader(c, 0.1f),
                  crossEntropyWithHeader(counted, 0.1f));
}

TEST(RuntimeSharedCrossEntropy, NoCountedRowIsNaN) {
  LossCase c = makeLossCase(3, 4, -1.0f, 1.0f, 12);
  c.labels.assign(3, kIgnore);
  EXPECT_TRUE(std::isnan(crossEntropyWithHeader(c, 0.0f)));
  EXPECT_TRUE(std::isnan(meanLoss(0.0, 0)));
}

TEST(RuntimeSharedCrossEntropy, OutOfRangeLabelIsNaN) {
  for (int64_t label : {int64_t(-1), int64_t(4), int64_t(1) << 40}) {
    LossCase c = makeLossCase(2, 4, -1.0f, 1.0f, 13);
    c.labels[1] = label;
    EXPECT_TRUE(std::isnan(crossEntropyWithHeader(c, 0.0f))) << label;
    EXPECT_TRUE(std::isnan(crossEntropyWithHeader(c, 1.0f))) << label;
  }
}

TEST(RuntimeSharedLoss, ClassifiesLabels) {
  EXPECT_EQ(classifyLabel(-100, -100, 10), LabelKind::Ignored);
  EXPECT_EQ(classifyLabel(0, 0, 10), LabelKind::Ignored);
  EXPECT_EQ(classifyLabel(0, -100, 10), LabelKind::Counted);
  EXPECT_EQ(classifyLabel(9, -100, 10), LabelKind::Counted);
  EXPECT_EQ(classifyLabel(10, -100, 10), LabelKind::OutOfRange);
  EXPECT_EQ(classifyLabel(-1, -100, 10), LabelKind::OutOfRange);
  EXPECT_EQ(classifyLabel(0, -100, 0), LabelKind::OutOfRange);
  EXPECT_TRUE(labelCounts(3, -100));
  EXPECT_FALSE(labelCounts(-100, -100));
}

/// nn.cross_entropy_grad composed as the kernels compose it.
std::vector<float> crossEntropyGradWithHeader(const LossCase &c,
                                              float smoothing) {
  int64_t count = 0;
  for (int64_t label : c.labels)
    count += labelCounts(label, kIgnore);
  std::vector<float> grad(c.scores.size(), 0.0f);
  for (int64_t r = 0; r < c.rows; ++r) {
    if (!labelCounts(c.labels[r], kIgnore))
      continue;
    const float *x = c.scores.data() + r * c.classes;
    RowSoftmax stats = rowSoftmax(x, c.classes);
    for (int64_t col = 0; col < c.classes; ++col)
      grad[r * c.classes + col] =
          crossEntropyGrad(x[col], stats.max, stats.sumExp, col == c.labels[r],
                           c.classes, smoothing, static_cast<float>(count));
  }
  return grad;
}

TEST(RuntimeSharedCrossEntropy, GradMatchesFiniteDifferences) {
  for (float smoothing : {0.0f, 0.1f, 1.0f}) {
    LossCase c = makeLossCase(5, 7, -2.0f, 2.0f, 14);
    c.labels[3] = kIgnore;
    std::vector<float> ours = crossEntropyGradWithHeader(c, smoothing);
    std::vector<double> x = widen(c.scores), expected(x.size());
    constexpr double kStep = 1e-6;
    for (size_t i = 0; i < x.size(); ++i) {
      double saved = x[i];
      x[i] = saved + kStep;
      double up =
          crossEntropyReference(c.rows, c.classes, x, c.labels, smoothing);
      x[i] = saved - kStep;
      double down =
          crossEntropyReference(c.rows, c.classes, x, c.labels, smoothing);
      x[i] = saved;
      expected[i] = (up - down) / (2 * kStep);
    }
    SCOPED_TRACE("label_smoothing " + std::to_string(smoothing));
    expectClose(ours, expected, 1e-6);
    // The ignored row's gradient is exactly zero.
    for (int64_t col = 0; col < c.classes; ++col)
      EXPECT_EQ(ours[3 * c.classes + col], 0.0f);
  }
}

TEST(RuntimeSharedCrossEntropy, GradOfLargeLogitsIsFinite) {
  LossCase c = makeLossCase(2, 6, -300.0f, 300.0f, 15);
  std::vector<float> grad = crossEntropyGradWithHeader(c, 0.1f);
  for (int64_t r = 0; r < c.rows; ++r) {
    double sum = 0.0;
    for (int64_t col = 0; col < c.classes; ++col) {
      ASSERT_TRUE(std::isfinite(grad[r * c.classes + col]));
      sum += grad[r * c.classes + col];
    }
    // Probabilities and targets both sum to 1: each row's gradient to 0.
    EXPECT_NEAR(sum, 0.0, 1e-6);
  }
}

TEST(RuntimeSharedCrossEntropy, GradOfAnOutOfRangeLabelHasNoTarget) {
  // As the CPU lowering: no class equals the label, so the row gets
  // (softmax - ls / C) / n.
  float x[3] = {0.0f, 1.0f, 2.0f};
  RowSoftmax stats = rowSoftmax(x, 3);
  double sumExp = 1.0 + std::exp(1.0) + std::exp(2.0);
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(
        crossEntropyGrad(x[c], stats.max, stats.sumExp, false, 3, 0.3f, 2.0f),
        (std::exp(double(c)) / sumExp - 0.1) / 2.0, 1e-7);
}

//===----------------------------------------------------------------------===//
// NLL
//===----------------------------------------------------------------------===//

/// nn.nll_loss composed as the kernels compose it.
float nllLossWithHeader(const LossCase &c) {
  double sum = 0.0;
  int64_t count = 0;
  for (int64_t r = 0; r < c.rows; ++r) {
    LabelKind kind = classifyLabel(c.labels[r], kIgnore, c.classes);
    if (kind == LabelKind::Ignored)
      continue;
    sum += -labelScore(c.scores.data() + r * c.classes, c.labels[r], kind);
    ++count;
  }
  return meanLoss(sum, count);
}

TEST(RuntimeSharedNllLoss, MatchesTheDefinition) {
  LossCase c = makeLossCase(7, 5, -6.0f, 0.0f, 16);
  c.labels[0] = kIgnore;
  c.labels[4] = kIgnore;
  double total = 0.0;
  for (int64_t r : {1, 2, 3, 5, 6})
    total -= c.scores[r * c.classes + c.labels[r]];
  EXPECT_NEAR(nllLossWithHeader(c), total / 5.0, 1e-6);
}

TEST(RuntimeSharedNllLoss, EdgeCases) {
  LossCase c = makeLossCase(2, 3, -2.0f, 0.0f, 17);
  c.labels = {kIgnore, kIgnore};
  EXPECT_TRUE(std::isnan(nllLossWithHeader(c)));
  c.labels = {1, 3};
  EXPECT_TRUE(std::isnan(nllLossWithHeader(c)));
  // One class: its log-probability is whatever the input says.
  LossCase single{2, 1, {-0.5f, -1.5f}, {0, 0}};
  EXPECT_FLOAT_EQ(nllLossWithHeader(single), 1.0f);
}

TEST(RuntimeSharedNllLoss, GradIsMinusOneOverTheCount) {
  // d/dlogp[r][label] of -Σ logp[r][label] / n.
  EXPECT_FLOAT_EQ(nllLossGrad(4.0f), -0.25f);
  EXPECT_FLOAT_EQ(nllLossGrad(1.0f), -1.0f);
  EXPECT_FLOAT_EQ(nllLossGrad(3.0f), static_cast<float>(-1.0 / 3.0));
}

} // namespace
