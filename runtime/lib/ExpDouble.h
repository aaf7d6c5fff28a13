//===- ExpDouble.h - e^x in double, eight lanes at a time -------*- C++ -*-===//
//
// Beam search's log-softmax normaliser sums e^(x - max) in double over
// every logit of every hypothesis, and libm's scalar exp was a fifth of a
// translation's time. expLanes is Cephes' double-precision range reduction
// and Padé approximant (about 1 ulp) on GCC vector extensions of 8, 4 or 2
// doubles, one register of AVX-512, AVX2 or SSE, so that a loop over it
// vectorises. Header-only, for the tests.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_EXPDOUBLE_H
#define TRANSFUSE_RUNTIME_LIB_EXPDOUBLE_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace transfuse::rt {

/// A register of `Lanes` doubles, and of as many 64-bit integers and floats:
/// AVX-512's 8 doubles, AVX2's 4, SSE's 2.
template <int Lanes> struct DoubleLanes;
template <> struct DoubleLanes<8> {
  using Doubles = double __attribute__((vector_size(64)));
  using Ints = int64_t __attribute__((vector_size(64)));
  using Floats = float __attribute__((vector_size(32)));
};
template <> struct DoubleLanes<4> {
  using Doubles = double __attribute__((vector_size(32)));
  using Ints = int64_t __attribute__((vector_size(32)));
  using Floats = float __attribute__((vector_size(16)));
};
template <> struct DoubleLanes<2> {
  using Doubles = double __attribute__((vector_size(16)));
  using Ints = int64_t __attribute__((vector_size(16)));
  using Floats = float __attribute__((vector_size(8)));
};
using v8d = DoubleLanes<8>::Doubles;

/// e^x. Below -708.39 (e^x under DBL_MIN) it is 0, so -inf gives exactly
/// 0; above 709 it is e^709; NaN stays NaN. n = round(x / ln 2) comes from
/// adding 1.5 · 2^52, whose ulp is 1, so the sum's low mantissa bits are n
/// and 2^n is built from them: AVX-512F has no conversion between doubles
/// and 64-bit integers, which its clone would do one lane at a time.
template <int Lanes>
inline __attribute__((always_inline)) typename DoubleLanes<Lanes>::Doubles
expLanes(typename DoubleLanes<Lanes>::Doubles x) {
  using Doubles = typename DoubleLanes<Lanes>::Doubles;
  using Ints = typename DoubleLanes<Lanes>::Ints;
  const double hi = 709.0, lo = -708.39;
  constexpr double kRounder = 6755399441055744.0; // 1.5 · 2^52
  constexpr int64_t kRounderBits = 0x4338000000000000;
  Ints tiny = x < lo;
  x = x > hi ? hi : x;
  x = x < lo ? lo : x;
  // x = x - n ln 2 in two parts (|x| <= ln 2 / 2).
  Doubles rounded = x * 1.4426950408889634073599 + kRounder;
  Doubles n = rounded - kRounder;
  x = x - n * 6.93145751953125E-1 - n * 1.42860682030941723212E-6;
  Doubles xx = x * x;
  Doubles p =
      x * ((1.26177193074810590878E-4 * xx + 3.02994407707441961300E-2) * xx +
           9.99999999999999999910E-1);
  Doubles q =
      ((3.00198505138664455042E-6 * xx + 2.52448340349684104192E-3) * xx +
       2.27265548208155028766E-1) *
          xx +
      2.00000000000000000009E0;
  Doubles y = 1.0 + 2.0 * p / (q - p);
  Ints bits = ((Ints)rounded - (kRounderBits - 1023)) << 52;
  Doubles zero = {};
  return tiny ? zero : y * (Doubles)bits;
}

inline __attribute__((always_inline)) v8d exp8(v8d x) { return expLanes<8>(x); }

/// Σ e^(x[i] - shift) over n floats, in double, on registers of `Lanes`
/// doubles: eight running sums whatever the registers, added in order at
/// the end, so that every instance gives the same bits.
template <int Lanes = 8>
inline __attribute__((always_inline)) double
sumOfExponentials(const float *x, int64_t n, double shift) {
  using Doubles = typename DoubleLanes<Lanes>::Doubles;
  using Floats = typename DoubleLanes<Lanes>::Floats;
  constexpr int kParts = 8 / Lanes;
  Doubles total[kParts] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int q = 0; q < kParts; ++q) {
      Floats lanes;
      std::memcpy(&lanes, x + i + q * Lanes, sizeof lanes);
      total[q] +=
          expLanes<Lanes>(__builtin_convertvector(lanes, Doubles) - shift);
    }
  double sum = 0.0;
  for (int q = 0; q < kParts; ++q)
    for (int l = 0; l < Lanes; ++l)
      sum += total[q][l];
  for (; i < n; ++i)
    sum += std::exp(x[i] - shift);
  return sum;
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_EXPDOUBLE_H
