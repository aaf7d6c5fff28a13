//===- EntryGraph.cpp - Capture, instantiation and replay -----------------===//
#include "EntryGraph.h"

#include "../Runtime.h"

#include <cstdlib>
#include <string>
#include <utility>

namespace transfuse::rt::cuda {

bool graphsFromEnvironment() {
  const char *setting = std::getenv("TRANSFUSE_CUDA_GRAPHS");
  if (!setting || std::string(setting) == "1")
    return true;
  if (std::string(setting) == "0")
    return false;
  fail(TF_ERROR_INVALID_ARGUMENT,
       std::string("TRANSFUSE_CUDA_GRAPHS is '") + setting +
           "': 1 (or unset) replays each entry point as a CUDA graph, 0 "
           "launches its kernels one by one");
}

EntryGraph::EntryGraph(EntryGraph &&other) noexcept
    : exec_(std::exchange(other.exec_, nullptr)),
      ranUncaptured_(other.ranUncaptured_) {}

EntryGraph &EntryGraph::operator=(EntryGraph &&other) noexcept {
  std::swap(exec_, other.exec_);
  std::swap(ranUncaptured_, other.ranUncaptured_);
  return *this;
}

EntryGraph::~EntryGraph() {
  if (exec_)
    driver().cuGraphExecDestroy(exec_);
}

void EntryGraph::beginCapture(CUstream stream) {
  // Thread-local: another thread's sessions go on launching meanwhile, and
  // a call this thread must not make while capturing fails at once.
  check(driver().cuStreamBeginCapture(stream,
                                      CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        "starting to capture the entry point as a CUDA graph");
}

void EntryGraph::endCapture(CUstream stream, bool keep) {
  const Driver &d = driver();
  CUgraph graph = nullptr;
  CUresult ended = d.cuStreamEndCapture(stream, &graph);
  if (!keep) {
    if (graph)
      d.cuGraphDestroy(graph);
    return;
  }
  check(ended, "capturing the entry point as a CUDA graph");
  CUgraphExec exec = nullptr;
  CUresult instantiated = d.cuGraphInstantiate(&exec, graph, 0);
  // The executable graph is a copy: the recording is not needed any more.
  d.cuGraphDestroy(graph);
  check(instantiated, "instantiating the entry point's CUDA graph");
  exec_ = exec;
}

void EntryGraph::launch(CUstream stream) const {
  check(driver().cuGraphLaunch(exec_, stream),
        "launching the entry point's CUDA graph");
}

} // namespace transfuse::rt::cuda
