//===- ClassifyMode.cpp - Classifying a file, one example a line ----------===//
#include "ClassifyMode.h"
#include "LineFile.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace transfuse::text {
namespace {

/// forward's [batch, seq] token input and [batch, classes] output.
struct Classifier {
  std::string input;
  int64_t batch, length, maxTokenId, classes;
};

Classifier classifierOf(const Artifact &artifact) {
  std::vector<tf_tensor_info> inputs = artifact.inputs("forward");
  std::vector<tf_tensor_info> outputs = artifact.outputs("forward");
  if (inputs.size() != 1 || inputs[0].rank != 2 || inputs[0].dtype != TF_I64 ||
      outputs.size() != 1 || outputs[0].rank != 2 || outputs[0].dtype != TF_F32)
    throw std::runtime_error(
        "--classify needs a classifier: a forward from one [batch, seq] i64 "
        "input of token ids to one [batch, classes] f32 output");
  return {inputs[0].name, inputs[0].shape[0], inputs[0].shape[1],
          inputs[0].max_value, outputs[0].shape[1]};
}

/// One output line: the class and every class's probability.
std::string describe(const float *scores, int64_t classes) {
  // Softmax, so that logits and log-probabilities both read as probabilities.
  const float *best = std::max_element(scores, scores + classes);
  std::vector<double> probabilities(classes);
  double total = 0;
  for (int64_t c = 0; c < classes; ++c)
    total += probabilities[c] = std::exp(double(scores[c]) - *best);
  std::string line = std::to_string(best - scores) + "\t";
  char number[32];
  for (int64_t c = 0; c < classes; ++c) {
    std::snprintf(number, sizeof number, c ? " %.4f" : "%.4f",
                  probabilities[c] / total);
    line += number;
  }
  return line + "\n";
}

} // namespace

void classify(const Artifact &artifact, Session &session,
              const ClassifyModeOptions &options) {
  Classifier model = classifierOf(artifact);
  Tokenizer tokenizer(model.maxTokenId, options.weights, options.tokenIds);
  std::vector<std::vector<int64_t>> examples =
      readTokenLines(options.examples, "--classify", tokenizer,
                     [&](const std::vector<int64_t> &tokens) {
                       if (tokens.empty())
                         throw std::runtime_error("empty example");
                       if (static_cast<int64_t>(tokens.size()) > model.length)
                         throw std::runtime_error(
                             std::to_string(tokens.size()) +
                             " tokens, more than the model's sequence of " +
                             std::to_string(model.length));
                     });

  size_t batch = static_cast<size_t>(model.batch);
  auto progress =
      progressReporter("classified", (examples.size() + batch - 1) / batch);
  std::vector<int64_t> ids(model.batch * model.length);
  for (size_t first = 0; first < examples.size(); first += batch) {
    size_t rows = std::min(batch, examples.size() - first);
    std::fill(ids.begin(), ids.end(), 0);
    // Rows past the last example repeat the batch's first; their outputs
    // are not written.
    for (size_t row = 0; row < batch; ++row) {
      const std::vector<int64_t> &tokens =
          examples[first + (row < rows ? row : 0)];
      std::copy(tokens.begin(), tokens.end(), ids.begin() + row * model.length);
    }
    tf_named_tensor input{model.input.c_str(),
                          {TF_I64, 2, {model.batch, model.length}, ids.data()}};
    tf_tensor scores = session.run("forward", {input}).at(0).tensor;
    for (size_t row = 0; row < rows; ++row) {
      std::string line = describe(static_cast<const float *>(scores.data) +
                                      row * model.classes,
                                  model.classes);
      std::fwrite(line.data(), 1, line.size(), stdout);
    }
    if (progress)
      progress(first + rows, examples.size());
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw std::runtime_error(std::string("cannot write the classes: ") +
                             std::strerror(errno));
}

} // namespace transfuse::text
