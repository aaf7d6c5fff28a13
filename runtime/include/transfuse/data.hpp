//===- data.hpp - Training data: readers, vocabulary, batches ---*- C++ -*-===//
//
// The data layer of training (docs/data.md). It reads a byte corpus or a
// file with one example per line, turns text into ids (bytes, whitespace
// words, or ids as written), holds out every k-th example, and cuts
// fixed-shape int64 batches in a seeded order that a saved position
// restores exactly. It also generates synthetic tasks, so that training
// needs no download. Every failure is a transfuse::Error whose message names
// the file and, for a bad line, its number.
//
//   using namespace transfuse::data;
//   DataOptions options;
//   options.path = "reviews.tsv";
//   options.format = Format::Tsv;
//   options.task = Task::Classification;
//   options.tokenizer = Tokenizer::Words;
//   options.vocabularySize = 50000; // the model's max_value + 1
//   options.numClasses = 2;
//   options.heldOutEvery = 10;
//   Data data = loadData(options);
//   Batcher batcher(data.train, {/*batchSize=*/4, /*length=*/256});
//   Batch batch = batcher.next(); // batch.inputs [4, 256], batch.labels [4]
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_DATA_HPP
#define TRANSFUSE_DATA_HPP

#include "transfuse/transfuse.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace transfuse::data {

//===----------------------------------------------------------------------===//
// Reserved ids
//===----------------------------------------------------------------------===//

// The same under every tokeniser: a word vocabulary starts with <pad>, <unk>,
// <s> and </s>; among bytes, BOS and EOS are ASCII STX and ETX; generated
// tasks draw their tokens above EOS.
constexpr int64_t kPadId = 0;
constexpr int64_t kUnknownId = 1;
constexpr int64_t kBosId = 2;
constexpr int64_t kEosId = 3;
constexpr int64_t kNumReservedIds = 4;

//===----------------------------------------------------------------------===//
// Randomness
//===----------------------------------------------------------------------===//

/// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014). Every random choice of
/// the data layer comes from it, never from std::*_distribution, whose
/// results differ between standard libraries.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, bound), bound > 0. Draws below 2^64 mod bound are
  /// rejected, so that every value is equally likely.
  uint64_t below(uint64_t bound) {
    uint64_t rejected = (0 - bound) % bound;
    for (;;)
      if (uint64_t draw = next(); draw >= rejected)
        return draw % bound;
  }

private:
  uint64_t state_;
};

/// The order of epoch `epoch` over `count` examples: a Fisher-Yates shuffle
/// driven by SplitMix64(seed ^ SplitMix64(epoch).next()).
TF_API std::vector<int64_t> epochOrder(int64_t count, uint64_t seed,
                                       int64_t epoch);

//===----------------------------------------------------------------------===//
// Vocabulary
//===----------------------------------------------------------------------===//

/// Whitespace words and their ids. A word's id is its place in the list;
/// the reserved words come first.
class TF_API Vocabulary {
public:
  static constexpr const char *kReservedWords[kNumReservedIds] = {
      "<pad>", "<unk>", "<s>", "</s>"};

  /// The reserved words, then the words of `texts` by decreasing count, a
  /// tie going to the word seen first: `size` words at most.
  static Vocabulary build(const std::vector<std::string_view> &texts,
                          int64_t size);
  /// Reads serialize()'s format; errors start with `where`.
  static Vocabulary parse(std::string_view text,
                          const std::string &where = "vocabulary");
  /// The words in id order, one per line, without a final newline: the
  /// "vocabulary" metadata that `transfuse-run --text` reads.
  std::string serialize() const;

  int64_t size() const { return static_cast<int64_t>(words_.size()); }
  const std::vector<std::string> &words() const { return words_; }
  /// The id of `word`; kUnknownId if it is not in the vocabulary.
  int64_t id(std::string_view word) const;
  /// The ids of the whitespace-separated words of `text`.
  std::vector<int64_t> encode(std::string_view text) const;

private:
  explicit Vocabulary(std::vector<std::string> words);

  std::vector<std::string> words_;
  std::unordered_map<std::string, int64_t> ids_;
};

//===----------------------------------------------------------------------===//
// Datasets
//===----------------------------------------------------------------------===//

enum class Task { LanguageModel, Classification, Seq2Seq };

struct Example {
  /// Language model: the sequence (its inputs are all tokens but the last,
  /// its labels all but the first). Classification: the text. Seq2seq: the
  /// source.
  std::vector<int64_t> tokens;
  /// Seq2seq: the target, without BOS and EOS.
  std::vector<int64_t> target;
  /// Classification: the class.
  int64_t label = 0;

  bool operator==(const Example &other) const {
    return tokens == other.tokens && target == other.target &&
           label == other.label;
  }
};

struct Dataset {
  Task task = Task::LanguageModel;
  std::vector<Example> examples;
};

/// How a file holds its examples (docs/data.md).
enum class Format {
  /// The whole file is one byte stream, cut into windows (language model).
  Text,
  /// One example per line, text fields separated by a tab.
  Tsv,
  /// As Tsv, with token ids in the place of text.
  Ids,
};

/// How Tsv text becomes ids.
enum class Tokenizer { Bytes, Words };

struct DataOptions {
  std::string path;
  Format format = Format::Text;
  Task task = Task::LanguageModel;
  Tokenizer tokenizer = Tokenizer::Bytes;
  /// The ids the model takes (its input's max_value + 1): every id must be
  /// below it, and a built vocabulary has this many words at most.
  int64_t vocabularySize = 256;
  /// Text: the model's sequence length; examples are windows of
  /// sequenceLength + 1 bytes.
  int64_t sequenceLength = 0;
  /// Classification: labels are class ids in [0, numClasses).
  int64_t numClasses = 0;
  /// Example i is held out when i % heldOutEvery == heldOutEvery - 1; 0
  /// holds out nothing.
  int64_t heldOutEvery = 0;
  /// Words: this vocabulary (a resumed run's) rather than one built from the
  /// training examples.
  std::optional<Vocabulary> vocabulary;
};

struct Data {
  Dataset train, heldOut;
  /// Words: the vocabulary the ids come from.
  std::optional<Vocabulary> vocabulary;
};

/// Reads, checks, splits and tokenises `options.path`. A word vocabulary is
/// built from the training examples only.
TF_API Data loadData(const DataOptions &options);

//===----------------------------------------------------------------------===//
// Batches
//===----------------------------------------------------------------------===//

struct BatchOptions {
  int64_t batchSize = 1;
  /// Tokens per row of `inputs` (seq2seq: of the source).
  int64_t length = 0;
  /// Seq2seq: tokens per row of `decoderInputs` and `labels`.
  int64_t targetLength = 0;
  /// What inputs hold after the end of a sequence.
  int64_t padId = kPadId;
  /// What labels hold where there is nothing to predict (PyTorch's default
  /// ignore_index).
  int64_t ignoreIndex = -100;
  /// Shuffle every epoch (training), or keep the file's order (evaluation).
  bool shuffle = true;
  uint64_t seed = 0;
};

/// Where a batcher is: the next batch starts at example `index` of epoch
/// `epoch`'s order.
struct Position {
  int64_t epoch = 0;
  int64_t index = 0;

  bool operator==(const Position &other) const {
    return epoch == other.epoch && index == other.index;
  }
};

/// Row-major int64 buffers, each row truncated to its length or padded.
struct Batch {
  /// The examples in it; rows after them are padding (inputs padId, labels
  /// ignoreIndex). Fewer than the batch size only at the end of an epoch.
  int64_t rows = 0;
  /// [batch, length]: language model and classification tokens, seq2seq
  /// source.
  std::vector<int64_t> inputs;
  /// Seq2seq: [batch, targetLength], BOS then the target.
  std::vector<int64_t> decoderInputs;
  /// Language model: [batch, length], the inputs shifted by one.
  /// Classification: [batch]. Seq2seq: [batch, targetLength], the target
  /// then EOS.
  std::vector<int64_t> labels;
};

class TF_API Batcher {
public:
  /// `dataset` must outlive the batcher.
  Batcher(const Dataset &dataset, const BatchOptions &options);

  /// The batch at the current position; moves past it, to the next epoch
  /// after the last batch of one.
  Batch next();

  Position position() const { return position_; }
  /// Goes back (or forward) to a position read from position(): the batches
  /// that follow are bit-identical to those that followed it.
  void seek(const Position &position);

  int64_t batchesPerEpoch() const;

private:
  const std::vector<int64_t> &order();

  const Dataset *dataset_;
  BatchOptions options_;
  Position position_;
  int64_t orderEpoch_ = -1;
  std::vector<int64_t> order_;
};

//===----------------------------------------------------------------------===//
// Generated tasks
//===----------------------------------------------------------------------===//

enum class GeneratedTask { Copy, Reverse, Sentiment };

struct GenerateOptions {
  int64_t count = 0;
  uint64_t seed = 0;
  /// Copy and reverse: sequence lengths in [minLength, maxLength], tokens in
  /// [kNumReservedIds, vocabularySize).
  int64_t minLength = 1;
  int64_t maxLength = 10;
  int64_t vocabularySize = 16;
};

/// The examples of a task as file text: copy and reverse in the Ids format
/// of seq2seq (`source ids<TAB>target ids`), sentiment in the Tsv format of
/// classification (`label<TAB>text`, 0 negative, 1 positive).
TF_API std::string generateTask(GeneratedTask task,
                                const GenerateOptions &options);

/// Writes `text` to `path` atomically: a temporary, fsync, rename.
TF_API void writeFileAtomically(const std::string &path, std::string_view text);

} // namespace transfuse::data

#endif // TRANSFUSE_DATA_HPP
