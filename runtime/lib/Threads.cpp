//===- Threads.cpp - The kernels' thread count ----------------------------===//
//
// One process-wide count, set through tf_set_num_threads (transfuse-run
// --threads), for the runtime's own kernels and the GEMM's tiles, all on
// libgomp's pool (Blas.cpp); OpenBLAS itself runs single-threaded. It does not
// come from the environment; the default is the number of CPUs the process may
// run on.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <atomic>
#include <mutex>
#include <omp.h>
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

void apply() {
  // OpenBLAS runs single-threaded inside the GEMM's own tiles (Gemm.cpp).
  // Its OpenMP build sets the caller's OpenMP count along with its own, so
  // the runtime's count is set after it.
  blas().setNumThreads(1);
  omp_set_num_threads(numThreads());
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
  apply();
}

void ensureThreadsApplied() { std::call_once(appliedOnce, apply); }

} // namespace transfuse::rt
