//===- Tokenizer.cpp - Text to a model's token ids and back ---------------===//
#include "Tokenizer.h"

#include "transfuse/transfuse.hpp"

#include <sstream>
#include <stdexcept>

namespace transfuse::text {

Tokenizer::Tokenizer(int64_t maxTokenId,
                     const std::optional<std::string> &weights, bool tokenIds)
    : tokenIds_(tokenIds), bytes_(!tokenIds && maxTokenId == 255) {
  if (bytes_ || tokenIds_)
    return;
  std::optional<std::string> vocabulary;
  if (weights)
    vocabulary = TensorFile::read(*weights).metadata(kVocabularyKey);
  if (!vocabulary)
    throw std::runtime_error(
        "the model's ids are not bytes, and no vocabulary was given: pass "
        "--weights with a '" +
        std::string(kVocabularyKey) + "' metadata entry");
  std::istringstream lines(*vocabulary);
  std::string word;
  while (std::getline(lines, word)) {
    ids_.emplace(word, static_cast<int64_t>(words_.size()));
    words_.push_back(word);
  }
}

std::vector<int64_t> Tokenizer::encode(const std::string &text) const {
  std::vector<int64_t> result;
  if (tokenIds_) {
    std::istringstream words(text);
    std::string word;
    while (words >> word) {
      // At most 18 digits: below INT64_MAX, and any id too large for the
      // model is still refused by its range check.
      if (word.size() > 18 ||
          word.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error("'" + word +
                                 "' is not a token id (an integer from 0)");
      result.push_back(std::stoll(word));
    }
    return result;
  }
  if (bytes_) {
    for (unsigned char byte : text)
      result.push_back(byte);
    return result;
  }
  auto unknown = ids_.find("<unk>");
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    auto it = ids_.find(word);
    if (it == ids_.end() && unknown == ids_.end())
      throw std::runtime_error("'" + word +
                               "' is not in the vocabulary, which has no "
                               "<unk>");
    result.push_back(it != ids_.end() ? it->second : unknown->second);
  }
  return result;
}

std::string Tokenizer::decode(const std::vector<int64_t> &ids) const {
  std::string result;
  for (int64_t id : ids) {
    if (bytes_) {
      result.push_back(static_cast<char>(id));
      continue;
    }
    if (!result.empty())
      result.push_back(' ');
    if (tokenIds_)
      result += std::to_string(id);
    else if (id >= 0 && id < static_cast<int64_t>(words_.size()))
      result += words_[id];
    else
      result += "<id:" + std::to_string(id) + ">";
  }
  return result;
}

} // namespace transfuse::text
