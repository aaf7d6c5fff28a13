//===- RuntimeOpenMPEntryPointsTest.cpp - __kmpc_* on libgomp -------------===//
//
// Generated parallel loops call these entry points exactly as MLIR's OpenMP
// lowering emits them: a fork with one aggregate argument, then in each
// thread a static worksharing init over an inclusive unsigned range.
//===----------------------------------------------------------------------===//
#include "RuntimeTesting.h"

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <mutex>
#include <set>

extern "C" {
int32_t __kmpc_global_thread_num(void *);
void __kmpc_fork_call(void *, int32_t, void (*)(int32_t *, int32_t *, ...),
                      ...);
void __kmpc_for_static_init_8u(void *, int32_t, int32_t, int32_t *, uint64_t *,
                               uint64_t *, int64_t *, int64_t, int64_t);
void __kmpc_for_static_fini(void *, int32_t);
void __kmpc_barrier(void *, int32_t);
}

namespace {

constexpr int32_t kStaticSchedule = 34;

/// What the threads of one fork report.
struct Shares {
  uint64_t first, last;
  std::mutex mutex;
  std::vector<std::pair<uint64_t, uint64_t>> ranges; // non-empty [lo, hi]
  int lastFlags = 0;
  std::set<int32_t> threadIds;
  std::atomic<int> beforeBarrier{0};
  std::atomic<int> sawAllBeforeBarrier{0};
  std::atomic<int> threads{0};
};

void worksharingTask(int32_t *globalId, int32_t *boundId, ...) {
  va_list arguments;
  va_start(arguments, boundId);
  auto *shares = static_cast<Shares *>(va_arg(arguments, void *));
  va_end(arguments);
  EXPECT_EQ(*globalId, *boundId);
  EXPECT_EQ(__kmpc_global_thread_num(nullptr), *globalId);
  shares->threads.fetch_add(1);
  int32_t isLast = 0;
  uint64_t lower = shares->first, upper = shares->last;
  int64_t stride = 0;
  __kmpc_for_static_init_8u(nullptr, *globalId, kStaticSchedule, &isLast,
                            &lower, &upper, &stride, 1, 0);
  {
    std::lock_guard<std::mutex> lock(shares->mutex);
    shares->threadIds.insert(*globalId);
    if (upper + 1 != lower) // an empty share is [x, x - 1]
      shares->ranges.emplace_back(lower, upper);
    shares->lastFlags += isLast;
  }
  __kmpc_for_static_fini(nullptr, *globalId);
  shares->beforeBarrier.fetch_add(1);
  __kmpc_barrier(nullptr, *globalId);
  if (shares->beforeBarrier.load() == shares->threads.load())
    shares->sawAllBeforeBarrier.fetch_add(1);
}

/// Forks over [first, last] on `threads` threads and checks that the shares
/// cover every iteration once, in contiguous blocks differing by at most
/// one, with exactly one thread told it runs the last iteration.
void checkPartition(int32_t threads, uint64_t first, uint64_t last) {
  SCOPED_TRACE("threads " + std::to_string(threads) + ", [" +
               std::to_string(first) + ", " + std::to_string(last) + "]");
  tf_set_num_threads(threads);
  Shares shares;
  shares.first = first;
  shares.last = last;
  __kmpc_fork_call(nullptr, 1, worksharingTask, &shares);
  EXPECT_EQ(shares.threads.load(), threads);
  EXPECT_EQ(shares.threadIds.size(), static_cast<size_t>(threads));
  EXPECT_EQ(shares.sawAllBeforeBarrier.load(), threads);
  EXPECT_EQ(shares.lastFlags, 1);
  std::sort(shares.ranges.begin(), shares.ranges.end());
  uint64_t next = first, trip = last - first + 1;
  uint64_t shortest = trip / threads;
  for (auto [lo, hi] : shares.ranges) {
    EXPECT_EQ(lo, next);
    uint64_t length = hi - lo + 1;
    EXPECT_TRUE(length == shortest || length == shortest + 1) << length;
    next = hi + 1;
  }
  EXPECT_EQ(next, last + 1);
}

TEST(RuntimeOpenMPEntryPoints, StaticScheduleCoversEveryIterationOnce) {
  checkPartition(2, 0, 63);
  checkPartition(3, 0, 9);
  checkPartition(4, 5, 5);   // fewer iterations than threads
  checkPartition(3, 7, 106); // a range that does not start at zero
  checkPartition(1, 0, 999);
  tf_set_num_threads(0);
}

/// A microtask without an argument can only report through a global.
std::atomic<int> argumentlessCalls{0};

void argumentlessTask(int32_t *, int32_t *, ...) {
  argumentlessCalls.fetch_add(1);
}

TEST(RuntimeOpenMPEntryPoints, ForkWithoutArgumentRunsEveryThread) {
  tf_set_num_threads(3);
  argumentlessCalls.store(0);
  __kmpc_fork_call(nullptr, 0, argumentlessTask);
  EXPECT_EQ(argumentlessCalls.load(), 3);
  tf_set_num_threads(0);
}

} // namespace
