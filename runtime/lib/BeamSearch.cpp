//===- BeamSearch.cpp - Beam search with a compiled decoder ---------------===//
//
// The search transfuse/beam_search.hpp defines, a chunk of prompts at a
// time: per prompt, its live hypotheses sit in its rows in order, and each
// step builds the next ones from the logits of those rows.
//===----------------------------------------------------------------------===//
#include "transfuse/beam_search.hpp"

#include "DecodingEntryPoints.h"
#include "ExpDouble.h"
#include "InvalidArgument.h"
#include "Runtime.h"
#include "Vectors.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>

namespace transfuse {
namespace {

using detail::invalid;
using detail::str;

/// A live hypothesis, and the row (within its prompt's rows) whose cache
/// holds every token of it but the last: the row it moves from before the
/// next decode_step.
struct Beam {
  std::vector<int64_t> tokens;
  double logProbability = 0;
  int64_t parent = 0;
};

/// Live hypothesis `beam` extended by `token`, with what orders it.
struct Candidate {
  double sum;
  int64_t beam;
  float logit;
  int64_t token;
};

/// The order the header defines: the larger sum, the lower beam, the larger
/// logit, the lower token.
bool before(const Candidate &a, const Candidate &b) {
  if (a.sum != b.sum)
    return a.sum > b.sum;
  if (a.beam != b.beam)
    return a.beam < b.beam;
  if (a.logit != b.logit)
    return a.logit > b.logit;
  return a.token < b.token;
}

/// Σ e^(x[i] - shift), on the widest registers the CPU has: half as many
/// doubles as floats.
struct SumOfExponentials {
  template <typename Vector>
  TF_INLINE static double run(const float *x, int64_t n, double shift) {
    return rt::sumOfExponentials<rt::kWidthOf<Vector> / 2>(x, n, shift);
  }
};

double sumOfExponentialsOf(const float *x, int64_t n, double shift) {
  return rt::onHostVectors<SumOfExponentials>(x, n, shift);
}

/// The log-softmax normaliser of `size` logits, in double, whose largest
/// is `max`: max + log(sum_u exp(x[u] - max)).
double logSoftmaxNormaliser(const float *logits, int64_t size, float max) {
  // Every logit -inf, or one +inf, leaves no distribution to take.
  if (!std::isfinite(max))
    invalid("the logits have no finite maximum");
  return max + std::log(sumOfExponentialsOf(logits, size, max));
}

/// The search of one prompt, in rows firstRow .. firstRow + W - 1.
struct PromptSearch {
  size_t index = 0;
  int64_t firstRow = 0;
  int64_t promptLength = 0;
  /// L: the most tokens the continuation may hold.
  int64_t limit = 0;
  /// live[j] is in row firstRow + j.
  std::vector<Beam> live;
  std::vector<Hypothesis> finished;
  bool done = false;
};

/// Everything a step of one prompt reads.
struct StepContext {
  const BeamSearchOptions &options;
  int64_t vocabulary;
  /// The logits of live hypothesis j.
  std::function<const float *(int64_t j)> logits;
  /// The rows hold the prompt alone, all alike: none needs to move.
  bool afterPrompts;
};

/// Adds a finished hypothesis, scored under the length penalty.
void finish(PromptSearch &search, std::vector<int64_t> tokens, double sum,
            Continuation::End end, double lengthPenalty) {
  double length = static_cast<double>(tokens.size());
  double score = sum / std::pow((5 + length) / 6, lengthPenalty);
  search.finished.push_back({std::move(tokens), sum, score, end});
}

/// Extends the prompt's live hypotheses by one token each (the header's
/// step), and decides whether the prompt stops.
void step(PromptSearch &search, const StepContext &context) {
  const BeamSearchOptions &options = context.options;
  size_t width = static_cast<size_t>(options.beamWidth);
  // A beam gives at most W live candidates and its stop token: only its
  // W + 1 first candidates can be taken.
  size_t keep = std::min<size_t>(context.vocabulary, width + 1);
  std::vector<Candidate> candidates;
  std::vector<int64_t> tokens;
  for (size_t j = 0; j < search.live.size(); ++j) {
    const float *logits = context.logits(static_cast<int64_t>(j));
    if (rt::largestLogits(logits, context.vocabulary, keep, tokens))
      invalid("the logits hold NaN");
    double normaliser =
        logSoftmaxNormaliser(logits, context.vocabulary, logits[tokens[0]]);
    double base = search.live[j].logProbability;
    for (int64_t t : tokens)
      candidates.push_back({base + (logits[t] - normaliser),
                            static_cast<int64_t>(j), logits[t], t});
  }
  std::sort(candidates.begin(), candidates.end(), before);

  std::vector<Beam> next;
  for (const Candidate &candidate : candidates) {
    if (next.size() == width)
      break;
    const Beam &from = search.live[candidate.beam];
    if (options.eos && candidate.token == *options.eos) {
      finish(search, from.tokens, candidate.sum, Continuation::End::Eos,
             options.lengthPenalty);
      continue;
    }
    Beam beam{from.tokens, candidate.sum,
              context.afterPrompts ? static_cast<int64_t>(next.size())
                                   : candidate.beam};
    beam.tokens.push_back(candidate.token);
    next.push_back(std::move(beam));
  }

  if (search.finished.size() >= width || next.empty()) {
    search.done = true;
  } else if (static_cast<int64_t>(next.front().tokens.size()) == search.limit) {
    Continuation::End end = search.limit == options.maxNewTokens
                                ? Continuation::End::Length
                                : Continuation::End::Context;
    for (Beam &beam : next)
      finish(search, std::move(beam.tokens), beam.logProbability, end,
             options.lengthPenalty);
    search.done = true;
  } else {
    search.live = std::move(next);
  }
}

/// The prompt's result: every finished hypothesis, the best first.
BeamSearchResult resultOf(PromptSearch &search) {
  std::stable_sort(search.finished.begin(), search.finished.end(),
                   [](const Hypothesis &a, const Hypothesis &b) {
                     return a.score > b.score;
                   });
  return {std::move(search.finished)};
}

} // namespace

void validate(const BeamSearchOptions &options) {
  if (options.beamWidth < 1)
    invalid("the beam width must be at least 1, not " +
            std::to_string(options.beamWidth));
  if (!std::isfinite(options.lengthPenalty) || options.lengthPenalty < 0)
    invalid("the length penalty must be a finite number at least 0, not " +
            str(options.lengthPenalty));
  if (options.maxNewTokens < 0)
    invalid("the number of new tokens must be at least 0, not " +
            std::to_string(options.maxNewTokens));
}

BeamSearch::BeamSearch(Session &session)
    : session_(session), generator_(session) {
  rt::checkReorderCache(tf_session_artifact(session.get()),
                        generator_.batchSize());
}

void BeamSearch::check(const BeamSearchOptions &options) const {
  validate(options);
  if (options.beamWidth > generator_.batchSize())
    invalid("the beam width " + std::to_string(options.beamWidth) +
            " is more than the model's batch of " +
            std::to_string(generator_.batchSize()) +
            " (the hypotheses of a prompt take a row each)");
  generator_.checkLimits(options.maxNewTokens, options.eos);
}

std::vector<BeamSearchResult>
BeamSearch::search(const std::vector<std::vector<int64_t>> &prompts,
                   const BeamSearchOptions &options,
                   const std::vector<std::vector<int64_t>> &sources) {
  check(options);
  generator_.checkPrompts(prompts, sources);
  std::vector<BeamSearchResult> results(prompts.size());
  size_t chunk = static_cast<size_t>(promptsPerChunk(options.beamWidth));
  for (size_t first = 0; first < prompts.size(); first += chunk) {
    size_t count = std::min(chunk, prompts.size() - first);
    searchChunk(prompts, sources, first, count, options, results);
    if (options.progress)
      options.progress(first + count, prompts.size());
  }
  return results;
}

void BeamSearch::searchChunk(const std::vector<std::vector<int64_t>> &prompts,
                             const std::vector<std::vector<int64_t>> &sources,
                             size_t first, size_t count,
                             const BeamSearchOptions &options,
                             std::vector<BeamSearchResult> &results) {
  const rt::DecoderShape &shape = *generator_.shape_;
  int64_t batch = shape.batch, context = shape.context;
  int64_t vocabulary = shape.vocabulary;
  int64_t width = options.beamWidth;

  // Each prompt in its W rows, right-padded with zeros, as are idle rows;
  // the source of idle rows is the chunk's first.
  std::vector<PromptSearch> searches(count);
  std::vector<int64_t> tokens(batch * context, 0);
  std::vector<size_t> promptOfRow(batch, first);
  // An idle row's prompt is its token 0 (its logits unread).
  std::vector<int64_t> promptLength(batch, 1);
  for (size_t k = 0; k < count; ++k) {
    PromptSearch &search = searches[k];
    const std::vector<int64_t> &prompt = prompts[first + k];
    search.index = first + k;
    search.firstRow = static_cast<int64_t>(k) * width;
    search.promptLength = static_cast<int64_t>(prompt.size());
    search.limit =
        std::min(options.maxNewTokens, context - search.promptLength);
    for (int64_t j = 0; j < width; ++j) {
      std::copy(prompt.begin(), prompt.end(),
                tokens.begin() + (search.firstRow + j) * context);
      promptOfRow[search.firstRow + j] = first + k;
      promptLength[search.firstRow + j] = search.promptLength;
    }
    search.live.emplace_back();
    if (search.limit == 0) {
      finish(search, {}, 0,
             options.maxNewTokens == 0 ? Continuation::End::Length
                                       : Continuation::End::Context,
             options.lengthPenalty);
      search.done = true;
    }
  }

  // Steps every prompt still searching, naming the prompt in an error:
  // `logits[row]` are the row's next-token logits.
  auto stepAll = [&](const std::vector<const float *> &logits,
                     bool afterPrompts) {
    for (PromptSearch &search : searches) {
      if (search.done)
        continue;
      auto rowLogits = [&](int64_t j) { return logits[search.firstRow + j]; };
      try {
        step(search, {options, vocabulary, rowLogits, afterPrompts});
      } catch (const Error &error) {
        throw Error(error.status(), "prompt " +
                                        std::to_string(search.index + 1) +
                                        ": " + error.what());
      }
    }
  };
  auto searching = [&] {
    return std::any_of(searches.begin(), searches.end(),
                       [](const PromptSearch &s) { return !s.done; });
  };

  std::vector<int64_t> sourceRows = rt::sourceRows(shape, sources, promptOfRow);
  if (searching()) {
    if (shape.encodes())
      rt::runEncode(session_, shape, sourceRows);
    std::vector<float> held;
    stepAll(
        rt::runPrompts(session_, shape, tokens, promptLength, sourceRows, held),
        true);
  }

  // Each step feeds every live hypothesis its last token at that token's
  // position, once reorder_cache has moved its parent's cache into its
  // row. Rows without a live hypothesis stay in place and are fed token 0
  // at position 0 of their own cache: a hypothesis only takes such a row
  // by moving into it.
  std::vector<int64_t> beams(batch), next(batch), positions(batch);
  while (searching()) {
    std::iota(beams.begin(), beams.end(), 0);
    std::fill(next.begin(), next.end(), 0);
    std::fill(positions.begin(), positions.end(), 0);
    for (const PromptSearch &search : searches) {
      if (search.done)
        continue;
      for (size_t j = 0; j < search.live.size(); ++j) {
        const Beam &beam = search.live[j];
        int64_t row = search.firstRow + static_cast<int64_t>(j);
        beams[row] = search.firstRow + beam.parent;
        next[row] = beam.tokens.back();
        positions[row] =
            search.promptLength + static_cast<int64_t>(beam.tokens.size()) - 1;
      }
    }
    bool moves = false;
    for (int64_t row = 0; row < batch; ++row)
      moves |= beams[row] != row;
    if (moves)
      rt::runReorderCache(session_, batch, beams);
    const float *logits =
        rt::runDecodeStep(session_, shape, next, positions, sourceRows);
    std::vector<const float *> rows(batch);
    for (int64_t row = 0; row < batch; ++row)
      rows[row] = logits + row * vocabulary;
    stepAll(rows, false);
  }

  for (PromptSearch &search : searches)
    results[search.index] = resultOf(search);
}

} // namespace transfuse
