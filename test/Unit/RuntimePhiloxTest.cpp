//===- RuntimePhiloxTest.cpp - Philox-4x32-10 and dropout's decisions -----===//
//
// runtime/lib/Philox.h against Random123's known answers, its 16-lane forms
// (AVX-512F's, the portable one, two sets at once) against the one-block
// form, and the dropout it decides against the contract (four elements to
// a block) and its rate, one element, 16, 64 and 128 at a time.
//===----------------------------------------------------------------------===//
#include "Philox.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using namespace transfuse::rt;
using Block = std::array<uint32_t, 4>;

/// Random123's kat_vectors for philox4x32 with 10 rounds: counter, key and
/// the block they give.
struct KnownAnswer {
  Block counter;
  std::array<uint32_t, 2> key;
  Block block;
};
const KnownAnswer kKnownAnswers[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{~0u, ~0u, ~0u, ~0u},
     {~0u, ~0u},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(RuntimePhilox, MatchesRandom123KnownAnswers) {
  for (const KnownAnswer &kat : kKnownAnswers)
    EXPECT_EQ(philox4x32_10<uint32_t>(kat.counter, kat.key), kat.block);
}

/// Counters for 16 lanes: lane 0 holds the known answer's counter, the
/// others counters of their own (`salt` tells sets apart).
PhiloxLanes countersFor(const KnownAnswer &kat, uint32_t salt) {
  PhiloxLanes counters;
  for (int w = 0; w < 4; ++w)
    for (int l = 0; l < 16; ++l)
      counters[w][l] = l == 0 ? kat.counter[w]
                              : l * 7919u + w * 104729u + ~uint32_t(l) + salt;
  return counters;
}

/// Expects every lane of `lanes` to be the one-block Philox of its counter.
void expectOneBlockEach(const PhiloxLanes &counters, const PhiloxLanes &lanes,
                        std::array<uint32_t, 2> key, const char *form) {
  for (int l = 0; l < 16; ++l) {
    Block one = philox4x32_10<uint32_t>(
        {counters[0][l], counters[1][l], counters[2][l], counters[3][l]}, key);
    for (int w = 0; w < 4; ++w)
      EXPECT_EQ(lanes[w][l], one[w]) << form << " lane " << l << " word " << w;
  }
}

// philoxLanes is AVX-512F's code on a CPU that has it, philox4x32_10 the
// generic vectors' elsewhere: both are checked here.
TEST(RuntimePhilox, LanesMatchOneBlockEach) {
  for (const KnownAnswer &kat : kKnownAnswers) {
    PhiloxLanes counters = countersFor(kat, 0);
    expectOneBlockEach(counters, philoxLanes(counters, kat.key), kat.key,
                       "philoxLanes");
    expectOneBlockEach(counters, philox4x32_10<u32x16>(counters, kat.key),
                       kat.key, "philox4x32_10");
  }
}

TEST(RuntimePhilox, TwoSetsMatchOneBlockEach) {
  for (const KnownAnswer &kat : kKnownAnswers) {
    std::array<PhiloxLanes, 2> counters = {countersFor(kat, 0),
                                           countersFor(kat, 0x5bd1e995)};
    std::array<PhiloxLanes, 2> sets = philoxLanes2(counters, kat.key);
    expectOneBlockEach(counters[0], sets[0], kat.key, "set 0");
    expectOneBlockEach(counters[1], sets[1], kat.key, "set 1");
  }
}

TEST(RuntimePhilox, KeepFollowsTheContract) {
  const uint64_t key = 0xfedcba9876543210, stream = 0x0123456789abcdef;
  // Around 2³⁴, where the block's index carries into the second word.
  for (uint64_t e = (uint64_t(1) << 34) - 40; e < (uint64_t(1) << 34) + 40;
       ++e) {
    uint64_t block = e / 4;
    Block x =
        philox4x32_10<uint32_t>({uint32_t(block), uint32_t(block >> 32),
                                 uint32_t(stream), uint32_t(stream >> 32)},
                                {uint32_t(key), uint32_t(key >> 32)});
    float u = float(x[e % 4] >> 8) * 0x1p-24f;
    for (float rate : {0.0f, 0.1f, 0.5f, 0.9f, 1.0f})
      EXPECT_EQ(philoxKeep(key, stream, e, rate), u >= rate)
          << e << " " << rate;
  }
}

TEST(RuntimePhilox, SixteenLanesAreSixteenElements) {
  const uint64_t key = 42, stream = 7;
  for (uint64_t first :
       {uint64_t(0), (uint64_t(1) << 32) - 5, ~uint64_t(0) - 15})
    for (float rate : {0.1f, 0.5f}) {
      i32x16 lanes = philoxKeep16(key, stream, first, rate);
      for (int l = 0; l < 16; ++l)
        EXPECT_EQ(lanes[l], philoxKeep(key, stream, first + l, rate) ? -1 : 0)
            << first << " + " << l;
    }
}

TEST(RuntimePhilox, SixtyFourAndAHundredTwentyEightLanesAreTheirElements) {
  const uint64_t key = 0x9e3779b97f4a7c15, stream = 3;
  // Block-aligned starts: at 0, where the block's index carries into its
  // second word, and at the very end.
  for (uint64_t first :
       {uint64_t(0), uint64_t(64), (uint64_t(1) << 34) - 32, ~uint64_t(0) << 7})
    for (float rate : {0.1f, 0.5f}) {
      i32x16 four[4], eight[8];
      philoxKeep64(key, stream, first, rate, four);
      philoxKeep128(key, stream, first, rate, eight);
      for (int v = 0; v < 8; ++v) {
        i32x16 sixteen = philoxKeep16(key, stream, first + 16 * v, rate);
        for (int l = 0; l < 16; ++l) {
          uint64_t e = first + 16 * v + l;
          int want = philoxKeep(key, stream, e, rate) ? -1 : 0;
          EXPECT_EQ(eight[v][l], want) << first << " + " << 16 * v + l;
          EXPECT_EQ(sixteen[l], want) << e;
          if (v < 4)
            EXPECT_EQ(four[v][l], want) << first << " + " << 16 * v + l;
        }
      }
    }
}

/// Dropout's decisions for elements [0, n).
std::vector<bool> mask(uint64_t key, uint64_t stream, float rate, int64_t n) {
  std::vector<bool> keep(n);
  for (int64_t e = 0; e < n; ++e)
    keep[e] = philoxKeep(key, stream, uint64_t(e), rate);
  return keep;
}

TEST(RuntimePhilox, KeepsOneMinusTheRate) {
  const int64_t n = 1000000;
  for (float rate : {0.1f, 0.25f, 0.5f}) {
    std::vector<bool> keep = mask(0x9e3779b97f4a7c15, 1, rate, n);
    double kept = double(std::count(keep.begin(), keep.end(), true)) / n;
    EXPECT_NEAR(kept, 1 - rate, 0.005 * (1 - rate)) << rate;
  }
}

TEST(RuntimePhilox, StreamsAndKeysGiveDifferentMasks) {
  // Independent masks at rate 0.5 differ in half of the elements.
  const int64_t n = 100000;
  std::vector<bool> base = mask(1, 1, 0.5f, n);
  for (std::vector<bool> other : {mask(1, 2, 0.5f, n), mask(2, 1, 0.5f, n),
                                  mask(uint64_t(1) << 32, 1, 0.5f, n),
                                  mask(1, uint64_t(1) << 32, 0.5f, n)}) {
    int64_t differ = 0;
    for (int64_t e = 0; e < n; ++e)
      differ += base[e] != other[e];
    EXPECT_NEAR(double(differ) / n, 0.5, 0.01);
  }
}

} // namespace
