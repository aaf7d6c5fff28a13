//===- RuntimeAttentionTest.cpp - tfrt_attention_f32 against a reference --===//
//
// Every case runs the kernel and a plain double-precision softmax(s) v with
// the same masking rules, on random data laid out through explicit strides.
//===----------------------------------------------------------------------===//
#include "RuntimeTesting.h"

#include <cmath>
#include <limits>
#include <random>

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct AttentionCase {
  int64_t batch, heads, sq, sk, dk, dv;
  bool causal = false;
  int32_t maskKind = 0;    // 0 none, 1 bytes, 2 f32
  bool maskPerRow = false; // [b, 1, sq, sk] instead of [b, 1, 1, sk]
  double fill = -kInf;
  bool headsInner = false; // q, k, v and out laid out [b, s, h, d]
  float magnitude = 1.0f;  // spread of the inputs: large scores test overflow
};

/// A [b, h, s, d] tensor stored as [b, h, s, d] or [b, s, h, d].
struct Tensor {
  int64_t sb, sh, ss;
  std::vector<float> data;
  Tensor(const AttentionCase &c, int64_t s, int64_t d)
      : sb(c.heads * s * d), sh(c.headsInner ? d : s * d),
        ss(c.headsInner ? c.heads * d : d), data(c.batch * c.heads * s * d) {}
  float &at(int64_t b, int64_t h, int64_t i, int64_t d) {
    return data[b * sb + h * sh + i * ss + d];
  }
};

std::string describe(const AttentionCase &c) {
  return "b" + std::to_string(c.batch) + " h" + std::to_string(c.heads) +
         " sq" + std::to_string(c.sq) + " sk" + std::to_string(c.sk) + " dk" +
         std::to_string(c.dk) + " dv" + std::to_string(c.dv) + " causal " +
         std::to_string(c.causal) + " mask " + std::to_string(c.maskKind) +
         (c.maskPerRow ? " per row" : "") + " fill " + std::to_string(c.fill) +
         (c.headsInner ? " [b,s,h,d]" : "");
}

void check(const AttentionCase &c) {
  SCOPED_TRACE(describe(c));
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> dist(-c.magnitude, c.magnitude);
  Tensor q(c, c.sq, c.dk), k(c, c.sk, c.dk), v(c, c.sk, c.dv),
      out(c, c.sq, c.dv);
  for (auto *t : {&q, &k, &v})
    for (float &x : t->data)
      x = dist(rng);
  // The mask: [b, 1, 1 or sq, sk], broadcast over heads (stride 0).
  int64_t maskRows = c.maskPerRow ? c.sq : 1;
  std::vector<uint8_t> bytes(c.batch * maskRows * c.sk);
  std::vector<float> bias(bytes.size());
  std::bernoulli_distribution hide(0.3);
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = hide(rng);
    bias[i] = dist(rng);
  }
  // Row 0 of batch 0 hides every key: NaN with -inf, uniform otherwise.
  for (int64_t j = 0; j < c.sk; ++j)
    bytes[j] = 1;
  int64_t msb = maskRows * c.sk, msq = c.maskPerRow ? c.sk : 0;
  const void *mask = c.maskKind == 1   ? static_cast<const void *>(bytes.data())
                     : c.maskKind == 2 ? bias.data()
                                       : nullptr;
  double scale = 1.0 / std::sqrt(double(c.dk));
  tfrt_attention_f32(c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, q.data.data(),
                     q.sb, q.sh, q.ss, k.data.data(), k.sb, k.sh, k.ss,
                     v.data.data(), v.sb, v.sh, v.ss, mask, c.maskKind, msb, 0,
                     msq, 1, float(scale), c.causal, float(c.fill),
                     out.data.data(), out.sb, out.sh, out.ss);

  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < c.sq; ++i) {
        std::vector<double> s(c.sk);
        for (int64_t j = 0; j < c.sk; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < c.dk; ++d)
            dot += double(q.at(b, h, i, d)) * double(k.at(b, h, j, d));
          s[j] = dot * scale;
          int64_t m = b * msb + i * msq + j;
          bool hidden = (c.causal && j > i) || (c.maskKind == 1 && bytes[m]);
          if (hidden)
            s[j] = c.fill;
          if (c.maskKind == 2)
            s[j] += bias[m];
        }
        double top = *std::max_element(s.begin(), s.end());
        double sum = 0;
        for (double &x : s)
          sum += (x = std::exp(x - top));
        for (int64_t d = 0; d < c.dv; ++d) {
          double expected = 0;
          for (int64_t j = 0; j < c.sk; ++j)
            expected += s[j] / sum * double(v.at(b, h, j, d));
          float got = out.at(b, h, i, d);
          if (std::isnan(expected)) {
            ASSERT_TRUE(std::isnan(got))
                << "(" << b << ", " << h << ", " << i << ", " << d << ")";
            continue;
          }
          ASSERT_NEAR(got, expected, 2e-6 * c.magnitude * (1 + c.dk))
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
