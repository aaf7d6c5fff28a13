//===- DecodingEntryPoints.h - A decoder's incremental calls ----*- C++ -*-===//
//
// What the Generator and beam search need of an artifact's encode, prefill,
// decode_step and reorder_cache (docs/generation.md): their signatures
// checked once, and calls that bind the inputs by the names the compiler
// gives them. Each call returns a view of the session's output buffer,
// valid until the session's next run.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_DECODINGENTRYPOINTS_H
#define TRANSFUSE_RUNTIME_LIB_DECODINGENTRYPOINTS_H

#include "transfuse/transfuse.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace transfuse::rt {

/// The sizes and names prefill and decode_step are compiled with.
struct DecoderShape {
  int64_t batch = 0, context = 0, vocabulary = 0;
  /// The largest id the target tokens input takes.
  int64_t maxId = 0;
  /// The names of the target tokens input and of the logits output.
  std::string target, logits;
  /// An encoder-decoder's source input, which encode, prefill and
  /// decode_step take, [batch, sourceLength]; "" for a causal LM.
  std::string source;
  int64_t sourceLength = 0, sourceMaxId = 0;

  bool encodes() const { return !source.empty(); }
};

/// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) unless the artifact
/// has prefill (target i64 [B, S] -> logits f32 [B, S, V]) and decode_step
/// (target i64 [B, 1], positions i64 [B] -> logits f32 [B, 1, V]), both
/// also taking source i64 [B, L] where the artifact has encode (source
/// -> nothing).
DecoderShape decoderShape(const tf_artifact *artifact);

/// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) unless the artifact
/// has reorder_cache (beams i64 [batch] -> nothing).
void checkReorderCache(const tf_artifact *artifact, int64_t batch);

/// The source rows of a batch, [batch, sourceLength] row-major,
/// right-padded with zeros: row r holds sources[sourceOfRow[r]]. Empty for
/// a causal LM.
std::vector<int64_t>
sourceRows(const DecoderShape &shape,
           const std::vector<std::vector<int64_t>> &sources,
           const std::vector<size_t> &sourceOfRow);

/// encode on the source rows.
void runEncode(Session &session, const DecoderShape &shape,
               std::vector<int64_t> &sources);

/// prefill on `tokens`, [batch, context] row-major, and the source rows
/// encode ran on: the logits, [batch, context, vocabulary].
const float *runPrefill(Session &session, const DecoderShape &shape,
                        std::vector<int64_t> &tokens,
                        std::vector<int64_t> &sources);

/// Runs every row's prompt (row r of `tokens`, [batch, context] row-major:
/// lengths[r] >= 1 tokens, then padding) and returns, per row, its logits
/// after the prompt, [vocabulary]: prefill's at the prompt's last position
/// where the prompts are long, else those of decode_step run over the
/// prompts one position at a time, which cost the prompts' positions
/// rather than the whole context's (kept in `held`).
std::vector<const float *>
runPrompts(Session &session, const DecoderShape &shape,
           std::vector<int64_t> &tokens, const std::vector<int64_t> &lengths,
           std::vector<int64_t> &sources, std::vector<float> &held);

/// decode_step on one token and its position per sequence, and the source
/// rows: the logits, [batch, 1, vocabulary].
const float *runDecodeStep(Session &session, const DecoderShape &shape,
                           std::vector<int64_t> &tokens,
                           std::vector<int64_t> &positions,
                           std::vector<int64_t> &sources);

/// reorder_cache: sequence b of the cache then holds what beams[b] held.
void runReorderCache(Session &session, int64_t batch,
                     std::vector<int64_t> &beams);

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_DECODINGENTRYPOINTS_H
