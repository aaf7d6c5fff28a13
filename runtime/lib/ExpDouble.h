//===- ExpDouble.h - e^x in double, eight lanes at a time -------*- C++ -*-===//
//
// Beam search's log-softmax normaliser sums e^(x - max) in double over
// every logit of every hypothesis, and libm's scalar exp was a fifth of a
// translation's time. exp8 is Cephes' double-precision range reduction and
// Padé approximant (about 1 ulp) on GCC vector extensions, so that a loop
// over it vectorises. Header-only, for the tests.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_EXPDOUBLE_H
#define TRANSFUSE_RUNTIME_LIB_EXPDOUBLE_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace transfuse::rt {

using v8d = double __attribute__((vector_size(64)));
using v8l = int64_t __attribute__((vector_size(64)));

/// e^x. Below -708.39 (e^x under DBL_MIN) it is 0, so -inf gives exactly
/// 0; above 709 it is e^709; NaN stays NaN. n = round(x / ln 2) comes from
/// adding 1.5 · 2^52, whose ulp is 1, so the sum's low mantissa bits are n
/// and 2^n is built from them: AVX-512F has no conversion between doubles
/// and 64-bit integers, which its clone would do one lane at a time.
inline __attribute__((always_inline)) v8d exp8(v8d x) {
  const double hi = 709.0, lo = -708.39;
  constexpr double kRounder = 6755399441055744.0; // 1.5 · 2^52
  constexpr int64_t kRounderBits = 0x4338000000000000;
  v8l tiny = x < lo;
  x = x > hi ? hi : x;
  x = x < lo ? lo : x;
  // x = x - n ln 2 in two parts (|x| <= ln 2 / 2).
  v8d rounded = x * 1.4426950408889634073599 + kRounder;
  v8d n = rounded - kRounder;
  x = x - n * 6.93145751953125E-1 - n * 1.42860682030941723212E-6;
  v8d xx = x * x;
  v8d p =
      x * ((1.26177193074810590878E-4 * xx + 3.02994407707441961300E-2) * xx +
           9.99999999999999999910E-1);
  v8d q = ((3.00198505138664455042E-6 * xx + 2.52448340349684104192E-3) * xx +
           2.27265548208155028766E-1) *
              xx +
          2.00000000000000000009E0;
  v8d y = 1.0 + 2.0 * p / (q - p);
  v8l bits = ((v8l)rounded - (kRounderBits - 1023)) << 52;
  v8d zero = {};
  return tiny ? zero : y * (v8d)bits;
}

/// Σ e^(x[i] - shift) over n floats, in double.
inline __attribute__((always_inline)) double
sumOfExponentials(const float *x, int64_t n, double shift) {
  using v8f = float __attribute__((vector_size(32)));
  v8d total = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    v8f lanes;
    std::memcpy(&lanes, x + i, sizeof lanes);
    total += exp8(__builtin_convertvector(lanes, v8d) - shift);
  }
  double sum = 0.0;
  for (int l = 0; l < 8; ++l)
    sum += total[l];
  for (; i < n; ++i)
    sum += std::exp(x[i] - shift);
  return sum;
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_EXPDOUBLE_H
