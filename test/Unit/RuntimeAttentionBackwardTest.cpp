//===- RuntimeAttentionBackwardTest.cpp - The attention backward kernel ---===//
//
// tfrt_attention_stats_f32 and tfrt_attention_backward_f32 against the
// analytic gradients of the materialised double-precision softmax
// (AttentionTesting.h), which finite differences check first, with and
// without dropout.
//===----------------------------------------------------------------------===//
#include "AttentionTesting.h"
#include "RuntimeTesting.h"

namespace {

using namespace transfuse::test;

/// The gradients of a pair with respect to q, k and v, dense.
struct Gradients {
  std::vector<double> q, k, v;
};

/// The analytic gradients of Σ out ∘ gradOut, with m the dropout's factors
/// (Pair::keep): dv = (m ∘ P)ᵀ dout, and through
/// dS = P ∘ (m ∘ dout vᵀ - rowsum(dout ∘ out)), dq = scale dS k and
/// dk = scale dSᵀ q. A hidden score is the fill, a constant, so its dS is
/// zero; a row whose scores are all -inf gives nothing.
Gradients backward(const Pair &p, const Softmax &f,
                   const std::vector<double> &gradOut) {
  Gradients g{std::vector<double>(p.sq * p.dk),
              std::vector<double>(p.sk * p.dk),
              std::vector<double>(p.sk * p.dv)};
  for (int64_t i = 0; i < p.sq; ++i) {
    if (f.lse[i] == -kInf)
      continue;
    const double *dout = gradOut.data() + i * p.dv;
    double delta = 0;
    for (int64_t d = 0; d < p.dv; ++d)
      delta += dout[d] * f.out[i * p.dv + d];
    for (int64_t j = 0; j < p.sk; ++j) {
      double prob = f.probs[i * p.sk + j], keep = p.keep[i * p.sk + j];
      double gradProb = 0;
      for (int64_t d = 0; d < p.dv; ++d) {
        gradProb += keep * dout[d] * p.v[j * p.dv + d];
        g.v[j * p.dv + d] += keep * prob * dout[d];
      }
      double gradScore =
          p.hidden[i * p.sk + j] ? 0.0 : prob * (gradProb - delta) * p.scale;
      for (int64_t d = 0; d < p.dk; ++d) {
        g.q[i * p.dk + d] += gradScore * p.k[j * p.dk + d];
        g.k[j * p.dk + d] += gradScore * p.q[i * p.dk + d];
      }
    }
  }
  return g;
}

double loss(const Pair &p, const std::vector<double> &gradOut) {
  std::vector<double> out = softmax(p).out;
  double sum = 0;
  for (size_t x = 0; x < out.size(); ++x)
    sum += out[x] * gradOut[x];
  return sum;
}

TEST(RuntimeAttentionBackward, ReferenceMatchesFiniteDifferences) {
  // A moderate fill leaves hidden keys some probability: their scores must
  // still pass nothing to q and k. Row 0 hides every key (uniform).
  AttentionCase bytes{1, 1, 3, 4, 3, 2, true, 1, true, -0.8};
  AttentionCase floats{1, 1, 3, 4, 3, 2, false, 2, true};
  // Dropout, its mask fixed: the loss stays a smooth function of q, k, v.
  AttentionCase dropped{1, 1, 5, 6, 3, 2, false, 2, true};
  dropped.dropout = 0.5f;
  AttentionCase droppedCausal = bytes;
  droppedCausal.dropout = 0.1f;
  droppedCausal.sq = droppedCausal.sk = 6;
  for (const AttentionCase &c : {bytes, floats, dropped, droppedCausal}) {
    SCOPED_TRACE(describe(c));
    std::mt19937 rng(5);
    Pair p = AttentionInputs(c, rng).pair(0, 0);
    std::vector<double> gradOut(c.sq * c.dv);
    for (double &x : gradOut)
      x = std::uniform_real_distribution<double>(-1, 1)(rng);
    Gradients g = backward(p, softmax(p), gradOut);
    const double step = 1e-5;
    for (auto [input, grad] :
         {std::pair(&Pair::q, &g.q), std::pair(&Pair::k, &g.k),
          std::pair(&Pair::v, &g.v)})
      for (size_t x = 0; x < grad->size(); ++x) {
        Pair plus = p, minus = p;
        (plus.*input)[x] += step;
        (minus.*input)[x] -= step;
        double slope =
            (loss(plus, gradOut) - loss(minus, gradOut)) / (2 * step);
        EXPECT_NEAR((*grad)[x], slope, 1e-8) << x;
      }
  }
}

/// A case run through both kernels.
struct KernelRun {
  AttentionInputs in;
  Tensor out, gradOut;
  std::vector<float> lse;
  std::array<Tensor, 3> grads; // q, k, v

  KernelRun(const AttentionCase &c, std::mt19937 &rng)
      : in(c, rng), out(makeTensor(c, c.sq, c.dv)),
        gradOut(makeTensor(c, c.sq, c.dv)), lse(c.batch * c.heads * c.sq),
        // NaN: whatever the kernel leaves unwritten fails the comparison.
        grads(makeQkv(c, std::numeric_limits<float>::quiet_NaN())) {
    fillRandom(gradOut, 1.0f, rng);
    runAttention(in, out, lse.data());
    const auto &[gq, gk, gv] = grads;
    tfrt_attention_backward_f32(
        c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, in.q.data, in.q.sb, in.q.sh,
        in.q.ss, in.k.data, in.k.sb, in.k.sh, in.k.ss, in.v.data, in.v.sb,
        in.v.sh, in.v.ss, in.mask(), c.maskKind, in.msb, 0, in.msq, 1, in.scale,
        c.causal, float(c.fill), out.data, out.sb, out.sh, out.ss, lse.data(),
        gradOut.data, gradOut.sb, gradOut.sh, gradOut.ss, gq.data, gq.sb, gq.sh,
        gq.ss, gk.data, gk.sb, gk.sh, gk.ss, gv.data, gv.sb, gv.sh, gv.ss,
        c.dropout, c.dropoutKey, c.dropoutStream);
  }
};

/// Whether rows [0, s) of width d of pair (b, h) of t are within tolerance ·
/// (the largest |want| of them, at least `floor`) of want, NaN where want
/// is.
::testing::AssertionResult near(const char *name, const Tensor &t, int64_t b,
                                int64_t h, int64_t s, int64_t d,
                                const std::vector<double> &want,
                                double tolerance, double floor) {
  double largest = floor;
  for (double x : want)
    largest = std::isnan(x) ? largest : std::max(largest, std::abs(x));
  for (int64_t i = 0; i < s; ++i)
    for (int64_t e = 0; e < d; ++e) {
      double expected = want[i * d + e], got = t.at(b, h, i, e);
      bool bothNan = std::isnan(expected) && std::isnan(got);
      if (!bothNan && !(std::abs(got - expected) <= tolerance * largest))
        return ::testing::AssertionFailure()
               << name << "(" << b << ", " << h << ", " << i << ", " << e
               << ") = " << got << ", expected " << expected << " within "
               << tolerance * largest;
    }
  return ::testing::AssertionSuccess();
}

void check(const AttentionCase &c, double floor = 1e-3) {
  const double tolerance = 1e-5;
  SCOPED_TRACE(describe(c));
  std::mt19937 rng(7);
  KernelRun run(c, rng);
  const auto &[gq, gk, gv] = run.grads;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h) {
      Pair p = run.in.pair(b, h);
      Softmax f = softmax(p);
      Gradients want = backward(p, f, dense(run.gradOut, b, h, c.sq, c.dv));
      for (int64_t i = 0; i < c.sq; ++i) {
        float got = run.lse[(b * c.heads + h) * c.sq + i];
        if (f.lse[i] == -kInf)
          ASSERT_EQ(got, -kInf) << "lse(" << b << ", " << h << ", " << i << ")";
        else
          ASSERT_NEAR(got, f.lse[i], 1e-5 * (1 + std::abs(f.lse[i])))
              << "lse(" << b << ", " << h << ", " << i << ")";
      }
      ASSERT_TRUE(
          near("out", run.out, b, h, c.sq, c.dv, f.out, tolerance, floor));
      ASSERT_TRUE(
          near("grad_q", gq, b, h, c.sq, c.dk, want.q, tolerance, floor));
      ASSERT_TRUE(
          near("grad_k", gk, b, h, c.sk, c.dk, want.k, tolerance, floor));
      ASSERT_TRUE(
          near("grad_v", gv, b, h, c.sk, c.dv, want.v, tolerance, floor));
    }
}

TEST(RuntimeAttentionBackward, Unmasked) {
  check({2, 3, 5, 7, 8, 8});
  check({1, 2, 33, 17, 16, 16});
}

TEST(RuntimeAttentionBackward, QueriesAndKeysDiffer) {
  check({1, 2, 7, 19, 24, 40}); // sq < sk, dk != dv
  check({1, 2, 21, 6, 20, 5});  // sq > sk, widths not multiples of 16
}

TEST(RuntimeAttentionBackward, Causal) {
  check({2, 2, 13, 13, 16, 16, true});
  check({2, 2, 13, 13, 16, 16, true, 0, false, -1e9});
  check({1, 2, 5, 11, 8, 8, true}); // row i sees keys 0..i only
}

TEST(RuntimeAttentionBackward, ByteMaskHidesKeys) {
  // Row 0 of batch 0 hides every key: uniform with a finite fill.
  check({2, 3, 6, 9, 8, 16, false, 1, false, -1e9});
  check({2, 1, 7, 9, 8, 8, false, 1, true, -1e9});
  check({2, 2, 7, 7, 8, 8, true, 1, true, -1e9});
  // A fill that leaves hidden keys some probability, which must not pass
  // gradients to q and k.
  check({2, 2, 7, 9, 8, 8, false, 1, true, -0.5});
}

TEST(RuntimeAttentionBackward, FullyHiddenRowGivesZeroGradients) {
  AttentionCase c{2, 3, 6, 9, 8, 16, false, 1, false, -kInf};
  check(c);
  std::mt19937 rng(7);
  KernelRun run(c, rng);
  EXPECT_EQ(run.lse[0], -kInf); // batch 0, head 0, row 0
  for (int64_t d = 0; d < c.dk; ++d)
    EXPECT_EQ(run.grads[0].at(0, 0, 0, d), 0.0f) << d;
  for (const Tensor &t : run.grads)
    for (float x : *t.storage)
      ASSERT_TRUE(std::isfinite(x));
}

TEST(RuntimeAttentionBackward, FloatMaskGetsAddedNotDifferentiated) {
  check({2, 2, 6, 10, 8, 8, false, 2, true});
  check({2, 2, 6, 6, 8, 8, true, 2, false, -1e9});
}

TEST(RuntimeAttentionBackward, LongSequencesFoldSeveralKeyBlocks) {
  check({1, 2, 9, 600, 16, 32});
  check({1, 1, 300, 300, 8, 8, true});
  check({1, 1, 70, 520, 16, 16, false, 1, true, -1e9});
}

TEST(RuntimeAttentionBackward, StridedLayouts) {
  AttentionCase inner{2, 4, 10, 12, 16, 16, true, 1, false, -1e9};
  inner.headsInner = true;
  check(inner);
  AttentionCase fused{2, 3, 11, 11, 16, 16, true};
  fused.headsInner = fused.fusedQkv = true;
  check(fused);
}

TEST(RuntimeAttentionBackward, LargeScoresStayFinite) {
  // Scores in the hundreds, then the thousands (where the backward
  // recomputes each row's maximum and sum rather than trust the lse): each
  // row's softmax is one-hot and the gradients of q and k vanish, but for
  // the float rounding of dout · v - D, which scales with the inputs.
  for (float magnitude : {30.0f, 60.0f}) {
    AttentionCase c{1, 2, 6, 40, 16, 16};
    c.magnitude = magnitude;
    check(c, c.magnitude);
  }
}

TEST(RuntimeAttentionBackward, NoKeysOrNoQueries) {
  // No keys: out is zero, lse -inf, and so are q's gradients.
  check({1, 2, 3, 0, 8, 8});
  // No queries: nothing reaches k and v.
  check({1, 2, 0, 5, 8, 8});
}

/// c with dropout at `rate`.
AttentionCase withDropout(AttentionCase c, float rate) {
  c.dropout = rate;
  return c;
}

TEST(RuntimeAttentionBackward, DropoutMatchesTheReference) {
  for (float rate : {0.1f, 0.5f}) {
    check(withDropout({2, 3, 5, 7, 8, 8}, rate));
    check(withDropout({1, 2, 21, 6, 20, 5}, rate));
    check(withDropout({2, 2, 7, 9, 8, 8, false, 1, true, -0.5}, rate));
    check(withDropout({2, 2, 6, 10, 8, 8, false, 2, true}, rate));
    // The mask's index runs on across blocks of keys and tiles of rows.
    check(withDropout({1, 2, 9, 600, 16, 32}, rate));
  }
}

TEST(RuntimeAttentionBackward, DropoutWithCausalMasking) {
  for (float rate : {0.1f, 0.5f}) {
    check(withDropout({2, 2, 13, 13, 16, 16, true}, rate));
    check(withDropout({2, 2, 13, 13, 16, 16, true, 0, false, -1e9}, rate));
    check(withDropout({1, 1, 300, 300, 8, 8, true}, rate));
  }
}

TEST(RuntimeAttentionBackward, DropoutInStridedLayouts) {
  // The mask is of the [b, h, sq, sk] probabilities whatever the layout.
  AttentionCase fused{2, 3, 11, 11, 16, 16, true};
  fused.headsInner = fused.fusedQkv = true;
  AttentionCase inner{2, 4, 10, 12, 16, 16, false, 1, false, -1e9};
  inner.headsInner = true;
  for (float rate : {0.1f, 0.5f}) {
    check(withDropout(fused, rate));
    check(withDropout(inner, rate));
  }
}

TEST(RuntimeAttentionBackward, DropoutOfEverythingGivesZeros) {
  AttentionCase c = withDropout({1, 2, 6, 9, 8, 8}, 1.0f);
  check(c);
  std::mt19937 rng(7);
  KernelRun run(c, rng);
  for (const Tensor &t : {run.out, run.grads[0], run.grads[1], run.grads[2]})
    for (float x : *t.storage)
      ASSERT_EQ(x, 0.0f);
}

/// The outputs of the kernels, bit for bit.
std::vector<std::vector<float>> results(const AttentionCase &c) {
  std::mt19937 rng(7);
  KernelRun run(c, rng);
  return {*run.out.storage, run.lse, *run.grads[0].storage,
          *run.grads[1].storage, *run.grads[2].storage};
}

TEST(RuntimeAttentionBackward, DropoutIsAFunctionOfKeyAndStream) {
  AttentionCase c = withDropout({2, 3, 13, 40, 16, 16, true}, 0.1f);
  std::vector<std::vector<float>> first = results(c);
  EXPECT_EQ(results(c), first);
  AttentionCase otherKey = c, otherStream = c, none = c;
  otherKey.dropoutKey ^= 1;
  otherStream.dropoutStream += 1;
  none.dropout = 0;
  for (const AttentionCase &other : {otherKey, otherStream, none}) {
    SCOPED_TRACE(describe(other));
    std::vector<std::vector<float>> second = results(other);
    EXPECT_EQ(second[1], first[1]); // lse is before dropout
    EXPECT_NE(second[0], first[0]);
    EXPECT_NE(second[2], first[2]);
  }
}

} // namespace
