//===- RuntimeDataBatcherTest.cpp - Batches, shuffling and positions ------===//
//
// Rows are truncated or padded to the caller's lengths; the order of an
// epoch is a fixed function of (seed, epoch, count), pinned here by values
// computed independently from docs/data.md; a batcher moved to a saved
// position cuts bit-identical batches.
//===----------------------------------------------------------------------===//
#include "RuntimeDataTesting.h"

#include <algorithm>
#include <numeric>

using namespace transfuse::test;
using namespace transfuse::data;

namespace {

using Ids = std::vector<int64_t>;

/// Examples whose first token is their index.
Dataset numbered(Task task, int64_t count) {
  Dataset dataset;
  dataset.task = task;
  for (int64_t i = 0; i < count; ++i) {
    Example example;
    example.tokens = {i, 100 + i};
    example.target = {200 + i};
    example.label = i % 2;
    dataset.examples.push_back(example);
  }
  return dataset;
}

/// The first token of each row, -1 for padding rows.
Ids firstTokens(const Batch &batch, int64_t length) {
  Ids result;
  for (size_t row = 0; row * length < batch.inputs.size(); ++row)
    result.push_back(int64_t(row) < batch.rows ? batch.inputs[row * length]
                                               : -1);
  return result;
}

BatchOptions shape(int64_t batchSize, int64_t length,
                   int64_t targetLength = 0) {
  BatchOptions options;
  options.batchSize = batchSize;
  options.length = length;
  options.targetLength = targetLength;
  return options;
}

bool operator==(const Batch &x, const Batch &y) {
  return x.rows == y.rows && x.inputs == y.inputs &&
         x.decoderInputs == y.decoderInputs && x.labels == y.labels;
}

TEST(RuntimeDataBatcherTest, SplitMix64MatchesTheReference) {
  // The reference implementation's first outputs for seed 0.
  SplitMix64 random(0);
  EXPECT_EQ(random.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(random.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(random.next(), 0x06c45d188009454full);
  SplitMix64 bounded(123);
  Ids draws;
  for (int i = 0; i < 5; ++i)
    draws.push_back(int64_t(bounded.below(1000)));
  EXPECT_EQ(draws, (Ids{675, 148, 840, 71, 922}));
  // 2^64 mod (2^63 + 1) = 2^63 - 1 draws are rejected.
  EXPECT_EQ(SplitMix64(5).below((1ull << 63) + 1), 0x4097314d939736f7ull);
  EXPECT_EQ(SplitMix64(5).below(1), 0u);
}

TEST(RuntimeDataBatcherTest, EpochOrdersArePinned) {
  EXPECT_EQ(epochOrder(10, 42, 0), (Ids{9, 4, 2, 8, 1, 3, 0, 6, 5, 7}));
  EXPECT_EQ(epochOrder(10, 42, 1), (Ids{0, 9, 1, 6, 2, 8, 3, 4, 7, 5}));
  EXPECT_EQ(epochOrder(10, 7, 0), (Ids{6, 2, 0, 8, 3, 5, 4, 1, 7, 9}));
  EXPECT_EQ(epochOrder(1, 42, 3), (Ids{0}));
  EXPECT_EQ(epochOrder(0, 42, 3), Ids{});
}

TEST(RuntimeDataBatcherTest, LanguageModelRowsAreShiftedByOne) {
  Dataset dataset;
  Example longer, shorter;
  longer.tokens = {10, 11, 12, 13, 14, 15};
  shorter.tokens = {20, 21, 22};
  dataset.examples = {longer, shorter};
  BatchOptions options = shape(3, 4);
  options.shuffle = false;
  Batch batch = Batcher(dataset, options).next();
  EXPECT_EQ(batch.rows, 2);
  // Truncated to 4; padded with 0 (inputs) and -100 (labels); a third row
  // of padding.
  EXPECT_EQ(batch.inputs, (Ids{10, 11, 12, 13, //
                               20, 21, 0, 0,   //
                               0, 0, 0, 0}));
  EXPECT_EQ(batch.labels, (Ids{11, 12, 13, 14,     //
                               21, 22, -100, -100, //
                               -100, -100, -100, -100}));
  EXPECT_TRUE(batch.decoderInputs.empty());
}

TEST(RuntimeDataBatcherTest, ClassificationRows) {
  Dataset dataset;
  dataset.task = Task::Classification;
  Example first, second;
  first.tokens = {5, 6, 7, 8};
  first.label = 1;
  second.tokens = {9};
  dataset.examples = {first, second};
  BatchOptions options = shape(3, 3);
  options.shuffle = false;
  options.padId = 4;
  options.ignoreIndex = -1;
  Batch batch = Batcher(dataset, options).next();
  EXPECT_EQ(batch.rows, 2);
  EXPECT_EQ(batch.inputs, (Ids{5, 6, 7, 9, 4, 4, 4, 4, 4}));
  EXPECT_EQ(batch.labels, (Ids{1, 0, -1}));
}

TEST(RuntimeDataBatcherTest, Seq2SeqRowsGetBosAndEos) {
  Dataset dataset;
  dataset.task = Task::Seq2Seq;
  Example fits, cut, empty;
  fits.tokens = {5, 6};
  fits.target = {7, 8};
  cut.tokens = {9, 10, 11, 12};
  cut.target = {13, 14, 15, 16, 17};
  empty.tokens = {18};
  dataset.examples = {fits, cut, empty};
  // transformer_small's convention: labels padded with the pad id, which
  // its loss ignores.
  BatchOptions options = shape(4, 3, 4);
  options.shuffle = false;
  options.ignoreIndex = 0;
  Batch batch = Batcher(dataset, options).next();
  EXPECT_EQ(batch.rows, 3);
  EXPECT_EQ(batch.inputs, (Ids{5, 6, 0,   //
                               9, 10, 11, //
                               18, 0, 0,  //
                               0, 0, 0}));
  EXPECT_EQ(batch.decoderInputs, (Ids{2, 7, 8, 0,    //
                                      2, 13, 14, 15, //
                                      2, 0, 0, 0,    //
                                      0, 0, 0, 0}));
  // Too long a target loses its EOS with its tail.
  EXPECT_EQ(batch.labels, (Ids{7, 8, 3, 0,     //
                               13, 14, 15, 16, //
                               3, 0, 0, 0,     //
                               0, 0, 0, 0}));
}

TEST(RuntimeDataBatcherTest, UnshuffledBatchesKeepTheFileOrder) {
  Dataset dataset = numbered(Task::LanguageModel, 5);
  BatchOptions options = shape(2, 1);
  options.shuffle = false;
  Batcher batcher(dataset, options);
  EXPECT_EQ(batcher.batchesPerEpoch(), 3);
  EXPECT_EQ(firstTokens(batcher.next(), 1), (Ids{0, 1}));
  EXPECT_EQ(batcher.position(), (Position{0, 2}));
  EXPECT_EQ(firstTokens(batcher.next(), 1), (Ids{2, 3}));
  // The last batch of an epoch is partial; then the next epoch starts.
  EXPECT_EQ(firstTokens(batcher.next(), 1), (Ids{4, -1}));
  EXPECT_EQ(batcher.position(), (Position{1, 0}));
  EXPECT_EQ(firstTokens(batcher.next(), 1), (Ids{0, 1}));
}

TEST(RuntimeDataBatcherTest, ShuffledEpochsFollowEpochOrder) {
  Dataset dataset = numbered(Task::Classification, 10);
  BatchOptions options = shape(4, 1);
  options.seed = 42;
  Batcher batcher(dataset, options);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    Ids seen;
    for (int64_t i = 0; i < batcher.batchesPerEpoch(); ++i) {
      Ids rows = firstTokens(batcher.next(), 1);
      seen.insert(seen.end(), rows.begin(), rows.end());
    }
    seen.erase(std::remove(seen.begin(), seen.end(), -1), seen.end());
    EXPECT_EQ(seen, epochOrder(10, 42, epoch));
    EXPECT_EQ(batcher.position(), (Position{epoch + 1, 0}));
  }
  // Each epoch is a permutation, and epochs differ.
  Ids sorted = epochOrder(10, 42, 2);
  std::sort(sorted.begin(), sorted.end());
  Ids identity(10);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  EXPECT_NE(epochOrder(10, 42, 0), epochOrder(10, 42, 1));
  EXPECT_NE(epochOrder(10, 42, 0), epochOrder(10, 43, 0));
}

TEST(RuntimeDataBatcherTest, TheSameSeedGivesTheSameBatches) {
  Dataset dataset = numbered(Task::Seq2Seq, 50);
  BatchOptions options = shape(8, 3, 2);
  options.seed = 9;
  Batcher first(dataset, options), second(dataset, options);
  for (int i = 0; i < 20; ++i)
    EXPECT_TRUE(first.next() == second.next()) << i;
  options.seed = 10;
  Batcher other(dataset, options);
  EXPECT_FALSE(Batcher(dataset, shape(8, 3, 2)).next() == other.next());
}

TEST(RuntimeDataBatcherTest, ResumingFromASavedPositionIsExact) {
  Dataset dataset = numbered(Task::Seq2Seq, 10);
  BatchOptions options = shape(3, 2, 2);
  options.seed = 5;
  Batcher original(dataset, options);
  for (int i = 0; i < 6; ++i) // into the second epoch (4 batches each)
    original.next();
  Position saved = original.position();
  EXPECT_EQ(saved, (Position{1, 6}));
  std::vector<Batch> expected;
  for (int i = 0; i < 9; ++i)
    expected.push_back(original.next());

  // A fresh batcher, as a resumed run makes, and one that has been
  // elsewhere.
  Batcher resumed(dataset, options);
  resumed.seek(saved);
  Batcher moved(dataset, options);
  moved.seek({7, 3});
  moved.next();
  moved.seek(saved);
  for (int i = 0; i < 9; ++i) {
    Batch batch = expected[i];
    EXPECT_TRUE(resumed.next() == batch) << i;
    EXPECT_TRUE(moved.next() == batch) << i;
  }
  EXPECT_EQ(resumed.position(), original.position());
}

TEST(RuntimeDataBatcherTest, Errors) {
  Dataset empty;
  Dataset lm = numbered(Task::LanguageModel, 3);
  lm.examples[2].tokens = {7};
  Dataset pairs = numbered(Task::Seq2Seq, 3);
  Dataset fine = numbered(Task::Classification, 3);
  struct Case {
    Outcome outcome;
    std::string message;
  };
  const Case cases[] = {
      {thrown([&] { Batcher(empty, shape(1, 1)); }),
       "batches: there are no examples"},
      {thrown([&] { Batcher(fine, shape(0, 1)); }),
       "batches: the batch size must be positive, got 0"},
      {thrown([&] { Batcher(fine, shape(2, 0)); }),
       "batches: the length must be positive, got 0"},
      {thrown([&] { Batcher(pairs, shape(2, 4)); }),
       "batches: the target length must be positive, got 0"},
      {thrown([&] { Batcher(lm, shape(2, 4)); }),
       "batches: example 2 has 1 tokens, a language model needs at least 2"},
      {thrown([&] {
         Batcher(fine, shape(2, 4)).seek({0, 3});
       }),
       "batches: position (epoch 0, index 3) is outside the epochs of 3 "
       "examples"},
      {thrown([&] {
         Batcher(fine, shape(2, 4)).seek({-1, 0});
       }),
       "batches: position (epoch -1, index 0) is outside the epochs of 3 "
       "examples"},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(c.outcome.status, TF_ERROR_INVALID_ARGUMENT) << c.message;
    EXPECT_EQ(c.outcome.message, c.message);
  }
}

} // namespace
