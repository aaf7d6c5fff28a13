//===- TensorBatch.h - Many tensors in one kernel launch --------*- C++ -*-===//
//
// The optimizer's kernels take the step's tensors kBatchTensors at a time,
// their addresses and sizes in one kernel parameter passed by value, so
// that a step updates all its parameters in a few launches rather than one
// (or two, with the global norm) per parameter. The struct stays under the
// 4 KiB of parameters every architecture accepts. A launch over elements
// gives each tensor ceil(size / kBatchBlockElements) consecutive blocks;
// the host fills firstBlock, where each tensor's blocks start.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_TENSORBATCH_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_TENSORBATCH_H

#include "HostDevice.h"

#include <cstdint>

namespace transfuse::rt {

/// Tensors of one launch.
constexpr int32_t kBatchTensors = 48;
/// Elements of a tensor one block updates.
constexpr int64_t kBatchBlockElements = 4096;

/// `Arrays` buffers per tensor (a parameter, its gradient, its optimizer
/// state), each kernel documenting which it writes; a buffer may be null
/// where the kernel says so.
template <int Arrays> struct TensorBatch {
  float *data[Arrays][kBatchTensors];
  int64_t size[kBatchTensors];
  /// Tensor t's blocks are [firstBlock[t], firstBlock[t + 1]).
  uint32_t firstBlock[kBatchTensors + 1];
  int32_t count;
};

static_assert(sizeof(TensorBatch<4>) + 128 <= 4096,
              "a batch and the kernel's other parameters fit in 4 KiB");

/// The tensor whose blocks include `block` (< firstBlock[count]).
template <int Arrays>
TF_HOST_DEVICE int32_t tensorOfBlock(const TensorBatch<Arrays> &batch,
                                     uint32_t block) {
  int32_t t = 0;
  while (block >= batch.firstBlock[t + 1])
    ++t;
  return t;
}

/// Blocks of kBatchBlockElements that cover `size` elements.
TF_HOST_DEVICE int64_t blocksOfTensor(int64_t size) {
  return (size + kBatchBlockElements - 1) / kBatchBlockElements;
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_TENSORBATCH_H
