//===- Sample.cpp - Text from a trained language model --------------------===//
//
// The model sees a fixed [batch, length] window: row 0 holds the last
// `length` tokens of the text so far, the rest is padding, and the logits
// at the last real position give the next token. Sampling draws from
// softmax(logits / temperature) with SplitMix64, so a seed gives the same
// text on every machine.
//===----------------------------------------------------------------------===//
#include "Sample.h"

#include <algorithm>
#include <cmath>

namespace transfuse::train {
namespace {

int64_t pick(const float *logits, int64_t vocab, double temperature,
             data::SplitMix64 &random) {
  int64_t best = std::max_element(logits, logits + vocab) - logits;
  if (temperature == 0)
    return best;
  std::vector<double> weights(vocab);
  double total = 0;
  for (int64_t v = 0; v < vocab; ++v)
    total += weights[v] = std::exp((logits[v] - logits[best]) / temperature);
  double draw = double(random.next() >> 11) * 0x1.0p-53 * total;
  for (int64_t v = 0; v < vocab; ++v) {
    draw -= weights[v];
    if (draw < 0)
      return v;
  }
  return best;
}

} // namespace

std::string sample(Session &session, const Artifact &artifact,
                   const TaskInfo &task, const SampleOptions &options,
                   const std::optional<data::Vocabulary> &vocabulary) {
  data::SplitMix64 random(options.seed);
  std::vector<int64_t> text = options.prompt;
  data::Batch window;
  window.labels.assign(task.batchSize * task.length, task.ignoreIndex);
  std::string result;
  for (int64_t i = 0; i < options.count; ++i) {
    window.inputs.assign(task.batchSize * task.length, data::kPadId);
    int64_t used = std::min<int64_t>(text.size(), task.length);
    std::copy(text.end() - used, text.end(), window.inputs.begin());
    std::vector<tf_named_tensor> out =
        session.run("forward", bind(task, artifact, "forward", window));
    int64_t vocab = out[0].tensor.shape[2];
    const float *logits =
        static_cast<const float *>(out[0].tensor.data) + (used - 1) * vocab;
    int64_t next = pick(logits, vocab, options.temperature, random);
    text.push_back(next);
    if (vocabulary)
      result += (i ? " " : "") + (next < vocabulary->size()
                                      ? vocabulary->words()[next]
                                      : vocabulary->words()[data::kUnknownId]);
    else
      result += static_cast<char>(next);
  }
  return result;
}

} // namespace transfuse::train
