//===- Checkpoints.cpp - What transfuse-train adds to a checkpoint --------===//
#include "Checkpoints.h"

#include <sstream>
#include <stdexcept>

namespace transfuse::train {
namespace {

constexpr const char *kPositionKey = "data_position";
constexpr const char *kSeedKey = "data_seed";
constexpr const char *kExamplesKey = "train_examples";
/// The key `transfuse-run --text` reads a vocabulary from.
constexpr const char *kVocabularyKey = "vocabulary";

} // namespace

std::map<std::string, std::string> toMetadata(const DataState &state) {
  std::map<std::string, std::string> metadata = {
      {kPositionKey, std::to_string(state.position.epoch) + " " +
                         std::to_string(state.position.index)},
      {kSeedKey, std::to_string(state.seed)},
      {kExamplesKey, std::to_string(state.trainExamples)}};
  if (state.vocabulary)
    metadata[kVocabularyKey] = state.vocabulary->serialize();
  return metadata;
}

DataState fromMetadata(const TensorFile &checkpoint, const std::string &path) {
  auto entry = [&](const char *key) {
    std::optional<std::string> value = checkpoint.metadata(key);
    if (!value)
      throw std::runtime_error("'" + path + "': no '" + key +
                               "' metadata: the checkpoint was not written "
                               "by transfuse-train");
    return *value;
  };
  // Whole non-negative integers, separated by one space, and nothing else.
  auto numbers = [&](const char *key, size_t count) {
    std::string text = entry(key);
    std::istringstream in(text);
    std::vector<unsigned long long> values(count);
    for (unsigned long long &value : values)
      in >> value;
    std::string rest;
    if (!in || (in >> rest) || text.find('-') != std::string::npos)
      throw std::runtime_error("'" + path + "': metadata '" + key + "' is '" +
                               text + "', not what transfuse-train writes");
    return values;
  };
  DataState state;
  std::vector<unsigned long long> position = numbers(kPositionKey, 2);
  state.position = {static_cast<int64_t>(position[0]),
                    static_cast<int64_t>(position[1])};
  state.seed = numbers(kSeedKey, 1)[0];
  state.trainExamples = static_cast<int64_t>(numbers(kExamplesKey, 1)[0]);
  if (std::optional<std::string> words = checkpoint.metadata(kVocabularyKey))
    state.vocabulary =
        data::Vocabulary::parse(*words, "'" + path + "': vocabulary");
  return state;
}

} // namespace transfuse::train
