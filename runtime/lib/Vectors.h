//===- Vectors.h - 16-float vectors of the CPU kernels -----------*- C++
//-*-===//
//
// GCC/Clang vector extensions of 16 lanes: one AVX-512 register, two AVX2
// ones. The kernels that use them are cloned per instruction set
// (target_clones): a v16 passed to or returned by a call from a clone would
// need AVX-512 in the ABI (Clang refuses it), so the clones call only
// functions without vector arguments, and these helpers are always inlined.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_VECTORS_H
#define TRANSFUSE_RUNTIME_LIB_VECTORS_H

#include <cstdint>
#include <cstring>

namespace transfuse::rt {

using v16 = float __attribute__((vector_size(64)));
using v16i = int32_t __attribute__((vector_size(64)));
constexpr int64_t kLanes = 16;

#define TF_INLINE inline __attribute__((always_inline))

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

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_VECTORS_H
