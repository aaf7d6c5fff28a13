//===- GenerateMode.h - Continuing prompts, one a line --------------------===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_RUN_GENERATEMODE_H
#define TRANSFUSE_TOOLS_TRANSFUSE_RUN_GENERATEMODE_H

#include "transfuse/beam_search.hpp"
#include "transfuse/generate.hpp"

#include <optional>
#include <string>

namespace transfuse::text {

struct GenerateModeOptions {
  /// The file of prompts, one a line; none or "-" reads stdin.
  std::optional<std::string> prompts;
  /// The weights file, whose metadata may hold a vocabulary.
  std::optional<std::string> weights;
  /// Prompts and continuations are token ids (Tokenizer).
  bool tokenIds = false;
  /// Greedy search or sampling, unless `beam` is given.
  GenerateOptions generation;
  /// Beam search instead, each prompt continued by its best hypothesis.
  std::optional<BeamSearchOptions> beam;
  /// Starts each line with the hypothesis's score and a tab (beam only).
  bool scores = false;
};

/// Tokenises every prompt (as --text does), continues each with the
/// session's prefill and decode_step (and reorder_cache for beam search),
/// and writes one line per prompt to stdout: its continuation, with `\`
/// written `\\`, a line feed `\n` and a carriage return `\r`, after
/// `SCORE<TAB>` (%.6f) with `scores`. Progress goes to stderr when it is a
/// terminal or when the prompts take more than one batch. For an
/// encoder-decoder, each line is a source, run through encode, and the
/// prompt BOS (id 2); the stop token is EOS (id 3) unless the options name
/// one. Throws
/// transfuse::Error or std::runtime_error with a message for the user; a bad
/// prompt is named FILE:LINE.
void generate(Session &session, const GenerateModeOptions &options);

} // namespace transfuse::text

#endif // TRANSFUSE_TOOLS_TRANSFUSE_RUN_GENERATEMODE_H
