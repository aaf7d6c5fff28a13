//===- TextMode.h - Running a model on text -------------------------------===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_RUN_TEXTMODE_H
#define TRANSFUSE_TOOLS_TRANSFUSE_RUN_TEXTMODE_H

#include "transfuse/transfuse.hpp"

#include <optional>
#include <string>

namespace transfuse::text {

struct TextOptions {
  std::string text;
  int64_t maxNewTokens = 64;
  /// The weights file, whose metadata may hold a vocabulary.
  std::optional<std::string> weights;
};

/// Tokenises the text (bytes when the model's ids are bytes, else the words
/// of the vocabulary) and, by the shape of the forward output, either
/// continues it greedily ([b, s, v] logits) or prints the predicted class
/// with the probability of every class ([b, c]). Throws transfuse::Error or
/// std::runtime_error with a message for the user.
void run(const Artifact &artifact, Session &session,
         const TextOptions &options);

} // namespace transfuse::text

#endif // TRANSFUSE_TOOLS_TRANSFUSE_RUN_TEXTMODE_H
