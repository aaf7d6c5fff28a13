//===- FewRowsGemm.cpp - C = A·Bᵀ for products of at most 16 rows ---------===//
//
// A decoding step multiplies one row per sequence (16 for a batch of 16) by
// every weight matrix of the model. BLAS packs the weight, the operand it
// reads once, into its panel layout on every call, which for so few rows
// costs as much as the product (OpenBLAS: sgemm_incopy as long as the
// kernel in a profile of char_lm's steps). Here the weight is read where it
// lies, once: A's rows, transposed into one 16-float vector per k, stay in
// L1, and each weight element is broadcast to the 16 rows of its column.
//
// Every element of C is summed in the order OpenBLAS's SkylakeX kernels
// sum it (panelDepth), whatever the thread count (the caller's tiles
// depend on the shape only).
//===----------------------------------------------------------------------===//
#include "Runtime.h"
#include "Vectors.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace transfuse::rt {
namespace {

/// Columns of C per pass over k: one accumulator each, enough independent
/// chains to keep both FMA pipes busy.
constexpr int64_t kColumns = 8;

/// The depth of the next panel of k, `remaining` deep: OpenBLAS's rule
/// (driver/level3.c) with the GEMM_Q and GEMM_UNROLL_M of its SkylakeX
/// sgemm, whose kernels sum each panel in one chain from zero and add it
/// to C. Summed in the same panels, a product of few rows is the same bits
/// as those rows of a larger product on AVX-512 machines (RuntimeGemmTest),
/// so a decoding step's products are those of the full forward.
inline int64_t panelDepth(int64_t remaining) {
  constexpr int64_t kPanel = 448, kUnroll = 16;
  if (remaining >= 2 * kPanel)
    return kPanel;
  if (remaining > kPanel)
    return (remaining / 2 + kUnroll - 1) / kUnroll * kUnroll;
  return remaining;
}

TF_INLINE void multiplyFewRows(int64_t height, int64_t width, int64_t k,
                               const float *a, int64_t lda, const float *b,
                               int64_t ldb, float *c, int64_t ldc) {
  // Aᵀ, its rows past `height` zero: [k][16].
  thread_local std::vector<float> transposed;
  transposed.resize(k * kLanes);
  for (int64_t i = 0; i < kLanes; ++i)
    for (int64_t p = 0; p < k; ++p)
      transposed[p * kLanes + i] = i < height ? a[i * lda + p] : 0.0f;
  const float *at = transposed.data();
  for (int64_t j0 = 0; j0 < width; j0 += kColumns) {
    // Columns past `width` repeat the last one; they are not stored.
    const float *column[kColumns];
    for (int64_t j = 0; j < kColumns; ++j)
      column[j] = b + std::min(j0 + j, width - 1) * ldb;
    v16 sum[kColumns];
    for (int64_t p0 = 0; p0 < k;) {
      int64_t depth = panelDepth(k - p0);
      v16 acc[kColumns] = {};
      for (int64_t p = p0; p < p0 + depth; ++p) {
        v16 rows = load(at + p * kLanes);
        for (int64_t j = 0; j < kColumns; ++j)
          acc[j] += rows * column[j][p];
      }
      for (int64_t j = 0; j < kColumns; ++j)
        sum[j] = p0 == 0 ? acc[j] : sum[j] + acc[j];
      p0 += depth;
    }
    for (int64_t j = 0; j < std::min(kColumns, width - j0); ++j)
      for (int64_t i = 0; i < height; ++i)
        c[i * ldc + j0 + j] = sum[j][i];
  }
}

} // namespace

// Cloned per instruction set; everything that takes or returns a vector is
// inlined into the clones (Vectors.h).
__attribute__((target_clones("avx512f", "avx2", "default"))) void
fewRowsGemm(int64_t height, int64_t width, int64_t k, const float *a,
            int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  multiplyFewRows(height, width, k, a, lda, b, ldb, c, ldc);
}

} // namespace transfuse::rt
