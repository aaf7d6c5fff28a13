//===- DecodingEntryPoints.cpp - A decoder's incremental calls ------------===//
#include "DecodingEntryPoints.h"
#include "InvalidArgument.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>

namespace transfuse::rt {
namespace {

using detail::invalid;

// The names the compiler gives the inputs of the entry points it adds.
constexpr const char *kPositions = "positions";
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

const float *outputOf(const std::vector<tf_named_tensor> &outputs,
                      const std::string &name) {
  for (const tf_named_tensor &output : outputs)
    if (output.name == name)
      return static_cast<const float *>(output.tensor.data);
  invalid("the model returned no '" + name + "'");
}

/// The largest id `info` takes: its max_value, or else `fallback`.
int64_t maxIdOf(const tf_tensor_info *info, int64_t fallback) {
  return info->max_value >= 0 ? info->max_value : fallback;
}

/// Reads encode's source input into `shape`; false where encode is not
/// source i64 [B, L] -> nothing.
bool readSource(const Signature &encode, DecoderShape &shape) {
  if (encode.inputs.size() != 1 || !encode.outputs.empty())
    return false;
  const tf_tensor_info &source = encode.inputs[0];
  if (source.dtype != TF_I64 || source.rank != 2 || source.shape[1] <= 0)
    return false;
  shape.source = source.name;
  shape.sourceLength = source.shape[1];
  shape.sourceMaxId = source.max_value >= 0 ? source.max_value : INT64_MAX;
  return true;
}

} // namespace

DecoderShape decoderShape(const tf_artifact *artifact) {
  std::string model = tf_artifact_model(artifact);
  std::optional<Signature> prefill = signature(artifact, "prefill");
  std::optional<Signature> decode = signature(artifact, "decode_step");
  std::optional<Signature> encode = signature(artifact, "encode");
  if (!prefill || !decode)
    invalid("model '" + model +
            "' has no prefill and decode_step entry points: generation "
            "needs a causal language model or an encoder-decoder compiled "
            "by this version of transfuse-compile");

  DecoderShape shape;
  bool valid = !encode || readSource(*encode, shape);
  size_t sources = shape.encodes() ? 1 : 0;
  const tf_tensor_info *target = nullptr;
  for (const tf_tensor_info &input : prefill->inputs)
    if (input.name != shape.source)
      target = &input;
  if (valid && prefill->inputs.size() == 1 + sources && target &&
      target->rank == 2 && prefill->outputs.size() == 1 &&
      prefill->outputs[0].rank == 3) {
    shape.target = target->name;
    shape.logits = prefill->outputs[0].name;
    shape.batch = target->shape[0];
    shape.context = target->shape[1];
    shape.vocabulary = prefill->outputs[0].shape[2];
    shape.maxId = maxIdOf(target, shape.vocabulary - 1);
  }
  int64_t batch = shape.batch, vocabulary = shape.vocabulary;
  const char *targetName = shape.target.c_str();
  const char *logitsName = shape.logits.c_str();
  valid = valid && batch > 0 && shape.context > 0 && vocabulary > 0 &&
          declares(target, TF_I64, {batch, shape.context}) &&
          declares(&prefill->outputs[0], TF_F32,
                   {batch, shape.context, vocabulary}) &&
          decode->inputs.size() == 2 + sources &&
          declares(find(decode->inputs, targetName), TF_I64, {batch, 1}) &&
          declares(find(decode->inputs, kPositions), TF_I64, {batch}) &&
          decode->outputs.size() == 1 &&
          declares(find(decode->outputs, logitsName), TF_F32,
                   {batch, 1, vocabulary});
  if (valid && shape.encodes()) {
    std::vector<int64_t> sourceShape = {batch, shape.sourceLength};
    const char *sourceName = shape.source.c_str();
    valid = declares(&encode->inputs[0], TF_I64, sourceShape) &&
            declares(find(prefill->inputs, sourceName), TF_I64, sourceShape) &&
            declares(find(decode->inputs, sourceName), TF_I64, sourceShape);
  }
  if (!valid)
    invalid("model '" + model +
            "': encode, prefill and decode_step are not those of a decoder "
            "(prefill: [source i64 [B, L],] target i64 [B, S] -> logits f32 "
            "[B, S, V]; decode_step: [source,] target i64 [B, 1], positions "
            "i64 [B] -> logits f32 [B, 1, V]; encode, for an "
            "encoder-decoder: source -> nothing)");
  return shape;
}

void checkReorderCache(const tf_artifact *artifact, int64_t batch) {
  std::string model = tf_artifact_model(artifact);
  std::optional<Signature> reorder = signature(artifact, "reorder_cache");
  if (!reorder)
    invalid("model '" + model +
            "' has no reorder_cache entry point: beam search needs a model "
            "compiled by this version of transfuse-compile");
  if (reorder->inputs.size() != 1 || !reorder->outputs.empty() ||
      !declares(find(reorder->inputs, kBeams), TF_I64, {batch}))
    invalid("model '" + model + "': reorder_cache is not beams i64 [" +
            std::to_string(batch) + "] -> nothing");
}

std::vector<int64_t>
sourceRows(const DecoderShape &shape,
           const std::vector<std::vector<int64_t>> &sources,
           const std::vector<size_t> &sourceOfRow) {
  if (!shape.encodes())
    return {};
  std::vector<int64_t> rows(shape.batch * shape.sourceLength, 0);
  for (size_t row = 0; row < sourceOfRow.size(); ++row) {
    const std::vector<int64_t> &source = sources[sourceOfRow[row]];
    std::copy(source.begin(), source.end(),
              rows.begin() + row * shape.sourceLength);
  }
  return rows;
}

namespace {

/// The inputs of a call: the source rows where the model has them.
std::vector<tf_named_tensor> withSource(const DecoderShape &shape,
                                        std::vector<int64_t> &sources) {
  if (!shape.encodes())
    return {};
  return {{shape.source.c_str(),
           {TF_I64, 2, {shape.batch, shape.sourceLength}, sources.data()}}};
}

} // namespace

void runEncode(Session &session, const DecoderShape &shape,
               std::vector<int64_t> &sources) {
  session.run("encode", withSource(shape, sources));
}

const float *runPrefill(Session &session, const DecoderShape &shape,
                        std::vector<int64_t> &tokens,
                        std::vector<int64_t> &sources) {
  std::vector<tf_named_tensor> inputs = withSource(shape, sources);
  inputs.push_back({shape.target.c_str(),
                    {TF_I64, 2, {shape.batch, shape.context}, tokens.data()}});
  return outputOf(session.run("prefill", inputs), shape.logits);
}

std::vector<const float *>
runPrompts(Session &session, const DecoderShape &shape,
           std::vector<int64_t> &tokens, const std::vector<int64_t> &lengths,
           std::vector<int64_t> &sources, std::vector<float> &held) {
  int64_t batch = shape.batch, vocabulary = shape.vocabulary;
  int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  std::vector<const float *> rows(batch);
  // A step costs about three positions of a prefill (char_lm, 16 rows of
  // 272): prefill only where the prompts fill a quarter of the context.
  if (4 * longest > shape.context) {
    const float *logits = runPrefill(session, shape, tokens, sources);
    for (int64_t row = 0; row < batch; ++row)
      rows[row] =
          logits + (row * shape.context + lengths[row] - 1) * vocabulary;
    return rows;
  }
  // Step i feeds each row its prompt's token i, or, once the prompt is
  // done, its last token again at its position (which writes the same
  // keys and values); a row's logits are kept when its prompt ends.
  held.resize(batch * vocabulary);
  std::vector<int64_t> next(batch), positions(batch);
  for (int64_t i = 0; i < longest; ++i) {
    for (int64_t row = 0; row < batch; ++row) {
      positions[row] = std::min(i, lengths[row] - 1);
      next[row] = tokens[row * shape.context + positions[row]];
    }
    const float *logits =
        runDecodeStep(session, shape, next, positions, sources);
    for (int64_t row = 0; row < batch; ++row)
      if (lengths[row] - 1 == i)
        std::copy(logits + row * vocabulary, logits + (row + 1) * vocabulary,
                  held.begin() + row * vocabulary);
  }
  for (int64_t row = 0; row < batch; ++row)
    rows[row] = held.data() + row * vocabulary;
  return rows;
}

const float *runDecodeStep(Session &session, const DecoderShape &shape,
                           std::vector<int64_t> &tokens,
                           std::vector<int64_t> &positions,
                           std::vector<int64_t> &sources) {
  std::vector<tf_named_tensor> inputs = withSource(shape, sources);
  inputs.push_back(
      {shape.target.c_str(), {TF_I64, 2, {shape.batch, 1}, tokens.data()}});
  inputs.push_back({kPositions, {TF_I64, 1, {shape.batch}, positions.data()}});
  return outputOf(session.run("decode_step", inputs), shape.logits);
}

void runReorderCache(Session &session, int64_t batch,
                     std::vector<int64_t> &beams) {
  tf_named_tensor input{kBeams, {TF_I64, 1, {batch}, beams.data()}};
  session.run("reorder_cache", {input});
}

} // namespace transfuse::rt
