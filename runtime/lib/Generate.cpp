//===- Generate.cpp - Continuing prompts with a causal LM -----------------===//
#include "transfuse/generate.hpp"

#include <algorithm>
#include <string>

namespace transfuse {
namespace {

// The names the compiler gives the inputs and the output of prefill and
// decode_step.
constexpr const char *kTokens = "tokens";
constexpr const char *kPositions = "positions";
constexpr const char *kLogits = "logits";

[[noreturn]] void invalid(const std::string &message) {
  throw Error(TF_ERROR_INVALID_ARGUMENT, message);
}

/// The inputs and outputs an entry point declares.
struct Signature {
  std::vector<tf_tensor_info> inputs, outputs;
};

std::optional<Signature> signature(const tf_artifact *artifact,
                                   const char *entry) {
  int32_t index = -1;
  if (tf_artifact_find_entry_point(artifact, entry, &index) != TF_OK)
    return std::nullopt;
  Signature result;
  result.inputs.resize(tf_entry_point_num_inputs(artifact, index));
  for (size_t i = 0; i < result.inputs.size(); ++i)
    check(tf_entry_point_input(artifact, index, static_cast<int32_t>(i),
                               &result.inputs[i]));
  result.outputs.resize(tf_entry_point_num_outputs(artifact, index));
  for (size_t i = 0; i < result.outputs.size(); ++i)
    check(tf_entry_point_output(artifact, index, static_cast<int32_t>(i),
                                &result.outputs[i]));
  return result;
}

const tf_tensor_info *find(const std::vector<tf_tensor_info> &infos,
                           const char *name) {
  for (const tf_tensor_info &info : infos)
    if (std::string(info.name) == name)
      return &info;
  return nullptr;
}

/// Whether `info` is declared with `dtype` and exactly `shape`.
bool declares(const tf_tensor_info *info, tf_dtype dtype,
              const std::vector<int64_t> &shape) {
  return info && info->dtype == dtype &&
         info->rank == static_cast<int32_t>(shape.size()) &&
         std::equal(shape.begin(), shape.end(), info->shape);
}

/// A view of the session's buffer, valid until the next run.
tf_tensor logitsOf(const std::vector<tf_named_tensor> &outputs) {
  for (const tf_named_tensor &output : outputs)
    if (std::string(output.name) == kLogits)
      return output.tensor;
  invalid("the model returned no logits");
}

} // namespace

Generator::Generator(Session &session) : session_(session) {
  const tf_artifact *artifact = tf_session_artifact(session.get());
  std::string model = tf_artifact_model(artifact);
  std::optional<Signature> prefill = signature(artifact, "prefill");
  std::optional<Signature> decode = signature(artifact, "decode_step");
  if (!prefill || !decode)
    invalid("model '" + model +
            "' has no prefill and decode_step entry points: generation "
            "needs a decoder-only causal language model compiled by this "
            "version of transfuse-compile");

  const tf_tensor_info *tokens = find(prefill->inputs, kTokens);
  const tf_tensor_info *logits = find(prefill->outputs, kLogits);
  if (prefill->inputs.size() == 1 && tokens && tokens->rank == 2 && logits &&
      logits->rank == 3) {
    batch_ = tokens->shape[0];
    context_ = tokens->shape[1];
    vocabulary_ = logits->shape[2];
    maxId_ = tokens->max_value >= 0 ? tokens->max_value : vocabulary_ - 1;
  }
  bool valid = batch_ > 0 && context_ > 0 && vocabulary_ > 0 &&
               declares(tokens, TF_I64, {batch_, context_}) &&
               declares(logits, TF_F32, {batch_, context_, vocabulary_}) &&
               decode->inputs.size() == 2 &&
               declares(find(decode->inputs, kTokens), TF_I64, {batch_, 1}) &&
               declares(find(decode->inputs, kPositions), TF_I64, {batch_}) &&
               declares(find(decode->outputs, kLogits), TF_F32,
                        {batch_, 1, vocabulary_});
  if (!valid)
    invalid("model '" + model +
            "': prefill and decode_step are not those of a causal language "
            "model (prefill: tokens i64 [B, S] -> logits f32 [B, S, V]; "
            "decode_step: tokens i64 [B, 1], positions i64 [B] -> logits "
            "f32 [B, 1, V])");
}

void Generator::checkPrompt(const std::vector<int64_t> &prompt) const {
  if (prompt.empty())
    invalid("empty prompt");
  if (static_cast<int64_t>(prompt.size()) > context_)
    invalid(std::to_string(prompt.size()) +
            " tokens, more than the model's context of " +
            std::to_string(context_));
  for (int64_t id : prompt)
    if (id < 0 || id > maxId_)
      invalid("token id " + std::to_string(id) +
              " is outside the model's ids 0.." + std::to_string(maxId_));
}

std::vector<Continuation>
Generator::generate(const std::vector<std::vector<int64_t>> &prompts,
                    const GenerateOptions &options) {
  validate(options.sampling);
  if (options.maxNewTokens < 0)
    invalid("the number of new tokens must be at least 0, not " +
            std::to_string(options.maxNewTokens));
  if (options.eos && (*options.eos < 0 || *options.eos >= vocabulary_))
    invalid("the stop token " + std::to_string(*options.eos) +
            " is outside the model's vocabulary 0.." +
            std::to_string(vocabulary_ - 1));
  for (size_t i = 0; i < prompts.size(); ++i) {
    try {
      checkPrompt(prompts[i]);
    } catch (const Error &error) {
      throw Error(error.status(),
                  "prompt " + std::to_string(i + 1) + ": " + error.what());
    }
  }

  std::vector<Continuation> results(prompts.size());
  if (options.maxNewTokens == 0)
    return results;
  for (size_t first = 0; first < prompts.size(); first += batch_) {
    generateBatch(prompts, first, options, results);
    if (options.progress)
      options.progress(std::min(first + batch_, prompts.size()),
                       prompts.size());
  }
  return results;
}

void Generator::generateBatch(const std::vector<std::vector<int64_t>> &prompts,
                              size_t first, const GenerateOptions &options,
                              std::vector<Continuation> &results) {
  size_t rows = std::min<size_t>(batch_, prompts.size() - first);
  // Per row: the length of its sequence so far, its last token, and whether
  // it still generates. Padding rows never do.
  std::vector<int64_t> length(batch_), last(batch_);
  std::vector<bool> active(batch_, false);

  auto finish = [&](size_t row, Continuation::End end) {
    results[first + row].end = end;
    active[row] = false;
  };
  // Takes the row's next token from its logits.
  auto advance = [&](size_t row, const float *logits) {
    Continuation &out = results[first + row];
    int64_t token;
    try {
      token = sampleToken(logits, vocabulary_, options.sampling, first + row,
                          out.tokens.size());
    } catch (const Error &error) {
      throw Error(error.status(), "prompt " + std::to_string(first + row + 1) +
                                      ": " + error.what());
    }
    if (options.eos && token == *options.eos)
      return finish(row, Continuation::End::Eos);
    out.tokens.push_back(token);
    last[row] = token;
    ++length[row];
    if (static_cast<int64_t>(out.tokens.size()) == options.maxNewTokens)
      finish(row, Continuation::End::Length);
    else if (length[row] == context_)
      finish(row, Continuation::End::Context);
  };

  // Prefill on the prompts, right-padded with zeros; the padding rows copy
  // the batch's first prompt.
  std::vector<int64_t> tokens(batch_ * context_, 0);
  for (size_t row = 0; row < static_cast<size_t>(batch_); ++row) {
    const std::vector<int64_t> &prompt =
        prompts[first + (row < rows ? row : 0)];
    std::copy(prompt.begin(), prompt.end(), tokens.begin() + row * context_);
    length[row] = static_cast<int64_t>(prompt.size());
    if (row >= rows)
      continue;
    active[row] = true;
    if (length[row] == context_)
      finish(row, Continuation::End::Context);
  }
  if (std::none_of(active.begin(), active.end(), [](bool a) { return a; }))
    return;
  {
    tf_named_tensor input{kTokens,
                          {TF_I64, 2, {batch_, context_}, tokens.data()}};
    tf_tensor logits = logitsOf(session_.run("prefill", {input}));
    const float *data = static_cast<const float *>(logits.data);
    for (size_t row = 0; row < rows; ++row)
      if (active[row])
        advance(row, data + (row * context_ + length[row] - 1) * vocabulary_);
  }

  // Each step feeds every active row its last token, at that token's
  // position (within the context, as an active row is shorter than it).
  // Finished rows are fed token 0 at position 0 of their own cache, and
  // their logits ignored.
  std::vector<int64_t> next(batch_), positions(batch_);
  while (std::any_of(active.begin(), active.end(), [](bool a) { return a; })) {
    for (size_t row = 0; row < static_cast<size_t>(batch_); ++row) {
      next[row] = active[row] ? last[row] : 0;
      positions[row] = active[row] ? length[row] - 1 : 0;
    }
    std::vector<tf_named_tensor> inputs = {
        {kTokens, {TF_I64, 2, {batch_, 1}, next.data()}},
        {kPositions, {TF_I64, 1, {batch_}, positions.data()}}};
    tf_tensor logits = logitsOf(session_.run("decode_step", inputs));
    const float *data = static_cast<const float *>(logits.data);
    for (size_t row = 0; row < rows; ++row)
      if (active[row])
        advance(row, data + row * vocabulary_);
  }
}

} // namespace transfuse
