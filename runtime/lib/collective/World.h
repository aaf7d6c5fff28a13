//===- World.h - The processes of a data-parallel run -----------*- C++ -*-===//
//
// Rank r of N: a process that an MPI launcher started joins the run
// through the transport plugin on first use; any other process is rank 0
// of 1 and never opens it. The gradients' all-reduces
// (tfrt_all_reduce_*, AllReduce.cpp) and the tools (tf_world_* in the C
// API) go through here.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_COLLECTIVE_WORLD_H
#define TRANSFUSE_RUNTIME_LIB_COLLECTIVE_WORLD_H

#include "TransportPlugin.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace transfuse::rt {

class World {
public:
  /// The run this process belongs to, joined on the first call; a failure
  /// to join (no plugin, MPI refusing) is an Error.
  static World &get();

  int32_t rank() const { return rank_; }
  int32_t size() const { return size_; }
  /// The transport, or null in a single process.
  const tf_transport *transport() const { return transport_; }
  /// How long an exchange may wait for the other ranks before the run is
  /// taken to be broken (TRANSFUSE_COLLECTIVE_TIMEOUT, seconds).
  std::chrono::duration<double> timeout() const { return timeout_; }

  /// Sums `count` doubles over the ranks in place.
  void sum(double *values, int64_t count);
  /// Gives every rank rank `root`'s `bytes` bytes at `data`.
  void broadcast(void *data, int64_t bytes, int32_t root);

  // An exchange in flight (a transport request); `what` names it in the
  // message of a failure, which ends the run. Only with a transport.

  /// Starts summing `count` floats at `data` over the ranks, in place.
  void *startSum(float *data, int64_t count, const std::string &what);
  /// Advances `request`; whether it is complete (and released).
  bool test(void *request, const std::string &what);
  /// Waits for `request` to complete, for the timeout at most: a rank that
  /// has not come by then is taken to have stopped, and the run ends.
  void complete(void *request, const std::string &what);

  /// Ends the whole run with `code` after printing `message` (prefixed with
  /// this rank) on stderr: for failures inside generated code, which cannot
  /// unwind, and for a broken run, which cannot go on.
  [[noreturn]] void abort(const std::string &message, int32_t code = 1);

private:
  World();

  int32_t rank_ = 0, size_ = 1;
  const tf_transport *transport_ = nullptr;
  std::chrono::duration<double> timeout_{60.0};
};

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_COLLECTIVE_WORLD_H
