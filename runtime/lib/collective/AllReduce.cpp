//===- AllReduce.cpp - The gradients' all-reduces of generated code -------===//
//
// nn-collectives-to-runtime-call turns each bucket of a data-parallel
// train_step into tfrt_all_reduce_add (one per gradient), then
// tfrt_all_reduce_start, and tfrt_all_reduce_wait where a gradient is next
// used. The start packs the bucket into one message, each value times this
// rank's weight for a mean, and starts summing it over the ranks; the wait
// completes it and unpacks the sums into the gradients. Every start also
// advances the exchanges still in flight, since MPI progresses mostly
// inside its calls.
//
// In a single process all three return at once: the weight is 1 and the
// sum is the value. Generated code cannot unwind, so a failure here ends
// the run (World::abort) with a message naming the bucket; a rank that
// waits longer than the timeout takes the run to be broken.
//
// tfrt_replica_index gives generated code this process's rank, which
// numbers its dropout elements after those of the ranks before it.
//
// The table is process-wide: one train step runs at a time per process.
//===----------------------------------------------------------------------===//
#include "AllReduce.h"

#include "../Runtime.h"
#include "World.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace transfuse::rt {
namespace {

using Clock = std::chrono::steady_clock;

/// More buckets than any model issues: a larger number is a compiler bug.
constexpr int64_t kMaxBuckets = int64_t(1) << 20;
/// nn::Reduction's values.
constexpr int32_t kSum = 0, kMean = 1;

struct Part {
  float *data;
  int64_t count;
};

struct Bucket {
  std::vector<Part> parts;
  std::vector<float> packed;
  void *request = nullptr;
  bool inFlight = false;
};

struct AllReduces {
  std::vector<Bucket> buckets;
  /// This rank's weight in a mean; negative until set (then 1 / size).
  double weight = -1;
  bool overlap = true;
  AllReduceStats stats;

  AllReduces() {
    const char *overlapText = std::getenv("TRANSFUSE_ALL_REDUCE_OVERLAP");
    overlap = !overlapText || std::strcmp(overlapText, "0") != 0;
  }
};

/// The run, for code that cannot take an exception: failing to join it
/// ends the process.
World &joinedWorld() {
  try {
    return World::get();
  } catch (const Error &error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    std::_Exit(1);
  }
}

AllReduces &table() {
  static AllReduces instance;
  return instance;
}

std::string nameOf(int64_t index) {
  return "all-reduce bucket " + std::to_string(index);
}

/// The bucket `index` of generated code, which must be one it can issue.
Bucket &bucketAt(World &world, int64_t index) {
  if (index < 0 || index >= kMaxBuckets)
    world.abort(nameOf(index) + " is out of range (a compiler bug)");
  std::vector<Bucket> &buckets = table().buckets;
  if (static_cast<size_t>(index) >= buckets.size())
    buckets.resize(index + 1);
  return buckets[index];
}

/// Advances `bucket`'s exchange, if it is in flight.
void poll(World &world, int64_t index, Bucket &bucket) {
  if (bucket.inFlight && world.test(bucket.request, nameOf(index))) {
    bucket.inFlight = false;
    bucket.request = nullptr;
  }
}

/// Completes `bucket`'s exchange and unpacks the sums into its buffers.
void waitFor(World &world, int64_t index, Bucket &bucket) {
  Clock::time_point begin = Clock::now();
  if (bucket.inFlight)
    world.complete(bucket.request, nameOf(index));
  bucket.inFlight = false;
  bucket.request = nullptr;
  table().stats.waitSeconds +=
      std::chrono::duration<double>(Clock::now() - begin).count();
  size_t offset = 0;
  for (const Part &part : bucket.parts) {
    std::memcpy(part.data, bucket.packed.data() + offset,
                part.count * sizeof(float));
    offset += part.count;
  }
  bucket.parts.clear();
}

} // namespace

void setAllReduceWeight(double weight) {
  if (!std::isfinite(weight) || weight < 0 || weight > 1)
    fail(TF_ERROR_INVALID_ARGUMENT,
         "a rank's weight must be in [0, 1], got " + std::to_string(weight));
  table().weight = weight;
}

double allReduceWeight() {
  double weight = table().weight;
  return weight >= 0 ? weight : 1.0 / joinedWorld().size();
}

AllReduceStats allReduceStats() { return table().stats; }

} // namespace transfuse::rt

using namespace transfuse::rt;

extern "C" TF_API void tfrt_all_reduce_add(int64_t bucket, float *data,
                                           int64_t count) {
  World &world = joinedWorld();
  if (world.size() == 1)
    return;
  Bucket &entry = bucketAt(world, bucket);
  if (entry.inFlight || count < 0)
    world.abort(nameOf(bucket) + " is added to while in flight (a compiler "
                                 "bug)");
  entry.parts.push_back({data, count});
}

extern "C" TF_API void tfrt_all_reduce_start(int64_t bucket,
                                             int32_t reduction) {
  World &world = joinedWorld();
  if (world.size() == 1)
    return;
  AllReduces &all = table();
  Bucket &entry = bucketAt(world, bucket);
  if (reduction != kSum && reduction != kMean)
    world.abort(nameOf(bucket) + ": unknown reduction " +
                std::to_string(reduction));
  double weight = reduction == kSum ? 1.0 : allReduceWeight();
  int64_t total = 0;
  for (const Part &part : entry.parts)
    total += part.count;
  entry.packed.resize(total);
  float *out = entry.packed.data();
  auto scale = static_cast<float>(weight);
  for (const Part &part : entry.parts) {
    // A weight of 0 (a rank with no counted labels) contributes zeros, not
    // its values times 0, which are NaN where its loss is 0 / 0.
    if (weight == 0)
      std::fill(out, out + part.count, 0.0f);
    else if (weight == 1)
      std::memcpy(out, part.data, part.count * sizeof(float));
    else
      for (int64_t i = 0; i < part.count; ++i)
        out[i] = part.data[i] * scale;
    out += part.count;
  }
  entry.request = world.startSum(entry.packed.data(), total, nameOf(bucket));
  entry.inFlight = true;
  all.stats.allReduces += 1;
  all.stats.bytes += total * static_cast<int64_t>(sizeof(float));
  if (!all.overlap) {
    waitFor(world, bucket, entry);
    return;
  }
  for (size_t other = 0; other < all.buckets.size(); ++other)
    if (static_cast<int64_t>(other) != bucket)
      poll(world, other, all.buckets[other]);
}

extern "C" TF_API void tfrt_all_reduce_wait(int64_t bucket) {
  World &world = joinedWorld();
  if (world.size() == 1)
    return;
  Bucket &entry = bucketAt(world, bucket);
  if (!entry.parts.empty())
    waitFor(world, bucket, entry);
}

extern "C" TF_API int64_t tfrt_replica_index() { return joinedWorld().rank(); }
