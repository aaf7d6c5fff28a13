//===- RowBlocks.h - Launch shapes of the row-reducing kernels --*- C++ -*-===//
//
// The layer-norm and loss kernels reduce rows with one block per row (or
// per chunk of rows) and sum per-row results with one block. Their host
// launchers and the kernels' __launch_bounds__ must agree on these shapes,
// and the reduction order, hence every bit of the results, depends on them:
// they are functions of the sizes alone, never of the device, so that a
// result is the same on every run.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_ROWBLOCKS_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_ROWBLOCKS_H

#include "HostDevice.h"

#include <cstdint>

namespace transfuse::rt {

/// The most threads of a block that reduces a row.
constexpr unsigned kRowThreadsMax = 512;
/// The elements of a row each of its threads should get before the block
/// grows: enough to hide a load's latency behind the next ones.
constexpr int64_t kRowElementsPerThread = 4;
/// The threads of the single block that reduces per-row results.
constexpr unsigned kReduceBlockThreads = 512;
/// The threads of a block of the kernels that take one row or one column
/// per thread.
constexpr unsigned kPerItemThreads = 256;
/// The block of the kernel that adds per-chunk partial column sums: a
/// warp's worth of adjacent columns (one coalesced read per chunk), and
/// kColumnLanes threads per column, each adding every kColumnLanes-th
/// chunk, so that hundreds of chunks are not one thread's chain of loads.
constexpr unsigned kColumnTile = 32;
constexpr unsigned kColumnLanes = 16;
/// The most blocks of a grid that strides over rows or chunks: far below
/// the grid's limit of 2^31 - 1, and enough to fill any GPU many times.
constexpr int64_t kGridBlocksMax = 65535;

/// The threads of the block that reduces a row of `width` elements: the
/// smallest power of two from one warp (32) to kRowThreadsMax that gives
/// each thread at most kRowElementsPerThread elements, so that narrow rows
/// leave few threads idle.
TF_HOST_DEVICE unsigned rowThreads(int64_t width) {
  unsigned threads = 32;
  while (threads < kRowThreadsMax &&
         static_cast<int64_t>(threads) * kRowElementsPerThread < width)
    threads *= 2;
  return threads;
}

/// A grid of `blocks` blocks capped at kGridBlocksMax; the kernels stride
/// over what a smaller grid does not cover.
TF_HOST_DEVICE unsigned gridBlocks(int64_t blocks) {
  return static_cast<unsigned>(blocks < kGridBlocksMax ? blocks
                                                       : kGridBlocksMax);
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_ROWBLOCKS_H
