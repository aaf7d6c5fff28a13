//===- AttentionTest.cpp - The CUDA attention against the CPU kernels -----===//
//
// tfrt_cuda_attention{,_stats,_backward}_f32 and kernels/attention_*.cu,
// emulated, against the CPU runtime's kernels (tfrt_attention_stats_f32,
// tfrt_attention_backward_f32), which test/Unit checks against a
// double-precision reference, on the same random inputs
// (test/Unit/AttentionTesting.h). Sequence lengths end inside tiles; head
// widths fall in each of the kernels' buckets (32, 64, 128, 256).
//===----------------------------------------------------------------------===//
#include "AttentionTesting.h"
#include "CudaEntryPoints.h"
#include "DeviceTesting.h"
#include "Grid.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

namespace {

using namespace transfuse::emu;
using namespace transfuse::test;

/// What the forward and the backward write, NaN until they do.
struct Results {
  explicit Results(const AttentionCase &c)
      : out(makeTensor(c, c.sq, c.dv, NAN)),
        lse(unwritten(c.batch * c.heads * c.sq)), grads(makeQkv(c, NAN)) {}

  Tensor out;
  std::vector<float> lse;
  std::array<Tensor, 3> grads;
};

Results cpuAttention(const AttentionInputs &in, const Tensor &gradOut) {
  // One thread: the CPU kernels' own results then never vary, and their
  // threads leave the emulation's alone.
  tf_set_num_threads(1);
  const AttentionCase &c = in.c;
  Results r(c);
  const auto &[gq, gk, gv] = r.grads;
  tfrt_attention_stats_f32(
      c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, in.q.data, in.q.sb, in.q.sh,
      in.q.ss, in.k.data, in.k.sb, in.k.sh, in.k.ss, in.v.data, in.v.sb,
      in.v.sh, in.v.ss, in.mask(), c.maskKind, in.msb, 0, in.msq, 1, in.scale,
      c.causal, float(c.fill), r.out.data, r.out.sb, r.out.sh, r.out.ss,
      r.lse.data(), c.dropout, c.dropoutKey, c.dropoutStream);
  tfrt_attention_backward_f32(
      c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, in.q.data, in.q.sb, in.q.sh,
      in.q.ss, in.k.data, in.k.sb, in.k.sh, in.k.ss, in.v.data, in.v.sb,
      in.v.sh, in.v.ss, in.mask(), c.maskKind, in.msb, 0, in.msq, 1, in.scale,
      c.causal, float(c.fill), r.out.data, r.out.sb, r.out.sh, r.out.ss,
      r.lse.data(), gradOut.data, gradOut.sb, gradOut.sh, gradOut.ss, gq.data,
      gq.sb, gq.sh, gq.ss, gk.data, gk.sb, gk.sh, gk.ss, gv.data, gv.sb, gv.sh,
      gv.ss, c.dropout, c.dropoutKey, c.dropoutStream);
  return r;
}

Results cudaAttention(const AttentionInputs &in, const Tensor &gradOut) {
  const AttentionCase &c = in.c;
  Results r(c);
  const auto &[gq, gk, gv] = r.grads;
  // The key lives in device memory; without dropout it may be missing.
  uint64_t key = c.dropoutKey;
  const uint64_t *dropoutKey = c.dropout > 0 ? &key : nullptr;
  std::vector<float> scratch = unwritten(c.batch * c.heads * c.sq);
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_attention_stats_f32(
                  c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, in.q.data, in.q.sb,
                  in.q.sh, in.q.ss, in.k.data, in.k.sb, in.k.sh, in.k.ss,
                  in.v.data, in.v.sb, in.v.sh, in.v.ss, in.mask(), c.maskKind,
                  in.msb, 0, in.msq, 1, in.scale, c.causal, float(c.fill),
                  r.out.data, r.out.sb, r.out.sh, r.out.ss, r.lse.data(),
                  c.dropout, dropoutKey, c.dropoutStream);
              tfrt_cuda_attention_backward_f32(
                  c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, in.q.data, in.q.sb,
                  in.q.sh, in.q.ss, in.k.data, in.k.sb, in.k.sh, in.k.ss,
                  in.v.data, in.v.sb, in.v.sh, in.v.ss, in.mask(), c.maskKind,
                  in.msb, 0, in.msq, 1, in.scale, c.causal, float(c.fill),
                  r.out.data, r.out.sb, r.out.sh, r.out.ss, r.lse.data(),
                  gradOut.data, gradOut.sb, gradOut.sh, gradOut.ss, gq.data,
                  gq.sb, gq.sh, gq.ss, gk.data, gk.sb, gk.sh, gk.ss, gv.data,
                  gv.sb, gv.sh, gv.ss, c.dropout, dropoutKey, c.dropoutStream,
                  scratch.data());
            }),
            "");
  return r;
}

/// Whether rows [0, s) of width d of `got` lie within tolerance · the
/// largest |want| (at least `floor`) of `want`, NaN where it is NaN.
::testing::AssertionResult close(const char *what, const AttentionCase &c,
                                 const Tensor &got, const Tensor &want,
                                 int64_t s, int64_t d, double tolerance,
                                 double floor) {
  double largest = floor;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < s; ++i)
        for (int64_t e = 0; e < d; ++e)
          if (std::isfinite(want.at(b, h, i, e)))
            largest = std::max(largest, double(std::abs(want.at(b, h, i, e))));
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < s; ++i)
        for (int64_t e = 0; e < d; ++e) {
          float g = got.at(b, h, i, e), w = want.at(b, h, i, e);
          bool matches = std::isnan(w) ? std::isnan(g)
                                       : std::abs(g - w) <= tolerance * largest;
          if (!matches)
            return ::testing::AssertionFailure()
                   << what << "(" << b << ", " << h << ", " << i << ", " << e
                   << ") = " << g << ", CPU " << w << ", largest " << largest;
        }
  return ::testing::AssertionSuccess();
}

/// The CUDA forward and backward against the CPU's on random inputs of
/// `c`; `floor` bounds the scale the tolerance is relative to from below.
/// Where a gradient vanishes (every row sees a single key, so the softmax
/// is constant), the CPU's is what is left of differences of terms of order
/// 1 (dO·v against rowsum(dO∘O)), summed over up to 65 rows; how they round
/// differs with the CPU's vector width (up to 3e-7 with AVX-512). The floor
/// keeps such noise within the tolerance.
void compare(const AttentionCase &c, double tolerance = 2e-5,
             double floor = 0.1) {
  SCOPED_TRACE(describe(c));
  std::mt19937 generator(11);
  AttentionInputs in(c, generator);
  Tensor gradOut = makeTensor(c, c.sq, c.dv);
  fillRandom(gradOut, 1.0f, generator);
  Results cpu = cpuAttention(in, gradOut);
  Results gpu = cudaAttention(in, gradOut);
  for (size_t row = 0; row < cpu.lse.size(); ++row) {
    float w = cpu.lse[row], g = gpu.lse[row];
    if (std::isfinite(w))
      EXPECT_NEAR(g, w, 2e-6 * (1 + std::abs(w))) << "lse " << row;
    else
      EXPECT_TRUE(g == w || (std::isnan(g) && std::isnan(w)))
          << "lse " << row << " = " << g << ", CPU " << w;
  }
  EXPECT_TRUE(close("out", c, gpu.out, cpu.out, c.sq, c.dv, tolerance, floor));
  EXPECT_TRUE(close("grad_q", c, gpu.grads[0], cpu.grads[0], c.sq, c.dk,
                    tolerance, floor));
  EXPECT_TRUE(close("grad_k", c, gpu.grads[1], cpu.grads[1], c.sk, c.dk,
                    tolerance, floor));
  EXPECT_TRUE(close("grad_v", c, gpu.grads[2], cpu.grads[2], c.sk, c.dv,
                    tolerance, floor));
}

AttentionCase withDropout(AttentionCase c, float rate) {
  c.dropout = rate;
  return c;
}

TEST(CudaAttention, HeadWidthsOfEveryBucket) {
  compare({1, 2, 70, 90, 16, 16});
  compare({1, 2, 40, 70, 64, 64});
  compare({1, 1, 40, 33, 100, 100});
  compare({1, 1, 33, 17, 256, 256});
  // Unequal widths take the bucket of the wider.
  compare({1, 1, 21, 40, 20, 130});
  compare({1, 2, 9, 12, 33, 7});
  compare({1, 1, 9, 12, 1, 1});
}

TEST(CudaAttention, SequencesEndingAtAndAroundTileEdges) {
  for (int64_t sq : {1, 64, 65})
    for (int64_t sk : {1, 63, 64, 65})
      compare({1, 1, sq, sk, 16, 16, sq == 65});
}

TEST(CudaAttention, Masks) {
  // Byte and float masks, broadcast over heads and, unless per row, over
  // queries; row 0 of batch 0 hides every key (AttentionTesting.h).
  compare({2, 2, 40, 70, 32, 48, false, 1, false, -1e9});
  compare({2, 2, 40, 70, 32, 48, false, 1, true, -kInf});
  compare({2, 2, 40, 70, 32, 48, false, 2, false});
  compare({2, 2, 40, 70, 32, 32, false, 2, true});
  compare({1, 2, 40, 70, 128, 128, true, 1, true, -1e9});
}

TEST(CudaAttention, Causal) {
  // With -inf the kernels skip the keys every row of a tile hides.
  compare({1, 2, 70, 70, 32, 32, true});
  compare({1, 2, 50, 90, 32, 32, true});
  compare({1, 2, 90, 50, 32, 32, true});
  compare({1, 2, 70, 70, 32, 32, true, 0, false, -1e9});
  compare({1, 1, 40, 40, 256, 256, true, 2, true, -0.5});
}

TEST(CudaAttention, Dropout) {
  for (float rate : {0.1f, 1.0f}) {
    compare(withDropout({1, 2, 70, 90, 64, 64}, rate));
    compare(withDropout({1, 2, 70, 70, 32, 32, true}, rate));
    compare(withDropout({1, 1, 40, 70, 200, 100, false, 1, true, -1e9}, rate));
  }
}

TEST(CudaAttention, StridedLayouts) {
  AttentionCase headsInner{2, 3, 40, 50, 64, 64, true, 1, false, -1e9};
  headsInner.headsInner = true;
  compare(headsInner);
  AttentionCase fused{2, 2, 41, 41, 32, 32, true};
  fused.headsInner = fused.fusedQkv = true;
  compare(withDropout(fused, 0.2f));
}

TEST(CudaAttention, LargeScoresTakeTheResidualOfCoarseRows) {
  // Scores in the thousands: |lse| >= 1024 makes rows coarse.
  AttentionCase c{1, 2, 20, 70, 64, 64};
  c.magnitude = 60;
  compare(c, 1e-4, c.magnitude);
}

TEST(CudaAttention, EmptySizes) {
  // No keys: out is 0 and lse -inf; no queries: dk and dv are 0.
  compare({1, 2, 3, 0, 8, 8});
  compare({1, 2, 0, 5, 8, 8});
  compare({2, 0, 3, 5, 8, 8});
  // No batch (which AttentionInputs cannot make): nothing to touch.
  EXPECT_EQ(runOnDevice([] {
              tfrt_cuda_attention_stats_f32(
                  0, 2, 3, 5, 8, 8, nullptr, 0, 0, 8, nullptr, 0, 0, 8, nullptr,
                  0, 0, 8, nullptr, 0, 0, 0, 0, 1, 1.0f, 0, -INFINITY, nullptr,
                  0, 0, 8, nullptr, 0.0f, nullptr, 0);
              tfrt_cuda_attention_backward_f32(
                  0, 2, 3, 5, 8, 8, nullptr, 0, 0, 8, nullptr, 0, 0, 8, nullptr,
                  0, 0, 8, nullptr, 0, 0, 0, 0, 1, 1.0f, 0, -INFINITY, nullptr,
                  0, 0, 8, nullptr, nullptr, 0, 0, 8, nullptr, 0, 0, 8, nullptr,
                  0, 0, 8, nullptr, 0, 0, 8, 0.0f, nullptr, 0, nullptr);
            }),
            "");
}

TEST(CudaAttention, ForwardWithoutStatisticsWritesTheSameOut) {
  AttentionCase c{1, 2, 40, 70, 64, 64, true, 1, true, -1e9};
  std::mt19937 generator(12);
  AttentionInputs in(c, generator);
  Results r = cudaAttention(in, makeTensor(c, c.sq, c.dv));
  Tensor out = makeTensor(c, c.sq, c.dv, NAN);
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_attention_f32(
                  c.batch, c.heads, c.sq, c.sk, c.dk, c.dv, in.q.data, in.q.sb,
                  in.q.sh, in.q.ss, in.k.data, in.k.sb, in.k.sh, in.k.ss,
                  in.v.data, in.v.sb, in.v.sh, in.v.ss, in.mask(), c.maskKind,
                  in.msb, 0, in.msq, 1, in.scale, c.causal, float(c.fill),
                  out.data, out.sb, out.sh, out.ss);
            }),
            "");
  EXPECT_TRUE(sameBits(*out.storage, *r.out.storage));
}

TEST(CudaAttention, BlockOrderChangesNoBit) {
  AttentionCase c = withDropout({2, 2, 70, 70, 32, 32, true, 1, true}, 0.1f);
  std::mt19937 generator(13);
  AttentionInputs in(c, generator);
  Tensor gradOut = makeTensor(c, c.sq, c.dv);
  fillRandom(gradOut, 1.0f, generator);
  Results ascending = cudaAttention(in, gradOut);
  ShuffledBlocks shuffled;
  Results again = cudaAttention(in, gradOut);
  EXPECT_TRUE(sameBits(*again.out.storage, *ascending.out.storage));
  EXPECT_TRUE(sameBits(again.lse, ascending.lse));
  for (int g = 0; g < 3; ++g)
    EXPECT_TRUE(sameBits(*again.grads[g].storage, *ascending.grads[g].storage));
}

TEST(CudaAttention, RejectsBadArguments) {
  float x[64] = {};
  uint64_t key = 1;
  auto stats = [&](int64_t batch, int64_t dk, int32_t maskKind,
                   const void *mask, float dropout,
                   const uint64_t *dropoutKey) {
    return runOnDevice([&] {
      tfrt_cuda_attention_stats_f32(batch, 1, 1, 1, dk, 8, x, 0, 0, 8, x, 0, 0,
                                    8, x, 0, 0, 8, mask, maskKind, 0, 0, 0, 1,
                                    1.0f, 0, -INFINITY, x, 0, 0, 8, x, dropout,
                                    dropoutKey, 0);
    });
  };
  const std::string name = "tfrt_cuda_attention_stats_f32: ";
  EXPECT_EQ(stats(-1, 8, 0, nullptr, 0, nullptr),
            name + "batch must not be negative, got -1");
  EXPECT_EQ(stats(1, 300, 0, nullptr, 0, nullptr),
            name + "head widths dk = 300, dv = 8: the CUDA attention kernels "
                   "take up to 256");
  EXPECT_EQ(stats(1, 8, 3, x, 0, nullptr),
            name +
                "mask_kind must be 0 (none), 1 (bytes) or 2 (floats), got 3");
  EXPECT_EQ(stats(1, 8, 1, nullptr, 0, nullptr),
            name + "mask_kind 1 without a mask");
  EXPECT_EQ(stats(1, 8, 0, nullptr, 1.5f, &key),
            name + "dropout must lie in [0, 1], got 1.500000");
  EXPECT_EQ(stats(1, 8, 0, nullptr, 0.5f, nullptr),
            name + "dropout 0.500000 without a dropout key");
}

} // namespace
