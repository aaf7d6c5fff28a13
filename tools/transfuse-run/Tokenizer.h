//===- Tokenizer.h - Text to a model's token ids and back -----------------===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_RUN_TOKENIZER_H
#define TRANSFUSE_TOOLS_TRANSFUSE_RUN_TOKENIZER_H

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace transfuse::text {

/// Word vocabularies travel in a weights file's metadata under this key,
/// one word per line; a word's id is its line number.
constexpr const char *kVocabularyKey = "vocabulary";

/// With `tokenIds`, the ids themselves written in decimal, whitespace-
/// separated (transfuse-data's ids format). Else bytes when the model's
/// largest token id is 255, or the whitespace-separated words of the
/// vocabulary in the weights' metadata.
class Tokenizer {
public:
  /// Throws std::runtime_error when the ids are words and `weights` holds
  /// no vocabulary.
  Tokenizer(int64_t maxTokenId, const std::optional<std::string> &weights,
            bool tokenIds = false);

  /// Throws std::runtime_error for a word outside a vocabulary without
  /// <unk> (other unknown words become <unk>), or for text that is not a
  /// decimal id with `tokenIds`.
  std::vector<int64_t> encode(const std::string &text) const;
  /// The bytes, or the words or ids joined by spaces; an id the vocabulary
  /// lacks is written `<id:N>`.
  std::string decode(const std::vector<int64_t> &ids) const;

private:
  bool tokenIds_;
  bool bytes_;
  std::vector<std::string> words_;
  std::unordered_map<std::string, int64_t> ids_;
};

} // namespace transfuse::text

#endif // TRANSFUSE_TOOLS_TRANSFUSE_RUN_TOKENIZER_H
