//===- Philox.h - Philox-4x32-10 and the dropout decision -------*- C++ -*-===//
//
// The dropout contract of runtime/lib/Philox.h (docs/artifact.md), one
// element at a time, for the CUDA kernels and the host alike:
//
//   key     = (lo32(k), hi32(k))          k: the 64-bit dropout key
//   counter = (lo32(e / 4), hi32(e / 4), lo32(stream), hi32(stream))
//   u       = (x[e % 4] >> 8) · 2⁻²⁴      x: the four words of the block
//   the element is kept iff u >= rate (u and rate floats)
//
// with Random123's constants. runtime/lib/Philox.h computes the same bits
// sixteen lanes at a time on the CPU; this form is scalar, so that each
// CUDA thread draws the elements it owns.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_PHILOX_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_PHILOX_H

#include "HostDevice.h"

#include <cstdint>

namespace transfuse::rt {

/// Four 32-bit words: a counter block, or the random block Philox maps it
/// to.
struct PhiloxBlock {
  uint32_t x0, x1, x2, x3;
};

/// The high word of the 64-bit product a · b (the low word is a * b).
TF_HOST_DEVICE uint32_t philoxMulHi(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

/// Philox-4x32-10 of counter block `ctr` under the key (key0, key1).
TF_HOST_DEVICE PhiloxBlock philox4x32x10(PhiloxBlock ctr, uint32_t key0,
                                         uint32_t key1) {
  constexpr uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0 = philoxMulHi(kMultiplier0, ctr.x0);
    uint32_t lo0 = kMultiplier0 * ctr.x0;
    uint32_t hi1 = philoxMulHi(kMultiplier1, ctr.x2);
    uint32_t lo1 = kMultiplier1 * ctr.x2;
    ctr = {hi1 ^ ctr.x1 ^ key0, lo1, hi0 ^ ctr.x3 ^ key1, lo0};
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
  return ctr;
}

/// A dropout site as the attention kernels' 64-bit `dropout_stream`
/// argument gives it: the site's stream in the low 32 bits and, in a
/// data-parallel step, the replica (rank) r in the high 32. Replica r's
/// elements are numbered after those of replicas 0 .. r-1, each of which
/// holds `numel` of the tensor (its shard of the batch, which leads), so N
/// replicas draw the masks that one process drawing the whole batch would.
struct DropoutSite {
  uint64_t stream;
  uint64_t firstElement;
};

TF_HOST_DEVICE DropoutSite dropoutSite(uint64_t argument, uint64_t numel) {
  return {argument & 0xffffffffu, (argument >> 32) * numel};
}

/// The uniform float in [0, 1) that dropout draws for element e of the
/// tensor dropped at site `stream` under `key`: four consecutive elements
/// share a block, one word each. The word >> 8 has 24 bits, so the
/// conversion and the scaling are exact.
TF_HOST_DEVICE float dropoutUniform(uint64_t key, uint64_t stream, uint64_t e) {
  uint64_t block = e >> 2;
  PhiloxBlock counter = {
      static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
      static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
  PhiloxBlock x = philox4x32x10(counter, static_cast<uint32_t>(key),
                                static_cast<uint32_t>(key >> 32));
  // Selects, not an array indexed at run time, which a GPU would keep in
  // local memory.
  uint32_t low = (e & 1) != 0 ? x.x1 : x.x0;
  uint32_t high = (e & 1) != 0 ? x.x3 : x.x2;
  uint32_t word = (e & 2) != 0 ? high : low;
  return static_cast<float>(word >> 8) * 0x1p-24f;
}

/// Whether dropout at `rate` keeps element e.
TF_HOST_DEVICE bool dropoutKeeps(uint64_t key, uint64_t stream, uint64_t e,
                                 float rate) {
  return dropoutUniform(key, stream, e) >= rate;
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_PHILOX_H
