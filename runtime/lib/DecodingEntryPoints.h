//===- DecodingEntryPoints.h - A causal LM's incremental calls --*- C++ -*-===//
//
// What the Generator and beam search need of an artifact's prefill,
// decode_step and reorder_cache (docs/generation.md): their signatures
// checked once, and calls that bind the inputs by the names the compiler
// gives them. Each call returns a view of the session's output buffer,
// valid until the session's next run.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_DECODINGENTRYPOINTS_H
#define TRANSFUSE_RUNTIME_LIB_DECODINGENTRYPOINTS_H

#include "transfuse/transfuse.hpp"

#include <cstdint>
#include <vector>

namespace transfuse::rt {

/// The sizes prefill and decode_step are compiled for.
struct CausalLmShape {
  int64_t batch = 0, context = 0, vocabulary = 0;
  /// The largest id the tokens input takes.
  int64_t maxId = 0;
};

/// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) unless the artifact
/// has prefill (tokens i64 [B, S] -> logits f32 [B, S, V]) and decode_step
/// (tokens i64 [B, 1], positions i64 [B] -> logits f32 [B, 1, V]).
CausalLmShape causalLmShape(const tf_artifact *artifact);

/// Throws transfuse::Error (TF_ERROR_INVALID_ARGUMENT) unless the artifact
/// has reorder_cache (beams i64 [batch] -> nothing).
void checkReorderCache(const tf_artifact *artifact, int64_t batch);

/// prefill on `tokens`, [batch, context] row-major: the logits,
/// [batch, context, vocabulary].
const float *runPrefill(Session &session, int64_t batch, int64_t context,
                        std::vector<int64_t> &tokens);

/// decode_step on one token and its position per sequence: the logits,
/// [batch, 1, vocabulary].
const float *runDecodeStep(Session &session, int64_t batch,
                           std::vector<int64_t> &tokens,
                           std::vector<int64_t> &positions);

/// reorder_cache: sequence b of the cache then holds what beams[b] held.
void runReorderCache(Session &session, int64_t batch,
                     std::vector<int64_t> &beams);

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_DECODINGENTRYPOINTS_H
