//===- EmulationTest.cpp - The CUDA emulation itself ----------------------===//
//
// Small kernels written here check what the kernel families' tests rely
// on: CUDA's semantics of the built-ins, blocks that each run once, and
// that what is undefined on a GPU (threads that part at a barrier, launch
// shapes beyond its limits) is reported rather than run.
//===----------------------------------------------------------------------===//
#include "CudaEmulation.h"
#include "DeviceTesting.h"
#include "KernelTable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

namespace {

using namespace transfuse::emu;

constexpr unsigned kFullMask = 0xffffffffu;

__global__ void shuffleLanes(int *byLane, double *byHalfWarp, int *outside) {
  unsigned t = threadIdx.x;
  byLane[t] = __shfl_xor_sync(kFullMask, int(10 * t), 1);
  byHalfWarp[t] = __shfl_xor_sync(kFullMask, t + 0.5, 16);
  outside[t] = __shfl_xor_sync(kFullMask, int(t), 32);
}

/// Each block writes its threads' global indices reversed, through shared
/// memory.
__global__ void reverseThroughShared(unsigned *out) {
  __shared__ unsigned tile[256];
  unsigned block =
      blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned thread =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  tile[thread] = block * threads + thread;
  __syncthreads();
  out[block * threads + thread] = tile[threads - 1 - thread];
}

__global__ void recordBlock(std::vector<unsigned> *order) {
  if (threadIdx.x == 0)
    order->push_back(blockIdx.x);
}

__global__ void returnBeforeSync() {
  if (threadIdx.x == 3)
    return;
  __syncthreads();
}

__global__ void returnBeforeShuffle() {
  if (threadIdx.x == 5)
    return;
  __shfl_xor_sync(kFullMask, 1.0f, 1);
}

const KernelRegistration kernels{
    TF_EMU_KERNEL(shuffleLanes),        TF_EMU_KERNEL(reverseThroughShared),
    TF_EMU_KERNEL(recordBlock),         TF_EMU_KERNEL(returnBeforeSync),
    TF_EMU_KERNEL(returnBeforeShuffle),
};

TEST(CudaEmulation, ShufflesExchangeWithinEachWarp) {
  std::vector<int> byLane(64), outside(64);
  std::vector<double> byHalfWarp(64);
  EXPECT_EQ(launchKernel("shuffleLanes", {1}, {64}, 0, byLane.data(),
                         byHalfWarp.data(), outside.data()),
            "");
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(byLane[t], 10 * (t ^ 1)) << t;
    EXPECT_EQ(byHalfWarp[t], (t ^ 16) + 0.5) << t;
    // Lane (t ^ 32) is beyond the warp: a lane gets its own value.
    EXPECT_EQ(outside[t], t) << t;
  }
}

TEST(CudaEmulation, SyncThreadsOrdersSharedMemoryInEveryBlock) {
  std::vector<unsigned> out(8 * 256);
  EXPECT_EQ(launchKernel("reverseThroughShared", {2, 2, 2}, {64, 2, 2}, 0,
                         out.data()),
            "");
  for (unsigned i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], i / 256 * 256 + 255 - i % 256) << i;
}

TEST(CudaEmulation, EachBlockRunsOnceInEitherOrder) {
  auto order = [](bool shuffled) {
    std::vector<unsigned> blocks;
    std::optional<ShuffledBlocks> scope;
    if (shuffled)
      scope.emplace();
    EXPECT_EQ(launchKernel("recordBlock", {50}, {32}, 0, &blocks), "");
    return blocks;
  };
  std::vector<unsigned> ascending(50);
  std::iota(ascending.begin(), ascending.end(), 0);
  EXPECT_EQ(order(false), ascending);
  std::vector<unsigned> shuffled = order(true);
  EXPECT_NE(shuffled, ascending);
  std::sort(shuffled.begin(), shuffled.end());
  EXPECT_EQ(shuffled, ascending);
}

TEST(CudaEmulation, LaunchesTheDriverRefusesFail) {
  int *unused = nullptr;
  EXPECT_EQ(launchKernel("recordBlock", {1}, {2048}, 0, unused),
            "launch: launching kernel recordBlock: block (2048, 1, 1) beyond "
            "1024 threads");
  EXPECT_EQ(launchKernel("recordBlock", {0}, {32}, 0, unused),
            "launch: launching kernel recordBlock: grid (0, 1, 1) outside [1, "
            "2^31 - 1] × [1, 65535]²");
  EXPECT_EQ(
      launchKernel("recordBlock", {1}, {32}, kMaxDynamicSharedBytes + 4,
                   unused),
      "launch: launching kernel recordBlock: 166916 bytes of dynamic shared "
      "memory, more than 166912");
  EXPECT_EQ(launchKernel("recordBlock", {1}, {32}, 0),
            "launch: kernel recordBlock takes 1 arguments, launched with 0");
  EXPECT_EQ(launchKernel("tf_no_such_kernel", {1}, {32}, 0),
            "launch: no kernel tf_no_such_kernel");
}

TEST(CudaEmulationDeathTest, ThreadsThatPartAtABarrierEndTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto run = [](const char *kernel) { launchKernel(kernel, {2}, {64}, 0); };
  EXPECT_DEATH(run("returnBeforeSync"),
               "kernel returnBeforeSync, block \\(0, 0, 0\\) of grid \\(2, 1, "
               "1\\): some threads returned while others wait at "
               "__syncthreads");
  EXPECT_DEATH(run("returnBeforeShuffle"),
               "a warp shuffle misses lanes that returned from the kernel");
}

} // namespace
