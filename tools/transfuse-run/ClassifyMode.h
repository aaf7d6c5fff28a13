//===- ClassifyMode.h - Classifying a file, one example a line ------------===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_RUN_CLASSIFYMODE_H
#define TRANSFUSE_TOOLS_TRANSFUSE_RUN_CLASSIFYMODE_H

#include "transfuse/transfuse.hpp"

#include <optional>
#include <string>

namespace transfuse::text {

struct ClassifyModeOptions {
  /// The file of examples, one a line; "-" reads stdin.
  std::string examples;
  /// The weights file, whose metadata may hold a vocabulary.
  std::optional<std::string> weights;
  /// Lines are token ids (Tokenizer).
  bool tokenIds = false;
};

/// Tokenises every line (as --text does), runs a classifier's forward on
/// them a batch at a time, each right-padded with token 0, and writes one
/// line per example to stdout: the predicted class, a tab, and the
/// probability of every class (softmax of the output, 4 decimals), space
/// separated. An empty line or one longer than the model's sequence is an
/// error naming FILE:LINE; nothing is truncated. Throws transfuse::Error or
/// std::runtime_error with a message for the user.
void classify(const Artifact &artifact, Session &session,
              const ClassifyModeOptions &options);

} // namespace transfuse::text

#endif // TRANSFUSE_TOOLS_TRANSFUSE_RUN_CLASSIFYMODE_H
