//===- EntryGraph.h - An entry point replayed as a CUDA graph ---*- C++ -*-===//
//
// Generated host code launches an entry point's kernels one by one: for a
// small model the step is then bound by the host (char_lm's train_step is
// about 200 launches). Every launch of an entry point depends on nothing
// but the session's device buffers, whose addresses never change, and on
// values that live in device memory (the step, the learning rate, the
// dropout keys, a decoding position), so what one call launches is what
// every call launches: the session captures it once as a CUDA graph and
// replays that graph, one launch per call, from then on.
//
// The first call runs uncaptured, because it is where the lazily loaded
// pieces load (cuBLASLt, its plans and kernels, modules the driver loads
// on first launch), and those are not allowed in a capture; the second is
// captured, then launched.
//
// TRANSFUSE_CUDA_GRAPHS=0 in the environment keeps every call uncaptured
// (to profile kernel by kernel, or to tell a fault in a capture apart from
// one in the code); 1, or unset, captures.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_ENTRYGRAPH_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_ENTRYGRAPH_H

#include "Driver.h"

namespace transfuse::rt::cuda {

/// TRANSFUSE_CUDA_GRAPHS: true when unset or "1", false for "0"; anything
/// else throws TF_ERROR_INVALID_ARGUMENT naming the variable and its value.
bool graphsFromEnvironment();

class EntryGraph {
public:
  EntryGraph() = default;
  EntryGraph(EntryGraph &&other) noexcept;
  EntryGraph &operator=(EntryGraph &&other) noexcept;
  EntryGraph(const EntryGraph &) = delete;
  EntryGraph &operator=(const EntryGraph &) = delete;
  /// Must run while the graph's context is current and before the modules
  /// whose kernels it launches are unloaded.
  ~EntryGraph();

  /// Whether a graph has been captured: launch() replays it.
  bool captured() const { return exec_ != nullptr; }
  /// Whether the next call is to be captured: once one has run uncaptured.
  bool capturesNext() const { return !exec_ && ranUncaptured_; }
  /// Notes a call run without capture.
  void ranUncaptured() { ranUncaptured_ = true; }

  /// Puts `stream` in capture mode: what this thread launches on it from
  /// now on is recorded, not run, until endCapture().
  void beginCapture(CUstream stream);
  /// Takes `stream` out of capture mode and, when `keep` (the launches all
  /// succeeded), makes what it recorded the graph launch() replays;
  /// otherwise drops the recording. Throws when the capture or its
  /// instantiation failed and `keep` is set.
  void endCapture(CUstream stream, bool keep);
  /// Replays the captured launches on `stream`.
  void launch(CUstream stream) const;

private:
  CUgraphExec exec_ = nullptr;
  bool ranUncaptured_ = false;
};

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_ENTRYGRAPH_H
