//===- Vocabulary.cpp - Whitespace-word vocabularies ----------------------===//
//
// Built from counts with a deterministic order (count, then first
// occurrence), so the same training text gives the same ids everywhere; kept
// as the newline-separated list that `transfuse-run --text` reads back.
//===----------------------------------------------------------------------===//
#include "Data.h"

#include <algorithm>

namespace transfuse::data {

Vocabulary::Vocabulary(std::vector<std::string> words)
    : words_(std::move(words)) {
  for (size_t id = 0; id < words_.size(); ++id)
    ids_.emplace(words_[id], static_cast<int64_t>(id));
}

Vocabulary Vocabulary::build(const std::vector<std::string_view> &texts,
                             int64_t size) {
  if (size < kNumReservedIds)
    rt::fail(TF_ERROR_INVALID_ARGUMENT,
             "a vocabulary of " + std::to_string(size) +
                 " words cannot hold the " + std::to_string(kNumReservedIds) +
                 " reserved ones");
  struct Count {
    std::string_view word;
    int64_t count;
  };
  // In order of first occurrence, which the stable sort keeps among ties.
  std::vector<Count> counts;
  std::unordered_map<std::string_view, size_t> index;
  for (std::string_view word : kReservedWords)
    index.emplace(word, SIZE_MAX);
  for (std::string_view text : texts) {
    for (std::string_view word : detail::splitWords(text)) {
      auto [it, inserted] = index.emplace(word, counts.size());
      if (inserted)
        counts.push_back({word, 0});
      if (it->second != SIZE_MAX)
        ++counts[it->second].count;
    }
  }
  std::stable_sort(
      counts.begin(), counts.end(),
      [](const Count &x, const Count &y) { return x.count > y.count; });
  std::vector<std::string> words(std::begin(kReservedWords),
                                 std::end(kReservedWords));
  for (const Count &count : counts) {
    if (static_cast<int64_t>(words.size()) == size)
      break;
    words.emplace_back(count.word);
  }
  return Vocabulary(std::move(words));
}

Vocabulary Vocabulary::parse(std::string_view text, const std::string &where) {
  // Lines as std::getline gives them: a final newline ends the last line.
  if (!text.empty() && text.back() == '\n')
    text.remove_suffix(1);
  std::vector<std::string> words;
  std::unordered_map<std::string_view, int64_t> seen;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = std::min(text.find('\n', begin), text.size());
    std::string_view word = text.substr(begin, end - begin);
    begin = end + 1;
    std::string line = where + ": line " + std::to_string(words.size() + 1);
    if (words.size() < kNumReservedIds && word != kReservedWords[words.size()])
      rt::fail(TF_ERROR_FORMAT, line + " is '" + std::string(word) +
                                    "', expected '" +
                                    kReservedWords[words.size()] +
                                    "' (the reserved words come first)");
    if (word.empty())
      rt::fail(TF_ERROR_FORMAT, line + " is empty");
    if (std::any_of(word.begin(), word.end(), detail::isSpace))
      rt::fail(TF_ERROR_FORMAT,
               line + " ('" + std::string(word) + "') holds whitespace");
    if (auto [it, inserted] =
            seen.emplace(word, static_cast<int64_t>(words.size()) + 1);
        !inserted)
      rt::fail(TF_ERROR_FORMAT, line + " repeats '" + std::string(word) +
                                    "' (line " + std::to_string(it->second) +
                                    ")");
    words.emplace_back(word);
  }
  return Vocabulary(std::move(words));
}

std::string Vocabulary::serialize() const {
  std::string text;
  for (size_t id = 0; id < words_.size(); ++id)
    text += (id ? "\n" : "") + words_[id];
  return text;
}

int64_t Vocabulary::id(std::string_view word) const {
  auto it = ids_.find(std::string(word));
  return it == ids_.end() ? kUnknownId : it->second;
}

std::vector<int64_t> Vocabulary::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  for (std::string_view word : detail::splitWords(text))
    ids.push_back(id(word));
  return ids;
}

} // namespace transfuse::data
