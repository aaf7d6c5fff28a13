//===- RuntimeAttentionExpTest.cpp - e^x of the attention kernels ---------===//
//
// runtime/lib/Vectors.h's exp16, which the softmax of both attention
// kernels runs on, against libm in double: within 2 ulp over every 97th
// float where e^x is a normal float, exactly 1 at 0, 0 below the normals
// (so a -inf score weighs nothing) and NaN kept.
//===----------------------------------------------------------------------===//
#include "AttentionTiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace {

using transfuse::rt::exp16;
using transfuse::rt::splat;

float lane0(float x) { return exp16(splat(x))[0]; }

/// |got - expected| in units of the last place of the float nearest to
/// `expected`.
double ulps(float got, double expected) {
  float nearest = static_cast<float>(expected);
  double ulp =
      std::nextafter(nearest, std::numeric_limits<float>::infinity()) - nearest;
  return std::abs(got - expected) / ulp;
}

TEST(RuntimeAttentionExp, WithinTwoUlpOfLibmWhereNormal) {
  const float lo = -87.3f, hi = 88.3f;
  double worst = 0.0;
  float worstAt = 0.0f;
  // Every 97th float of [lo, hi], by magnitude, from each end towards 0.
  for (float end : {lo, hi}) {
    float magnitude = std::abs(end);
    uint32_t bits;
    std::memcpy(&bits, &magnitude, sizeof bits);
    for (; bits > 97; bits -= 97) {
      float x;
      std::memcpy(&x, &bits, sizeof x);
      x = std::copysign(x, end);
      double error = ulps(lane0(x), std::exp(static_cast<double>(x)));
      if (error > worst) {
        worst = error;
        worstAt = x;
      }
    }
  }
  EXPECT_LE(worst, 2.0) << "at x = " << worstAt;
  EXPECT_EQ(lane0(0.0f), 1.0f);
  EXPECT_EQ(lane0(-0.0f), 1.0f);
}

TEST(RuntimeAttentionExp, ZeroBelowTheNormalsNaNKept) {
  EXPECT_EQ(lane0(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(lane0(-1e30f), 0.0f);
  EXPECT_EQ(lane0(-87.5f), 0.0f);
  EXPECT_GT(lane0(-87.0f), 0.0f);
  EXPECT_TRUE(std::isnan(lane0(std::numeric_limits<float>::quiet_NaN())));
}

TEST(RuntimeAttentionExp, TheSoftmaxsWithinItsBoundWhereXIsNotPositive) {
  // softmaxExp16 rounds x·log2 e once: its relative error grows with |x|,
  // (2 + 1.25 |x|)·2^-24 at most, over every 97th float of [-87.3, 0] by
  // magnitude.
  using transfuse::rt::softmaxExp16;
  float magnitude = 87.3f;
  uint32_t bits;
  std::memcpy(&bits, &magnitude, sizeof bits);
  double worst = 0.0;
  float worstAt = 0.0f;
  for (; bits > 97; bits -= 97) {
    std::memcpy(&magnitude, &bits, sizeof magnitude);
    double expected = std::exp(-static_cast<double>(magnitude));
    double relative =
        std::abs(softmaxExp16(splat(-magnitude))[0] - expected) / expected;
    double bound = (2.0 + 1.25 * magnitude) * 0x1p-24;
    if (relative / bound > worst) {
      worst = relative / bound;
      worstAt = -magnitude;
    }
  }
  EXPECT_LE(worst, 1.0) << "at x = " << worstAt;
  EXPECT_EQ(softmaxExp16(splat(0.0f))[0], 1.0f);
  EXPECT_EQ(softmaxExp16(splat(-88.0f))[0], 0.0f);
  EXPECT_EQ(softmaxExp16(splat(-std::numeric_limits<float>::infinity()))[0],
            0.0f);
  EXPECT_TRUE(std::isnan(
      softmaxExp16(splat(std::numeric_limits<float>::quiet_NaN()))[0]));
  std::printf("softmaxExp16: worst relative error %.2f of its bound, at %g\n",
              worst, worstAt);
}

TEST(RuntimeAttentionExp, EveryLaneOnItsOwn) {
  using transfuse::rt::v16;
  v16 x;
  for (int i = 0; i < 16; ++i)
    x[i] = -5.0f + 0.75f * i;
  v16 e = exp16(x);
  for (int i = 0; i < 16; ++i)
    EXPECT_LE(ulps(e[i], std::exp(static_cast<double>(x[i]))), 2.0) << i;
}

} // namespace
