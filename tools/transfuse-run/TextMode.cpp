//===- TextMode.cpp - Running a model on text -----------------------------===//
#include "TextMode.h"
#include "Tokenizer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace transfuse::text {
namespace {

/// The model's one input: integer token ids [batch, seq].
struct TokenInput {
  std::string name;
  int64_t batch, length, maxValue;
};

TokenInput tokenInput(const Artifact &artifact) {
  std::vector<tf_tensor_info> inputs = artifact.inputs("forward");
  if (inputs.size() != 1 || inputs[0].rank != 2 || inputs[0].dtype != TF_I64)
    throw std::runtime_error(
        "--text needs a model whose forward takes one [batch, seq] i64 "
        "input of token ids");
  return {inputs[0].name, inputs[0].shape[0], inputs[0].shape[1],
          inputs[0].max_value};
}

/// Runs forward on `tokens` in row 0 (the last `length` of them), the rest
/// padding; returns the output and the row position of the last token.
std::pair<tf_tensor, int64_t> forwardOn(Session &session,
                                        const TokenInput &input,
                                        const std::vector<int64_t> &tokens) {
  std::vector<int64_t> ids(input.batch * input.length, 0);
  int64_t count = std::min<int64_t>(tokens.size(), input.length);
  std::copy(tokens.end() - count, tokens.end(), ids.begin());
  tf_named_tensor bound{input.name.c_str(),
                        {TF_I64, 2, {input.batch, input.length}, ids.data()}};
  std::vector<tf_named_tensor> outputs = session.run("forward", {bound});
  return {outputs.at(0).tensor, count - 1};
}

void continueText(Session &session, const TokenInput &input,
                  std::vector<int64_t> tokens, int64_t maxNewTokens) {
  for (int64_t step = 0; step < maxNewTokens; ++step) {
    auto [logits, position] = forwardOn(session, input, tokens);
    int64_t vocab = logits.shape[2];
    const float *row = static_cast<const float *>(logits.data) +
                       position * vocab; // row 0 of the batch
    int64_t next = std::max_element(row, row + vocab) - row;
    tokens.push_back(next);
    std::fputc(static_cast<int>(next), stdout);
    std::fflush(stdout);
  }
  std::fputc('\n', stdout);
}

void classify(Session &session, const TokenInput &input,
              const std::vector<int64_t> &tokens) {
  tf_tensor scores = forwardOn(session, input, tokens).first;
  int64_t classes = scores.shape[1];
  const float *row = static_cast<const float *>(scores.data);
  // Softmax, so that logits and log-probabilities both read as probabilities.
  float max = *std::max_element(row, row + classes);
  std::vector<double> probabilities(classes);
  double total = 0;
  for (int64_t c = 0; c < classes; ++c)
    total += probabilities[c] = std::exp(double(row[c]) - max);
  int64_t best = std::max_element(row, row + classes) - row;
  std::printf("class %lld\n", static_cast<long long>(best));
  for (int64_t c = 0; c < classes; ++c)
    std::printf("  %lld: %.4f\n", static_cast<long long>(c),
                probabilities[c] / total);
}

} // namespace

void run(const Artifact &artifact, Session &session,
         const TextOptions &options) {
  TokenInput input = tokenInput(artifact);
  std::vector<int64_t> tokens =
      Tokenizer(input.maxValue, options.weights).encode(options.text);
  if (tokens.empty())
    throw std::runtime_error("--text has no tokens");
  std::vector<tf_tensor_info> outputs = artifact.outputs("forward");
  if (outputs.size() == 1 && outputs[0].rank == 3)
    return continueText(session, input, tokens, options.maxNewTokens);
  if (outputs.size() == 1 && outputs[0].rank == 2)
    return classify(session, input, tokens);
  throw std::runtime_error("--text needs a forward with one output: "
                           "[batch, seq, vocab] logits or [batch, classes]");
}

} // namespace transfuse::text
