//===- Sampling.cpp - Choosing the next token from logits -----------------===//
#include "transfuse/sampling.hpp"

#include "InvalidArgument.h"
#include "Philox.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace transfuse {
namespace {

using detail::invalid;
using detail::str;

int64_t argmax(const float *logits, int64_t size) {
  int64_t best = 0;
  for (int64_t i = 1; i < size; ++i)
    if (logits[i] > logits[best])
      best = i;
  return best;
}

/// A uniform number in [0, 1) with 53 random bits: two words of the Philox
/// block at counter (step, sequence) under the seed.
double uniform(uint64_t seed, uint64_t sequence, uint64_t step) {
  auto lo = [](uint64_t x) { return static_cast<uint32_t>(x); };
  auto hi = [](uint64_t x) { return static_cast<uint32_t>(x >> 32); };
  std::array<uint32_t, 4> block = rt::philox4x32_10<uint32_t>(
      {lo(step), hi(step), lo(sequence), hi(sequence)}, {lo(seed), hi(seed)});
  uint64_t bits = (static_cast<uint64_t>(block[0]) << 32 | block[1]) >> 11;
  return static_cast<double>(bits) * 0x1p-53;
}

} // namespace

void validate(const SamplingOptions &options) {
  if (!std::isfinite(options.temperature) || options.temperature < 0)
    invalid("the sampling temperature must be a finite number at least 0, "
            "not " +
            str(options.temperature));
  if (options.topK < 0)
    invalid("top-k must be at least 0 (0 keeps every token), not " +
            std::to_string(options.topK));
  if (!(options.topP > 0 && options.topP <= 1))
    invalid("top-p must be in (0, 1], not " + str(options.topP));
}

int64_t sampleToken(const float *logits, int64_t size,
                    const SamplingOptions &options, uint64_t sequence,
                    uint64_t step) {
  validate(options);
  if (size <= 0)
    invalid("no logits to sample from");
  if (std::any_of(logits, logits + size, [](float x) { return std::isnan(x); }))
    invalid("the logits hold NaN");
  if (options.temperature == 0)
    return argmax(logits, size);

  // The candidates, sorted by decreasing logit (the lower id first on ties)
  // where a cut needs the order; unsorted, the draw is just as exact.
  std::vector<int64_t> order(size);
  std::iota(order.begin(), order.end(), 0);
  auto before = [&](int64_t a, int64_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  if (options.topK > 0 && options.topK < size) {
    std::partial_sort(order.begin(), order.begin() + options.topK, order.end(),
                      before);
    order.resize(options.topK);
  } else if (options.topP < 1)
    std::sort(order.begin(), order.end(), before);

  // Unnormalised softmax weights, relative to the largest logit so that
  // none overflows; a logit equal to the largest weighs 1 even when both are
  // infinite.
  double max = -INFINITY;
  for (int64_t id : order)
    max = std::max(max, static_cast<double>(logits[id]));
  std::vector<double> weights(order.size());
  double total = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    double logit = logits[order[i]];
    weights[i] =
        logit == max ? 1.0 : std::exp((logit - max) / options.temperature);
    total += weights[i];
  }

  if (options.topP < 1) {
    double kept = 0;
    size_t count = 0;
    while (count < order.size()) {
      kept += weights[count++];
      if (kept >= options.topP * total)
        break;
    }
    order.resize(count);
    weights.resize(count);
    total = kept;
  }

  // The first token whose cumulative weight exceeds the draw, so that a
  // token of weight 0 is never chosen. Should rounding leave the sum at or
  // under the draw, the last token of positive weight (there is one: the
  // largest logit weighs 1).
  double target = uniform(options.seed, sequence, step) * total;
  double cumulative = 0;
  size_t last = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (weights[i] == 0)
      continue;
    cumulative += weights[i];
    if (cumulative > target)
      return order[i];
    last = i;
  }
  return order[last];
}

} // namespace transfuse
