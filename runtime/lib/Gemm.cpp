//===- Gemm.cpp - tfrt_matmul_f32, the GEMM kernel of generated code ------===//
//
// C[b] = act(op(A[b]) · op(B[b]) + bias): OpenBLAS cblas_sgemm (row-major,
// beta 0), then bias and activation in one pass over C. A transposed
// operand is read where it lies (a weight gradient's Xᵀ·dY never copies
// Xᵀ out).
//
// Results must not depend on the thread count, and OpenBLAS's do: its
// threaded driver splits C by the thread count and computes edge blocks
// with other kernels, and it picks its small-matrix path by the count too.
// So the runtime splits C itself, into tiles that depend on the shape only,
// and runs each tile as one single-threaded sgemm, the tiles spread over
// libgomp's pool. Each element then sees the same kernel and summation
// order whatever the thread count.
//
// The epilogue loops have no branches or library calls inside, so they
// vectorise; erf and tanh are Eigen's float rational approximations (the
// ones XLA and ONNX Runtime use), within a few ulp of the libm functions.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <algorithm>
#include <climits>
#include <omp.h>

namespace transfuse::rt {
namespace {

/// erf(x) for float: x·P(x²)/Q(x²) on x clamped to [-4, 4].
inline float erfApprox(float x) {
  x = std::min(std::max(x, -4.0f), 4.0f);
  float x2 = x * x;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 + -2.10102402082508e-06f;
  p = p * x2 + -5.69250639462346e-05f;
  p = p * x2 + -7.34990630326855e-04f;
  p = p * x2 + -2.95459980854025e-03f;
  p = p * x2 + -1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * x2 + -2.13374055278905e-04f;
  q = q * x2 + -1.68282697438203e-03f;
  q = q * x2 + -7.37332916720468e-03f;
  q = q * x2 + -1.42647390514189e-02f;
  return x * p / q;
}

/// tanh(x) for float: x·P(x²)/Q(x²) on x clamped to where tanh rounds to ±1.
inline float tanhApprox(float x) {
  x = std::min(std::max(x, -7.90531110763549805f), 7.90531110763549805f);
  float x2 = x * x;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  return x * p / q;
}

// CBLAS's enumerators (cblas.h is not included: OpenBLAS is loaded lazily).
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

enum Activation : int32_t { kNone = 0, kRelu = 1, kGeluErf = 2, kGeluTanh = 3 };

/// Adds the bias (if any) to every row of c[m][n], rows ldc apart, and
/// applies `act`.
template <Activation act, bool hasBias>
void epilogue(int64_t m, int64_t n, int64_t ldc, const float *__restrict bias,
              float *__restrict c) {
  constexpr float kInvSqrt2 = 0.70710678118654752440f;
  constexpr float kSqrt2OverPi = 0.79788456080286535588f;
  for (int64_t i = 0; i < m; ++i) {
    float *__restrict row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) {
      float x = row[j];
      if constexpr (hasBias)
        x += bias[j];
      if constexpr (act == kRelu)
        x = std::max(x, 0.0f);
      else if constexpr (act == kGeluErf)
        x = 0.5f * x * (1.0f + erfApprox(x * kInvSqrt2));
      else if constexpr (act == kGeluTanh)
        x = 0.5f * x *
            (1.0f + tanhApprox(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
      row[j] = x;
    }
  }
}

/// The tiles' size: about this many rows and columns of C, whatever k.
/// OpenBLAS packs a tile's rows of A and its columns of B before
/// multiplying, so A is packed once per column of tiles and B once per row
/// of tiles. Rows of 1024 rather than 256 ran transformer_base's shapes at
/// 473 GFLOP/s rather than 438 on two Zen 5 threads, 248 rather than 223
/// on one: a weight repacked for every 256 rows cost 10-14%. Few tiles are
/// then split again for balance (below).
constexpr int64_t kTileRows = 1024;
constexpr int64_t kTileColumns = 1024;
/// Tile edges are multiples of this, the widest register block of
/// OpenBLAS's sgemm kernels, so that no tile cuts a register block short.
constexpr int64_t kTileAlign = 16;

int64_t divideCeil(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// While a call has fewer tiles than kBalancedTiles, its rows are split
/// finer until the tile count is a multiple of kTileCountMultiple, so that
/// two threads get about equal shares: an odd count keeps one of 2 threads
/// idle for part of the call (with 256-row tiles, 1280 rows in 5 tiles ran
/// 13% slower than in 6; a single tile, a [256, 256] weight gradient, ran
/// on one thread). A multiple of 4 measured slower on 2 threads (smaller
/// tiles where 2 or 10 were balanced already). The split depends on the
/// shape alone, never on the thread count.
constexpr int64_t kTileCountMultiple = 2;
constexpr int64_t kBalancedTiles = 32;
/// ... and while each tile keeps at least this many multiply-adds (about
/// 75 us on one Zen 5 core): waking a passive OpenMP thread costs about
/// 45 us, which a decoding step's 16 x 256 x 256 products (20 us on one
/// thread) never win back.
constexpr double kMinBalancedTileWork = 8 << 20;

/// How a dimension of `size` splits: `count` pieces of `step` but the last.
struct Split {
  int64_t step, count;

  /// About `pieces` pieces, their edges multiples of kTileAlign.
  static Split into(int64_t size, int64_t pieces) {
    int64_t step =
        divideCeil(divideCeil(size, pieces), kTileAlign) * kTileAlign;
    return {step, divideCeil(size, step)};
  }
};

/// C's rows and columns in tiles of about kTileRows x kTileColumns, split
/// finer where that balances few large tiles over the threads.
std::pair<Split, Split> tilesOf(int64_t m, int64_t n, int64_t k) {
  Split columns = Split::into(n, divideCeil(n, kTileColumns));
  Split rows = Split::into(m, divideCeil(m, kTileRows));
  double work = double(m) * double(n) * double(k);
  auto unbalanced = [&] {
    int64_t tiles = rows.count * columns.count;
    return tiles < kBalancedTiles && tiles % kTileCountMultiple != 0 &&
           work / double(tiles + 1) >= kMinBalancedTileWork;
  };
  for (int64_t pieces = rows.count + 1;
       unbalanced() && pieces <= divideCeil(m, kTileAlign); ++pieces)
    rows = Split::into(m, pieces);
  // Rows too few to split (a decoding step's 16): split the columns.
  for (int64_t pieces = columns.count + 1;
       unbalanced() && pieces <= divideCeil(n, kTileAlign); ++pieces)
    columns = Split::into(n, pieces);
  return {rows, columns};
}

/// Keeps OpenBLAS on the calling thread while it lives: the OpenMP build
/// takes its thread count from omp_get_max_threads() of the caller (the
/// pthread build's count is 1, Threads.cpp).
class SingleThreadedBlas {
public:
  SingleThreadedBlas() : saved_(omp_get_max_threads()) {
    omp_set_num_threads(1);
  }
  ~SingleThreadedBlas() { omp_set_num_threads(saved_); }

private:
  int saved_;
};

} // namespace
} // namespace transfuse::rt

using namespace transfuse::rt;

extern "C" void tfrt_matmul_f32(int64_t batch, int64_t m, int64_t n, int64_t k,
                                const float *a, int64_t stride_a,
                                const float *b, int64_t stride_b,
                                int32_t trans_a, int32_t trans_b,
                                const float *bias, int32_t activation, float *c,
                                int64_t stride_c) {
  // The generated code passes static shapes; anything else is a compiler
  // bug, not an input error, and must not write out of bounds.
  if (batch < 0 || m < 0 || n < 0 || k < 0)
    abortWith("tfrt_matmul_f32", "negative size");
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    abortWith("tfrt_matmul_f32",
              "a dimension exceeds the BLAS interface's 32-bit sizes");
  if (activation < kNone || activation > kGeluTanh)
    abortWith("tfrt_matmul_f32", "unknown activation");
  if (batch == 0 || m == 0 || n == 0)
    return;
  ensureThreadsApplied();
  Blas::Sgemm sgemm = blas().sgemm;

  using Epilogue = void (*)(int64_t, int64_t, int64_t, const float *, float *);
  static constexpr Epilogue kEpilogues[2][4] = {
      {&epilogue<kNone, false>, &epilogue<kRelu, false>,
       &epilogue<kGeluErf, false>, &epilogue<kGeluTanh, false>},
      {&epilogue<kNone, true>, &epilogue<kRelu, true>,
       &epilogue<kGeluErf, true>, &epilogue<kGeluTanh, true>}};
  Epilogue epilogueFor = kEpilogues[bias != nullptr][activation];
  bool needsEpilogue = bias || activation != kNone;

  auto [rows, columns] = tilesOf(m, n, k);
  int64_t tiles = rows.count * columns.count;
  int64_t lda = trans_a ? m : k, ldb = trans_b ? k : n, ldc = n;
  // A decoding step's product: the weight read where it lies (FewRowsGemm).
  bool fewRows = m <= kFewRows && !trans_a && trans_b;
  parallelFor(batch * tiles, 1, [&](int64_t begin, int64_t end) {
    SingleThreadedBlas singleThreaded;
    for (int64_t tile = begin; tile < end; ++tile) {
      int64_t i = tile / tiles;
      int64_t row = tile % tiles / columns.count * rows.step;
      int64_t column = tile % columns.count * columns.step;
      int64_t height = std::min(rows.step, m - row);
      int64_t width = std::min(columns.step, n - column);
      const float *ai = a + i * stride_a + (trans_a ? row : row * lda);
      const float *bi = b + i * stride_b + (trans_b ? column * ldb : column);
      float *ci = c + i * stride_c + row * ldc + column;
      if (k == 0) {
        // The product of empty operands is zero; BLAS implementations
        // differ on whether they touch C at all then.
        for (int64_t r = 0; r < height; ++r)
          std::fill_n(ci + r * ldc, width, 0.0f);
      } else if (fewRows) {
        fewRowsGemm(height, width, k, ai, lda, bi, ldb, ci, ldc);
      } else {
        sgemm(kRowMajor, trans_a ? kTrans : kNoTrans,
              trans_b ? kTrans : kNoTrans, static_cast<int>(height),
              static_cast<int>(width), static_cast<int>(k), 1.0f, ai,
              static_cast<int>(lda), bi, static_cast<int>(ldb), 0.0f, ci,
              static_cast<int>(ldc));
      }
      if (needsEpilogue)
        epilogueFor(height, width, ldc, bias ? bias + column : nullptr, ci);
    }
  });
}
