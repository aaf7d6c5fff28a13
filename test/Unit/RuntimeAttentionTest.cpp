//===- RuntimeAttentionTest.cpp - tfrt_attention_f32 against a reference --===//
//
// Every case runs the kernel and a plain double-precision softmax(s) v with
// the same masking rules, on random data laid out through explicit strides
// (AttentionTesting.h).
//===----------------------------------------------------------------------===//
#include "AttentionTesting.h"
#include "RuntimeTesting.h"

namespace {

using namespace transfuse::test;

void check(const AttentionCase &c) {
  SCOPED_TRACE(describe(c));
  std::mt19937 rng(99);
  AttentionInputs in(c, rng);
  Tensor out = makeTensor(c, c.sq, c.dv);
  runAttention(in, out, nullptr);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h) {
      Softmax expected = softmax(in.pair(b, h));
      for (int64_t i = 0; i < c.sq; ++i)
        for (int64_t d = 0; d < c.dv; ++d) {
          double want = expected.out[i * c.dv + d];
          float got = out.at(b, h, i, d);
          if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got))
                << "(" << b << ", " << h << ", " << i << ", " << d << ")";
            continue;
          }
          ASSERT_NEAR(got, want, 2e-6 * c.magnitude * (1 + c.dk))
              << "(" << b << ", " << h << ", " << i << ", " << d << ")";
        }
    }
}

TEST(RuntimeAttention, Unmasked) {
  check({2, 3, 5, 7, 8, 8});
  check({1, 2, 33, 17, 16, 16});
  check({1, 1, 4, 3, 5, 20}); // dv not a multiple of the vector width
}

TEST(RuntimeAttention, LongSequencesFoldSeveralKeyBlocks) {
  check({1, 2, 9, 600, 16, 32});
  check({1, 1, 300, 300, 8, 8, /*causal=*/true});
}

TEST(RuntimeAttention, LargeScoresDoNotOverflow) {
  AttentionCase c{1, 2, 6, 40, 16, 16};
  c.magnitude = 30.0f;
  check(c);
}

TEST(RuntimeAttention, CausalWithInfiniteAndFiniteFill) {
  check({2, 2, 13, 13, 16, 16, true});
  check({2, 2, 13, 13, 16, 16, true, 0, false, -1e9});
  // More keys than queries: row i sees keys 0..i only.
  check({1, 2, 5, 11, 8, 8, true});
}

TEST(RuntimeAttention, ByteMaskHidesKeys) {
  // A row with every key hidden is NaN with -inf, uniform with -1e9.
  check({2, 3, 6, 9, 8, 16, false, 1, false, -1e9});
  check({2, 3, 6, 9, 8, 16, false, 1, false, -kInf});
  check({2, 1, 7, 9, 8, 8, false, 1, true, -1e9});
  check({2, 2, 7, 7, 8, 8, true, 1, true, -1e9});
}

TEST(RuntimeAttention, KeysHiddenFromEveryRowAreSkipped) {
  // A decoding step: one query per sequence against a cache it sees up to
  // its position, with the -1e9 fill and with -inf; also several rows.
  AttentionCase c{3, 2, 1, 70, 16, 16, false, 1, false, -1e9};
  c.prefix = 5;
  check(c);
  c.fill = -kInf;
  check(c);
  c.sq = 4;
  check(c);
  // A fill near the scores leaves the hidden keys weight: all are read.
  c.fill = -1.0;
  check(c);
}

TEST(RuntimeAttention, SingleQueryRow) {
  // A decoding step's query scores its keys sixteen at a time (a count of
  // keys that is no multiple of 16, a head dim with a scalar tail) and sums
  // the values in blocks of four vectors, then one, then a scalar tail.
  check({2, 2, 1, 300, 64, 64});
  check({1, 3, 1, 37, 20, 72});
  check({1, 1, 1, 5, 16, 48});
  check({1, 1, 1, 3, 7, 5});
}

TEST(RuntimeAttention, FloatMaskIsAddedAfterTheCausalFill) {
  check({2, 2, 6, 10, 8, 8, false, 2, true});
  check({2, 2, 6, 6, 8, 8, true, 2, false, -1e9});
}

TEST(RuntimeAttention, StridedHeadsInnerLayout) {
  AttentionCase c{2, 4, 10, 12, 16, 16, true, 1, false, -1e9};
  c.headsInner = true;
  check(c);
}

TEST(RuntimeAttention, NoKeysGiveZeros) {
  float q[4] = {1, 2, 3, 4}, out[4] = {7, 7, 7, 7};
  tfrt_attention_f32(1, 1, 2, 0, 2, 2, q, 0, 0, 2, nullptr, 0, 0, 2, nullptr, 0,
                     0, 2, nullptr, 0, 0, 0, 0, 0, 1.0f, 0, 0.0f, out, 0, 0, 2);
  for (float x : out)
    EXPECT_EQ(x, 0.0f);
}

} // namespace
