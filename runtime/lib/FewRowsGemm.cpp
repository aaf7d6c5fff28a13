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

/// C = A·Bᵀ on registers of type Vector (Vectors.h), `Columns` columns of
/// C per pass over k. A's 16 rows form one v16 per k, held as kParts
/// registers. Each column has an accumulator per register: enough
/// independent chains to keep both FMA pipes busy, few enough that they,
/// A's vector and a broadcast weight stay in registers.
struct FewRows {
  /// AVX-512's 32 registers take 8 columns (measured fastest of 8 to 16),
  /// AVX2's 16 take 4 (8 accumulators; as fast as 6 on Zen 3), SSE's 16
  /// take 2. Each element of C is summed in the same order whatever the
  /// registers and columns, so the instances differ in speed only.
  template <typename Vector>
  static constexpr int64_t kColumnsOf = kWidthOf<Vector> == 16  ? 8
                                        : kWidthOf<Vector> == 8 ? 4
                                                                : 2;

  template <typename Vector>
  TF_INLINE static void run(int64_t height, int64_t width, int64_t k,
                            const float *a, int64_t lda, const float *b,
                            int64_t ldb, float *c, int64_t ldc) {
    constexpr int64_t kParts = kPartsOf<Vector>, kWidth = kWidthOf<Vector>;
    constexpr int64_t kColumns = kColumnsOf<Vector>;
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
      Vector sum[kColumns][kParts];
      for (int64_t p0 = 0; p0 < k;) {
        int64_t depth = panelDepth(k - p0);
        Vector acc[kColumns][kParts] = {};
        for (int64_t p = p0; p < p0 + depth; ++p) {
          Vector rows[kParts];
          for (int64_t q = 0; q < kParts; ++q)
            rows[q] = loadPart<Vector>(at + p * kLanes + q * kWidth);
          for (int64_t j = 0; j < kColumns; ++j)
            for (int64_t q = 0; q < kParts; ++q)
              acc[j][q] += rows[q] * column[j][p];
        }
        for (int64_t j = 0; j < kColumns; ++j)
          for (int64_t q = 0; q < kParts; ++q)
            sum[j][q] = p0 == 0 ? acc[j][q] : sum[j][q] + acc[j][q];
        p0 += depth;
      }
      for (int64_t j = 0; j < std::min(kColumns, width - j0); ++j) {
        float rowsOfColumn[kLanes];
        std::memcpy(rowsOfColumn, sum[j], sizeof rowsOfColumn);
        for (int64_t i = 0; i < height; ++i)
          c[i * ldc + j0 + j] = rowsOfColumn[i];
      }
    }
  }
};

} // namespace

void fewRowsGemm(int64_t height, int64_t width, int64_t k, const float *a,
                 int64_t lda, const float *b, int64_t ldb, float *c,
                 int64_t ldc) {
  onHostVectors<FewRows>(height, width, k, a, lda, b, ldb, c, ldc);
}

} // namespace transfuse::rt
