//===- Task.cpp - What a model trains on, from its manifest ---------------===//
//
// The manifest's training section names train_step's data inputs and
// labels; their shapes say the task: labels shaped like the one input are
// next tokens (a language model), one label per row is a class, and two
// inputs are a source and a decoder input (seq2seq).
//===----------------------------------------------------------------------===//
#include "Task.h"

#include <algorithm>
#include <stdexcept>

namespace transfuse::train {
namespace {

std::string shapeText(const tf_tensor_info &info) {
  std::string text = "[";
  for (int32_t i = 0; i < info.rank; ++i)
    text += (i ? ", " : "") + std::to_string(info.shape[i]);
  return text + "]";
}

tf_tensor_info find(const std::vector<tf_tensor_info> &inputs,
                    const std::string &name) {
  for (const tf_tensor_info &info : inputs)
    if (info.name == name)
      return info;
  throw std::runtime_error("train_step has no input '" + name + "'");
}

/// A [batch, length] tensor of integer ids.
bool isTokens(const tf_tensor_info &info) {
  return info.dtype == TF_I64 && info.rank == 2;
}

bool hasEntry(const Artifact &artifact, const std::string &name) {
  std::vector<std::string> entries = artifact.entryPoints();
  return std::find(entries.begin(), entries.end(), name) != entries.end();
}

} // namespace

const char *taskName(data::Task task) {
  switch (task) {
  case data::Task::LanguageModel:
    return "language model";
  case data::Task::Classification:
    return "classifier";
  case data::Task::Seq2Seq:
    return "seq2seq";
  }
  return "unknown";
}

TaskInfo inferTask(const Artifact &artifact, const std::string &path) {
  std::string where = "'" + path + "': ";
  if (!hasEntry(artifact, "train_step") || !artifact.hasTraining())
    throw std::runtime_error(
        where + "model '" + artifact.model() +
        "' has no train_step entry point: compile it from a spec with a "
        "training section");
  tf_training_info training = artifact.training();
  std::vector<tf_tensor_info> stepInputs = artifact.inputs("train_step");
  TaskInfo task;
  for (int32_t i = 0; i < training.num_inputs; ++i)
    task.inputs.push_back(training.inputs[i]);
  if (training.num_labels != 1)
    throw std::runtime_error(where + "train_step takes " +
                             std::to_string(training.num_labels) +
                             " labels; transfuse-train feeds one");
  task.labels = training.labels[0];
  task.ignoreIndex = training.ignore_index;
  task.hasLoss = hasEntry(artifact, "loss");
  task.hasForward = hasEntry(artifact, "forward");

  std::vector<tf_tensor_info> inputs;
  for (const std::string &name : task.inputs) {
    inputs.push_back(find(stepInputs, name));
    if (!isTokens(inputs.back()))
      throw std::runtime_error(where + "input '" + name + "' is " +
                               tf_dtype_name(inputs.back().dtype) + " " +
                               shapeText(inputs.back()) +
                               ": transfuse-train feeds [batch, length] i64 "
                               "token ids");
    if (inputs.back().max_value < 0)
      throw std::runtime_error(where + "input '" + name +
                               "' has no max_value: the vocabulary size is "
                               "unknown");
  }
  tf_tensor_info labels = find(stepInputs, task.labels);
  const tf_tensor_info &tokens = inputs[0];
  task.batchSize = tokens.shape[0];
  task.length = tokens.shape[1];
  task.vocabularySize = tokens.max_value + 1;
  for (const tf_tensor_info &input : inputs)
    task.vocabularySize = std::min(task.vocabularySize, input.max_value + 1);

  auto sameShape = [](const tf_tensor_info &a, const tf_tensor_info &b) {
    return a.rank == b.rank && std::equal(a.shape, a.shape + a.rank, b.shape);
  };
  if (inputs.size() == 1 && sameShape(labels, tokens)) {
    task.task = data::Task::LanguageModel;
  } else if (inputs.size() == 1 && labels.rank == 1 &&
             labels.shape[0] == task.batchSize) {
    task.task = data::Task::Classification;
    if (!task.hasForward)
      throw std::runtime_error(where + "a classifier needs a forward entry "
                                       "point, whose logits give the number "
                                       "of classes");
    std::vector<tf_tensor_info> logits = artifact.outputs("forward");
    if (logits.size() != 1 || logits[0].rank != 2)
      throw std::runtime_error(where + "forward must give one [batch, "
                                       "classes] output");
    task.numClasses = logits[0].shape[1];
  } else if (inputs.size() == 2 && inputs[1].shape[0] == task.batchSize &&
             sameShape(labels, inputs[1])) {
    task.task = data::Task::Seq2Seq;
    task.targetLength = inputs[1].shape[1];
  } else {
    throw std::runtime_error(
        where + "cannot tell the task from train_step's inputs and labels "
                "(a language model has labels shaped like its one input, a "
                "classifier one label per row, seq2seq a source and a "
                "decoder input shaped like the labels)");
  }
  if (labels.dtype != TF_I64)
    throw std::runtime_error(where + "labels '" + task.labels + "' are " +
                             tf_dtype_name(labels.dtype) +
                             ": transfuse-train feeds i64 ids");
  bool ignoredValueValid =
      (labels.has_ignore_value && labels.ignore_value == task.ignoreIndex) ||
      (task.ignoreIndex >= 0 && task.ignoreIndex <= labels.max_value);
  if (labels.max_value >= 0 && !ignoredValueValid)
    throw std::runtime_error(
        where + "labels '" + task.labels + "' must lie in [0, " +
        std::to_string(labels.max_value) + "], so the ignore index " +
        std::to_string(task.ignoreIndex) +
        " cannot pad them (set training.ignore_index in the manifest)");
  return task;
}

std::vector<tf_named_tensor> bind(const TaskInfo &task,
                                  const Artifact &artifact,
                                  const std::string &entry,
                                  data::Batch &batch) {
  auto view = [](const std::string &name, int64_t rows, int64_t columns,
                 std::vector<int64_t> &data) {
    tf_named_tensor tensor{name.c_str(), {TF_I64, columns ? 2 : 1, {}, {}}};
    tensor.tensor.shape[0] = rows;
    tensor.tensor.shape[1] = columns;
    tensor.tensor.data = data.data();
    return tensor;
  };
  std::vector<tf_named_tensor> all = {
      view(task.inputs[0], task.batchSize, task.length, batch.inputs)};
  if (task.task == data::Task::Seq2Seq)
    all.push_back(view(task.inputs[1], task.batchSize, task.targetLength,
                       batch.decoderInputs));
  int64_t labelColumns = task.task == data::Task::Classification ? 0
                         : task.task == data::Task::Seq2Seq ? task.targetLength
                                                            : task.length;
  all.push_back(view(task.labels, task.batchSize, labelColumns, batch.labels));

  std::vector<tf_tensor_info> wanted = artifact.inputs(entry);
  std::vector<tf_named_tensor> result;
  for (const tf_named_tensor &tensor : all)
    for (const tf_tensor_info &info : wanted)
      if (info.name == std::string(tensor.name))
        result.push_back(tensor);
  return result;
}

int64_t countedLabels(const TaskInfo &task, const data::Batch &batch) {
  return std::count_if(
      batch.labels.begin(), batch.labels.end(),
      [&](int64_t label) { return label != task.ignoreIndex; });
}

} // namespace transfuse::train
