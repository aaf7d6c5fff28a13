//===- Execution.h - An entry point running on the GPU ----------*- C++ -*-===//
//
// Generated host code calls the runtime's tfrt_cuda_* functions (kernel
// launches, GEMMs, the hand-written kernels) with device pointers and
// nothing else: the session, its stream and its modules are those of the
// Execution current on the calling thread, which DeviceSession::run sets
// for the duration of the entry point. Those functions cannot throw through
// generated code; a failure is recorded in the execution, the functions
// called after it do nothing, and the session reports the first failure
// once the entry point returns.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_EXECUTION_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_EXECUTION_H

#include "Driver.h"

#include "../Runtime.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace transfuse::rt::cuda {

class DeviceSession;

class Execution {
public:
  explicit Execution(DeviceSession &session);
  ~Execution();
  Execution(const Execution &) = delete;
  Execution &operator=(const Execution &) = delete;

  /// The execution of the calling thread, or null outside an entry point.
  static Execution *current();

  DeviceSession &session() const { return session_; }
  CUstream stream() const;

  bool failed() const { return !error_.empty(); }
  const std::string &error() const { return error_; }
  /// Keeps the first failure only: later ones are its consequences.
  void recordFailure(const std::string &message) {
    if (error_.empty())
      error_ = message;
  }

private:
  DeviceSession &session_;
  Execution *previous_;
  std::string error_;
};

/// Runs `body(execution)` for the runtime function `name` called by
/// generated code: not at all once the execution has failed, and an
/// exception becomes the execution's failure, prefixed by `name`.
template <typename Body> void onDevice(const char *name, const Body &body) {
  Execution *execution = Execution::current();
  if (!execution) {
    // Only generated code calls these, and only inside an entry point.
    std::fprintf(stderr, "%s: called outside a CUDA entry point\n", name);
    std::abort();
  }
  if (execution->failed())
    return;
  try {
    body(*execution);
  } catch (const Error &error) {
    execution->recordFailure(std::string(name) + ": " + error.what());
  }
}

/// A grid or block shape.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// Launches kernel `symbol` of the runtime's hand-written kernels
/// (KernelLibrary.h) on the execution's stream; `args` are passed by value,
/// in the kernel's parameter order and types.
template <typename... Args>
void launch(Execution &execution, const char *symbol, Dim3 grid, Dim3 block,
            unsigned sharedBytes, Args... args) {
  void *params[] = {static_cast<void *>(&args)..., nullptr};
  launchLibraryKernel(execution, symbol, grid, block, sharedBytes, params);
}

/// launch() without the packing of the arguments.
void launchLibraryKernel(Execution &execution, const char *symbol, Dim3 grid,
                         Dim3 block, unsigned sharedBytes, void **params);

/// Blocks of `threads` threads that cover `count` items, one per thread.
inline unsigned blocksFor(int64_t count, unsigned threads) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_EXECUTION_H
