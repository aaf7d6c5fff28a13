//===- Checkpoint.cpp - Save and resume training --------------------------===//
//
// A checkpoint is one safetensors file: every parameter and every optimizer
// state tensor under its name, and in `__metadata__` a marker, the model, the
// completed step, the artifact's manifest and its fingerprint, plus what the
// caller adds (a data position, a vocabulary). The manifest is kept whole so
// that resuming with another artifact can say what differs, not only that
// something does; whole but for what depends on the target (Manifest::
// modelJson), so that a checkpoint of the CPU artifact of a spec resumes on
// its CUDA artifact and back. Loading checks everything before it copies
// anything.
//===----------------------------------------------------------------------===//
#include "Json.h"
#include "Runtime.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

using json = nlohmann::json;

namespace transfuse::rt {
namespace {

constexpr const char *kMarkerKey = "checkpoint";
constexpr const char *kMarker = "transfuse 1";
constexpr const char *kStepKey = "step";
constexpr const char *kManifestKey = "manifest";
constexpr const char *kFingerprintKey = "manifest_fingerprint";
const std::set<std::string> kReservedKeys = {
    "format", "model", kMarkerKey, kStepKey, kManifestKey, kFingerprintKey};

/// A JSON value as a message shows it, shortened.
std::string shown(const json &value) {
  std::string text = value.dump();
  return text.size() <= 60 ? text : text.substr(0, 57) + "...";
}

/// `path[index]`, with the element's name when it has one.
std::string element(const std::string &path, size_t index, const json &value) {
  std::string result = path + "[" + std::to_string(index) + "]";
  if (value.is_object() && value.contains("name") && value["name"].is_string())
    result += " ('" + value["name"].get<std::string>() + "')";
  return result;
}

/// The first place where the checkpoint's manifest (`there`) and this
/// artifact's (`here`) differ; "" if nowhere.
std::string difference(const json &there, const json &here,
                       const std::string &path) {
  std::string name = path.empty() ? "the manifest" : path;
  if (there.is_object() && here.is_object()) {
    for (auto it = there.begin(); it != there.end(); ++it) {
      std::string key = path.empty() ? it.key() : path + "." + it.key();
      if (!here.contains(it.key()))
        return key + " is in the checkpoint's manifest only";
      std::string inner = difference(*it, here[it.key()], key);
      if (!inner.empty())
        return inner;
    }
    for (auto it = here.begin(); it != here.end(); ++it)
      if (!there.contains(it.key()))
        return (path.empty() ? it.key() : path + "." + it.key()) +
               " is in this artifact's manifest only";
    return "";
  }
  if (there.is_array() && here.is_array()) {
    for (size_t i = 0; i < std::min(there.size(), here.size()); ++i) {
      std::string inner =
          difference(there[i], here[i], element(path, i, there[i]));
      if (!inner.empty())
        return inner;
    }
    if (there.size() != here.size())
      return name + " has " + std::to_string(there.size()) +
             " entries in the checkpoint, " + std::to_string(here.size()) +
             " in this artifact";
    return "";
  }
  if (there != here)
    return name + " is " + shown(there) + " in the checkpoint, " + shown(here) +
           " in this artifact";
  return "";
}

int64_t parseStep(const std::string &text, const std::string &where) {
  int64_t step = -1;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), step);
  if (error != std::errc() || end != text.data() + text.size() || step < 0)
    fail(TF_ERROR_FORMAT, where + ": metadata '" + kStepKey + "' is '" + text +
                              "', not a step count");
  if (step > TF_MAX_STEP)
    fail(TF_ERROR_FORMAT, where + ": metadata '" + kStepKey + "' is " + text +
                              ", over the limit of " +
                              std::to_string(TF_MAX_STEP) + " steps");
  return step;
}

} // namespace

void Session::saveCheckpoint(
    const std::string &path,
    const std::map<std::string, std::string> &metadata) const {
  refreshHost();
  const Manifest &m = manifest();
  for (const auto &[key, value] : metadata)
    if (kReservedKeys.count(key))
      fail(TF_ERROR_INVALID_ARGUMENT, "cannot write " + inQuotes(path) +
                                          ": metadata key '" + key +
                                          "' is the runtime's own");
  std::map<std::string, std::string> all = metadata;
  all["format"] = "pt";
  all["model"] = m.model;
  all[kMarkerKey] = kMarker;
  all[kStepKey] = std::to_string(step_);
  all[kManifestKey] = m.modelJson;
  all[kFingerprintKey] = m.fingerprint;

  std::vector<TensorToWrite> tensors;
  for (size_t i = 0; i < m.parameters.size(); ++i) {
    const TensorDesc &desc = m.parameters[i];
    tensors.push_back(
        {desc.name, desc.dtype, desc.shape, parameters_[i].data(), desc.bytes});
  }
  for (size_t i = 0; i < m.state.size(); ++i) {
    const TensorDesc &desc = m.state[i];
    tensors.push_back(
        {desc.name, desc.dtype, desc.shape, state_[i].data(), desc.bytes});
  }
  writeTensorFile(path, std::move(tensors), all);
}

void Session::loadCheckpoint(const TensorFile &file) {
  const Manifest &m = manifest();
  const std::map<std::string, std::string> &metadata = file.metadata();
  std::string where = inQuotes(file.path());
  auto value = [&](const char *key) -> const std::string & {
    auto it = metadata.find(key);
    if (it != metadata.end())
      return it->second;
    if (key == kMarkerKey)
      fail(TF_ERROR_FORMAT, where + ": not a checkpoint: no '" + key +
                                "' metadata (a file of parameters only "
                                "loads as weights)");
    fail(TF_ERROR_FORMAT,
         where + ": the checkpoint has no '" + key + "' metadata");
  };
  if (value(kMarkerKey) != kMarker)
    fail(TF_ERROR_UNSUPPORTED, where + ": checkpoint format '" +
                                   value(kMarkerKey) +
                                   "', this runtime reads '" + kMarker + "'");

  // Tensors first: a checkpoint of another model is told by the first
  // tensor that does not fit.
  std::vector<const StoredTensor *> parameters, state;
  try {
    parameters = matchTensors(file, m.parameters, "parameter");
    state = matchTensors(file, m.state, "state tensor");
    checkNoOtherTensors(file, m);
  } catch (const Error &error) {
    auto model = metadata.find("model");
    if (model == metadata.end() || model->second == m.model)
      throw;
    fail(error.status(), std::string(error.what()) +
                             " (it is a checkpoint of model '" + model->second +
                             "')");
  }
  int64_t step = parseStep(value(kStepKey), where);

  if (value(kFingerprintKey) != m.fingerprint) {
    std::string what;
    auto stored = metadata.find(kManifestKey);
    if (stored != metadata.end()) {
      try {
        json there = parseJson(stored->second, where);
        what = difference(there, json::parse(m.modelJson), "");
      } catch (const Error &) {
        // Not a manifest to compare: the fingerprints say what differs.
      }
    }
    if (what.empty())
      what = "its manifest fingerprint is " + value(kFingerprintKey) +
             ", this artifact's " + m.fingerprint;
    fail(TF_ERROR_INVALID_ARGUMENT,
         where + ": the checkpoint was written by a different artifact than " +
             inQuotes(artifact_->path()) + ": " + what);
  }

  for (size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i]->bytes)
      std::memcpy(parameters_[i].data(), parameters[i]->data,
                  parameters[i]->bytes);
  for (size_t i = 0; i < state.size(); ++i)
    if (state[i]->bytes)
      std::memcpy(state_[i].data(), state[i]->data, state[i]->bytes);
  step_ = step;
  hostChanged();
}

} // namespace transfuse::rt
