//===- PhiloxLanes.cpp - Philox-4x32-10 of 16 blocks at once --------------===//
//
// Philox's round multiplies two 32-bit words into 64 bits. Written with
// GCC's generic vectors (philox4x32_10 in Philox.h), GCC 12 builds each of
// those products from three vpmuludq, shifts and adds, as if the operands
// had 64 bits. With AVX-512F's own 32x32->64 product, each half of the 16
// lanes widened to 64-bit lanes, a round is two products, two shifts and
// two three-way xors per 8 blocks: 52.6 to 18.7 ns per 16 blocks on one
// Zen 5 core, and 31 ns per 32 when two sets' rounds interleave. That is
// the whole cost of dropout in the attention kernels.
//===----------------------------------------------------------------------===//
#include "Philox.h"
#include "Vectors.h"

#include <immintrin.h>

namespace transfuse::rt {
namespace {

#define TF_AVX512 __attribute__((target("avx512f"), always_inline)) inline

/// Ten rounds on 8·Chains blocks, word w of each in the low half of a 64-bit
/// lane of c[chain][w]. The product reads the low halves only, so the high
/// halves may carry anything until the words are narrowed. The chains'
/// rounds interleave, so that one's products run while another waits.
template <int Chains>
TF_AVX512 void rounds(__m512i (&c)[Chains][4], uint32_t key0, uint32_t key1) {
  const __m512i m0 = _mm512_set1_epi64(0xD2511F53u);
  const __m512i m1 = _mm512_set1_epi64(0xCD9E8D57u);
#pragma GCC unroll 10
  for (int round = 0; round < 10; ++round) {
    __m512i k0 = _mm512_set1_epi64(key0), k1 = _mm512_set1_epi64(key1);
#pragma GCC unroll 4
    for (int chain = 0; chain < Chains; ++chain) {
      __m512i *x = c[chain];
      __m512i p0 = _mm512_mul_epu32(x[0], m0), p1 = _mm512_mul_epu32(x[2], m1);
      // 0x96: a ^ b ^ c.
      x[0] =
          _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), x[1], k0, 0x96);
      x[2] =
          _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), x[3], k1, 0x96);
      x[1] = p1;
      x[3] = p0;
    }
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
}

/// The low (half 0) or high (half 1) 8 lanes of `words`, widened to 64 bits.
TF_AVX512 __m512i widen(u32x16 words, int half) {
  __m512i v = reinterpret_cast<__m512i>(words);
  return _mm512_cvtepu32_epi64(half == 0 ? _mm512_castsi512_si256(v)
                                         : _mm512_extracti64x4_epi64(v, 1));
}

/// The low words of the 64-bit lanes of `low` then of `high`.
TF_AVX512 u32x16 narrow(__m512i low, __m512i high) {
  return reinterpret_cast<u32x16>(
      _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(low)),
                         _mm512_cvtepi64_epi32(high), 1));
}

/// Philox of Sets sets of 16 blocks: each set's halves are two chains.
template <int Sets>
__attribute__((target("avx512f"))) std::array<PhiloxLanes, Sets>
philoxAvx512(const std::array<PhiloxLanes, Sets> &ctr,
             std::array<uint32_t, 2> key) {
  __m512i c[2 * Sets][4];
  for (int set = 0; set < Sets; ++set)
    for (int w = 0; w < 4; ++w) {
      c[2 * set][w] = widen(ctr[set][w], 0);
      c[2 * set + 1][w] = widen(ctr[set][w], 1);
    }
  rounds<2 * Sets>(c, key[0], key[1]);
  std::array<PhiloxLanes, Sets> out;
  for (int set = 0; set < Sets; ++set)
    for (int w = 0; w < 4; ++w)
      out[set][w] = narrow(c[2 * set][w], c[2 * set + 1][w]);
  return out;
}

__attribute__((target("avx512f"))) PhiloxLanes
philoxLanesAvx512(const PhiloxLanes &ctr, std::array<uint32_t, 2> key) {
  return philoxAvx512<1>({ctr}, key)[0];
}

__attribute__((noinline)) PhiloxLanes
philoxLanesPortable(const PhiloxLanes &ctr, std::array<uint32_t, 2> key) {
  return philox4x32_10(ctr, key);
}

__attribute__((noinline)) std::array<PhiloxLanes, 2>
philoxLanes2Portable(const std::array<PhiloxLanes, 2> &ctr,
                     std::array<uint32_t, 2> key) {
  return {philox4x32_10(ctr[0], key), philox4x32_10(ctr[1], key)};
}

using PhiloxLanesFn = PhiloxLanes (*)(const PhiloxLanes &,
                                      std::array<uint32_t, 2>);
using PhiloxLanes2Fn = std::array<PhiloxLanes, 2> (*)(
    const std::array<PhiloxLanes, 2> &, std::array<uint32_t, 2>);

bool hasAvx512() { return hostVectorIsa() == VectorIsa::kAvx512; }

} // namespace

// Each picks its code once; a call is then one indirect jump, the portable
// code kept out of line so that the AVX-512F path pays nothing for it.
PhiloxLanes philoxLanes(const PhiloxLanes &ctr, std::array<uint32_t, 2> key) {
  static const PhiloxLanesFn code =
      hasAvx512() ? philoxLanesAvx512 : philoxLanesPortable;
  return code(ctr, key);
}

std::array<PhiloxLanes, 2> philoxLanes2(const std::array<PhiloxLanes, 2> &ctr,
                                        std::array<uint32_t, 2> key) {
  static const PhiloxLanes2Fn code =
      hasAvx512() ? philoxAvx512<2> : philoxLanes2Portable;
  return code(ctr, key);
}

} // namespace transfuse::rt
