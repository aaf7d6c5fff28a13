//===- ManifestTraining.cpp - The training section of a manifest ----------===//
//
// What a compiler adds for training (docs/artifact.md): the optimizer's
// state tensors, the `state` lists of the entry points that update in place,
// and the `training` section that says how train_step was built. The
// optimizer's and the schedule's settings are kept as text for display: the
// runtime never computes with them (the update is compiled into train_step),
// so only their kind is checked.
//===----------------------------------------------------------------------===//
#include "ManifestParser.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace transfuse::rt::detail {
namespace {

const std::vector<std::string> kOptimizers = {"sgd", "adam", "adamw"};
const std::vector<std::string> kSchedules = {"constant", "linear_warmup",
                                             "inverse_sqrt", "cosine"};

/// "a, b or c".
std::string alternatives(const std::vector<std::string> &words) {
  std::string text;
  for (size_t i = 0; i < words.size(); ++i)
    text += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return text;
}

} // namespace

Training ManifestParser::training(const json &value,
                                  const std::string &path) const {
  object(value, path);
  Training result;
  std::set<std::string> names = {kStepInput};
  auto nameList = [&](const char *key) {
    std::string listPath = join(path, key);
    const json &list = array(*member(value, path, key, true), listPath);
    if (list.empty())
      bad(listPath, "must name at least one input of train_step");
    std::vector<std::string> listed;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string name = string(list[i], at(listPath, i));
      if (!names.insert(name).second)
        bad(at(listPath, i), name == kStepInput
                                 ? "'step' is the step number, not data"
                                 : "'" + name + "' is named twice");
      listed.push_back(std::move(name));
    }
    return listed;
  };
  result.inputs = nameList("inputs");
  result.labels = nameList("labels");
  result.loss = string(*member(value, path, "loss", true), join(path, "loss"));

  // The kind is checked; the other keys are the compiler's, kept as text.
  auto settings = [&](const char *key, const std::vector<std::string> &kinds) {
    std::string settingsPath = join(path, key);
    const json &fields = object(*member(value, path, key, true), settingsPath);
    std::string kindPath = join(settingsPath, "kind");
    std::string kind =
        string(*member(fields, settingsPath, "kind", true), kindPath);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
      bad(kindPath,
          "unknown " + std::string(key) + " '" + kind + "' (expected " +
              alternatives(kinds) + ")",
          TF_ERROR_UNSUPPORTED);
    std::vector<Setting> pairs = {{"kind", kind}};
    for (auto it = fields.begin(); it != fields.end(); ++it)
      if (it.key() != "kind")
        pairs.push_back({it.key(), it.value().is_string()
                                       ? it.value().get<std::string>()
                                       : it.value().dump()});
    return pairs;
  };
  result.optimizer = settings("optimizer", kOptimizers);
  result.schedule = settings("schedule", kSchedules);

  if (const json *clip = member(value, path, "clip_grad_norm", false)) {
    std::string clipPath = join(path, "clip_grad_norm");
    result.clipGradNorm = number(*clip, clipPath);
    if (result.clipGradNorm < 0)
      bad(clipPath, "must be >= 0 (0: no clipping)");
  }
  if (const json *seed = member(value, path, "seed", false)) {
    int64_t seedValue = integer(*seed, join(path, "seed"));
    if (seedValue < 0)
      bad(join(path, "seed"), "must be >= 0, got " + std::to_string(seedValue));
    result.seed = static_cast<uint64_t>(seedValue);
  }
  if (const json *ignore = member(value, path, "ignore_index", false))
    result.ignoreIndex = integer(*ignore, join(path, "ignore_index"));
  if (const json *buckets = member(value, path, "all_reduce_buckets", false)) {
    std::string bucketsPath = join(path, "all_reduce_buckets");
    result.allReduceBuckets = integer(*buckets, bucketsPath);
    if (result.allReduceBuckets < 0 || result.allReduceBuckets > INT32_MAX)
      bad(bucketsPath, "must be from 0 to " + std::to_string(INT32_MAX) +
                           ", got " + std::to_string(result.allReduceBuckets));
  }
  return result;
}

void ManifestParser::checkTraining(const Manifest &manifest) const {
  int64_t index = manifest.findEntryPoint(kTrainStep);
  if (index < 0)
    return;
  const EntryPoint &entry = manifest.entryPoints[index];
  std::string path = at("entry_points", static_cast<size_t>(index));
  if (!entry.updates)
    bad(path, "train_step has no 'state' list: it updates its parameters "
              "and the optimizer state in place (an empty list if there is "
              "no state)");
  // The step goes in, and loss, grad_norm and lr come out, as scalars.
  auto scalar = [&](const std::vector<TensorDesc> &tensors, const char *list,
                    const char *noun, const char *name, tf_dtype dtype) {
    std::string listPath = join(path, list);
    std::string expected = std::string(dtypeName(dtype)) + " []";
    auto found =
        std::find_if(tensors.begin(), tensors.end(),
                     [&](const TensorDesc &desc) { return desc.name == name; });
    if (found == tensors.end())
      bad(listPath, "train_step has no " + std::string(noun) + " '" + name +
                        "' (" + expected + ")");
    if (found->dtype != dtype || !found->shape.empty())
      bad(at(listPath, static_cast<size_t>(found - tensors.begin())),
          "'" + std::string(name) + "' must be " + expected + ", got " +
              dtypeName(found->dtype) + " " + shapeString(found->shape));
  };
  scalar(entry.inputs, "inputs", "input", kStepInput, TF_I64);
  for (const char *output : kTrainOutputs)
    scalar(entry.outputs, "outputs", "output", output, TF_F32);

  if (!manifest.training)
    bad("", "entry point 'train_step' needs the 'training' section");
  const Training &training = *manifest.training;
  auto takes = [&](const std::vector<std::string> &names, const char *key) {
    for (size_t i = 0; i < names.size(); ++i)
      if (entry.findInput(names[i]) < 0)
        bad(at(join("training", key), i),
            "'" + names[i] + "' is not an input of train_step");
  };
  takes(training.inputs, "inputs");
  takes(training.labels, "labels");
  for (size_t i = 0; i < entry.inputs.size(); ++i) {
    const std::string &name = entry.inputs[i].name;
    auto named = [&](const std::vector<std::string> &names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (name != kStepInput && !named(training.inputs) &&
        !named(training.labels))
      bad(at(join(path, "inputs"), i),
          "train_step input '" + name +
              "' is neither the step nor one of training.inputs and "
              "training.labels");
  }
}

} // namespace transfuse::rt::detail
