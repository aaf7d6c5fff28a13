//===- Batcher.cpp - Fixed-shape batches in a seeded, resumable order -----===//
//
// The order of an epoch is a pure function of (seed, epoch, example count),
// so a position (epoch, index) is all the state there is: a run resumed from
// a saved position cuts the same batches as the run that saved it.
//===----------------------------------------------------------------------===//
#include "Data.h"

#include <numeric>

namespace transfuse::data {

std::vector<int64_t> epochOrder(int64_t count, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 random(seed ^ SplitMix64(static_cast<uint64_t>(epoch)).next());
  for (int64_t i = count - 1; i > 0; --i)
    std::swap(order[i], order[random.below(static_cast<uint64_t>(i) + 1)]);
  return order;
}

namespace {

/// Writes `count` tokens into `row`, which holds padding, as far as its
/// `length` goes.
void place(const int64_t *tokens, size_t count, int64_t *row, int64_t length) {
  std::copy_n(tokens, std::min<int64_t>(length, count), row);
}

} // namespace

Batcher::Batcher(const Dataset &dataset, const BatchOptions &options)
    : dataset_(&dataset), options_(options) {
  auto bad = [](const std::string &message) {
    rt::fail(TF_ERROR_INVALID_ARGUMENT, "batches: " + message);
  };
  if (dataset.examples.empty())
    bad("there are no examples");
  if (options.batchSize < 1)
    bad("the batch size must be positive, got " +
        std::to_string(options.batchSize));
  if (options.length < 1)
    bad("the length must be positive, got " + std::to_string(options.length));
  if (dataset.task == Task::Seq2Seq && options.targetLength < 1)
    bad("the target length must be positive, got " +
        std::to_string(options.targetLength));
  // A language-model row needs an input and its label.
  if (dataset.task == Task::LanguageModel)
    for (size_t i = 0; i < dataset.examples.size(); ++i)
      if (dataset.examples[i].tokens.size() < 2)
        bad("example " + std::to_string(i) + " has " +
            std::to_string(dataset.examples[i].tokens.size()) +
            " tokens, a language model needs at least 2");
}

int64_t Batcher::batchesPerEpoch() const {
  int64_t count = static_cast<int64_t>(dataset_->examples.size());
  return (count + options_.batchSize - 1) / options_.batchSize;
}

void Batcher::seek(const Position &position) {
  int64_t count = static_cast<int64_t>(dataset_->examples.size());
  if (position.epoch < 0 || position.index < 0 || position.index >= count)
    rt::fail(TF_ERROR_INVALID_ARGUMENT,
             "batches: position (epoch " + std::to_string(position.epoch) +
                 ", index " + std::to_string(position.index) +
                 ") is outside the epochs of " + std::to_string(count) +
                 " examples");
  position_ = position;
}

const std::vector<int64_t> &Batcher::order() {
  if (orderEpoch_ != position_.epoch) {
    int64_t count = static_cast<int64_t>(dataset_->examples.size());
    if (options_.shuffle) {
      order_ = epochOrder(count, options_.seed, position_.epoch);
    } else {
      order_.resize(static_cast<size_t>(count));
      std::iota(order_.begin(), order_.end(), 0);
    }
    orderEpoch_ = position_.epoch;
  }
  return order_;
}

Batch Batcher::next() {
  const std::vector<int64_t> &order = this->order();
  int64_t count = static_cast<int64_t>(order.size());
  int64_t size = options_.batchSize, length = options_.length;
  int64_t targetLength = options_.targetLength;
  Task task = dataset_->task;

  Batch batch;
  batch.rows = std::min(size, count - position_.index);
  batch.inputs.assign(size * length, options_.padId);
  int64_t labelsPerRow = task == Task::LanguageModel    ? length
                         : task == Task::Classification ? 1
                                                        : targetLength;
  batch.labels.assign(size * labelsPerRow, options_.ignoreIndex);
  if (task == Task::Seq2Seq)
    batch.decoderInputs.assign(size * targetLength, options_.padId);

  for (int64_t row = 0; row < batch.rows; ++row) {
    const Example &example = dataset_->examples[order[position_.index + row]];
    int64_t *inputs = batch.inputs.data() + row * length;
    int64_t *labels = batch.labels.data() + row * labelsPerRow;
    const std::vector<int64_t> &tokens = example.tokens;
    switch (task) {
    case Task::LanguageModel:
      place(tokens.data(), tokens.size() - 1, inputs, length);
      place(tokens.data() + 1, tokens.size() - 1, labels, length);
      break;
    case Task::Classification:
      place(tokens.data(), tokens.size(), inputs, length);
      *labels = example.label;
      break;
    case Task::Seq2Seq: {
      place(tokens.data(), tokens.size(), inputs, length);
      // The decoder reads BOS and the target; it is to predict the target
      // and EOS.
      const std::vector<int64_t> &target = example.target;
      int64_t *decoder = batch.decoderInputs.data() + row * targetLength;
      decoder[0] = kBosId;
      place(target.data(), target.size(), decoder + 1, targetLength - 1);
      place(target.data(), target.size(), labels, targetLength);
      if (static_cast<int64_t>(target.size()) < targetLength)
        labels[target.size()] = kEosId;
      break;
    }
    }
  }

  position_.index += batch.rows;
  if (position_.index == count)
    position_ = {position_.epoch + 1, 0};
  return batch;
}

} // namespace transfuse::data
