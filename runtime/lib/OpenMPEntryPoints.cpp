//===- OpenMPEntryPoints.cpp - LLVM's OpenMP ABI on libgomp's pool --------===//
//
// Generated code runs its parallel loops through MLIR's OpenMP lowering,
// which calls LLVM's OpenMP runtime ABI (__kmpc_*). The runtime's kernels and
// OpenBLAS run on libgomp's thread pool (Threads.cpp, Blas.cpp); loading
// LLVM's libomp as well would start a second pool competing for the same
// cores. So the runtime implements the five entry points that lowering emits
// (a fork, static worksharing, a barrier and the thread number) on libgomp.
// The lowering passes captured values as one aggregate pointer, so a forked
// microtask takes at most one argument past the two thread ids.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <omp.h>

namespace {

using Microtask = void (*)(int32_t *globalId, int32_t *boundId, ...);

/// The static schedule without a chunk (`schedule(static)`).
constexpr int32_t kStaticSchedule = 34;

[[noreturn]] void abiViolation(const char *what) {
  // Only a compiler bug gets here: generated code violates the ABI.
  std::fputs("transfuse runtime: generated code made an OpenMP call it "
             "does not support: ",
             stderr);
  std::fputs(what, stderr);
  std::fputc('\n', stderr);
  std::abort();
}

} // namespace

extern "C" {

TF_API int32_t __kmpc_global_thread_num(void *) { return omp_get_thread_num(); }

TF_API void __kmpc_fork_call(void *, int32_t argc, Microtask microtask, ...) {
  if (argc > 1)
    abiViolation("__kmpc_fork_call with more than one argument");
  void *argument = nullptr;
  if (argc == 1) {
    va_list arguments;
    va_start(arguments, microtask);
    argument = va_arg(arguments, void *);
    va_end(arguments);
  }
  transfuse::rt::ensureThreadsApplied();
#pragma omp parallel
  {
    int32_t id = omp_get_thread_num();
    int32_t boundId = id;
    if (argc == 1)
      microtask(&id, &boundId, argument);
    else
      microtask(&id, &boundId);
  }
}

/// Narrows the inclusive range [*lower, *upper] to the calling thread's
/// share: contiguous blocks, the first `trip % threads` one iteration
/// longer. An empty share has *upper one below *lower.
TF_API void __kmpc_for_static_init_8u(void *, int32_t, int32_t schedule,
                                      int32_t *isLast, uint64_t *lower,
                                      uint64_t *upper, int64_t *stride,
                                      int64_t increment, int64_t chunk) {
  if (schedule != kStaticSchedule || increment != 1 || chunk > 1)
    abiViolation("__kmpc_for_static_init_8u other than schedule(static) "
                 "with unit step");
  uint64_t first = *lower, last = *upper;
  uint64_t trip = last - first + 1;
  auto threads = static_cast<uint64_t>(omp_get_num_threads());
  auto thread = static_cast<uint64_t>(omp_get_thread_num());
  uint64_t base = trip / threads, longer = trip % threads;
  uint64_t begin = first + thread * base + std::min(thread, longer);
  uint64_t length = base + (thread < longer ? 1 : 0);
  *lower = begin;
  *upper = begin + length - 1;
  *stride = static_cast<int64_t>(trip);
  *isLast = length > 0 && begin + length - 1 == last;
}

TF_API void __kmpc_for_static_fini(void *, int32_t) {}

TF_API void __kmpc_barrier(void *, int32_t) {
#pragma omp barrier
}

} // extern "C"
