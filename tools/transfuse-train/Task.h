//===- Task.h - What a model trains on, from its manifest -------*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_TASK_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_TASK_H

#include "transfuse/data.hpp"

#include <string>
#include <vector>

namespace transfuse::train {

/// The task and the batch shape, read from train_step's inputs and labels.
struct TaskInfo {
  data::Task task = data::Task::LanguageModel;
  /// The model inputs: [tokens], or seq2seq's [source, decoder input].
  std::vector<std::string> inputs;
  std::string labels;
  int64_t batchSize = 0, length = 0;
  int64_t targetLength = 0;   // seq2seq: of the decoder input and labels
  int64_t vocabularySize = 0; // the inputs' max_value + 1
  int64_t numClasses = 0;     // classification: forward's last dimension
  int64_t ignoreIndex = -100;
  bool hasLoss = false, hasForward = false;
};

/// "language model", "classifier", "seq2seq".
const char *taskName(data::Task task);

/// Reads the task from the artifact (opened from `path`); throws
/// std::runtime_error naming what does not fit.
TaskInfo inferTask(const Artifact &artifact, const std::string &path);

/// The batch's tensors under the names of the model's inputs and labels,
/// restricted to the inputs of `entry`. They view `batch`.
std::vector<tf_named_tensor> bind(const TaskInfo &task,
                                  const Artifact &artifact,
                                  const std::string &entry, data::Batch &batch);

/// The labels the loss counts: those that are not the ignore index (every
/// row of a classifier's batch that holds an example).
int64_t countedLabels(const TaskInfo &task, const data::Batch &batch);

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_TASK_H
