//===- beam_search.hpp - Beam search with a compiled decoder ----*- C++ -*-===//
//
// Beam search over a causal language model's or an encoder-decoder's
// prefill, decode_step and reorder_cache entry points (docs/generation.md),
// keeping the hypotheses' key/value caches where the model runs. An
// encoder-decoder runs encode on each chunk's sources first, each copied
// into its prompt's W rows.
//
// Rows. With beam width W (1 <= W <= B, the model's batch), a chunk of
// floor(B / W) prompts runs at once, prompt k of the chunk in rows
// kW .. kW + W - 1; the rows left over idle. The prompts run once per
// chunk, each copied into its W rows (as Generator runs them: prefill, or
// decode_step per position for short ones); then each step runs decode_step on
// every row, after reorder_cache has moved each new hypothesis's cache into
// its row (the call is skipped when no row moves).
//
// The search, per prompt of n tokens, with the limit
// L = min(maxNewTokens, S - n) new tokens (S: the model's context):
//  - A hypothesis is a continuation c (without the stop token) and the sum
//    of the log-probabilities of its tokens. A log-probability is the
//    log-softmax of the model's float logits computed in double:
//    x[t] - (m + log(sum_u exp(x[u] - m))), m = max_u x[u].
//  - At first the only live hypothesis is the empty one.
//  - Each step every live hypothesis h extends by every token t: the
//    candidate (h, t) with sum h.sum + logp_h(t). Candidates are taken in
//    descending order of sum; ties go to the lower live index of h (its row
//    within the prompt), then to the larger logit x_h[t] (which only tells
//    apart logits that rounding the sum made equal), then to the lower t.
//    A candidate whose t is the stop token becomes a finished hypothesis:
//    c = h's tokens, its sum counting the stop token's log-probability, its
//    length |c| not counting the stop token. Every other candidate becomes
//    a live hypothesis of the next step, until there are W; the candidates
//    after the W-th live one are dropped, stop tokens among them too.
//  - After each step the prompt stops when it holds W finished hypotheses
//    or more (the live ones are dropped, like Hugging Face's
//    early_stopping=True); else when no live hypothesis is left; else when
//    the live hypotheses hold L tokens: they then all finish as they are
//    (End::Length where L = maxNewTokens, else End::Context). With L = 0
//    the result is the empty hypothesis, sum 0.
//  - Each finished hypothesis is scored with GNMT's length penalty (Wu et
//    al. 2016): score = sum / ((5 + |c|) / 6)^alpha; alpha = 0 scores the
//    sum itself. The result lists every finished hypothesis, the best
//    score first (ties in the order they finished).
//
// Width 1 is greedy search: one hypothesis finishes alone, and its
// continuation is exactly Generator's at temperature 0 (the largest logit,
// the lowest id on ties).
//
//   transfuse::BeamSearch search(session);
//   transfuse::BeamSearchOptions options;
//   options.beamWidth = 4;
//   options.lengthPenalty = 0.6;
//   std::vector<transfuse::BeamSearchResult> out =
//       search.search({{72, 105}, {84, 104, 101}}, options);
//   // out[i].hypotheses.front(): prompt i's best continuation and score.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_BEAM_SEARCH_HPP
#define TRANSFUSE_BEAM_SEARCH_HPP

#include "transfuse/generate.hpp"
#include "transfuse/transfuse.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace transfuse {

struct BeamSearchOptions {
  /// W: the hypotheses kept per prompt, 1..B.
  int64_t beamWidth = 4;
  /// alpha of the GNMT length penalty: finite and at least 0.
  double lengthPenalty = 0;
  /// The most tokens added to each prompt.
  int64_t maxNewTokens = 64;
  /// A hypothesis finishes before emitting this id.
  std::optional<int64_t> eos;
  /// Called after each chunk with the prompts done so far and their total.
  std::function<void(size_t done, size_t total)> progress;
};

struct Hypothesis {
  /// The continuation, without the stop token.
  std::vector<int64_t> tokens;
  /// The sum of the log-probabilities of the tokens, and of the stop token
  /// where end is End::Eos.
  double logProbability = 0;
  /// logProbability under the length penalty: what ranks hypotheses.
  double score = 0;
  Continuation::End end = Continuation::End::Length;
};

struct BeamSearchResult {
  /// Every finished hypothesis, the best first; never empty.
  std::vector<Hypothesis> hypotheses;
  const Hypothesis &best() const { return hypotheses.front(); }
};

/// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) unless the width is
/// at least 1, the length penalty finite and at least 0, and maxNewTokens
/// at least 0: what can be checked without a model.
TF_API void validate(const BeamSearchOptions &options);

/// Runs beam search on a session, which must outlive it. The session's
/// cache is overwritten by every chunk.
class TF_API BeamSearch {
public:
  /// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) unless the
  /// session's artifact has prefill and decode_step (as Generator needs)
  /// and reorder_cache (beams i64 [B] -> nothing).
  explicit BeamSearch(Session &session);

  /// The sizes of the model and its checks of prompts.
  const Generator &generator() const { return generator_; }

  /// The prompts searched at once with width `beamWidth` (1..B).
  int64_t promptsPerChunk(int64_t beamWidth) const {
    return generator_.batchSize() / beamWidth;
  }

  /// validate(options), and throws transfuse::Error
  /// (TF_ERROR_INVALID_ARGUMENT) for a width over the model's batch or a
  /// stop token outside the vocabulary.
  void check(const BeamSearchOptions &options) const;

  /// The hypotheses of each prompt, in order; for an encoder-decoder,
  /// prompts[i] starts the target of sources[i] (Generator::generate).
  /// Every prompt, source and option is checked before the model runs: an
  /// invalid one throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) naming
  /// the prompt by its 1-based index.
  std::vector<BeamSearchResult>
  search(const std::vector<std::vector<int64_t>> &prompts,
         const BeamSearchOptions &options,
         const std::vector<std::vector<int64_t>> &sources = {});

private:
  /// Searches prompts[first, first + count) into results[first, ...).
  void searchChunk(const std::vector<std::vector<int64_t>> &prompts,
                   const std::vector<std::vector<int64_t>> &sources,
                   size_t first, size_t count, const BeamSearchOptions &options,
                   std::vector<BeamSearchResult> &results);

  Session &session_;
  Generator generator_;
};

} // namespace transfuse

#endif // TRANSFUSE_BEAM_SEARCH_HPP
