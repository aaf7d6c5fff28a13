//===- Load.cpp - From a data file to training and held-out examples ------===//
//
// The options are checked first, then the file is read and split, and only
// then tokenised: a word vocabulary is built from the training examples
// alone, so that no held-out word gets an id of its own. Every id is checked
// against the model's vocabulary here, naming the line, rather than when a
// batch reaches the runtime, which could only name a batch position.
//===----------------------------------------------------------------------===//
#include "Data.h"

#include <charconv>

namespace transfuse::data {
namespace {

using detail::at;
using detail::Record;

[[noreturn]] void badOption(const std::string &message) {
  rt::fail(TF_ERROR_INVALID_ARGUMENT, message);
}

void checkOptions(const DataOptions &options) {
  if (options.vocabularySize < 1)
    badOption("the vocabulary size must be positive, got " +
              std::to_string(options.vocabularySize));
  if (options.heldOutEvery < 0 || options.heldOutEvery == 1)
    badOption("every k-th example is held out: k must be 0 (none) or at "
              "least 2, got " +
              std::to_string(options.heldOutEvery));
  if (options.format == Format::Text && options.task != Task::LanguageModel)
    badOption("the text format is a language-model corpus");
  if (options.format == Format::Text && options.sequenceLength < 1)
    badOption("the text format needs a positive sequence length, got " +
              std::to_string(options.sequenceLength));
  if (options.task == Task::Classification && options.numClasses < 1)
    badOption("classification needs a positive number of classes, got " +
              std::to_string(options.numClasses));
  bool words = options.tokenizer == Tokenizer::Words;
  if (words && options.format != Format::Tsv)
    badOption("only the tsv format is tokenised into words");
  if (options.vocabulary && !words)
    badOption("a vocabulary is given, but the tokenizer is not words");
  if (options.vocabulary && options.vocabulary->size() > options.vocabularySize)
    badOption("the vocabulary has " +
              std::to_string(options.vocabulary->size()) +
              " words, more than the model's " +
              std::to_string(options.vocabularySize) + " ids");
}

bool isHeldOut(int64_t index, int64_t every) {
  return every > 0 && index % every == every - 1;
}

std::string outsideVocabulary(int64_t vocabularySize) {
  return "outside the model's vocabulary [0, " +
         std::to_string(vocabularySize - 1) + "]";
}

/// The bytes of `text`, which starts on line `line` of `path`.
std::vector<int64_t> byteIds(std::string_view text, const std::string &path,
                             int64_t line, int64_t vocabularySize) {
  std::vector<int64_t> ids;
  ids.reserve(text.size());
  for (unsigned char byte : text) {
    if (byte >= vocabularySize) {
      const char *hex = "0123456789abcdef";
      rt::fail(TF_ERROR_INVALID_ARGUMENT,
               at(path, line) + ": byte 0x" + hex[byte >> 4] + hex[byte & 15] +
                   " is " + outsideVocabulary(vocabularySize));
    }
    line += byte == '\n';
    ids.push_back(byte);
  }
  return ids;
}

std::optional<int64_t> parseInteger(std::string_view text) {
  int64_t value = 0;
  const char *end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end)
    return std::nullopt;
  return value;
}

/// Turns the fields of one file's records into examples.
class Encoder {
public:
  Encoder(const DataOptions &options, const Vocabulary *vocabulary)
      : options_(options), vocabulary_(vocabulary) {}

  Example example(const Record &record) const {
    Example example;
    const std::vector<std::string> &fields = record.fields;
    switch (options_.task) {
    case Task::LanguageModel:
      example.tokens = encode(fields[0], record.line);
      if (example.tokens.size() < 2)
        fail(record, "a sequence needs at least 2 tokens, the line has " +
                         std::to_string(example.tokens.size()));
      break;
    case Task::Classification:
      example.label = label(fields[0], record);
      example.tokens = encode(fields[1], record.line);
      if (example.tokens.empty())
        fail(record, "the text has no tokens");
      break;
    case Task::Seq2Seq:
      example.tokens = encode(fields[0], record.line);
      example.target = encode(fields[1], record.line);
      if (example.tokens.empty())
        fail(record, "the source has no tokens");
      break;
    }
    return example;
  }

private:
  [[noreturn]] void fail(const Record &record,
                         const std::string &message) const {
    rt::fail(TF_ERROR_FORMAT, at(options_.path, record.line) + ": " + message);
  }

  std::vector<int64_t> encode(const std::string &text, int64_t line) const {
    if (options_.format == Format::Ids)
      return ids(text, line);
    if (vocabulary_)
      return vocabulary_->encode(text);
    return byteIds(text, options_.path, line, options_.vocabularySize);
  }

  std::vector<int64_t> ids(const std::string &text, int64_t line) const {
    std::vector<int64_t> result;
    for (std::string_view word : detail::splitWords(text)) {
      std::optional<int64_t> id = parseInteger(word);
      if (!id)
        rt::fail(TF_ERROR_FORMAT, at(options_.path, line) + ": '" +
                                      std::string(word) +
                                      "' is not a token id (an integer)");
      if (*id < 0 || *id >= options_.vocabularySize)
        rt::fail(TF_ERROR_INVALID_ARGUMENT,
                 at(options_.path, line) + ": id " + std::to_string(*id) +
                     " is " + outsideVocabulary(options_.vocabularySize));
      result.push_back(*id);
    }
    return result;
  }

  int64_t label(const std::string &field, const Record &record) const {
    std::vector<std::string_view> words = detail::splitWords(field);
    std::optional<int64_t> label =
        words.size() == 1 ? parseInteger(words[0]) : std::nullopt;
    if (!label)
      fail(record, "label '" + field + "' is not a class id (an integer)");
    int64_t classes = options_.numClasses;
    if (*label < 0 || *label >= classes)
      rt::fail(TF_ERROR_INVALID_ARGUMENT,
               at(options_.path, record.line) + ": label " +
                   std::to_string(*label) + " is outside the " +
                   std::to_string(classes) + " classes [0, " +
                   std::to_string(classes - 1) + "]");
    return *label;
  }

  const DataOptions &options_;
  const Vocabulary *vocabulary_;
};

Data loadCorpus(const DataOptions &options) {
  std::string text = detail::readText(options.path);
  if (text.empty())
    rt::fail(TF_ERROR_FORMAT,
             rt::inQuotes(options.path) + ": the corpus is empty");
  std::vector<int64_t> ids =
      byteIds(text, options.path, 1, options.vocabularySize);
  int64_t length = options.sequenceLength;
  int64_t windows = (static_cast<int64_t>(ids.size()) - 1) / length;
  if (windows == 0)
    rt::fail(TF_ERROR_FORMAT,
             rt::inQuotes(options.path) + ": " + std::to_string(ids.size()) +
                 " bytes make no example, a window of the sequence length " +
                 std::to_string(length) + " plus one");
  Data data;
  for (int64_t window = 0; window < windows; ++window) {
    Example example;
    auto begin = ids.begin() + window * length;
    example.tokens.assign(begin, begin + length + 1);
    (isHeldOut(window, options.heldOutEvery) ? data.heldOut : data.train)
        .examples.push_back(std::move(example));
  }
  return data;
}

Data loadRecords(const DataOptions &options) {
  const char *layout = options.task == Task::Classification ? "label<TAB>text"
                       : options.task == Task::Seq2Seq ? "source<TAB>target"
                                                       : nullptr;
  std::vector<Record> records = detail::readRecords(options.path, layout);
  if (records.empty())
    rt::fail(TF_ERROR_FORMAT,
             rt::inQuotes(options.path) + ": the file holds no example");
  auto heldOut = [&](const Record &record) {
    return isHeldOut(&record - records.data(), options.heldOutEvery);
  };

  Data data;
  if (options.tokenizer == Tokenizer::Words) {
    if (options.vocabulary) {
      data.vocabulary = options.vocabulary;
    } else {
      // The text fields: all but a classification's label.
      size_t first = options.task == Task::Classification ? 1 : 0;
      std::vector<std::string_view> texts;
      for (const Record &record : records)
        if (!heldOut(record))
          texts.insert(texts.end(), record.fields.begin() + first,
                       record.fields.end());
      data.vocabulary = Vocabulary::build(texts, options.vocabularySize);
    }
  }
  // In file order, so that the first bad line is the one reported.
  Encoder encoder(options, data.vocabulary ? &*data.vocabulary : nullptr);
  for (const Record &record : records)
    (heldOut(record) ? data.heldOut : data.train)
        .examples.push_back(encoder.example(record));
  return data;
}

} // namespace

Data loadData(const DataOptions &options) {
  checkOptions(options);
  Data data = options.format == Format::Text ? loadCorpus(options)
                                             : loadRecords(options);
  data.train.task = data.heldOut.task = options.task;
  return data;
}

} // namespace transfuse::data
