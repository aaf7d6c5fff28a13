//===- Grid.h - Running a CUDA grid on the CPU ------------------*- C++ -*-===//
//
// A launch runs its blocks one after another, each on one std::thread per
// CUDA thread, so that the threads of a block really run concurrently (and
// ThreadSanitizer sees their races) while blocks share nothing but memory.
// CudaEmulation.h maps the CUDA built-ins the kernels use onto this file's
// functions.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_CUDAEMULATION_GRID_H
#define TRANSFUSE_TEST_CUDAEMULATION_GRID_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace transfuse::emu {

/// CUDA's dim3 and uint3: a grid or block shape, or an index into one.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// The most dynamic shared memory a block may have: sm_80's opt-in limit,
/// the smallest of the architectures the runtime's kernels are built for.
constexpr size_t kMaxDynamicSharedBytes = 166912;

/// A kernel's body as one thread runs it, on the launch's parameters (one
/// pointer per kernel parameter, as cuLaunchKernel takes them).
using KernelBody = void (*)(void *const *params);

struct Launch {
  const char *name;
  KernelBody body;
  void *const *params;
  Dim3 grid, block;
  size_t sharedBytes;
};

/// Why the driver would refuse `launch` (its shape beyond CUDA's limits, or
/// more dynamic shared memory than there is); empty when it would not.
std::string launchError(const Launch &launch);

/// Runs every block of `launch`, which launchError accepts, and returns
/// when all are done. A block whose threads diverge at __syncthreads or a
/// warp shuffle, or that stops making progress, ends the process with a
/// message naming the kernel and the block: the GPU's behaviour is
/// undefined there.
void runGrid(const Launch &launch);

/// Made at static initialisation, makes `bytes` at `memory` the dynamic
/// shared memory of every block: the storage that the kernels' `extern
/// __shared__` declaration names. Before each block its first sharedBytes
/// are set to NaN; under AddressSanitizer the rest is poisoned while a
/// launch runs.
struct DynamicSharedMemory {
  DynamicSharedMemory(void *memory, size_t bytes);
};

/// While alive, blocks run in a fixed pseudo-random order instead of in
/// the order of their indices: results that depend on the order in which
/// blocks run change.
class ShuffledBlocks {
public:
  ShuffledBlocks();
  ~ShuffledBlocks();
  ShuffledBlocks(const ShuffledBlocks &) = delete;
  ShuffledBlocks &operator=(const ShuffledBlocks &) = delete;
};

/// The calling CUDA thread's part of __syncthreads().
void syncThreads();

/// The calling lane's part of __shfl_xor_sync(mask, value, laneMask): the
/// `value` of lane (this lane ^ laneMask), its own where there is no such
/// lane. Every lane of the warp must call it with a full mask.
uint64_t shuffleXor(unsigned mask, uint64_t value, int laneMask);

} // namespace transfuse::emu

#endif // TRANSFUSE_TEST_CUDAEMULATION_GRID_H
