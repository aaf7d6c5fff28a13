//===- RuntimeExpDoubleTest.cpp - e^x in double, eight lanes at a time ----===//
//
// runtime/lib/ExpDouble.h against libm: exp8 within 1 ulp or so over the
// range where e^x is a normal double, 0 below it, NaN kept; and the sum
// beam search takes its log-softmax normaliser from, within rounding of a
// sequential sum of std::exp.
//===----------------------------------------------------------------------===//
#include "ExpDouble.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using transfuse::rt::exp8;
using transfuse::rt::sumOfExponentials;
using transfuse::rt::v8d;

double lane0(double x) {
  v8d lanes = {x, x, x, x, x, x, x, x};
  return exp8(lanes)[0];
}

TEST(RuntimeExpDouble, WithinAnUlpOrSoOfLibmWhereNormal) {
  double worst = 0.0;
  for (double x = -708.0; x <= 709.0; x += 0.0137)
    worst = std::max(worst, std::abs(lane0(x) - std::exp(x)) / std::exp(x));
  EXPECT_LT(worst, 5e-16);
  EXPECT_EQ(lane0(0.0), 1.0);
}

TEST(RuntimeExpDouble, ZeroBelowTheNormalsNaNKept) {
  EXPECT_EQ(lane0(-std::numeric_limits<double>::infinity()), 0.0);
  EXPECT_EQ(lane0(-800.0), 0.0);
  EXPECT_EQ(lane0(-708.5), 0.0);
  EXPECT_TRUE(std::isnan(lane0(std::numeric_limits<double>::quiet_NaN())));
}

/// n logits drawn from N(0, 6²) with `seed`.
std::vector<float> randomLogits(unsigned seed, size_t n) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> logit(0.0f, 6.0f);
  std::vector<float> logits(n);
  for (float &x : logits)
    x = logit(generator);
  return logits;
}

TEST(RuntimeExpDouble, SumMatchesASequentialSumOfLibm) {
  // Not a multiple of 8: the tail takes std::exp.
  std::vector<float> logits = randomLogits(3, 10007);
  double max = *std::max_element(logits.begin(), logits.end());
  double expected = 0.0;
  for (float x : logits)
    expected += std::exp(x - max);
  double sum = sumOfExponentials(logits.data(),
                                 static_cast<int64_t>(logits.size()), max);
  EXPECT_NEAR(sum, expected, 1e-13 * expected);
  // A -inf logit adds nothing.
  logits[5] = -std::numeric_limits<float>::infinity();
  EXPECT_NEAR(
      sumOfExponentials(logits.data(), 8, max),
      [&] {
        double s = 0.0;
        for (int i = 0; i < 8; ++i)
          s += std::exp(logits[i] - max);
        return s;
      }(),
      1e-15);
}

TEST(RuntimeExpDouble, RegisterWidthsGiveTheSameBits) {
  // AVX-512 sums on registers of 8 doubles, AVX2 on 4, SSE on 2: the same
  // eight running sums, added in the same order.
  std::vector<float> logits = randomLogits(5, 1003);
  double max = *std::max_element(logits.begin(), logits.end());
  auto n = static_cast<int64_t>(logits.size());
  double eight = sumOfExponentials<8>(logits.data(), n, max);
  EXPECT_EQ(sumOfExponentials<4>(logits.data(), n, max), eight);
  EXPECT_EQ(sumOfExponentials<2>(logits.data(), n, max), eight);
}

} // namespace
