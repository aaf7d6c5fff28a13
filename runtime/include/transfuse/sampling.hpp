//===- sampling.hpp - Choosing the next token from logits -------*- C++ -*-===//
//
// The choice of a language model's next token from one row of logits:
// greedy (the argmax, the lowest id on ties), or a draw from
// softmax(logits / temperature), restricted first to the top-k tokens and
// then to the nucleus of the top-p probability (renormalised after each
// cut, as Hugging Face's TopK and TopP warpers do).
//
// Draws are reproducible: the uniform number behind the draw of sequence i
// at step t is Philox-4x32-10 keyed by the seed at the counter (t, i), so it
// depends on the seed, i and t only, never on the other sequences of a
// batch, the batch size or the thread that draws.
//
//   transfuse::SamplingOptions options;
//   options.temperature = 0.8;
//   options.topP = 0.95;
//   int64_t next = transfuse::sampleToken(row, vocab, options, i, t);
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_SAMPLING_HPP
#define TRANSFUSE_SAMPLING_HPP

#include "transfuse/transfuse.hpp"

#include <cstdint>

namespace transfuse {

struct SamplingOptions {
  /// 0 picks the argmax; above 0 divides the logits before the softmax.
  double temperature = 0;
  /// Keeps the k tokens of highest logit (the lower id first on ties);
  /// 0 keeps all.
  int64_t topK = 0;
  /// Keeps the fewest tokens, in order of decreasing probability, whose
  /// probabilities sum to at least topP (always one at least).
  double topP = 1.0;
  uint64_t seed = 0;
};

/// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) unless the
/// temperature is finite and at least 0, topK at least 0 and topP in (0, 1].
TF_API void validate(const SamplingOptions &options);

/// The token chosen from `logits` (`size` of them, size > 0) for step `step`
/// of sequence `sequence`. Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT)
/// on invalid options or a NaN logit.
TF_API int64_t sampleToken(const float *logits, int64_t size,
                           const SamplingOptions &options, uint64_t sequence,
                           uint64_t step);

} // namespace transfuse

#endif // TRANSFUSE_SAMPLING_HPP
