//===- LargestLogits.cpp - The tokens of a row's largest logits -----------===//
//
// Beam search takes each hypothesis's W + 1 best tokens out of a vocabulary
// of tens of thousands, for every row of every step, and must refuse NaN
// logits: one vectorised pass does both, the heap of the best tokens
// touched only where a block of logits can enter it.
//===----------------------------------------------------------------------===//
#include "Runtime.h"
#include "Vectors.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace transfuse::rt {
namespace {

/// Whether token a's logit goes before token b's: the larger logit, then
/// the lower token.
struct LogitOrder {
  const float *logits;
  bool operator()(int64_t a, int64_t b) const {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  }
};

/// Takes token t into `heap`, a min-heap (by LogitOrder) of the best
/// `count` tokens so far.
inline void offer(std::vector<int64_t> &heap, size_t count, LogitOrder first,
                  int64_t t) {
  if (heap.size() < count) {
    heap.push_back(t);
    std::push_heap(heap.begin(), heap.end(), first);
  } else if (first(t, heap.front())) {
    std::pop_heap(heap.begin(), heap.end(), first);
    heap.back() = t;
    std::push_heap(heap.begin(), heap.end(), first);
  }
}

/// largestLogits in one pass: once `count` tokens are held, a block of 64
/// logits is looked at one by one only when its largest beats the smallest
/// held (a later token that only equals it comes after it), which after the
/// first blocks is rare.
TF_INLINE bool scanLogits(const float *logits, int64_t size, size_t count,
                          std::vector<int64_t> &tokens) {
  constexpr int64_t kBlock = 4 * kLanes;
  LogitOrder first{logits};
  tokens.clear();
  auto anyNaN = [&] {
    return std::any_of(logits, logits + size,
                       [](float x) { return std::isnan(x); });
  };
  if (count == 0)
    return anyNaN();
  // x · 0 is NaN where x is NaN or infinite, and 0 elsewhere: a lane
  // comparison of each logit with itself would not stay in vectors.
  float probe = 0.0f;
  auto one = [&](int64_t t) {
    probe += logits[t] * 0.0f;
    offer(tokens, count, first, t);
  };
  int64_t t = 0;
  for (; t < size && tokens.size() < count; ++t)
    one(t);
  v16 nonFinite = {};
  for (; t + kBlock <= size; t += kBlock) {
    v16 x[4];
    for (int i = 0; i < 4; ++i) {
      x[i] = load(logits + t + i * kLanes);
      nonFinite += x[i] * 0.0f;
    }
    v16 top = x[0] > x[1] ? x[0] : x[1];
    top = top > x[2] ? top : x[2];
    top = top > x[3] ? top : x[3];
    float smallestHeld = logits[tokens.front()];
    if (horizontalMax(top) > smallestHeld)
      for (int64_t u = t; u < t + kBlock; ++u)
        if (logits[u] > smallestHeld) {
          offer(tokens, count, first, u);
          smallestHeld = logits[tokens.front()];
        }
  }
  for (; t < size; ++t)
    one(t);
  std::sort_heap(tokens.begin(), tokens.end(), first);
  probe += horizontalSum(nonFinite);
  // Only an infinite or NaN logit makes the probe NaN: then look for NaN.
  return std::isnan(probe) && anyNaN();
}

} // namespace

// Cloned per instruction set; everything that takes or returns a vector is
// inlined into the clones (Vectors.h).
TF_VECTOR_CLONES bool largestLogits(const float *logits, int64_t size,
                                    size_t count,
                                    std::vector<int64_t> &tokens) {
  return scanLogits(logits, size, count, tokens);
}

} // namespace transfuse::rt
