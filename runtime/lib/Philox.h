//===- Philox.h - Philox-4x32-10 and the dropout decisions it makes -*- C++
//-*-//
//
// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11) with Random123's constants, on one counter block or on 16 at
// once in the lanes of GCC vectors, and dropout built on it. The dropout
// contract is shared with the compiler's lowering of nn.dropout, which
// computes the same function in arith ops, so it is exactly this:
//
//   key     = (lo32(k), hi32(k))          k: the 64-bit dropout key
//   counter = (lo32(e / 4), hi32(e / 4), lo32(stream), hi32(stream))
//             e: the element's row-major linear index in the tensor dropped
//             stream: the 64-bit id of the dropout site in its graph
//   u       = (x[e % 4] >> 8) · 2⁻²⁴      x: the four words of the block
//   the element is kept iff u >= rate (u and rate floats), and a kept value
//   is scaled by 1 / (1 - rate)
//
// Four consecutive elements share a block: 64 elements that start one cost
// a 16-lane Philox (philoxKeep64), a quarter of one block per element.
//
// In a data-parallel step, e counts from the replica's first element of
// the whole batch (dropoutSite in shared/Philox.h).
//
// A mask is a pure function of (key, stream, e): the attention kernels
// recompute it tile by tile, in both directions, instead of storing it.
// Everything but the 16-lane Philox itself is always inlined, so that it is
// compiled for the instruction set of each clone of a kernel; the 16-lane
// Philox picks its instructions once per process (PhiloxLanes.cpp), since
// GCC's code for the generic vectors' 64-bit products is three times
// slower than AVX-512F's own.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_PHILOX_H
#define TRANSFUSE_RUNTIME_LIB_PHILOX_H

#include <array>
#include <cstdint>

namespace transfuse::rt {

// The 64-byte vectors below cross no call: everything is inlined, so GCC's
// note that passing them differs with and without AVX-512 concerns no
// interface.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

#define TF_PHILOX_INLINE inline __attribute__((always_inline))

using u32x16 = uint32_t __attribute__((vector_size(64)));
using i32x16 = int32_t __attribute__((vector_size(64)));
using f32x16 = float __attribute__((vector_size(64)));
using u64x8 = uint64_t __attribute__((vector_size(64)));
using u64x16 = uint64_t __attribute__((vector_size(128)));

/// The high and low words of the 64-bit product a · b.
TF_PHILOX_INLINE void mulhilo(uint32_t a, uint32_t b, uint32_t &hi,
                              uint32_t &lo) {
  uint64_t product = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(product >> 32);
  lo = static_cast<uint32_t>(product);
}

/// The same in every lane. Seen as 64-bit words, the even lanes are the low
/// halves and the odd lanes the high ones: multiplying each half in place,
/// zero-extended, needs no conversion of the lanes to 64 bits and back.
TF_PHILOX_INLINE void mulhilo(uint32_t a, u32x16 b, u32x16 &hi, u32x16 &lo) {
  constexpr uint64_t kLow = 0xFFFFFFFFu;
  u64x8 words = reinterpret_cast<u64x8>(b);
  u64x8 even = (words & kLow) * a, odd = (words >> 32) * a;
  lo = reinterpret_cast<u32x16>((even & kLow) | (odd << 32));
  hi = reinterpret_cast<u32x16>((even >> 32) | (odd & ~kLow));
}

/// Philox-4x32-10 of a counter block under a key, in portable code; U32 is
/// uint32_t for one block or u32x16 for 16, one per lane (philoxLanes is
/// the faster way to 16).
template <typename U32>
TF_PHILOX_INLINE std::array<U32, 4> philox4x32_10(std::array<U32, 4> ctr,
                                                  std::array<uint32_t, 2> key) {
  // Left a loop, the 16-lane form runs about 10% slower.
#pragma GCC unroll 10
  for (int round = 0; round < 10; ++round) {
    U32 hi0, lo0, hi1, lo1;
    mulhilo(0xD2511F53u, ctr[0], hi0, lo0);
    mulhilo(0xCD9E8D57u, ctr[2], hi1, lo1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return ctr;
}

using PhiloxLanes = std::array<u32x16, 4>;

/// Philox-4x32-10 of the 16 blocks in the lanes of `ctr`, with AVX-512F's
/// 32x32->64 products where the CPU has them, else philox4x32_10
/// (PhiloxLanes.cpp). Exported from the runtime for its tests.
__attribute__((visibility("default"))) PhiloxLanes
philoxLanes(const PhiloxLanes &ctr, std::array<uint32_t, 2> key);

/// The same of two sets of 16 blocks, whose rounds interleave: 32 blocks
/// take about 1.35 times as long as 16.
__attribute__((visibility("default"))) std::array<PhiloxLanes, 2>
philoxLanes2(const std::array<PhiloxLanes, 2> &ctr,
             std::array<uint32_t, 2> key);

/// Whether dropout at `rate` keeps the element whose word of its block is
/// `word`: a bool, or for the 16 lanes of a vector -1 where it keeps and 0
/// where it drops. word >> 8 has 24 bits: exact as a signed int and as a
/// float, and so is u.
TF_PHILOX_INLINE bool keepsWord(uint32_t word, float rate) {
  return static_cast<float>(word >> 8) * 0x1p-24f >= rate;
}
TF_PHILOX_INLINE i32x16 keepsWord(u32x16 word, float rate) {
  f32x16 u =
      __builtin_convertvector(reinterpret_cast<i32x16>(word >> 8), f32x16) *
      0x1p-24f;
  return u >= rate;
}

/// The key's two words.
TF_PHILOX_INLINE std::array<uint32_t, 2> keyWords(uint64_t key) {
  return {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
}

/// Whether dropout at `rate` keeps element e.
TF_PHILOX_INLINE bool philoxKeep(uint64_t key, uint64_t stream, uint64_t e,
                                 float rate) {
  uint64_t block = e >> 2;
  std::array<uint32_t, 4> x = philox4x32_10<uint32_t>(
      {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
       static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)},
      keyWords(key));
  return keepsWord(x[e & 3], rate);
}

/// The counter blocks `blocks` (one per lane) of a dropout on `stream`.
TF_PHILOX_INLINE PhiloxLanes dropoutCounters(uint64_t stream, u64x16 blocks) {
  return {__builtin_convertvector(blocks, u32x16),
          __builtin_convertvector(blocks >> 32, u32x16),
          u32x16{} + static_cast<uint32_t>(stream),
          u32x16{} + static_cast<uint32_t>(stream >> 32)};
}

constexpr u64x16 kLaneOffsets = {0, 1, 2,  3,  4,  5,  6,  7,
                                 8, 9, 10, 11, 12, 13, 14, 15};

/// Which of the 16 consecutive elements first, first + 1, ... dropout at
/// `rate` keeps: -1 in a kept lane, 0 in a dropped one. Each lane computes
/// its element's block, whatever `first`.
TF_PHILOX_INLINE i32x16 philoxKeep16(uint64_t key, uint64_t stream,
                                     uint64_t first, float rate) {
  u64x16 e = first + kLaneOffsets;
  PhiloxLanes x = philoxLanes(dropoutCounters(stream, e >> 2), keyWords(key));
  u32x16 which = __builtin_convertvector(e & 3, u32x16);
  u32x16 low = (which & 1) != 0 ? x[1] : x[0];
  u32x16 high = (which & 1) != 0 ? x[3] : x[2];
  return keepsWord((which & 2) != 0 ? high : low, rate);
}

/// Elements 16·V .. 16·V + 15 of the 64 whose decisions `keep[w]` holds in
/// block order (lane l: element 4l + w): lanes 4V .. 4V + 3 of each word,
/// interleaved.
template <int V>
TF_PHILOX_INLINE i32x16 elementOrder(const std::array<i32x16, 4> &keep) {
  using i32x8 = int32_t __attribute__((vector_size(32)));
  constexpr int l = 4 * V;
  i32x8 even = __builtin_shufflevector(keep[0], keep[1], l, l + 16, l + 1,
                                       l + 17, l + 2, l + 18, l + 3, l + 19);
  i32x8 odd = __builtin_shufflevector(keep[2], keep[3], l, l + 16, l + 1,
                                      l + 17, l + 2, l + 18, l + 3, l + 19);
  return __builtin_shufflevector(even, odd, 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12,
                                 13, 6, 7, 14, 15);
}

/// The decisions of the 64 elements whose 16 blocks a Philox gave, 16 to a
/// vector in element order, into keep[0..4).
TF_PHILOX_INLINE void keepsBlocks(const PhiloxLanes &x, float rate,
                                  i32x16 *keep) {
  std::array<i32x16, 4> words;
  for (int w = 0; w < 4; ++w)
    words[w] = keepsWord(x[w], rate);
  keep[0] = elementOrder<0>(words);
  keep[1] = elementOrder<1>(words);
  keep[2] = elementOrder<2>(words);
  keep[3] = elementOrder<3>(words);
}

/// Which of the 64 consecutive elements first .. first + 63 dropout at
/// `rate` keeps, 16 to a vector of keep[0..4) as philoxKeep16 gives them,
/// for `first` a multiple of 4: their 16 blocks in the lanes of one Philox.
TF_PHILOX_INLINE void philoxKeep64(uint64_t key, uint64_t stream,
                                   uint64_t first, float rate, i32x16 *keep) {
  PhiloxLanes x = philoxLanes(
      dropoutCounters(stream, (first >> 2) + kLaneOffsets), keyWords(key));
  keepsBlocks(x, rate, keep);
}

/// The same of the 128 elements from `first` into keep[0..8), from one
/// philoxLanes2.
TF_PHILOX_INLINE void philoxKeep128(uint64_t key, uint64_t stream,
                                    uint64_t first, float rate, i32x16 *keep) {
  u64x16 blocks = (first >> 2) + kLaneOffsets;
  std::array<PhiloxLanes, 2> x = philoxLanes2(
      {dropoutCounters(stream, blocks), dropoutCounters(stream, blocks + 16)},
      keyWords(key));
  keepsBlocks(x[0], rate, keep);
  keepsBlocks(x[1], rate, keep + 4);
}

#pragma GCC diagnostic pop

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_PHILOX_H
