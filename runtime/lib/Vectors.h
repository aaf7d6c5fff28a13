//===- Vectors.h - 16-float vectors of the CPU kernels ----------*- C++ -*-===//
//
// GCC/Clang vector extensions of 16 lanes: one AVX-512 register, two AVX2
// ones, with e^x and the lanes' maximum and sum on them; and the registers
// of each instruction set (v8, v4) with the dispatch that compiles a kernel
// once per set (onHostVectors). The kernels are compiled per instruction
// set (target_clones or onHostVectors): a v16 passed to or returned by a
// call from one of them would need AVX-512 in the ABI (Clang refuses it),
// so they call only functions without vector arguments, and these helpers
// are always inlined.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_VECTORS_H
#define TRANSFUSE_RUNTIME_LIB_VECTORS_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace transfuse::rt {

using v16 = float __attribute__((vector_size(64)));
using v16i = int32_t __attribute__((vector_size(64)));
constexpr int64_t kLanes = 16;

#define TF_INLINE inline __attribute__((always_inline))

/// The clones of a kernel on v16: AVX-512, AVX2 with FMA (x86-64-v3: the
/// "avx2" target alone has no FMA, so every a * b + c would round twice and
/// take two instructions), and the baseline.
#define TF_VECTOR_CLONES                                                       \
  __attribute__((target_clones("avx512f", "arch=x86-64-v3", "default")))

/// One register of floats: AVX-512's is a v16, AVX2's a v8, SSE's a v4.
using v8 = float __attribute__((vector_size(32)));
using v4 = float __attribute__((vector_size(16)));

/// Register-tiled loops name their registers: GCC keeps a v16 that lives
/// across iterations of an AVX2 or SSE clone on the stack (its halves move
/// through general registers, a tenth of the FMA throughput), so those
/// loops hold a v16's lanes as kPartsOf<Vector> registers of the
/// instruction set's own width, in order, and are instantiated once per
/// instruction set (onHostVectors).
template <typename Vector>
constexpr int64_t kPartsOf = sizeof(v16) / sizeof(Vector);
template <typename Vector>
constexpr int64_t kWidthOf = sizeof(Vector) / sizeof(float);

template <typename Vector> TF_INLINE Vector loadPart(const float *p) {
  Vector x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
template <typename Vector> TF_INLINE void storePart(float *p, Vector x) {
  std::memcpy(p, &x, sizeof x);
}

enum class VectorIsa { kAvx512, kAvx2, kBaseline };

/// The widest registers this CPU has that the kernels are built for.
inline VectorIsa hostVectorIsa() {
  static const VectorIsa isa = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
      return VectorIsa::kAvx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return VectorIsa::kAvx2;
    return VectorIsa::kBaseline;
  }();
  return isa;
}

template <typename Kernel, typename... Args>
__attribute__((target("avx512f"))) auto onAvx512(Args &&...args) {
  return Kernel::template run<v16>(std::forward<Args>(args)...);
}
template <typename Kernel, typename... Args>
__attribute__((target("avx2,fma"))) auto onAvx2(Args &&...args) {
  return Kernel::template run<v8>(std::forward<Args>(args)...);
}
template <typename Kernel, typename... Args> auto onBaseline(Args &&...args) {
  return Kernel::template run<v4>(std::forward<Args>(args)...);
}

/// Kernel::run<Vector>(args...), an always-inlined template, compiled for
/// the host's instruction set with Vector its register of floats.
template <typename Kernel, typename... Args>
auto onHostVectors(Args &&...args) {
  switch (hostVectorIsa()) {
  case VectorIsa::kAvx512:
    return onAvx512<Kernel>(std::forward<Args>(args)...);
  case VectorIsa::kAvx2:
    return onAvx2<Kernel>(std::forward<Args>(args)...);
  case VectorIsa::kBaseline:
    break;
  }
  return onBaseline<Kernel>(std::forward<Args>(args)...);
}

TF_INLINE v16 load(const float *p) {
  v16 x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
TF_INLINE void store(float *p, v16 x) { std::memcpy(p, &x, sizeof x); }
TF_INLINE v16 splat(float x) { return v16{} + x; }
TF_INLINE v16i loadInts(const int32_t *p) {
  v16i x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
/// mask ? a : b in each lane, for lanes of mask all ones or all zeros: as
/// bitwise operations, which vectorise where a select of floats by an
/// integer vector may not.
TF_INLINE v16 select(v16i mask, v16 a, v16 b) {
  return (v16)(((v16i)a & mask) | ((v16i)b & ~mask));
}
TF_INLINE int64_t roundUp(int64_t n, int64_t to) {
  return (n + to - 1) / to * to;
}

/// 1.5·2^23, whose ulp is 1: x + kRounder, for |x| < 2^22, is x rounded
/// to an integer n, and the sum's low mantissa bits are n.
constexpr float kRounder = 12582912.0f;

/// 2^n for the n of `rounded` = x + kRounder, -126 <= n <= 127, built from
/// its bits: no conversion between floats and integers, which the softmax
/// of a small head (most of its time in e^x) would pay for.
TF_INLINE v16 powerOfTwo(v16 rounded) {
  using v16u = uint32_t __attribute__((vector_size(64)));
  constexpr uint32_t kRounderBits = 0x4B400000;
  return (v16)(((v16u)rounded - (kRounderBits - 127)) << 23);
}

/// c[0]·x^(N-1) + c[1]·x^(N-2) + ... + c[N-1], by Horner's rule.
template <size_t N> TF_INLINE v16 horner(v16 x, const float (&c)[N]) {
  v16 y = splat(c[0]);
  for (size_t i = 1; i < N; ++i)
    y = y * x + c[i];
  return y;
}

/// e^x: Cephes' single-precision range reduction and polynomial (about
/// 1 ulp), branch-free. Below -87.3 (e^x under FLT_MIN) it is 0, so a -inf
/// score gives exactly 0; NaN stays NaN.
TF_INLINE v16 exp16(v16 x) {
  const v16 hi = splat(88.3762626647949f), lo = splat(-87.3365478515625f);
  v16i tiny = x < lo;
  x = x > hi ? hi : x;
  x = x < lo ? lo : x;
  v16 rounded = x * 1.44269504088896341f + kRounder;
  v16 n = rounded - kRounder;
  x = x - n * 0.693359375f - n * -2.12194440e-4f;
  v16 y = horner(x, {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                     4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f});
  y = y * x * x + x + 1.0f;
  return tiny ? splat(0.0f) : y * powerOfTwo(rounded);
}

/// e^x for the softmax's x = score - maximum <= 0 (or NaN), as
/// 2^(x·log2 e): one rounding of t = x·log2 e, then 2^n · 2^f for
/// n = round(t) (kRounder) and f = t - n in
/// [-1/2, 1/2] on a degree-6 polynomial (relative error 2e-9). About half
/// exp16's operations (no two-part reduction, no clamps, a shorter
/// polynomial). The roundings of t and of log2 e cost up to 1.25·|x|·2^-24
/// relative, so the error is about (2 + 1.25·|x|)·2^-24
/// (RuntimeAttentionExpTest): it grows where e^x and its weight in the sum
/// shrink, 7 ulp at x = -10 (weight 4.5e-5). 0 below 2^-126, so a -inf
/// score weighs nothing; NaN stays NaN.
TF_INLINE v16 softmaxExp16(v16 x) {
  v16 t = x * 1.44269504088896341f;
  v16i tiny = t < -126.0f;
  v16 rounded = t + kRounder;
  v16 f = t - (rounded - kRounder);
  v16 y = horner(f, {1.5353361959569156e-4f, 1.3398875016719103e-3f,
                     9.61843691766262e-3f, 5.5503323674201965e-2f,
                     2.4022647738456726e-1f, 6.931471824645996e-1f, 1.0f});
  return tiny ? splat(0.0f) : y * powerOfTwo(rounded);
}

/// The largest lane of x / the sum of its lanes, as a tree of halves: 4
/// dependent steps where a scalar loop over the lanes takes 15, once per
/// row and block of keys, which for a head of 16 was a fifth of the
/// softmax's time.
TF_INLINE float horizontalMax(v16 x) {
  auto larger = [](auto a, auto b) { return a < b ? b : a; };
  v8 a = larger(__builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7),
                __builtin_shufflevector(x, x, 8, 9, 10, 11, 12, 13, 14, 15));
  v4 b = larger(__builtin_shufflevector(a, a, 0, 1, 2, 3),
                __builtin_shufflevector(a, a, 4, 5, 6, 7));
  return std::max(std::max(b[0], b[2]), std::max(b[1], b[3]));
}
TF_INLINE float horizontalSum(v16 x) {
  v8 a = __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7) +
         __builtin_shufflevector(x, x, 8, 9, 10, 11, 12, 13, 14, 15);
  v4 b = __builtin_shufflevector(a, a, 0, 1, 2, 3) +
         __builtin_shufflevector(a, a, 4, 5, 6, 7);
  return (b[0] + b[2]) + (b[1] + b[3]);
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_VECTORS_H
