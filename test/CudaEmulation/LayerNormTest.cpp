//===- LayerNormTest.cpp - The CUDA layer norm against a reference --------===//
//
// tfrt_cuda_layer_norm{,_grad}_f32 and kernels/layer_norm.cu, emulated,
// against a double-precision layer norm and its gradient written from the
// definitions of each form (torch.nn.LayerNorm's biased variance, the
// unbiased std plus epsilon, RMSNorm). The widths give each block size
// rowThreads picks, from 32 threads with most idle to 512 with several
// elements each.
//===----------------------------------------------------------------------===//
#include "CudaEntryPoints.h"
#include "DeviceTesting.h"
#include "Grid.h"
#include "shared/LayerNormMath.h"
#include "shared/RowBlocks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

using namespace transfuse::emu;
using transfuse::rt::kColumnLanes;
using transfuse::rt::kColumnTile;
using transfuse::rt::kNormEpsilonOnStd;
using transfuse::rt::kNormMeanSquare;
using transfuse::rt::kNormUnbiasedVariance;
using transfuse::rt::kNormVariance;

constexpr float kEpsilon = 1e-5f;

struct Rows {
  int64_t rows, cols;
};

/// The normalised operand x (+ residual) of each row, in double.
std::vector<double> operand(const std::vector<float> &x,
                            const std::vector<float> *residual) {
  std::vector<double> sum(x.begin(), x.end());
  if (residual)
    for (size_t i = 0; i < sum.size(); ++i)
      sum[i] += (*residual)[i];
  return sum;
}

/// xhat of every element; each row's scale s, and the divisor D of
/// Σ(g · xhat) in grad_input (nn.layer_norm_grad).
struct Normalised {
  std::vector<double> xhat, scale, xhatDivisor;
};

/// In `form` (the runtime's encoding): the mean (none for the mean
/// square), var = Σ(x - mean)² / M, s = 1 / sqrt(var + ε) or 1 / (sqrt(var)
/// + ε).
Normalised normalise(Rows shape, const std::vector<double> &x,
                     int32_t form = kNormVariance) {
  int32_t statistic = form & ~kNormEpsilonOnStd;
  bool onStd = form & kNormEpsilonOnStd;
  double divisor =
      statistic == kNormUnbiasedVariance ? shape.cols - 1 : shape.cols;
  Normalised n{std::vector<double>(x.size()), std::vector<double>(shape.rows),
               std::vector<double>(shape.rows)};
  for (int64_t r = 0; r < shape.rows; ++r) {
    const double *row = x.data() + r * shape.cols;
    double mean = 0, squares = 0;
    if (statistic != kNormMeanSquare)
      for (int64_t c = 0; c < shape.cols; ++c)
        mean += row[c] / shape.cols;
    for (int64_t c = 0; c < shape.cols; ++c)
      squares += (row[c] - mean) * (row[c] - mean);
    double std = std::sqrt(squares / divisor);
    n.scale[r] = onStd ? 1 / (std + kEpsilon)
                       : 1 / std::sqrt(squares / divisor + kEpsilon);
    n.xhatDivisor[r] = onStd ? divisor * std * n.scale[r] : divisor;
    for (int64_t c = 0; c < shape.cols; ++c)
      n.xhat[r * shape.cols + c] = (row[c] - mean) * n.scale[r];
  }
  return n;
}

/// xhat · gamma + beta; no beta when `beta` is empty.
std::vector<double> referenceOutput(Rows shape, const Normalised &n,
                                    const std::vector<float> &gamma,
                                    const std::vector<float> &beta) {
  std::vector<double> out(n.xhat.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = n.xhat[i] * gamma[i % shape.cols] +
             (beta.empty() ? 0.0 : beta[i % shape.cols]);
  return out;
}

struct Gradients {
  std::vector<double> input, gamma, beta;
};

/// grad_input = s · (g - mean(g) - xhat · Σ(g · xhat) / D), mean(g) only
/// for a centred form, and the column sums.
Gradients referenceGradients(Rows shape, const Normalised &n,
                             const std::vector<float> &gamma,
                             const std::vector<float> &grad,
                             int32_t form = kNormVariance) {
  bool centred = (form & ~kNormEpsilonOnStd) != kNormMeanSquare;
  Gradients g{std::vector<double>(n.xhat.size()),
              std::vector<double>(shape.cols), std::vector<double>(shape.cols)};
  for (int64_t r = 0; r < shape.rows; ++r) {
    double meanG = 0, sumGXhat = 0;
    for (int64_t c = 0; c < shape.cols; ++c) {
      int64_t i = r * shape.cols + c;
      if (centred)
        meanG += double(grad[i]) * gamma[c] / shape.cols;
      sumGXhat += double(grad[i]) * gamma[c] * n.xhat[i];
      g.gamma[c] += grad[i] * n.xhat[i];
      g.beta[c] += grad[i];
    }
    for (int64_t c = 0; c < shape.cols; ++c) {
      int64_t i = r * shape.cols + c;
      g.input[i] = n.scale[r] * (double(grad[i]) * gamma[c] - meanG -
                                 n.xhat[i] * sumGXhat / n.xhatDivisor[r]);
    }
  }
  return g;
}

/// Random inputs of a layer norm; x is off-centre, so that the variance
/// is of centred values.
struct Inputs {
  explicit Inputs(Rows shape)
      : shape(shape), x(uniformFloats(shape.rows * shape.cols, 1, 5, 1)),
        residual(uniformFloats(x.size(), -1, 1, 2)),
        gamma(uniformFloats(shape.cols, 0.5f, 1.5f, 3)),
        beta(uniformFloats(shape.cols, -0.5f, 0.5f, 4)),
        grad(uniformFloats(x.size(), -1, 1, 5)) {}

  Rows shape;
  std::vector<float> x, residual, gamma, beta, grad;
};

std::vector<float> forward(const Inputs &in, bool withResidual,
                           int32_t form = kNormVariance, bool withBeta = true) {
  std::vector<float> out = unwritten(in.x.size());
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_layer_norm_f32(
                  in.shape.rows, in.shape.cols, in.x.data(),
                  withResidual ? in.residual.data() : nullptr, in.gamma.data(),
                  withBeta ? in.beta.data() : nullptr, kEpsilon, form,
                  out.data());
            }),
            "");
  return out;
}

struct GradientsF32 {
  std::vector<float> input, gamma, beta;
};

GradientsF32 backward(const Inputs &in, int64_t rowChunk,
                      int32_t form = kNormVariance) {
  const Rows &s = in.shape;
  int64_t chunks = s.rows == 0 ? 0 : (s.rows - 1) / rowChunk + 1;
  GradientsF32 g{unwritten(in.x.size()), unwritten(s.cols), unwritten(s.cols)};
  std::vector<float> partials = unwritten(2 * chunks * s.cols);
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_layer_norm_grad_f32(
                  s.rows, s.cols, in.grad.data(), in.x.data(), in.gamma.data(),
                  kEpsilon, form, g.input.data(), g.gamma.data(), g.beta.data(),
                  partials.data(), rowChunk);
            }),
            "");
  return g;
}

TEST(CudaLayerNorm, ForwardMatchesReference) {
  for (int64_t cols : {1, 33, 130, 700, 2100})
    for (bool withResidual : {false, true}) {
      SCOPED_TRACE("cols " + std::to_string(cols) +
                   (withResidual ? " with residual" : ""));
      Inputs in({3, cols});
      Normalised n = normalise(
          in.shape, operand(in.x, withResidual ? &in.residual : nullptr));
      EXPECT_TRUE(near("out", forward(in, withResidual),
                       referenceOutput(in.shape, n, in.gamma, in.beta), 3e-6));
    }
}

TEST(CudaLayerNorm, BackwardMatchesReference) {
  for (int64_t rows : {1, 7})
    for (int64_t cols : {1, 33, 700})
      for (int64_t rowChunk :
           {int64_t(1), int64_t(3), std::numeric_limits<int64_t>::max()}) {
        SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) +
                     ", row_chunk " + std::to_string(rowChunk));
        Inputs in({rows, cols});
        Normalised n = normalise(in.shape, operand(in.x, nullptr));
        Gradients want = referenceGradients(in.shape, n, in.gamma, in.grad);
        GradientsF32 got = backward(in, rowChunk);
        EXPECT_TRUE(near("grad_input", got.input, want.input, 2e-5));
        EXPECT_TRUE(near("grad_gamma", got.gamma, want.gamma, 2e-5));
        EXPECT_TRUE(near("grad_beta", got.beta, want.beta, 2e-5));
      }
}

// The other forms: the Annotated Transformer's (unbiased std plus ε),
// RMSNorm with and without beta, and the two remaining combinations.
TEST(CudaLayerNorm, FormsMatchReference) {
  struct Form {
    const char *name;
    int32_t bits;
    bool withBeta;
  };
  for (Form form :
       {Form{"unbiased std + eps", kNormUnbiasedVariance | kNormEpsilonOnStd,
             true},
        Form{"rms", kNormMeanSquare, false},
        Form{"rms with beta", kNormMeanSquare, true},
        Form{"biased std + eps", kNormVariance | kNormEpsilonOnStd, true},
        Form{"unbiased variance", kNormUnbiasedVariance, true}})
    for (int64_t cols : {2, 130}) {
      SCOPED_TRACE(std::string(form.name) + ", cols " + std::to_string(cols));
      Inputs in({3, cols});
      Normalised n =
          normalise(in.shape, operand(in.x, &in.residual), form.bits);
      std::vector<float> noBeta;
      EXPECT_TRUE(near("out", forward(in, true, form.bits, form.withBeta),
                       referenceOutput(in.shape, n, in.gamma,
                                       form.withBeta ? in.beta : noBeta),
                       3e-6));
      Normalised plain = normalise(in.shape, operand(in.x, nullptr), form.bits);
      Gradients want =
          referenceGradients(in.shape, plain, in.gamma, in.grad, form.bits);
      GradientsF32 got = backward(in, 2, form.bits);
      EXPECT_TRUE(near("grad_input", got.input, want.input, 2e-5));
      EXPECT_TRUE(near("grad_gamma", got.gamma, want.gamma, 2e-5));
      EXPECT_TRUE(near("grad_beta", got.beta, want.beta, 2e-5));
    }
}

// 100 chunks give each of a column's kColumnLanes threads several to add,
// and 70 columns make three tiles, the last one partly past the end.
TEST(CudaLayerNorm, ColumnSumsOfManyChunks) {
  for (int64_t rowChunk : {1, 3}) {
    SCOPED_TRACE("row_chunk " + std::to_string(rowChunk));
    Inputs in({100, 70});
    Normalised n = normalise(in.shape, operand(in.x, nullptr));
    Gradients want = referenceGradients(in.shape, n, in.gamma, in.grad);
    GradientsF32 got = backward(in, rowChunk);
    EXPECT_TRUE(near("grad_gamma", got.gamma, want.gamma, 2e-5));
    EXPECT_TRUE(near("grad_beta", got.beta, want.beta, 2e-5));
  }
}

TEST(CudaLayerNorm, NoRowsGiveZeroColumnSums) {
  Inputs in({0, 40});
  GradientsF32 got = backward(in, 4);
  EXPECT_TRUE(near("grad_gamma", got.gamma, std::vector<double>(40), 0));
  EXPECT_TRUE(near("grad_beta", got.beta, std::vector<double>(40), 0));
  // Nothing to normalise: nothing is launched or written.
  Inputs none({5, 0});
  EXPECT_TRUE(forward(none, true).empty());
}

// The launchers give every row (chunk) a block, up to 65535 of them: grids
// smaller than that, where each block strides over rows, are launched
// directly.
TEST(CudaLayerNorm, BlocksStrideOverTheRows) {
  Inputs in({37, 45});
  const Rows &s = in.shape;
  Normalised n = normalise(s, operand(in.x, nullptr));
  Gradients want = referenceGradients(s, n, in.gamma, in.grad);
  int64_t rowChunk = 4, chunks = 10;
  std::vector<float> out = unwritten(in.x.size()),
                     gradInput = unwritten(in.x.size()),
                     gradGamma = unwritten(s.cols),
                     gradBeta = unwritten(s.cols),
                     partials = unwritten(2 * chunks * s.cols);
  EXPECT_EQ(launchKernel("tf_layer_norm", {3}, {64}, 0, s.rows, s.cols,
                         in.x.data(), static_cast<const float *>(nullptr),
                         in.gamma.data(), in.beta.data(), kEpsilon,
                         int32_t(kNormVariance), out.data()),
            "");
  EXPECT_EQ(launchKernel("tf_layer_norm_grad_chunks", {3}, {32}, 0, s.rows,
                         s.cols, in.grad.data(), in.x.data(), in.gamma.data(),
                         kEpsilon, int32_t(kNormVariance), rowChunk,
                         gradInput.data(), partials.data()),
            "");
  // One block for both tiles of 32 columns.
  EXPECT_EQ(launchKernel("tf_layer_norm_grad_columns", {1, 2},
                         {kColumnTile, kColumnLanes}, 0, s.cols, chunks,
                         static_cast<const float *>(partials.data()),
                         gradGamma.data(), gradBeta.data()),
            "");
  EXPECT_TRUE(near("out", out, referenceOutput(s, n, in.gamma, in.beta), 3e-6));
  EXPECT_TRUE(near("grad_input", gradInput, want.input, 2e-5));
  EXPECT_TRUE(near("grad_gamma", gradGamma, want.gamma, 2e-5));
  EXPECT_TRUE(near("grad_beta", gradBeta, want.beta, 2e-5));
}

TEST(CudaLayerNorm, BlockOrderChangesNoBit) {
  Inputs in({9, 70});
  std::vector<float> out = forward(in, true);
  GradientsF32 g = backward(in, 2);
  ShuffledBlocks shuffled;
  EXPECT_TRUE(sameBits(forward(in, true), out));
  GradientsF32 again = backward(in, 2);
  EXPECT_TRUE(sameBits(again.input, g.input));
  EXPECT_TRUE(sameBits(again.gamma, g.gamma));
  EXPECT_TRUE(sameBits(again.beta, g.beta));
}

TEST(CudaLayerNorm, RejectsBadArguments) {
  float f = 0;
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_layer_norm_f32(-1, 3, &f, nullptr, &f, &f, kEpsilon,
                                       kNormVariance, &f);
            }),
            "tfrt_cuda_layer_norm_f32: rows must not be negative, got -1");
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_layer_norm_f32(1, 3, &f, nullptr, &f, &f, kEpsilon, 3,
                                       &f);
            }),
            "tfrt_cuda_layer_norm_f32: form 3 is not a layer norm form");
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_layer_norm_grad_f32(1, 1, &f, &f, &f, kEpsilon,
                                            kNormVariance, &f, &f, &f, &f, 0);
            }),
            "tfrt_cuda_layer_norm_grad_f32: row_chunk must be at least 1, "
            "got 0");
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_layer_norm_grad_f32(1, 1, &f, &f, &f, kEpsilon,
                                            kNormUnbiasedVariance, &f, &f, &f,
                                            &f, 1);
            }),
            "tfrt_cuda_layer_norm_grad_f32: an unbiased variance needs rows "
            "of at least 2 elements, got 1");
}

} // namespace
