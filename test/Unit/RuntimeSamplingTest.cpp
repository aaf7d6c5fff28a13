//===- RuntimeSamplingTest.cpp - Choosing the next token from logits ------===//
//
// transfuse/sampling.hpp: greedy choice, reproducible draws keyed by seed,
// sequence and step, the distribution the top-k and top-p cuts leave, and
// the options it refuses.
//===----------------------------------------------------------------------===//
#include "transfuse/sampling.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace {

using transfuse::SamplingOptions;

int64_t sample(const std::vector<float> &logits, const SamplingOptions &options,
               uint64_t sequence = 0, uint64_t step = 0) {
  return transfuse::sampleToken(logits.data(),
                                static_cast<int64_t>(logits.size()), options,
                                sequence, step);
}

SamplingOptions withTemperature(double temperature, int64_t topK = 0,
                                double topP = 1.0, uint64_t seed = 0) {
  SamplingOptions options;
  options.temperature = temperature;
  options.topK = topK;
  options.topP = topP;
  options.seed = seed;
  return options;
}

/// The distribution sampling should follow, written out step by step:
/// softmax(logits / T), the top k by logit (lower id first on ties)
/// renormalised, then the shortest prefix by decreasing probability that
/// reaches topP, renormalised.
std::vector<double> expectedDistribution(const std::vector<float> &logits,
                                         const SamplingOptions &options) {
  std::vector<int64_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  size_t kept = order.size();
  if (options.topK > 0)
    kept = std::min<size_t>(kept, options.topK);
  std::vector<double> weights(kept);
  double total = 0;
  for (size_t i = 0; i < kept; ++i)
    total += weights[i] =
        std::exp((logits[order[i]] - logits[order[0]]) / options.temperature);
  double cumulative = 0;
  size_t nucleus = 0;
  while (nucleus < kept && cumulative < options.topP * total)
    cumulative += weights[nucleus++];
  std::vector<double> result(logits.size(), 0.0);
  for (size_t i = 0; i < nucleus; ++i)
    result[order[i]] = weights[i] / cumulative;
  return result;
}

TEST(RuntimeSampling, GreedyIsTheArgmaxAndTiesGoToTheLowestId) {
  SamplingOptions greedy;
  EXPECT_EQ(sample({0.1f, 3.0f, -2.0f, 2.9f}, greedy), 1);
  EXPECT_EQ(sample({1.0f, 5.0f, 5.0f, 2.0f, 5.0f}, greedy), 1);
  EXPECT_EQ(sample({-INFINITY, -INFINITY}, greedy), 0);
  // Neither the seed, the sequence nor the step matters.
  greedy.seed = 42;
  for (uint64_t step = 0; step < 10; ++step)
    EXPECT_EQ(sample({1.0f, 5.0f, 5.0f, 2.0f}, greedy, step, step), 1);
}

TEST(RuntimeSampling, DrawsAreReproducibleAndDependOnSeedSequenceAndStep) {
  std::vector<float> uniform(256, 0.0f);
  auto draws = [&](uint64_t seed, uint64_t sequence) {
    std::vector<int64_t> result;
    for (uint64_t step = 0; step < 200; ++step)
      result.push_back(
          sample(uniform, withTemperature(1.0, 0, 1.0, seed), sequence, step));
    return result;
  };
  std::vector<int64_t> first = draws(7, 0);
  EXPECT_EQ(first, draws(7, 0));
  // Over 200 draws among 256 equally likely tokens, two independent series
  // agree in about one place.
  auto agreements = [&](const std::vector<int64_t> &other) {
    size_t count = 0;
    for (size_t i = 0; i < first.size(); ++i)
      count += first[i] == other[i];
    return count;
  };
  EXPECT_LT(agreements(draws(8, 0)), 10u);
  EXPECT_LT(agreements(draws(7, 1)), 10u);
  // Distinct steps give distinct tokens too, not one repeated token.
  EXPECT_GT(std::set<int64_t>(first.begin(), first.end()).size(), 100u);
}

TEST(RuntimeSampling, TopKOfOneIsGreedyAtAnyTemperature) {
  std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f, 1.9f, 0.0f};
  for (double temperature : {1e-3, 0.5, 1.0, 10.0, 1e6})
    for (uint64_t step = 0; step < 50; ++step)
      EXPECT_EQ(
          sample(logits, withTemperature(temperature, 1, 1.0, 3), 0, step), 1)
          << "temperature " << temperature << ", step " << step;
}

TEST(RuntimeSampling, InfiniteLogitsAreNeverOrAlwaysDrawn) {
  for (uint64_t step = 0; step < 100; ++step) {
    EXPECT_EQ(
        sample({-INFINITY, 0.0f, -INFINITY}, withTemperature(1.0), 0, step), 1);
    EXPECT_EQ(sample({1.0f, INFINITY, 3.0f}, withTemperature(1.0), 0, step), 1);
  }
}

TEST(RuntimeSampling, FrequenciesFollowTheCutAndRenormalisedSoftmax) {
  const std::vector<float> logits = {1.0f, 2.5f, -0.5f, 2.0f,
                                     0.0f, 3.0f, 1.5f,  -2.0f};
  const SamplingOptions cases[] = {
      withTemperature(1.0, 0, 1.0, 1),  withTemperature(0.8, 5, 1.0, 2),
      withTemperature(0.8, 0, 0.7, 3),  withTemperature(0.8, 5, 0.8, 4),
      withTemperature(2.0, 3, 0.95, 5),
  };
  constexpr uint64_t kDraws = 100000;
  for (const SamplingOptions &options : cases) {
    std::vector<double> expected = expectedDistribution(logits, options);
    std::vector<uint64_t> counts(logits.size(), 0);
    for (uint64_t step = 0; step < kDraws; ++step)
      ++counts[sample(logits, options, 0, step)];
    for (size_t id = 0; id < logits.size(); ++id) {
      SCOPED_TRACE("top-k " + std::to_string(options.topK) + ", top-p " +
                   std::to_string(options.topP) + ", token " +
                   std::to_string(id));
      if (expected[id] == 0)
        EXPECT_EQ(counts[id], 0u);
      else
        EXPECT_NEAR(static_cast<double>(counts[id]) / kDraws, expected[id],
                    0.01);
    }
  }
}

TEST(RuntimeSampling, RefusesInvalidOptionsAndNaN) {
  auto refuses = [](const SamplingOptions &options, const std::string &text) {
    try {
      transfuse::validate(options);
      ADD_FAILURE() << "accepted, expected: " << text;
    } catch (const transfuse::Error &error) {
      EXPECT_EQ(error.status(), TF_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(error.what()).find(text), std::string::npos)
          << error.what();
    }
  };
  refuses(withTemperature(-1), "temperature must be a finite number at least "
                               "0, not -1");
  refuses(withTemperature(NAN), "temperature");
  refuses(withTemperature(INFINITY), "not inf");
  refuses(withTemperature(1, -1), "top-k must be at least 0");
  refuses(withTemperature(1, 0, 0), "top-p must be in (0, 1], not 0");
  refuses(withTemperature(1, 0, 1.5), "not 1.5");
  refuses(withTemperature(1, 0, NAN), "top-p");
  EXPECT_NO_THROW(transfuse::validate(withTemperature(0, 0, 1)));
  EXPECT_NO_THROW(transfuse::validate(withTemperature(0.5, 3, 1e-9)));

  EXPECT_THROW(sample({1.0f, NAN}, SamplingOptions()), transfuse::Error);
  EXPECT_THROW(sample({1.0f, 2.0f}, withTemperature(-2)), transfuse::Error);
  EXPECT_THROW(sample({}, SamplingOptions()), transfuse::Error);
}

} // namespace
