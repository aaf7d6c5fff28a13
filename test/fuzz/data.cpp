//===- data.cpp - Fuzz the training data readers --------------------------===//
//
// Any bytes as a data file, read every way transfuse-train reads one
// (runtime/lib/Data, docs/data.md): a byte corpus, lines of text, labelled
// text, seq2seq pairs, token ids, whitespace words with a vocabulary built
// from the file or read from it. Every dataset read is cut into a full
// epoch of batches, which reads every example.
//===----------------------------------------------------------------------===//
#include "transfuse/data.hpp"
#include "FuzzSupport.h"

#include <string_view>

using namespace transfuse;
using namespace transfuse::data;

namespace {

DataOptions options(Format format, Task task, Tokenizer tokenizer,
                    int64_t vocabularySize) {
  DataOptions result;
  result.format = format;
  result.task = task;
  result.tokenizer = tokenizer;
  result.vocabularySize = vocabularySize;
  result.sequenceLength = 8;
  result.numClasses = 3;
  result.heldOutEvery = 3;
  return result;
}

/// Small enough that ids and bytes above them are out of range.
const DataOptions kReadings[] = {
    options(Format::Text, Task::LanguageModel, Tokenizer::Bytes, 256),
    options(Format::Text, Task::LanguageModel, Tokenizer::Bytes, 100),
    options(Format::Tsv, Task::LanguageModel, Tokenizer::Bytes, 256),
    options(Format::Tsv, Task::Classification, Tokenizer::Bytes, 128),
    options(Format::Tsv, Task::Classification, Tokenizer::Words, 16),
    options(Format::Tsv, Task::Seq2Seq, Tokenizer::Words, 32),
    options(Format::Ids, Task::LanguageModel, Tokenizer::Bytes, 16),
    options(Format::Ids, Task::Classification, Tokenizer::Bytes, 16),
    options(Format::Ids, Task::Seq2Seq, Tokenizer::Bytes, 16),
};

void batchAll(const Dataset &dataset) {
  BatchOptions batching;
  batching.batchSize = 2;
  batching.length = 6;
  batching.targetLength = 5;
  batching.seed = 1;
  Batcher batcher(dataset, batching);
  for (int64_t i = 0; i < batcher.batchesPerEpoch(); ++i)
    batcher.next();
}

void read(const DataOptions &options) {
  try {
    Data data = loadData(options);
    batchAll(data.train);
    if (!data.heldOut.examples.empty())
      batchAll(data.heldOut);
  } catch (const Error &) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const fuzz::InputFile input("data");
  const std::string &path = input.write(data, size);
  for (DataOptions options : kReadings) {
    options.path = path;
    read(options);
  }
  // The file as a vocabulary, as a resumed run reads one from its
  // checkpoint, then used for the words of the same file.
  try {
    Vocabulary vocabulary = Vocabulary::parse(
        std::string_view(reinterpret_cast<const char *>(data), size));
    fuzz::expect(Vocabulary::parse(vocabulary.serialize()).words() ==
                     vocabulary.words(),
                 "a vocabulary to read back as it was written");
    DataOptions options = kReadings[4];
    options.path = path;
    options.vocabularySize = vocabulary.size();
    options.vocabulary = std::move(vocabulary);
    read(options);
  } catch (const Error &) {
  }
  return 0;
}
