//===- Grid.cpp - Running a CUDA grid on the CPU --------------------------===//
//
// A launch creates one thread per CUDA thread of a block; these threads run
// every block in turn. Two kinds of barrier tie them together: the block's
// (__syncthreads, and the end of each block, where the next one is set up)
// and each warp's (shuffles). A barrier records why each thread arrived,
// so that threads that meet at different places (some returned from the
// kernel while the others wait at __syncthreads or a shuffle) are reported
// instead of passing or hanging. Threads that wait at barriers that can
// never complete are caught by the launching thread, which watches that
// barriers keep completing.
//===----------------------------------------------------------------------===//
#include "CudaEmulation.h"

#include <linux/futex.h>
#include <sanitizer/asan_interface.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace transfuse::emu {
namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;
/// How long the threads of a launch may go without completing a barrier
/// before they are taken to be deadlocked: far longer than any phase of
/// the tests takes, sanitizers included.
constexpr std::chrono::seconds kStallLimit{60};

/// Why a thread arrived at a barrier; a phase ORs its threads' reasons.
enum Arrival : unsigned { kSyncThreads = 1, kShuffle = 2, kExit = 4 };

/// Sleeps while `word` holds `expected`. The futex, rather than
/// std::atomic::wait, because libstdc++'s waits and notifications count
/// waiters in a pool shared by all atomics, whose sequentially consistent
/// updates would order every waiting thread after every other one: a
/// missing __syncthreads between two warps would then be hidden from
/// ThreadSanitizer.
void sleepWhile(std::atomic<uint32_t> &word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAIT_PRIVATE,
          expected, nullptr, nullptr, 0);
}

void wakeAll(std::atomic<uint32_t> &word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE,
          INT_MAX, nullptr, nullptr, 0);
}

/// A reusable barrier of a fixed number of threads. A thread reads the
/// current phase, then arrives at it; the phase ends when every member has
/// arrived, the last one calling `end` with the OR of all reasons before
/// the phase advances and the waiting members go on.
class Barrier {
public:
  explicit Barrier(unsigned members) : members_(members) {}

  uint32_t phase() const { return phase_.load(std::memory_order_acquire); }
  unsigned arrived() const { return arrived_.load(std::memory_order_relaxed); }

  template <typename End>
  void arrive(uint32_t phase, Arrival why, bool wait, const End &end) {
    reasons_.fetch_or(why, std::memory_order_relaxed);
    // acq_rel: the last member sees every member's writes, including the
    // reasons and a shuffle's slot.
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == members_) {
      unsigned reasons = reasons_.exchange(0, std::memory_order_relaxed);
      arrived_.store(0, std::memory_order_relaxed);
      end(reasons);
      phase_.store(phase + 1, std::memory_order_release);
      wakeAll(phase_);
      return;
    }
    if (!wait)
      return;
    while (phase_.load(std::memory_order_acquire) == phase)
      sleepWhile(phase_, phase);
  }

private:
  const unsigned members_;
  std::atomic<unsigned> arrived_{0}, reasons_{0};
  std::atomic<uint32_t> phase_{0};
};

struct Warp {
  explicit Warp(unsigned lanes) : barrier(lanes), lanes(lanes) {}
  Barrier barrier;
  unsigned lanes;
  /// Each lane's value of a shuffle, in two sets used in alternate phases:
  /// a lane writes the next phase's set while others may still read this
  /// one's, and cannot get two phases ahead of any of them.
  uint64_t slots[2][kWarpSize];
};

/// Where the dynamic shared memory of the blocks lies.
struct SharedMemory {
  unsigned char *memory;
  size_t bytes;
};

std::vector<SharedMemory> &sharedMemories() {
  static std::vector<SharedMemory> memories;
  return memories;
}

int shuffledScopes = 0;

/// The order in which blocks 0 .. blocks - 1 run.
std::vector<size_t> blockOrder(size_t blocks) {
  std::vector<size_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  if (shuffledScopes > 0) {
    std::mt19937_64 generator(0x5eed);
    std::shuffle(order.begin(), order.end(), generator);
    // A shuffle of few blocks may change nothing.
    if (std::is_sorted(order.begin(), order.end()))
      std::reverse(order.begin(), order.end());
  }
  return order;
}

/// A launch in progress; there is one at a time.
struct GridRun {
  GridRun(const Launch &launch, unsigned threads)
      : launch(launch), order(blockOrder(size_t(launch.grid.x) * launch.grid.y *
                                         launch.grid.z)),
        block(threads) {
    for (unsigned first = 0; first < threads; first += kWarpSize)
      warps.push_back(
          std::make_unique<Warp>(std::min(kWarpSize, threads - first)));
  }

  const Launch &launch;
  std::vector<size_t> order;
  /// The index in `order` of the block running.
  size_t position = 0;
  Barrier block;
  std::vector<std::unique_ptr<Warp>> warps;
  /// Barrier phases completed so far, which the launching thread watches.
  std::atomic<uint64_t> progress{0};
  std::mutex mutex;
  std::condition_variable finished;
  unsigned threadsDone = 0;
};

GridRun *running = nullptr;
/// The calling thread's index in its block, x fastest.
thread_local unsigned threadRank;

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr,
               "CUDA emulation: kernel %s, block (%u, %u, %u) of grid (%u, "
               "%u, %u): %s\n",
               running->launch.name, blockIdx.x, blockIdx.y, blockIdx.z,
               gridDim.x, gridDim.y, gridDim.z, what.c_str());
  std::abort();
}

void enterBlock(GridRun &run) {
  size_t index = run.order[run.position];
  const Dim3 &grid = run.launch.grid;
  blockIdx = {static_cast<unsigned>(index % grid.x),
              static_cast<unsigned>(index / grid.x % grid.y),
              static_cast<unsigned>(index / grid.x / grid.y)};
  // All ones: NaN in every float, what a block that reads shared memory
  // before writing it should see.
  for (const SharedMemory &shared : sharedMemories())
    std::memset(shared.memory, 0xff, run.launch.sharedBytes);
}

void endBlockPhase(GridRun &run, unsigned reasons) {
  if (reasons == (kSyncThreads | kExit))
    fail("some threads returned while others wait at __syncthreads");
  run.progress.fetch_add(1, std::memory_order_relaxed);
  if (reasons == kExit && ++run.position < run.order.size())
    enterBlock(run);
}

void endWarpPhase(unsigned reasons) {
  if (reasons == (kShuffle | kExit))
    fail("a warp shuffle misses lanes that returned from the kernel");
  running->progress.fetch_add(1, std::memory_order_relaxed);
}

void runThread(GridRun &run, unsigned rank) {
  const Dim3 &block = run.launch.block;
  threadRank = rank;
  threadIdx = {rank % block.x, rank / block.x % block.y,
               rank / block.x / block.y};
  Warp &warp = *run.warps[rank / kWarpSize];
  for (size_t b = 0; b < run.order.size(); ++b) {
    run.launch.body(run.launch.params);
    // Only shuffles wait for the warp; a lane that returned waits for the
    // block.
    warp.barrier.arrive(warp.barrier.phase(), kExit, /*wait=*/false,
                        endWarpPhase);
    run.block.arrive(run.block.phase(), kExit, /*wait=*/true,
                     [&](unsigned reasons) { endBlockPhase(run, reasons); });
  }
  std::lock_guard<std::mutex> lock(run.mutex);
  ++run.threadsDone;
  run.finished.notify_one();
}

/// Waits for the threads of `run` to finish; ends the process if barriers
/// stop completing before they do.
void watch(GridRun &run, unsigned threads) {
  std::unique_lock<std::mutex> lock(run.mutex);
  uint64_t seen = run.progress.load(std::memory_order_relaxed);
  auto lastChange = std::chrono::steady_clock::now();
  while (!run.finished.wait_for(lock, std::chrono::seconds(1),
                                [&] { return run.threadsDone == threads; })) {
    uint64_t now = run.progress.load(std::memory_order_relaxed);
    if (now != seen) {
      seen = now;
      lastChange = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - lastChange > kStallLimit) {
      std::string waiting = std::to_string(run.block.arrived()) + " of " +
                            std::to_string(threads) +
                            " threads at __syncthreads or the block's end";
      for (size_t w = 0; w < run.warps.size(); ++w)
        waiting += ", " + std::to_string(run.warps[w]->barrier.arrived()) +
                   " lanes of warp " + std::to_string(w) + " at a shuffle";
      fail("deadlock: " + waiting);
    }
  }
}

std::string shape(const Dim3 &d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " +
         std::to_string(d.z) + ")";
}

} // namespace

std::string launchError(const Launch &launch) {
  const Dim3 &grid = launch.grid, &block = launch.block;
  if (grid.x < 1 || grid.x > 0x7fffffffu || grid.y < 1 || grid.y > 65535 ||
      grid.z < 1 || grid.z > 65535)
    return "grid " + shape(grid) + " outside [1, 2^31 - 1] × [1, 65535]²";
  if (block.x < 1 || block.y < 1 || block.z < 1 || block.x > 1024 ||
      block.y > 1024 || block.z > 64 ||
      uint64_t(block.x) * block.y * block.z > 1024)
    return "block " + shape(block) + " beyond 1024 threads";
  if (launch.sharedBytes > kMaxDynamicSharedBytes)
    return std::to_string(launch.sharedBytes) +
           " bytes of dynamic shared memory, more than " +
           std::to_string(kMaxDynamicSharedBytes);
  if (launch.sharedBytes > 0 && sharedMemories().empty())
    return "dynamic shared memory, which no kernel declares";
  return "";
}

void runGrid(const Launch &launch) {
  unsigned threads = launch.block.x * launch.block.y * launch.block.z;
  GridRun run(launch, threads);
  blockDim = launch.block;
  gridDim = launch.grid;
  for (const SharedMemory &shared : sharedMemories())
    ASAN_POISON_MEMORY_REGION(shared.memory + launch.sharedBytes,
                              shared.bytes - launch.sharedBytes);
  running = &run;
  enterBlock(run);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned rank = 0; rank < threads; ++rank)
    pool.emplace_back(runThread, std::ref(run), rank);
  watch(run, threads);
  for (std::thread &thread : pool)
    thread.join();
  running = nullptr;
  for (const SharedMemory &shared : sharedMemories())
    ASAN_UNPOISON_MEMORY_REGION(shared.memory, shared.bytes);
}

DynamicSharedMemory::DynamicSharedMemory(void *memory, size_t bytes) {
  sharedMemories().push_back({static_cast<unsigned char *>(memory), bytes});
}

ShuffledBlocks::ShuffledBlocks() { ++shuffledScopes; }
ShuffledBlocks::~ShuffledBlocks() { --shuffledScopes; }

void syncThreads() {
  GridRun &run = *running;
  run.block.arrive(run.block.phase(), kSyncThreads, /*wait=*/true,
                   [&](unsigned reasons) { endBlockPhase(run, reasons); });
}

uint64_t shuffleXor(unsigned mask, uint64_t value, int laneMask) {
  Warp &warp = *running->warps[threadRank / kWarpSize];
  if (mask != kFullMask)
    fail("a shuffle with mask " + std::to_string(mask) +
         ": only whole-warp shuffles are emulated");
  if (warp.lanes != kWarpSize)
    fail("a whole-warp shuffle in a warp of " + std::to_string(warp.lanes) +
         " threads");
  unsigned lane = threadRank % kWarpSize;
  uint32_t phase = warp.barrier.phase();
  uint64_t *slots = warp.slots[phase % 2];
  slots[lane] = value;
  warp.barrier.arrive(phase, kShuffle, /*wait=*/true, endWarpPhase);
  unsigned source = lane ^ static_cast<unsigned>(laneMask);
  return source < kWarpSize ? slots[source] : value;
}

} // namespace transfuse::emu
