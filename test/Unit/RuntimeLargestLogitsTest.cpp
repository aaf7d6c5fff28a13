//===- RuntimeLargestLogitsTest.cpp - The tokens of the largest logits ----===//
//
// runtime/lib/LargestLogits.cpp against a full sort: the same tokens in the
// same order (the larger logit first, the lower token on ties) for
// vocabularies that do and do not fill its blocks of 64, with many ties
// and -inf logits; NaN found wherever it is, an infinity alone not taken
// for NaN.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

using transfuse::rt::largestLogits;

std::vector<int64_t> bySorting(const std::vector<float> &logits, size_t count) {
  std::vector<int64_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  order.resize(std::min(count, order.size()));
  return order;
}

std::vector<float> randomLogits(size_t size, unsigned seed, int levels) {
  std::mt19937 generator(seed);
  // Few distinct values: ties everywhere, within and across blocks.
  std::uniform_int_distribution<int> level(0, levels - 1);
  std::bernoulli_distribution hidden(0.05);
  std::vector<float> logits(size);
  for (float &x : logits)
    x = hidden(generator) ? -std::numeric_limits<float>::infinity()
                          : 0.25f * static_cast<float>(level(generator));
  return logits;
}

TEST(RuntimeLargestLogits, TheFirstTokensOfAFullSort) {
  std::vector<int64_t> tokens;
  unsigned seed = 0;
  for (size_t size : {1, 3, 5, 63, 64, 65, 127, 200, 1000, 10007})
    for (size_t count : {1, 2, 5, 6, 70})
      for (int levels : {3, 40, 100000}) {
        std::vector<float> logits = randomLogits(size, ++seed, levels);
        EXPECT_FALSE(largestLogits(logits.data(), static_cast<int64_t>(size),
                                   count, tokens));
        EXPECT_EQ(tokens, bySorting(logits, count))
            << "size " << size << ", count " << count << ", levels " << levels;
      }
}

TEST(RuntimeLargestLogits, RisingLogitsEnterEveryBlock) {
  // Each block's logits beat every one held: the heap takes them all.
  std::vector<float> logits(1000);
  std::iota(logits.begin(), logits.end(), -500.0f);
  std::vector<int64_t> tokens;
  EXPECT_FALSE(largestLogits(logits.data(), 1000, 5, tokens));
  EXPECT_EQ(tokens, (std::vector<int64_t>{999, 998, 997, 996, 995}));
}

TEST(RuntimeLargestLogits, FindsNaNAnywhere) {
  std::vector<int64_t> tokens;
  // Among the first tokens held, inside a block, in the tail past the
  // last block.
  for (size_t at : {0, 3, 70, 130, 1000, 1004}) {
    std::vector<float> logits = randomLogits(1005, 7, 50);
    logits[at] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(largestLogits(logits.data(), 1005, 4, tokens)) << at;
  }
  std::vector<float> logits = randomLogits(300, 8, 50);
  logits[100] = std::numeric_limits<float>::infinity();
  logits[200] = -std::numeric_limits<float>::infinity();
  EXPECT_FALSE(largestLogits(logits.data(), 300, 4, tokens));
  EXPECT_EQ(tokens.front(), 100);
  EXPECT_FALSE(largestLogits(logits.data(), 300, 0, tokens));
  EXPECT_TRUE(tokens.empty());
}

} // namespace
