//===- generate.hpp - Generation with a compiled decoder --------*- C++ -*-===//
//
// Text generation with a causal language model or an encoder-decoder
// compiled with its key/value cache: the prompts fill the session's cache
// (the artifact's `prefill` on whole prompts, or, where they fill at most
// a quarter of the context, `decode_step` one position at a time), then
// `decode_step` adds one token per row at a time. Prompts are taken B at a
// time (B: the batch size the model was compiled for) and right-padded to
// the model's context S; a last, partial batch is filled with copies of
// one of its prompts, whose outputs are dropped.
//
// An encoder-decoder continues, for each source, the start of its target
// (for a model trained by transfuse-train, BOS alone): `encode` runs on
// the batch's sources, right-padded with zeros to the model's source
// length, before the prompts run.
//
// A continuation ends after maxNewTokens tokens, before the stop token
// (which it does not hold), or when the prompt and the continuation fill
// the context: a sequence is at most S tokens long, and a continuation cut
// there ends with End::Context. Each token is chosen by sampleToken
// (transfuse/sampling.hpp) with the prompt's index as its sequence and the
// tokens generated before it as its step, so a prompt's continuation does
// not depend on the other prompts or on B. Beam search is
// transfuse/beam_search.hpp's.
//
//   transfuse::Generator generator(session);
//   transfuse::GenerateOptions options;
//   options.maxNewTokens = 32;
//   options.sampling.temperature = 0.8;
//   std::vector<transfuse::Continuation> out =
//       generator.generate({{72, 105}, {84, 104, 101}}, options);
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_GENERATE_HPP
#define TRANSFUSE_GENERATE_HPP

#include "transfuse/sampling.hpp"
#include "transfuse/transfuse.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace transfuse {

namespace rt {
struct DecoderShape;
} // namespace rt

struct GenerateOptions {
  /// The most tokens added to each prompt.
  int64_t maxNewTokens = 64;
  /// A continuation ends before emitting this id.
  std::optional<int64_t> eos;
  SamplingOptions sampling;
  /// Called after each batch with the prompts done so far and their total.
  std::function<void(size_t done, size_t total)> progress;
};

struct Continuation {
  enum class End {
    /// maxNewTokens tokens were generated.
    Length,
    /// The next token was the stop token.
    Eos,
    /// The prompt and the continuation fill the model's context.
    Context,
  };
  std::vector<int64_t> tokens;
  End end = End::Length;
};

/// Runs generation on a session, which must outlive it. The session's cache
/// is overwritten by every batch.
class TF_API Generator {
public:
  /// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) unless the
  /// session's artifact has prefill (target i64 [B, S] -> logits f32
  /// [B, S, V]) and decode_step (target i64 [B, 1], positions i64 [B] ->
  /// logits f32 [B, 1, V]), and for an encoder-decoder encode (source i64
  /// [B, L] -> nothing), whose source prefill and decode_step also take.
  explicit Generator(Session &session);

  int64_t batchSize() const;
  /// S: the most tokens a sequence holds, prompt and continuation together.
  int64_t context() const;
  /// V: the ids a continuation may hold are 0..V-1.
  int64_t vocabularySize() const;
  /// The largest id a prompt may hold.
  int64_t maxTokenId() const;
  /// Whether the model is an encoder-decoder, which generates from
  /// sources.
  bool encodes() const;
  /// An encoder-decoder's L, the most tokens a source holds.
  int64_t sourceLength() const;
  /// The largest id a source may hold.
  int64_t maxSourceId() const;

  /// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) for an empty
  /// prompt, one over the context or an id the model does not take; the
  /// message names no prompt, for the caller to say which.
  void checkPrompt(const std::vector<int64_t> &prompt) const;
  /// The same for an encoder-decoder's source, against L.
  void checkSource(const std::vector<int64_t> &source) const;

  /// checkPrompt on each prompt, and checkSource on each source, of which
  /// an encoder-decoder needs one per prompt and a causal LM none; the
  /// message names a bad one by its 1-based index.
  void checkPrompts(const std::vector<std::vector<int64_t>> &prompts,
                    const std::vector<std::vector<int64_t>> &sources) const;

  /// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) for a negative
  /// number of new tokens or a stop token outside the vocabulary.
  void checkLimits(int64_t maxNewTokens,
                   const std::optional<int64_t> &eos) const;

  /// The continuation of each prompt, in order; for an encoder-decoder,
  /// prompts[i] starts the target of sources[i]. Every prompt, source and
  /// option is checked before the model runs: an invalid one throws
  /// transfuse::Error (TF_ERROR_INVALID_ARGUMENT) naming the prompt by its
  /// 1-based index.
  std::vector<Continuation>
  generate(const std::vector<std::vector<int64_t>> &prompts,
           const GenerateOptions &options,
           const std::vector<std::vector<int64_t>> &sources = {});

private:
  friend class BeamSearch;

  /// Generates for prompts[first, first + B) into results[first, ...).
  void generateBatch(const std::vector<std::vector<int64_t>> &prompts,
                     const std::vector<std::vector<int64_t>> &sources,
                     size_t first, const GenerateOptions &options,
                     std::vector<Continuation> &results);

  Session &session_;
  std::shared_ptr<const rt::DecoderShape> shape_;
};

} // namespace transfuse

#endif // TRANSFUSE_GENERATE_HPP
