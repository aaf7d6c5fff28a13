//===- Trainer.cpp - A training run from start to end ---------------------===//
//
// Everything that can be checked is checked before the first step: the
// outputs (before anything else), the model, the data, the checkpoint to
// resume and what it says about the data.
// From then on a run is a pure function of the parameters, the optimizer
// state, the step and the batcher's position, which is exactly what a
// checkpoint holds, so a resumed run continues bit for bit.
//
// Under an MPI launcher each rank trains a model compiled with
// --data-parallel on its shard of every batch: all draw the same global
// batch of ranks × the model's batch size and take their rows of it, and
// train_step averages the gradients. Rank 0 alone prints, logs, saves and
// samples; every rank evaluates its share of the held-out batches.
//===----------------------------------------------------------------------===//
#include "Trainer.h"

#include "Checkpoints.h"
#include "Evaluate.h"
#include "Metrics.h"
#include "Progress.h"
#include "Replicas.h"
#include "Sample.h"
#include "Shard.h"
#include "Task.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace transfuse::train {
namespace {

using data::Format;
using data::Task;
using data::Tokenizer;

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Format defaultFormat(const std::string &path, Task task) {
  if (endsWith(path, ".tsv"))
    return Format::Tsv;
  if (endsWith(path, ".ids"))
    return Format::Ids;
  return task == Task::LanguageModel ? Format::Text : Format::Tsv;
}

const char *formatName(Format format) {
  switch (format) {
  case Format::Text:
    return "text";
  case Format::Tsv:
    return "tsv";
  case Format::Ids:
    return "ids";
  }
  return "unknown";
}

std::string settings(const tf_key_value *values, int32_t count) {
  std::string text;
  for (int32_t i = 0; i < count; ++i)
    text += i == 0 ? std::string(values[i].value)
                   : std::string(" ") + values[i].key + "=" + values[i].value;
  return text;
}

class Trainer {
public:
  explicit Trainer(const Options &options)
      : options_(options), world_(joinWorld()),
        artifact_(Artifact::open(options.model)),
        task_(inferTask(artifact_, options.model)), session_(artifact_) {}

  void run();

private:
  void checkOptions() const;
  void checkWorld() const;
  bool leads() const { return world_.rank == 0; }
  tf_train_result step(data::Batch global);
  void printWorldStats();
  void loadData();
  void printHeader(int64_t total) const;
  void save(int64_t step);
  void evaluate(int64_t step);
  [[noreturn]] void stopOnNonFinite(const tf_train_result &result) const;
  std::vector<int64_t> prompt() const;

  const Options &options_;
  World world_;
  Artifact artifact_;
  TaskInfo task_;
  Session session_;
  data::DataOptions dataOptions_;
  data::Data data_;
  DataState state_;
  std::optional<TensorFile> resumed_;
  std::optional<data::Batcher> batcher_;
  std::optional<Progress> progress_;
  std::optional<MetricsLog> log_;
  int64_t savedStep_ = -1, evaluatedStep_ = -1;
};

void Trainer::checkOptions() const {
  if (options_.sample && task_.task != Task::LanguageModel)
    throw std::runtime_error(std::string("--sample needs a language model; '") +
                             options_.model + "' is a " + taskName(task_.task));
}

void Trainer::checkWorld() const {
  if (world_.size == 1)
    return;
  if (artifact_.training().all_reduce_buckets == 0)
    throw std::runtime_error(
        "'" + options_.model + "' was compiled without --data-parallel: its " +
        std::to_string(world_.size) +
        " ranks would each train a model of their own; compile it with "
        "transfuse-compile --data-parallel");
}

void Trainer::loadData() {
  tf_training_info training = artifact_.training();
  if (options_.resume) {
    // The checkpoint is checked against the model first: one of another
    // model or artifact is told as such, not by its data.
    resumed_ = TensorFile::read(*options_.resume);
    session_.loadCheckpoint(*resumed_);
    state_ = fromMetadata(*resumed_, *options_.resume, session_.step());
    if (options_.seed && *options_.seed != state_.seed)
      throw std::runtime_error(
          "--seed " + std::to_string(*options_.seed) +
          " differs from the seed " + std::to_string(state_.seed) + " of '" +
          *options_.resume + "': a resumed run keeps its seed");
  } else {
    state_.seed = options_.seed.value_or(training.seed);
  }

  data::DataOptions &d = dataOptions_;
  d.path = options_.data;
  d.task = task_.task;
  d.format = options_.format.value_or(defaultFormat(d.path, d.task));
  bool words = state_.vocabulary ||
               (d.format == Format::Tsv && task_.vocabularySize > 256);
  d.tokenizer =
      options_.tokenizer.value_or(words ? Tokenizer::Words : Tokenizer::Bytes);
  d.vocabularySize = task_.vocabularySize;
  d.sequenceLength = task_.length;
  d.numClasses = task_.numClasses;
  d.heldOutEvery = options_.heldOutEvery;
  d.vocabulary = state_.vocabulary;
  data_ = data::loadData(d);
  int64_t trainCount = static_cast<int64_t>(data_.train.examples.size());
  if (trainCount == 0)
    throw std::runtime_error("'" + d.path + "': no training examples (" +
                             std::to_string(data_.heldOut.examples.size()) +
                             " held out)");
  if (resumed_ && trainCount != state_.trainExamples)
    throw std::runtime_error(
        "'" + *options_.resume + "' was trained on " +
        std::to_string(state_.trainExamples) + " training examples, but '" +
        d.path + "' gives " + std::to_string(trainCount) +
        ": resume on the same data with the same --format, --tokenizer and "
        "--held-out-every");
  state_.trainExamples = trainCount;
  state_.vocabulary = data_.vocabulary;
}

void Trainer::printHeader(int64_t total) const {
  if (options_.quiet || !leads())
    return;
  int64_t count = 0;
  std::vector<tf_tensor_info> parameters = artifact_.parameters();
  for (const tf_tensor_info &info : parameters) {
    int64_t numel = 1;
    for (int32_t i = 0; i < info.rank; ++i)
      numel *= info.shape[i];
    count += numel;
  }
  tf_training_info training = artifact_.training();
  std::printf("model '%s': %s, %lld parameters in %zu tensors\n",
              artifact_.model().c_str(), taskName(task_.task),
              static_cast<long long>(count), parameters.size());
  std::string tokens = dataOptions_.format == Format::Ids ? ""
                       : dataOptions_.tokenizer == Tokenizer::Words
                           ? " of words"
                           : " of bytes";
  int64_t rows = task_.batchSize * world_.size;
  std::string shape =
      std::to_string(rows) + " x " + std::to_string(task_.length);
  if (task_.task == Task::Seq2Seq)
    shape += " -> " + std::to_string(rows) + " x " +
             std::to_string(task_.targetLength);
  if (world_.size > 1)
    shape += " (" + std::to_string(world_.size) + " ranks x " +
             std::to_string(task_.batchSize) + " rows)";
  std::printf("data '%s': %s%s, %zu training and %zu held-out examples, "
              "batches of %s\n",
              options_.data.c_str(), formatName(dataOptions_.format),
              tokens.c_str(), data_.train.examples.size(),
              data_.heldOut.examples.size(), shape.c_str());
  std::printf("optimizer %s; schedule %s",
              settings(training.optimizer, training.num_optimizer).c_str(),
              settings(training.schedule, training.num_schedule).c_str());
  if (training.clip_grad_norm > 0)
    std::printf("; clip_grad_norm %g", training.clip_grad_norm);
  std::printf("; seed %llu\n", static_cast<unsigned long long>(state_.seed));
  if (resumed_)
    std::printf("resuming '%s' at step %lld; ", options_.resume->c_str(),
                static_cast<long long>(session_.step()));
  if (options_.weights)
    std::printf("starting from the weights in '%s'; ",
                options_.weights->c_str());
  std::printf("training to step %lld\n", static_cast<long long>(total));
  std::fflush(stdout);
}

void Trainer::save(int64_t step) {
  state_.position = batcher_->position();
  // Every rank holds the same parameters and state: one file.
  checkReplicasAgree(session_, artifact_, world_);
  if (leads())
    session_.saveCheckpoint(*options_.save, toMetadata(state_));
  savedStep_ = step;
  if (log_)
    log_->commit();
}

void Trainer::evaluate(int64_t step) {
  EvalResult result =
      train::evaluate(session_, artifact_, task_, data_.heldOut, world_);
  evaluatedStep_ = step;
  if (result.examples == 0) {
    progress_->note("no held-out examples to evaluate on");
    return;
  }
  progress_->eval(step, result);
  if (log_)
    log_->eval(step, result);
}

void Trainer::stopOnNonFinite(const tf_train_result &result) const {
  std::string what = std::isfinite(result.loss) ? "gradient norm" : "loss";
  float bad = std::isfinite(result.loss) ? result.grad_norm : result.loss;
  std::string value = std::isnan(bad) ? "nan" : bad > 0 ? "inf" : "-inf";
  std::string kept;
  if (savedStep_ >= 0)
    kept = "the last good checkpoint, '" + *options_.save + "' at step " +
           std::to_string(savedStep_) + ", is kept";
  else if (options_.save)
    kept = "nothing was saved, '" + *options_.save + "' is left as it was";
  else
    kept = "nothing was saved";
  throw std::runtime_error("step " + std::to_string(result.step) + ": the " +
                           what + " is " + value + "; training stopped, " +
                           kept);
}

tf_train_result Trainer::step(data::Batch global) {
  if (world_.size == 1)
    return session_.trainStep(bind(task_, artifact_, "train_step", global));
  data::Batch shard = shardOf(global, task_.batchSize, world_);
  // Each rank's share of the batch's counted labels weighs its loss and
  // gradients, so that their average is the whole batch's mean.
  double counts[2] = {static_cast<double>(countedLabels(task_, shard)), 0};
  counts[1] = counts[0];
  worldSum(&counts[1], 1);
  setWorldWeight(counts[1] > 0 ? counts[0] / counts[1] : 1.0 / world_.size);
  return session_.trainStep(bind(task_, artifact_, "train_step", shard));
}

void Trainer::printWorldStats() {
  if (world_.size == 1 || !leads() || options_.quiet)
    return;
  tf_world_stats stats = worldStats();
  double elapsed = progress_->elapsedSeconds();
  char line[256];
  std::snprintf(line, sizeof line,
                "data-parallel over %d ranks, identical parameters and "
                "state on each: %lld all-reduces of %.1f MB in all; waiting "
                "for them took %.2f s of %.2f s (%.1f%%)",
                world_.size, static_cast<long long>(stats.all_reduces),
                static_cast<double>(stats.bytes) / 1e6, stats.wait_seconds,
                elapsed,
                elapsed > 0 ? 100.0 * stats.wait_seconds / elapsed : 0);
  progress_->note(line);
}

std::vector<int64_t> Trainer::prompt() const {
  std::vector<int64_t> tokens;
  if (!options_.prompt) {
    const std::vector<int64_t> &first = data_.train.examples[0].tokens;
    tokens.assign(first.begin(),
                  first.begin() +
                      std::min<int64_t>(first.size() - 1, task_.length));
  } else if (data_.vocabulary) {
    tokens = data_.vocabulary->encode(*options_.prompt);
  } else {
    for (unsigned char byte : *options_.prompt) {
      if (byte >= task_.vocabularySize)
        throw std::runtime_error("--prompt: byte " + std::to_string(byte) +
                                 " is outside the model's vocabulary");
      tokens.push_back(byte);
    }
  }
  if (tokens.empty())
    throw std::runtime_error("--prompt has no tokens");
  return tokens;
}

void Trainer::run() {
  checkOptions();
  checkWorld();
  loadData();
  // A fresh session's optimizer state and step count are zero.
  if (options_.weights)
    session_.loadParameters(*options_.weights);
  else if (!resumed_)
    session_.initParameters(state_.seed);
  std::vector<int64_t> samplePrompt;
  if (options_.sample)
    samplePrompt = prompt();

  data::BatchOptions shape;
  shape.batchSize = task_.batchSize * world_.size;
  if (state_.globalBatch && *state_.globalBatch != shape.batchSize)
    throw std::runtime_error(
        "'" + *options_.resume + "' was trained on batches of " +
        std::to_string(*state_.globalBatch) + " rows, this run's are " +
        std::to_string(shape.batchSize) + " (" + std::to_string(world_.size) +
        " ranks x " + std::to_string(task_.batchSize) +
        "): resume with as many rows per step, over any number of ranks");
  state_.globalBatch = shape.batchSize;
  shape.length = task_.length;
  shape.targetLength = task_.targetLength;
  shape.ignoreIndex = task_.ignoreIndex;
  shape.seed = state_.seed;
  batcher_.emplace(data_.train, shape);
  if (resumed_)
    batcher_->seek(state_.position);
  int64_t total = options_.steps.value_or(batcher_->batchesPerEpoch());
  int64_t first = session_.step();

  // Only now, with everything checked, is anything written.
  if (options_.log && leads())
    log_.emplace(*options_.log);
  printHeader(total);
  int64_t tokensPerStep = shape.batchSize * (task_.length + task_.targetLength);
  progress_.emplace(options_.quiet || !leads(), first, total, tokensPerStep);

  for (int64_t step = first + 1; step <= total; ++step) {
    tf_train_result result = this->step(batcher_->next());
    progress_->step(result);
    if (log_)
      log_->step(result, progress_->tokensPerSecond(),
                 progress_->elapsedSeconds());
    if (!std::isfinite(result.loss) || !std::isfinite(result.grad_norm)) {
      progress_->finish();
      // The log keeps the step that stopped the run.
      if (log_)
        log_->commit();
      stopOnNonFinite(result);
    }
    if (options_.saveEvery && step % options_.saveEvery == 0)
      save(step);
    if (options_.evalEvery && step % options_.evalEvery == 0)
      evaluate(step);
  }
  progress_->finish();
  checkReplicasAgree(session_, artifact_, world_);
  printWorldStats();
  if (options_.save && savedStep_ != session_.step())
    save(session_.step());
  if (evaluatedStep_ != session_.step())
    evaluate(session_.step());
  if (log_)
    log_->commit();
  if (options_.save)
    progress_->note("saved '" + *options_.save + "' at step " +
                    std::to_string(session_.step()));

  if (options_.sample && leads()) {
    SampleOptions sampling{options_.sample, options_.temperature, state_.seed,
                           samplePrompt};
    std::string text =
        sample(session_, artifact_, task_, sampling, data_.vocabulary);
    char how[64] = "sample (greedy):";
    if (options_.temperature > 0)
      std::snprintf(how, sizeof how,
                    "sample (temperature %g):", options_.temperature);
    progress_->note(how);
    std::printf("%s\n", text.c_str());
  }
}

/// Refuses, before any work, an output that cannot be written or would
/// overwrite an input. Saving over the checkpoint resumed from is how a run
/// goes on, and safe: it is read whole first.
void checkOutputs(const Options &options) {
  std::vector<FileArgument> inputs = {{"the model", options.model},
                                      {"--data", options.data}};
  if (options.save)
    checkOutput({"--save", *options.save}, inputs);
  if (options.resume)
    inputs.push_back({"--resume", *options.resume});
  if (options.weights) {
    if (options.save)
      checkOutput({"--save", *options.save}, {{"--weights", *options.weights}});
    inputs.push_back({"--weights", *options.weights});
  }
  if (options.save)
    inputs.push_back({"--save", *options.save});
  if (options.log)
    checkOutput({"--log", *options.log}, inputs);
}

} // namespace

void run(const Options &options) {
  checkOutputs(options);
  Trainer(options).run();
}

} // namespace transfuse::train
