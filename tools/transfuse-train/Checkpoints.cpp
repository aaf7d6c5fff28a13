//===- Checkpoints.cpp - What transfuse-train adds to a checkpoint --------===//
#include "Checkpoints.h"

#include <charconv>
#include <stdexcept>

namespace transfuse::train {
namespace {

constexpr const char *kPositionKey = "data_position";
constexpr const char *kSeedKey = "data_seed";
constexpr const char *kExamplesKey = "train_examples";
constexpr const char *kGlobalBatchKey = "global_batch";
/// The key `transfuse-run --text` reads a vocabulary from.
constexpr const char *kVocabularyKey = "vocabulary";

/// An edited entry as a message shows it: one line, shortened.
std::string shown(const std::string &text) {
  std::string line = text.substr(0, 40) + (text.size() > 40 ? "..." : "");
  for (char &c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return line;
}

} // namespace

std::map<std::string, std::string> toMetadata(const DataState &state) {
  std::map<std::string, std::string> metadata = {
      {kPositionKey, std::to_string(state.position.epoch) + " " +
                         std::to_string(state.position.index)},
      {kSeedKey, std::to_string(state.seed)},
      {kExamplesKey, std::to_string(state.trainExamples)}};
  if (state.globalBatch)
    metadata[kGlobalBatchKey] = std::to_string(*state.globalBatch);
  if (state.vocabulary)
    metadata[kVocabularyKey] = state.vocabulary->serialize();
  return metadata;
}

DataState fromMetadata(const TensorFile &checkpoint, const std::string &path,
                       int64_t step) {
  auto entry = [&](const char *key) {
    std::optional<std::string> value = checkpoint.metadata(key);
    if (!value)
      throw std::runtime_error("'" + path + "': no '" + key +
                               "' metadata: the checkpoint was not written "
                               "by transfuse-train");
    return *value;
  };
  auto bad = [&](const char *key, const std::string &why) {
    return std::runtime_error("'" + path + "': metadata '" + key + "' is '" +
                              shown(entry(key)) + "', " + why);
  };
  // Whole non-negative integers, separated by one space, and nothing else.
  auto numbers = [&](const char *key, size_t count, const char *form) {
    std::string text = entry(key);
    const char *next = text.data(), *end = text.data() + text.size();
    std::vector<uint64_t> values(count);
    std::errc error = std::errc();
    for (size_t i = 0; i < count && error == std::errc(); ++i) {
      if (i > 0 && (next == end || *next++ != ' '))
        error = std::errc::invalid_argument;
      else {
        std::from_chars_result read = std::from_chars(next, end, values[i]);
        next = read.ptr;
        error = read.ec;
      }
    }
    if (error == std::errc::result_out_of_range)
      throw bad(key, "out of range");
    if (error != std::errc() || next != end)
      throw bad(key, std::string("not ") + form);
    return values;
  };
  DataState state;
  std::vector<uint64_t> position =
      numbers(kPositionKey, 2, "'EPOCH INDEX' (two non-negative integers)");
  state.seed = numbers(kSeedKey, 1, "a non-negative integer")[0];
  uint64_t examples = numbers(kExamplesKey, 1, "a non-negative integer")[0];
  if (examples == 0 || examples > INT64_MAX)
    throw bad(kExamplesKey, "not a number of training examples");
  state.trainExamples = static_cast<int64_t>(examples);
  // Every epoch takes a step at least, and the batches of one end before
  // its examples do.
  if (position[0] > static_cast<uint64_t>(step))
    throw bad(kPositionKey, "but epoch " + std::to_string(position[0]) +
                                " is past the checkpoint's step " +
                                std::to_string(step) +
                                " (an epoch takes a step at least)");
  if (position[1] >= examples)
    throw bad(kPositionKey, "but index " + std::to_string(position[1]) +
                                " is past the " + std::to_string(examples) +
                                " training examples of '" + kExamplesKey + "'");
  state.position = {static_cast<int64_t>(position[0]),
                    static_cast<int64_t>(position[1])};
  if (checkpoint.metadata(kGlobalBatchKey)) {
    uint64_t rows = numbers(kGlobalBatchKey, 1, "a non-negative integer")[0];
    if (rows == 0 || rows > INT64_MAX)
      throw bad(kGlobalBatchKey, "not a number of rows");
    state.globalBatch = static_cast<int64_t>(rows);
  }
  if (std::optional<std::string> words = checkpoint.metadata(kVocabularyKey))
    state.vocabulary =
        data::Vocabulary::parse(*words, "'" + path + "': vocabulary");
  return state;
}

} // namespace transfuse::train
