//===- RuntimeSharedAttentionTest.cpp - The CUDA attention's shared rules -===//
//
// The headers the CUDA attention kernels share with the host, compiled for
// the host: shared/Philox.h against runtime/lib/Philox.h (the CPU kernels'
// dropout) and Random123's known answers; shared/OnlineSoftmax.h, fed the
// way the kernels feed it, against softmax and log-sum-exp in long double;
// and shared/AttentionTiling.h's masking, dropout-index and key-range rules
// and tile layouts.
//===----------------------------------------------------------------------===//
#include "Philox.h"
#include "shared/AttentionTiling.h"
#include "shared/OnlineSoftmax.h"
#include "shared/Philox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace transfuse::rt;
using namespace transfuse::rt::attn;

constexpr float kInf = std::numeric_limits<float>::infinity();

//===----------------------------------------------------------------------===//
// Philox
//===----------------------------------------------------------------------===//

TEST(RuntimeSharedPhilox, KnownAnswers) {
  // Random123's kat_vectors for philox4x32 with 10 rounds.
  struct {
    PhiloxBlock counter;
    uint32_t key0, key1;
    PhiloxBlock block;
  } const answers[] = {
      {{0, 0, 0, 0}, 0, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{~0u, ~0u, ~0u, ~0u},
       ~0u,
       ~0u,
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       0xa4093822,
       0x299f31d0,
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const auto &answer : answers) {
    PhiloxBlock x = philox4x32x10(answer.counter, answer.key0, answer.key1);
    EXPECT_EQ(x.x0, answer.block.x0);
    EXPECT_EQ(x.x1, answer.block.x1);
    EXPECT_EQ(x.x2, answer.block.x2);
    EXPECT_EQ(x.x3, answer.block.x3);
  }
}

TEST(RuntimeSharedPhilox, MulHiIsTheHighWordOfTheProduct) {
  EXPECT_EQ(philoxMulHi(0xffffffffu, 0xffffffffu), 0xfffffffeu);
  EXPECT_EQ(philoxMulHi(0x80000000u, 2), 1u);
  EXPECT_EQ(philoxMulHi(0xD2511F53u, 0x12345678u), 0x0EF4B3B8u);
  EXPECT_EQ(philoxMulHi(12345, 6789), 0u);
}

TEST(RuntimeSharedPhilox, BlocksMatchTheCpuKernels) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 2000; ++trial) {
    uint64_t a = rng(), b = rng(), k = rng();
    std::array<uint32_t, 4> want = philox4x32_10<uint32_t>(
        {uint32_t(a), uint32_t(a >> 32), uint32_t(b), uint32_t(b >> 32)},
        {uint32_t(k), uint32_t(k >> 32)});
    PhiloxBlock got = philox4x32x10(
        {uint32_t(a), uint32_t(a >> 32), uint32_t(b), uint32_t(b >> 32)},
        uint32_t(k), uint32_t(k >> 32));
    ASSERT_EQ(got.x0, want[0]);
    ASSERT_EQ(got.x1, want[1]);
    ASSERT_EQ(got.x2, want[2]);
    ASSERT_EQ(got.x3, want[3]);
  }
}

TEST(RuntimeSharedPhilox, DropoutMatchesTheCpuKernelsBitForBit) {
  std::mt19937_64 rng(2);
  const float rates[] = {0.0f, 1e-7f, 0.1f, 0.5f, 0.9f, 0.999999f, 1.0f};
  int disagreements = 0, kept = 0, total = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    uint64_t key = rng(), stream = rng() >> (trial % 64);
    // Elements below and above 2^32, where the counter's second word
    // starts to matter.
    uint64_t e = trial % 2 ? rng() % (uint64_t(1) << 40) : rng() % 100000;
    float rate = rates[trial % 7];
    bool want = philoxKeep(key, stream, e, rate);
    bool got = dropoutKeeps(key, stream, e, rate);
    disagreements += want != got;
    kept += got;
    ++total;
  }
  EXPECT_EQ(disagreements, 0);
  // Neither all kept nor all dropped: the comparison saw both outcomes.
  EXPECT_GT(kept, total / 4);
  EXPECT_LT(kept, total * 3 / 4);
}

TEST(RuntimeSharedPhilox, UniformIsTheTopBitsOfTheElementsWord) {
  const uint64_t key = 0xfedcba9876543210, stream = 0x0123456789abcdef;
  for (uint64_t e :
       {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(7), uint64_t(1) << 32,
        (uint64_t(5) << 32) + 3, (uint64_t(1) << 34) + 6, ~uint64_t(0)}) {
    uint64_t block = e / 4;
    PhiloxBlock x =
        philox4x32x10({uint32_t(block), uint32_t(block >> 32),
                       uint32_t(stream), uint32_t(stream >> 32)},
                      uint32_t(key), uint32_t(key >> 32));
    uint32_t word[] = {x.x0, x.x1, x.x2, x.x3};
    float u = dropoutUniform(key, stream, e);
    EXPECT_EQ(u, float(word[e % 4] >> 8) / 16777216.0f) << e;
    EXPECT_GE(u, 0.0f);
    EXPECT_LT(u, 1.0f);
    EXPECT_TRUE(dropoutKeeps(key, stream, e, 0.0f));
    EXPECT_FALSE(dropoutKeeps(key, stream, e, 1.0f));
  }
  // The high word of the block and both words of the stream count.
  EXPECT_NE(dropoutUniform(key, stream, 5),
            dropoutUniform(key, stream, 5 + (uint64_t(1) << 34)));
  EXPECT_NE(dropoutUniform(key, stream, 5),
            dropoutUniform(key, stream ^ (uint64_t(1) << 40), 5));
}

TEST(RuntimeSharedPhilox, KeepsAboutOneMinusTheRate) {
  for (float rate : {0.1f, 0.5f, 0.8f}) {
    int kept = 0;
    const int n = 100000;
    for (int e = 0; e < n; ++e)
      kept += dropoutKeeps(0x9e3779b97f4a7c15, 1, e, rate);
    EXPECT_NEAR(double(kept) / n, 1.0 - rate, 0.01) << rate;
  }
}

//===----------------------------------------------------------------------===//
// Online softmax
//===----------------------------------------------------------------------===//

/// softmax(x) · values and logsumexp(x) in long double; NaN and -inf when
/// every score is -inf, 0 and -inf without scores.
struct Reference {
  std::vector<long double> probs;
  long double out, lse;
};

Reference reference(const std::vector<float> &x,
                    const std::vector<float> &values) {
  Reference r{std::vector<long double>(x.size()), 0.0L, -INFINITY};
  if (x.empty())
    return r;
  long double top = -INFINITY;
  for (float s : x)
    top = std::max<long double>(top, s);
  if (top == -INFINITY) {
    std::fill(r.probs.begin(), r.probs.end(), NAN);
    r.out = NAN;
    return r;
  }
  long double sum = 0;
  for (float s : x)
    sum += std::exp(static_cast<long double>(s) - top);
  r.lse = top + std::log(sum);
  for (size_t j = 0; j < x.size(); ++j) {
    r.probs[j] = std::exp(static_cast<long double>(x[j]) - top) / sum;
    r.out += r.probs[j] * values[j];
  }
  return r;
}

/// The forward kernel's use of the helpers: scores arrive in blocks of
/// `block`; within a block, lane l of `lanes` takes every lanes-th score,
/// all lanes raise the maximum by the block's, each sums the weights of its
/// own scores, and the accumulator of weighted values is rescaled with the
/// factor. At the end the lanes' sums add up.
struct Streamed {
  SoftmaxState state;
  float out, lse;
};

Streamed stream(const std::vector<float> &x, const std::vector<float> &values,
                size_t block, size_t lanes) {
  std::vector<SoftmaxState> lane(lanes, emptySoftmax());
  float acc = 0.0f;
  for (size_t j0 = 0; j0 < x.size(); j0 += block) {
    size_t end = std::min(x.size(), j0 + block);
    float blockMaximum = -kInf;
    for (size_t j = j0; j < end; ++j)
      blockMaximum = std::max(blockMaximum, x[j]);
    float factor = 1.0f;
    for (SoftmaxState &s : lane)
      factor = raiseMaximum(s, blockMaximum);
    acc *= factor;
    for (size_t j = j0; j < end; ++j) {
      SoftmaxState &s = lane[(j - j0) % lanes];
      float w = softmaxWeight(x[j], s.maximum);
      s.sum += w;
      acc += w * values[j];
    }
  }
  SoftmaxState total = lane[0];
  for (size_t l = 1; l < lanes; ++l)
    total.sum += lane[l].sum;
  return {total, acc * outputFactor(total, int64_t(x.size())),
          logSumExp(total)};
}

/// Random scores: uniform in ±spread around `centre`, each -inf with
/// probability `hidden`.
std::vector<float> scores(std::mt19937 &rng, size_t n, float centre,
                          float spread, double hidden) {
  std::uniform_real_distribution<float> dist(centre - spread, centre + spread);
  std::bernoulli_distribution hide(hidden);
  std::vector<float> x(n);
  for (float &s : x)
    s = hide(rng) ? -kInf : dist(rng);
  return x;
}

void expectMatches(const std::vector<float> &x, const std::vector<float> &v,
                   size_t block, size_t lanes) {
  Reference want = reference(x, v);
  Streamed got = stream(x, v, block, lanes);
  if (std::isnan(static_cast<double>(want.out)))
    EXPECT_TRUE(std::isnan(got.out));
  else
    EXPECT_NEAR(got.out, static_cast<double>(want.out), 1e-5);
  if (want.lse == -INFINITY)
    EXPECT_EQ(got.lse, -kInf);
  else
    EXPECT_NEAR(got.lse, static_cast<double>(want.lse),
                2e-6 * (1 + std::abs(static_cast<double>(want.lse))));
}

TEST(RuntimeSharedOnlineSoftmax, MatchesSoftmaxWhateverTheBlocks) {
  std::mt19937 rng(3);
  for (size_t n : {1, 2, 7, 64, 65, 300})
    for (float spread : {1.0f, 10.0f, 80.0f})
      for (double hidden : {0.0, 0.3, 0.9}) {
        std::vector<float> x = scores(rng, n, 0.0f, spread, hidden);
        std::vector<float> v = scores(rng, n, 0.0f, 1.0f, 0.0);
        for (size_t block : {1, 8, 64, 1000})
          for (size_t lanes : {1, 8}) {
            SCOPED_TRACE(::testing::Message()
                         << "n " << n << " spread " << spread << " hidden "
                         << hidden << " block " << block);
            expectMatches(x, v, block, lanes);
          }
      }
}

TEST(RuntimeSharedOnlineSoftmax, LeadingInfiniteBlocksAddNothing) {
  // The first blocks are all -inf: the state stays empty, then the first
  // finite score starts it.
  std::vector<float> x(100, -kInf);
  x[90] = 3.0f, x[95] = 2.0f;
  std::vector<float> v(100, 5.0f);
  v[90] = 1.0f, v[95] = -1.0f;
  expectMatches(x, v, 16, 8);
  Streamed got = stream(x, v, 16, 8);
  EXPECT_EQ(got.state.maximum, 3.0f);
  EXPECT_NEAR(got.state.sum, 1.0f + std::exp(-1.0f), 1e-6);
}

TEST(RuntimeSharedOnlineSoftmax, AllInfiniteRowIsNanWithLseMinusInfinity) {
  std::vector<float> x(70, -kInf), v(70, 1.0f);
  Streamed got = stream(x, v, 32, 8);
  EXPECT_EQ(got.state.maximum, -kInf);
  EXPECT_EQ(got.state.sum, 0.0f);
  EXPECT_TRUE(std::isnan(got.out));
  EXPECT_EQ(got.lse, -kInf);
}

TEST(RuntimeSharedOnlineSoftmax, FiniteFillRowIsUniform) {
  // Every key hidden by a fill of -1e9: the softmax of equal scores.
  std::vector<float> x(37, -1e9f), v(37);
  for (size_t j = 0; j < v.size(); ++j)
    v[j] = float(j);
  Streamed got = stream(x, v, 16, 8);
  EXPECT_NEAR(got.out, 18.0, 1e-4); // the mean of 0..36
  EXPECT_EQ(got.lse, -1e9f);        // -1e9 + log(37) rounds to -1e9
  // Partly hidden: the fill weighs nothing next to finite scores.
  x[3] = 0.5f, x[20] = 0.5f;
  expectMatches(x, v, 16, 8);
  EXPECT_NEAR(stream(x, v, 16, 8).out, (3.0 + 20.0) / 2, 1e-5);
}

TEST(RuntimeSharedOnlineSoftmax, NoKeysGiveZero) {
  Streamed got = stream({}, {}, 16, 8);
  EXPECT_EQ(got.out, 0.0f);
  EXPECT_EQ(got.lse, -kInf);
  EXPECT_EQ(outputFactor(emptySoftmax(), 0), 0.0f);
  EXPECT_TRUE(std::isnan(outputFactor(emptySoftmax(), 5)));
  EXPECT_EQ(outputFactor({1.0f, 4.0f}, 5), 0.25f);
}

TEST(RuntimeSharedOnlineSoftmax, RescaleAndWeightOfInfiniteMaxima) {
  EXPECT_EQ(softmaxRescale(-kInf, -kInf), 1.0f);
  EXPECT_EQ(softmaxRescale(-kInf, 2.0f), 0.0f);
  EXPECT_EQ(softmaxRescale(2.0f, 2.0f), 1.0f);
  EXPECT_FLOAT_EQ(softmaxRescale(1.0f, 3.0f), std::exp(-2.0f));
  EXPECT_EQ(softmaxWeight(-kInf, -kInf), 0.0f);
  EXPECT_EQ(softmaxWeight(-kInf, 1.0f), 0.0f);
  EXPECT_EQ(softmaxWeight(1.0f, 1.0f), 1.0f);
  SoftmaxState s{2.0f, 3.0f};
  EXPECT_EQ(raiseMaximum(s, 1.0f), 1.0f);
  EXPECT_EQ(s.maximum, 2.0f);
  EXPECT_EQ(s.sum, 3.0f);
  EXPECT_FLOAT_EQ(raiseMaximum(s, 4.0f), std::exp(-2.0f));
  EXPECT_EQ(s.maximum, 4.0f);
  EXPECT_FLOAT_EQ(s.sum, 3.0f * std::exp(-2.0f));
}

//===----------------------------------------------------------------------===//
// The backward's probabilities and score gradients
//===----------------------------------------------------------------------===//

TEST(RuntimeSharedOnlineSoftmax, RowKindsByLse) {
  EXPECT_EQ(rowKind(-kInf), RowKind::Dead);
  EXPECT_EQ(rowKind(0.0f), RowKind::Ordinary);
  EXPECT_EQ(rowKind(-1023.9f), RowKind::Ordinary);
  EXPECT_EQ(rowKind(1023.9f), RowKind::Ordinary);
  EXPECT_EQ(rowKind(1024.0f), RowKind::Coarse);
  EXPECT_EQ(rowKind(-1024.0f), RowKind::Coarse);
  EXPECT_EQ(rowKind(-1e9f), RowKind::Coarse);
}

/// The backward's probabilities of a row from its lse (as the forward
/// computes it) and, for a coarse row, the residual, against long double.
void expectProbabilities(const std::vector<float> &x, double tolerance) {
  std::vector<float> zeros(x.size(), 0.0f);
  Reference want = reference(x, zeros);
  SoftmaxState state = stream(x, zeros, 64, 8).state;
  float lse = logSumExp(state);
  float residual =
      rowKind(lse) == RowKind::Coarse ? lseResidual(state, lse) : 0.0f;
  for (size_t j = 0; j < x.size(); ++j)
    ASSERT_NEAR(rowProbability(x[j], lse, residual),
                static_cast<double>(want.probs[j]), tolerance)
        << j << " of " << x.size();
}

TEST(RuntimeSharedOnlineSoftmax, ProbabilitiesOfOrdinaryRows) {
  std::mt19937 rng(5);
  // The lse's rounding shows in P: half an ulp, 1.5e-5 at |lse| ~ 500.
  expectProbabilities(scores(rng, 200, 0.0f, 1.0f, 0.2), 2e-6);
  expectProbabilities(scores(rng, 200, 0.0f, 30.0f, 0.2), 4e-6);
  expectProbabilities(scores(rng, 200, 0.0f, 500.0f, 0.2), 4e-5);
  // Ordinary rows use the lse alone: exactly e^(x - lse).
  EXPECT_EQ(rowProbability(0.25f, 1.5f, 0.0f), std::exp(0.25f - 1.5f));
  EXPECT_EQ(rowProbability(3.0f, -kInf, 0.0f), 0.0f);
  EXPECT_EQ(rowProbability(-kInf, -kInf, 0.0f), 0.0f);
}

TEST(RuntimeSharedOnlineSoftmax, CoarseRowsNeedTheirResidual) {
  // Hidden entirely by -1e9: the lse rounds to the fill, so e^(x - lse)
  // alone would give every key probability 1 instead of 1/40.
  std::vector<float> hidden(40, -1e9f);
  expectProbabilities(hidden, 1e-7);
  SoftmaxState state = stream(hidden, hidden, 64, 8).state;
  float lse = logSumExp(state);
  ASSERT_EQ(lse, -1e9f);
  EXPECT_EQ(rowProbability(-1e9f, lse, 0.0f), 1.0f);
  EXPECT_NEAR(lseResidual(state, lse), std::log(40.0), 1e-6);
  // Scores in the thousands, a few apart, positive and negative.
  std::mt19937 rng(6);
  expectProbabilities(scores(rng, 50, 3000.0f, 3.0f, 0.1), 2e-6);
  expectProbabilities(scores(rng, 50, -5000.0f, 2.0f, 0.1), 2e-6);
}

TEST(RuntimeSharedOnlineSoftmax, ScoreGradientsFollowDropoutAndHiding) {
  const float p = 0.3f, gradP = 1.25f, delta = 0.5f, scale = 0.125f;
  const float keepScale = 1.0f / (1.0f - 0.2f);
  // Without dropout (kept, factor 1): dS = scale · P (dP - D).
  ScoreGradients plain =
      scoreGradients(p, gradP, delta, scale, true, 1.0f, false);
  EXPECT_EQ(plain.weight, p);
  EXPECT_EQ(plain.score, p * (gradP - delta) * scale);
  // Kept: both the weight and dP scale by 1 / (1 - rate).
  ScoreGradients kept =
      scoreGradients(p, gradP, delta, scale, true, keepScale, false);
  EXPECT_EQ(kept.weight, p * keepScale);
  EXPECT_EQ(kept.score, p * (gradP * keepScale - delta) * scale);
  // Dropped: no weight, no dP, but D still pulls on the score.
  ScoreGradients dropped =
      scoreGradients(p, gradP, delta, scale, false, keepScale, false);
  EXPECT_EQ(dropped.weight, 0.0f);
  EXPECT_EQ(dropped.score, p * (0.0f - delta) * scale);
  // Hidden: the fill is a constant, but its probability still weighs dout.
  ScoreGradients hidden =
      scoreGradients(p, gradP, delta, scale, true, keepScale, true);
  EXPECT_EQ(hidden.weight, p * keepScale);
  EXPECT_EQ(hidden.score, 0.0f);
  // A dropped infinite dP gives 0, not NaN.
  EXPECT_EQ(applyDropout(kInf, false, keepScale), 0.0f);
  EXPECT_EQ(applyDropout(0.7f, true, 1.0f), 0.7f);
}

//===----------------------------------------------------------------------===//
// Masking, dropout indices and key ranges
//===----------------------------------------------------------------------===//

Problem problem(int64_t batch, int64_t heads, int64_t sq, int64_t sk) {
  Problem p{};
  p.batch = batch, p.heads = heads, p.sq = sq, p.sk = sk;
  p.dk = p.dv = 8;
  p.scale = 0.5f;
  p.fill = -kInf;
  p.keepScale = 1.0f;
  return p;
}

TEST(RuntimeSharedAttentionTiling, MaskedScores) {
  Problem p = problem(2, 3, 4, 5);
  EXPECT_EQ(maskedScore(p, 1, 2, 3, 4, 6.0f).value, 3.0f);
  EXPECT_FALSE(maskedScore(p, 1, 2, 3, 4, 6.0f).hidden);
  // Causal: key j > i takes the fill.
  p.causal = 1;
  p.fill = -1e9f;
  EXPECT_EQ(maskedScore(p, 0, 0, 2, 2, 6.0f).value, 3.0f);
  EXPECT_TRUE(maskedScore(p, 0, 0, 2, 3, 6.0f).hidden);
  EXPECT_EQ(maskedScore(p, 0, 0, 2, 3, 6.0f).value, -1e9f);
  // A byte mask [batch, 1, 1, sk], broadcast over heads and rows.
  const uint8_t bytes[] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 1};
  p.causal = 0;
  p.mask = bytes, p.maskKind = kByteMask;
  int64_t strides[4] = {5, 0, 0, 1};
  std::copy(strides, strides + 4, p.maskStrides);
  EXPECT_TRUE(maskedScore(p, 0, 2, 3, 1, 6.0f).hidden);
  EXPECT_FALSE(maskedScore(p, 0, 2, 3, 4, 6.0f).hidden);
  EXPECT_TRUE(maskedScore(p, 1, 1, 0, 4, 6.0f).hidden);
  EXPECT_FALSE(maskedScore(p, 1, 1, 0, 1, 6.0f).hidden);
  // A float mask [1, 1, sq, sk] is added after the causal fill.
  std::vector<float> bias(4 * 5);
  for (size_t x = 0; x < bias.size(); ++x)
    bias[x] = 0.25f * float(x);
  p.mask = bias.data(), p.maskKind = kFloatMask, p.causal = 1;
  int64_t rows[4] = {0, 0, 5, 1};
  std::copy(rows, rows + 4, p.maskStrides);
  EXPECT_EQ(maskedScore(p, 1, 2, 3, 2, 6.0f).value, 3.0f + bias[17]);
  MaskedScore future = maskedScore(p, 1, 2, 1, 4, 6.0f);
  EXPECT_TRUE(future.hidden);
  EXPECT_EQ(future.value, -1e9f + bias[9]);
  p.fill = -kInf;
  EXPECT_EQ(maskedScore(p, 1, 2, 1, 4, 6.0f).value, -kInf);
}

TEST(RuntimeSharedAttentionTiling, DropoutElementsAreOfTheProbabilities) {
  Problem p = problem(3, 64, 8192, 8192);
  EXPECT_EQ(rowIndex(p, 2, 5, 7), (2 * 64 + 5) * 8192 + 7);
  uint64_t e = dropoutElement(p, 2, 63, 8191, 8191);
  EXPECT_EQ(e, uint64_t(3) * 64 * 8192 * 8192 - 1);
  EXPECT_GT(e, uint64_t(1) << 32);
  EXPECT_EQ(dropoutElement(p, 0, 0, 1, 0), 8192u);
  EXPECT_EQ(dropoutElement(p, 0, 1, 0, 3), 8192u * 8192 + 3);
}

TEST(RuntimeSharedAttentionTiling, KeepsFollowsTheKeyAndElement) {
  Problem p = problem(2, 2, 3, 5);
  // Without dropout the key is never read (it may be null) and all stay.
  Dropout none = dropoutOf(p);
  EXPECT_FALSE(none.active);
  EXPECT_TRUE(keeps(p, none, 1, 1, 2, 4));
  const uint64_t key = 0x243f6a8885a308d3;
  p.dropout = 0.5f, p.dropoutKey = &key, p.dropoutStream = 9;
  Dropout active = dropoutOf(p);
  EXPECT_TRUE(active.active);
  EXPECT_EQ(active.key, key);
  int kept = 0;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      bool want =
          dropoutKeeps(key, 9, dropoutElement(p, 1, 0, i, j), p.dropout);
      EXPECT_EQ(keeps(p, active, 1, 0, i, j), want);
      kept += want;
    }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 15);
}

/// Whether the forward and dq (`forward`), or dk/dv, visit score (i, j)
/// with query tiles of `rows` rows and key tiles of `keys` keys: the former
/// walk the keys before the end of row i's tile, the latter the query tiles
/// from the first that sees key j's tile.
bool visits(const Problem &p, bool forward, int64_t i, int64_t j, int64_t rows,
            int64_t keys) {
  int64_t i0 = i / rows * rows, j0 = j / keys * keys;
  if (forward)
    return j < keyEnd(p, i0, std::min(rows, p.sq - i0));
  return i0 >= queryStart(p, j0, rows);
}

TEST(RuntimeSharedAttentionTiling, SkippedKeysAreHiddenByMinusInfinity) {
  for (int32_t causal : {0, 1})
    for (float fill : {-kInf, -1e9f})
      for (int64_t sq : {1, 5, 64, 70, 130})
        for (int64_t sk : {1, 7, 64, 100, 200})
          for (int64_t rows : {32, 64})
            for (int64_t keys : {16, 32, 64})
              for (bool forward : {true, false}) {
                Problem p = problem(1, 1, sq, sk);
                p.causal = causal, p.fill = fill;
                bool skips = causal && fill == -kInf;
                EXPECT_EQ(skipsFutureKeys(p), skips);
                int64_t skipped = 0;
                for (int64_t i = 0; i < sq; ++i)
                  for (int64_t j = 0; j < sk; ++j) {
                    if (visits(p, forward, i, j, rows, keys))
                      continue;
                    ++skipped;
                    ASSERT_TRUE(skips) << i << " " << j;
                    ASSERT_EQ(maskedScore(p, 0, 0, i, j, 1.0f).value, -kInf)
                        << i << " " << j;
                  }
                // Whole tiles past the diagonal are skipped.
                if (skips && sq >= 64 && sk > 64) {
                  EXPECT_GT(skipped, 0);
                }
              }
}

TEST(RuntimeSharedAttentionTiling, HeadDimBuckets) {
  EXPECT_EQ(headDimBucket(0, 0), 32);
  EXPECT_EQ(headDimBucket(1, 32), 32);
  EXPECT_EQ(headDimBucket(33, 8), 64);
  EXPECT_EQ(headDimBucket(64, 64), 64);
  EXPECT_EQ(headDimBucket(20, 130), 256);
  EXPECT_EQ(headDimBucket(128, 100), 128);
  EXPECT_EQ(headDimBucket(256, 256), 256);
  EXPECT_EQ(headDimBucket(257, 1), 0);
  EXPECT_EQ(headDimBucket(1, 1000), 0);
}

/// The regions of a layout, in floats: [start, end) each.
struct Region {
  int start, end;
};

/// Regions must be 16-byte aligned (the kernels load float4), disjoint and
/// within the total, which must fit an sm_80 block's shared memory (163 KiB,
/// the most the kernels' two targets both allow).
void expectLayout(const std::vector<Region> &regions, int total) {
  const int kSm80SharedBytes = 163 * 1024;
  EXPECT_LE(total * int(sizeof(float)), kSm80SharedBytes);
  for (size_t a = 0; a < regions.size(); ++a) {
    EXPECT_EQ(regions[a].start % 4, 0) << a;
    EXPECT_LE(regions[a].start, regions[a].end) << a;
    EXPECT_LE(regions[a].end, total) << a;
    for (size_t b = a + 1; b < regions.size(); ++b)
      EXPECT_TRUE(regions[a].end <= regions[b].start ||
                  regions[b].end <= regions[a].start)
          << a << " overlaps " << b;
  }
}

/// The thread grid covers the tile: whole groups of kThreadRows rows and
/// kThreadCols columns, and loads that give every thread the same count.
void expectTile(TileShape t, int headDim) {
  EXPECT_EQ(t.rows % kThreadRows, 0);
  EXPECT_EQ(t.cols % kThreadCols, 0);
  EXPECT_EQ(t.cols % 4, 0);
  EXPECT_EQ(t.rows * headDim % kThreads, 0);
  EXPECT_EQ(t.cols * headDim % kThreads, 0);
}

TEST(RuntimeSharedAttentionTiling, LayoutsFitAndDoNotOverlap) {
  EXPECT_EQ(kThreadRows * kThreadCols, kThreads);
  for (int headDim : {32, 64, 128, 256}) {
    SCOPED_TRACE(headDim);
    int operand = operandStride(headDim);
    // 16 bytes past a multiple of 128: 8 lanes' 16-byte loads from 8
    // consecutive rows fall in different banks.
    EXPECT_EQ(operand * 4 % 128, 16);
    EXPECT_EQ(headDim % (4 * kThreadCols), 0);

    TileShape f = forwardTile(headDim);
    expectTile(f, headDim);
    ForwardLayout fl = forwardLayout(headDim);
    expectLayout({{fl.queries, fl.queries + f.rows * operand},
                  {fl.keys, fl.keys + f.cols * operand},
                  {fl.values, fl.values + f.cols * operand},
                  {fl.weights, fl.weights + f.rows * weightStride(f.cols)}},
                 fl.total);

    TileShape k = keyGradTile(headDim);
    expectTile(k, headDim);
    KeyGradLayout kl = keyGradLayout(headDim);
    int kw = k.rows * weightStride(k.cols);
    expectLayout({{kl.keys, kl.keys + k.rows * operand},
                  {kl.values, kl.values + k.rows * operand},
                  {kl.queries, kl.queries + k.cols * operand},
                  {kl.gradOuts, kl.gradOuts + k.cols * operand},
                  {kl.weights, kl.weights + kw},
                  {kl.gradScores, kl.gradScores + kw},
                  {kl.rowStats, kl.rowStats + 3 * k.cols}},
                 kl.total);

    TileShape q = queryGradTile(headDim);
    expectTile(q, headDim);
    QueryGradLayout ql = queryGradLayout(headDim);
    expectLayout(
        {{ql.queries, ql.queries + q.rows * operand},
         {ql.gradOuts, ql.gradOuts + q.rows * operand},
         {ql.keys, ql.keys + q.cols * operand},
         {ql.values, ql.values + q.cols * operand},
         {ql.gradScores, ql.gradScores + q.rows * weightStride(q.cols)},
         {ql.rowStats, ql.rowStats + 3 * q.rows}},
        ql.total);
  }
}

TEST(RuntimeSharedAttentionTiling, WeightStridesSpreadAWarpsStores) {
  // A warp's 4 thread rows × 8 columns store one float each: 32 banks.
  for (int cols : {16, 32, 64}) {
    std::vector<int> banks;
    for (int row = 0; row < 4; ++row)
      for (int col = 0; col < kThreadCols; ++col)
        banks.push_back((row * weightStride(cols) + col) % 32);
    std::sort(banks.begin(), banks.end());
    EXPECT_EQ(std::unique(banks.begin(), banks.end()) - banks.begin(), 32)
        << cols;
  }
}

TEST(RuntimeSharedAttentionTiling, StridedOperands) {
  std::vector<float> data(2 * 3 * 4 * 5);
  Operand t{data.data(), 60, 5, 15}; // [b, s, h, d] seen as [b, h, s, d]
  EXPECT_EQ(t.at(1, 2, 3), data.data() + 60 + 10 + 45);
}

} // namespace
