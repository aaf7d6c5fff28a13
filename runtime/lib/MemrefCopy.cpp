//===- MemrefCopy.cpp - Copies between strided buffers of generated code --===//
//
// Generated code copies between buffers whose layouts differ (a gradient
// written into a slice of a fused projection's gradient, say) through
// `memrefCopy`, MLIR's generic copy, which takes both buffers as unranked
// descriptors. Rows whose last dimension is contiguous on both sides move
// with one memcpy each.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <cstring>
#include <vector>

namespace {

/// MLIR's ranked descriptor behind an unranked one: base and aligned
/// pointers, the offset, then `rank` sizes and `rank` strides (elements).
struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

struct UnrankedMemRef {
  int64_t rank;
  Descriptor *descriptor;
};

} // namespace

extern "C" TF_API void memrefCopy(int64_t elementSize, UnrankedMemRef *source,
                                  UnrankedMemRef *target) {
  int64_t rank = source->rank;
  const Descriptor &src = *source->descriptor;
  const Descriptor &dst = *target->descriptor;
  const int64_t *sizes = src.sizesAndStrides;
  const int64_t *srcStrides = src.sizesAndStrides + rank;
  const int64_t *dstStrides = dst.sizesAndStrides + rank;
  char *from = src.aligned + src.offset * elementSize;
  char *to = dst.aligned + dst.offset * elementSize;
  if (rank == 0) {
    std::memcpy(to, from, elementSize);
    return;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] == 0)
      return;
  int64_t inner = sizes[rank - 1];
  bool contiguousRows = srcStrides[rank - 1] == 1 && dstStrides[rank - 1] == 1;
  // An odometer over the outer dimensions.
  std::vector<int64_t> index(rank, 0);
  for (;;) {
    int64_t srcOffset = 0, dstOffset = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      srcOffset += index[d] * srcStrides[d];
      dstOffset += index[d] * dstStrides[d];
    }
    if (contiguousRows) {
      std::memcpy(to + dstOffset * elementSize, from + srcOffset * elementSize,
                  inner * elementSize);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(to + (dstOffset + i * dstStrides[rank - 1]) * elementSize,
                    from + (srcOffset + i * srcStrides[rank - 1]) * elementSize,
                    elementSize);
    }
    int64_t d = rank - 2;
    while (d >= 0 && ++index[d] == sizes[d])
      index[d--] = 0;
    if (d < 0)
      return;
  }
}
