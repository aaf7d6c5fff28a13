//===- Sample.h - Text from a trained language model ------------*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_SAMPLE_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_SAMPLE_H

#include "Task.h"

#include <optional>
#include <string>
#include <vector>

namespace transfuse::train {

struct SampleOptions {
  int64_t count = 0;
  double temperature = 0; // 0: greedy
  uint64_t seed = 0;
  std::vector<int64_t> prompt;
};

/// Continues the prompt by `count` tokens with forward, over a window of
/// the model's length that slides along, and returns them as text: bytes,
/// or the words of `vocabulary` separated by spaces. Deterministic in the
/// seed.
std::string sample(Session &session, const Artifact &artifact,
                   const TaskInfo &task, const SampleOptions &options,
                   const std::optional<data::Vocabulary> &vocabulary);

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_SAMPLE_H
