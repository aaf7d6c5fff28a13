//===- DecodingEntryPoints.cpp - A causal LM's incremental calls ----------===//
#include "DecodingEntryPoints.h"
#include "InvalidArgument.h"

#include <algorithm>
#include <optional>
#include <string>

namespace transfuse::rt {
namespace {

using detail::invalid;

// The names the compiler gives the inputs and outputs of the entry points.
constexpr const char *kTokens = "tokens";
constexpr const char *kPositions = "positions";
constexpr const char *kLogits = "logits";
constexpr const char *kBeams = "beams";

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

const float *logitsOf(const std::vector<tf_named_tensor> &outputs) {
  for (const tf_named_tensor &output : outputs)
    if (std::string(output.name) == kLogits)
      return static_cast<const float *>(output.tensor.data);
  invalid("the model returned no logits");
}

} // namespace

CausalLmShape causalLmShape(const tf_artifact *artifact) {
  std::string model = tf_artifact_model(artifact);
  std::optional<Signature> prefill = signature(artifact, "prefill");
  std::optional<Signature> decode = signature(artifact, "decode_step");
  if (!prefill || !decode)
    invalid("model '" + model +
            "' has no prefill and decode_step entry points: generation "
            "needs a decoder-only causal language model compiled by this "
            "version of transfuse-compile");

  CausalLmShape shape;
  const tf_tensor_info *tokens = find(prefill->inputs, kTokens);
  const tf_tensor_info *logits = find(prefill->outputs, kLogits);
  if (prefill->inputs.size() == 1 && tokens && tokens->rank == 2 && logits &&
      logits->rank == 3) {
    shape.batch = tokens->shape[0];
    shape.context = tokens->shape[1];
    shape.vocabulary = logits->shape[2];
    shape.maxId =
        tokens->max_value >= 0 ? tokens->max_value : shape.vocabulary - 1;
  }
  int64_t batch = shape.batch, vocabulary = shape.vocabulary;
  bool valid =
      batch > 0 && shape.context > 0 && vocabulary > 0 &&
      declares(tokens, TF_I64, {batch, shape.context}) &&
      declares(logits, TF_F32, {batch, shape.context, vocabulary}) &&
      decode->inputs.size() == 2 &&
      declares(find(decode->inputs, kTokens), TF_I64, {batch, 1}) &&
      declares(find(decode->inputs, kPositions), TF_I64, {batch}) &&
      declares(find(decode->outputs, kLogits), TF_F32, {batch, 1, vocabulary});
  if (!valid)
    invalid("model '" + model +
            "': prefill and decode_step are not those of a causal language "
            "model (prefill: tokens i64 [B, S] -> logits f32 [B, S, V]; "
            "decode_step: tokens i64 [B, 1], positions i64 [B] -> logits "
            "f32 [B, 1, V])");
  return shape;
}

void checkReorderCache(const tf_artifact *artifact, int64_t batch) {
  std::string model = tf_artifact_model(artifact);
  std::optional<Signature> reorder = signature(artifact, "reorder_cache");
  if (!reorder)
    invalid("model '" + model +
            "' has no reorder_cache entry point: beam search needs a causal "
            "language model compiled by this version of transfuse-compile");
  if (reorder->inputs.size() != 1 || !reorder->outputs.empty() ||
      !declares(find(reorder->inputs, kBeams), TF_I64, {batch}))
    invalid("model '" + model + "': reorder_cache is not beams i64 [" +
            std::to_string(batch) + "] -> nothing");
}

const float *runPrefill(Session &session, int64_t batch, int64_t context,
                        std::vector<int64_t> &tokens) {
  tf_named_tensor input{kTokens, {TF_I64, 2, {batch, context}, tokens.data()}};
  return logitsOf(session.run("prefill", {input}));
}

const float *runDecodeStep(Session &session, int64_t batch,
                           std::vector<int64_t> &tokens,
                           std::vector<int64_t> &positions) {
  std::vector<tf_named_tensor> inputs = {
      {kTokens, {TF_I64, 2, {batch, 1}, tokens.data()}},
      {kPositions, {TF_I64, 1, {batch}, positions.data()}}};
  return logitsOf(session.run("decode_step", inputs));
}

void runReorderCache(Session &session, int64_t batch,
                     std::vector<int64_t> &beams) {
  tf_named_tensor input{kBeams, {TF_I64, 1, {batch}, beams.data()}};
  session.run("reorder_cache", {input});
}

} // namespace transfuse::rt
