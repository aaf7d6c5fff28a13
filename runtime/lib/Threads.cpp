//===- Threads.cpp - The kernels' thread count ----------------------------===//
//
// One process-wide count, set through tf_set_num_threads (transfuse-run
// --threads). It does not come from the environment: OpenBLAS reads
// OPENBLAS_NUM_THREADS / OMP_NUM_THREADS when it starts, so the runtime
// overrides that before its first kernel runs with its own default, the
// number of CPUs the process may run on.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <atomic>
#include <cblas.h>
#include <mutex>
#include <sched.h>

namespace transfuse::rt {
namespace {

std::atomic<int32_t> requestedThreads{0};
std::once_flag appliedOnce;

int32_t defaultThreads() {
  static const int32_t count = [] {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
      return static_cast<int32_t>(CPU_COUNT(&set));
    unsigned hardware = std::thread::hardware_concurrency();
    return static_cast<int32_t>(hardware ? hardware : 1);
  }();
  return count;
}

} // namespace

int32_t numThreads() {
  int32_t requested = requestedThreads.load(std::memory_order_relaxed);
  return requested > 0 ? requested : defaultThreads();
}

void setNumThreads(int32_t threads) {
  if (threads < 0)
    fail(TF_ERROR_INVALID_ARGUMENT,
         "thread count must be >= 0 (0 for the default), got " +
             std::to_string(threads));
  requestedThreads.store(threads, std::memory_order_relaxed);
  std::call_once(appliedOnce, [] {});
  openblas_set_num_threads(numThreads());
}

void ensureThreadsApplied() {
  std::call_once(appliedOnce, [] { openblas_set_num_threads(numThreads()); });
}

} // namespace transfuse::rt
