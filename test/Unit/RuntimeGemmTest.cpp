//===- RuntimeGemmTest.cpp - tfrt_matmul_f32 against a naive reference ---===//
#include "RuntimeTesting.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace {

struct GemmCase {
  int64_t batch, m, n, k;
  bool transA, transB;
  int64_t strideA, strideB, strideC; // -1: dense (the matrix size)
  bool bias;
  int32_t activation;
};

double activate(double x, int32_t activation) {
  switch (activation) {
  case 1:
    return std::max(x, 0.0);
  case 2:
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  case 3:
    return 0.5 * x *
           (1.0 +
            std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  default:
    return x;
  }
}

std::string describe(const GemmCase &c) {
  return "batch " + std::to_string(c.batch) + " m " + std::to_string(c.m) +
         " n " + std::to_string(c.n) + " k " + std::to_string(c.k) +
         " trans_a " + std::to_string(c.transA) + " trans_b " +
         std::to_string(c.transB) + " strides " + std::to_string(c.strideA) +
         "/" + std::to_string(c.strideB) + "/" + std::to_string(c.strideC) +
         " bias " + std::to_string(c.bias) + " activation " +
         std::to_string(c.activation);
}

void check(GemmCase c) {
  SCOPED_TRACE(describe(c));
  int64_t sizeA = c.m * c.k, sizeB = c.k * c.n, sizeC = c.m * c.n;
  if (c.strideA < 0)
    c.strideA = sizeA;
  if (c.strideB < 0)
    c.strideB = sizeB;
  if (c.strideC < 0)
    c.strideC = sizeC;
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](int64_t n) {
    std::vector<float> v(std::max<int64_t>(n, 1));
    for (float &x : v)
      x = dist(rng);
    return v;
  };
  std::vector<float> a = fill((c.batch - 1) * c.strideA + sizeA);
  std::vector<float> b = fill((c.batch - 1) * c.strideB + sizeB);
  std::vector<float> bias = fill(c.n);
  std::vector<float> out((c.batch - 1) * c.strideC + sizeC, 123.0f);

  tfrt_matmul_f32(c.batch, c.m, c.n, c.k, a.data(), c.strideA, b.data(),
                  c.strideB, c.transA, c.transB, c.bias ? bias.data() : nullptr,
                  c.activation, out.data(), c.strideC);

  for (int64_t e = 0; e < c.batch; ++e) {
    const float *ae = a.data() + e * c.strideA;
    const float *be = b.data() + e * c.strideB;
    const float *ce = out.data() + e * c.strideC;
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = c.bias ? bias[j] : 0.0;
        for (int64_t p = 0; p < c.k; ++p)
          sum += double(c.transA ? ae[p * c.m + i] : ae[i * c.k + p]) *
                 double(c.transB ? be[j * c.k + p] : be[p * c.n + j]);
        double expected = activate(sum, c.activation);
        ASSERT_NEAR(ce[i * c.n + j], expected, 2e-5 * (1 + std::fabs(expected)))
            << "entry " << e << " at (" << i << ", " << j << ")";
      }
  }
}

/// Both operands plain, then each transposed, then both.
constexpr bool kTransposes[][2] = {
    {false, false}, {false, true}, {true, false}, {true, true}};

TEST(RuntimeGemm, PlainAndTransposed) {
  for (auto [transA, transB] : kTransposes) {
    check({1, 5, 7, 3, transA, transB, -1, -1, -1, false, 0});
    check({1, 33, 65, 129, transA, transB, -1, -1, -1, false, 0});
  }
}

TEST(RuntimeGemm, Batched) {
  for (auto [transA, transB] : kTransposes)
    check({4, 6, 5, 7, transA, transB, -1, -1, -1, false, 0});
}

TEST(RuntimeGemm, BatchStridesIncludingBroadcast) {
  for (auto [transA, transB] : kTransposes) {
    // B shared by every entry (a weight), then A shared.
    check({3, 4, 6, 5, transA, transB, -1, 0, -1, true, 0});
    check({3, 4, 6, 5, transA, transB, 0, -1, -1, false, 0});
    // Padded strides: entries further apart than their size.
    check({3, 4, 6, 5, transA, transB, 4 * 5 + 7, 6 * 5 + 3, 4 * 6 + 11, true,
           1});
  }
}

TEST(RuntimeGemm, BiasAndEachActivation) {
  for (int32_t activation : {0, 1, 2, 3})
    for (bool bias : {false, true})
      for (auto [transA, transB] : kTransposes)
        check({2, 9, 17, 8, transA, transB, -1, -1, -1, bias, activation});
}

TEST(RuntimeGemm, EmptyReductionGivesTheEpilogueOfZero) {
  check({2, 3, 4, 0, false, false, -1, -1, -1, true, 2});
  check({2, 3, 4, 0, true, true, -1, -1, -1, false, 0});
}

TEST(RuntimeGemm, OutputsOfSeveralTiles) {
  // Rows and columns past one tile (1024 x 1024) and not a multiple of the
  // tile alignment: every tile, the ragged last ones included, gets its
  // rows of A (its columns, when A is transposed), its columns of B and of
  // the bias.
  for (auto [transA, transB] : kTransposes)
    check(
        {2, 1100, 1100, 24, transA, transB, -1, -1, 1100 * 1100 + 5, true, 1});
}

/// tfrt_matmul_f32 of m x n (batch 2, k 96, bias, erf-GELU) on 1, 2 and 3
/// threads: the same bits.
void expectThreadCountIndependent(int64_t m, int64_t n) {
  const int64_t batch = 2, k = 96;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(batch * m * k), b(batch * k * n), bias(n);
  for (std::vector<float> *v : {&a, &b, &bias})
    for (float &x : *v)
      x = dist(rng);
  for (auto [transA, transB] : kTransposes) {
    std::vector<float> single;
    for (int32_t threads : {1, 2, 3}) {
      ASSERT_EQ(tf_set_num_threads(threads), TF_OK);
      std::vector<float> c(batch * m * n);
      tfrt_matmul_f32(batch, m, n, k, a.data(), m * k, b.data(), k * n, transA,
                      transB, bias.data(), 2, c.data(), m * n);
      if (threads == 1)
        single = c;
      else
        EXPECT_EQ(
            std::memcmp(c.data(), single.data(), c.size() * sizeof(float)), 0)
            << m << " x " << n << ", " << threads << " threads, trans_a "
            << transA << ", trans_b " << transB;
    }
  }
  tf_set_num_threads(0);
}

TEST(RuntimeGemm, ResultsDoNotDependOnTheThreadCount) {
  // OpenBLAS's own threading computes some elements with other kernels
  // for other thread counts; the runtime's tiles must not. 1100 x 1100 is 2
  // x 2 tiles; 2100 x 512 is 3 rows of tiles split again into 4 for
  // balance, the last one shorter.
  expectThreadCountIndependent(1100, 1100);
  expectThreadCountIndependent(2100, 512);
}

/// Whether OpenBLAS runs its SkylakeX kernels: the runtime names them on
/// every AVX-512 CPU unless OPENBLAS_CORETYPE names another core.
bool runsSkylakeXKernels() {
  __builtin_cpu_init();
  const char *core = std::getenv("OPENBLAS_CORETYPE");
  return __builtin_cpu_supports("avx512f") &&
         (!core || std::strcmp(core, "SkylakeX") == 0);
}

TEST(RuntimeGemm, FewRowsAreTheRowsOfALargerProduct) {
  // A decoding step multiplies 16 rows by a weight (the runtime's own
  // kernel, weight read in place); the full forward multiplies those rows
  // among many (OpenBLAS). With OpenBLAS's SkylakeX kernels both sum in the
  // same panels: the same bits, whatever the depth (one panel, two, a
  // split remainder). Under other kernels they agree to rounding.
  const int64_t rows = 64, few = 16, n = 40;
  bool sameBits = runsSkylakeXKernels();
  if (!sameBits)
    std::printf("OpenBLAS runs other kernels than SkylakeX here: comparing "
                "to rounding, not bits\n");
  std::mt19937 rng(11);
  std::normal_distribution<float> dist;
  for (int64_t k : {7, 256, 448, 512, 1024, 1028, 3000}) {
    std::vector<float> a(rows * k), w(n * k), bias(n);
    for (std::vector<float> *v : {&a, &w, &bias})
      for (float &x : *v)
        x = dist(rng);
    std::vector<float> all(rows * n), firstRows(few * n);
    tfrt_matmul_f32(1, rows, n, k, a.data(), 0, w.data(), 0, 0, 1, bias.data(),
                    0, all.data(), 0);
    tfrt_matmul_f32(1, few, n, k, a.data(), 0, w.data(), 0, 0, 1, bias.data(),
                    0, firstRows.data(), 0);
    for (int64_t e = 0; e < few * n; ++e) {
      if (sameBits)
        ASSERT_EQ(firstRows[e], all[e]) << "k " << k << ", element " << e;
      else
        ASSERT_NEAR(firstRows[e], all[e], 1e-6 * std::sqrt(double(k)) * 8)
            << "k " << k << ", element " << e;
    }
  }
}

TEST(RuntimeGemm, EmptyOutputsTouchNothing) {
  float c = 5.0f;
  tfrt_matmul_f32(0, 1, 1, 1, nullptr, 0, nullptr, 0, 0, 0, nullptr, 0, &c, 0);
  tfrt_matmul_f32(1, 0, 1, 1, nullptr, 0, nullptr, 0, 0, 0, nullptr, 0, &c, 0);
  EXPECT_EQ(c, 5.0f);
}

TEST(RuntimeGemm, ActivationsAreAccurateOverTheirRange) {
  // c = act(x · 1 + 0) for x sweeping [-12, 12], against double math.
  const int64_t n = 4801;
  std::vector<float> x(n), one(1, 1.0f);
  for (int64_t i = 0; i < n; ++i)
    x[i] = -12.0f + 24.0f * float(i) / float(n - 1);
  for (int32_t activation : {1, 2, 3}) {
    std::vector<float> c(n);
    // x as a 1 x n matrix B, A = [1]: C = A · B.
    tfrt_matmul_f32(1, 1, n, 1, one.data(), 0, x.data(), 0, 0, 0, nullptr,
                    activation, c.data(), 0);
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(c[i] - activate(x[i], activation)) /
                                  std::max(1.0, std::fabs(double(x[i]))));
    EXPECT_LT(worst, 1e-6) << "activation " << activation;
  }
}

} // namespace
