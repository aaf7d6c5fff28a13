//===- Metrics.cpp - JSON-lines metrics of a training run -----------------===//
//
// A non-finite value (the loss that stops a run) is written as null, as
// JSON has no NaN.
//===----------------------------------------------------------------------===//
#include "Metrics.h"

#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace transfuse::train {
namespace {

/// The float's shortest decimal form as a double, so that the log reads
/// 0.05 rather than 0.05000000074505806.
double shortest(float value) {
  char text[32];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  return error == std::errc()
             ? std::strtod(std::string(text, end).c_str(), nullptr)
             : double(value);
}

} // namespace

MetricsLog::MetricsLog(const std::string &path) : path_(path) {
  file_.emplace(path, OutputFile::Mode::Append);
}

void MetricsLog::step(const tf_train_result &result, double tokensPerSecond,
                      double elapsedSeconds) {
  nlohmann::ordered_json line = {{"step", result.step},
                                 {"loss", shortest(result.loss)},
                                 {"grad_norm", shortest(result.grad_norm)},
                                 {"lr", shortest(result.lr)},
                                 {"tokens_per_s", tokensPerSecond},
                                 {"elapsed_s", elapsedSeconds}};
  write(line.dump());
}

void MetricsLog::eval(int64_t step, const EvalResult &result) {
  nlohmann::ordered_json line = {{"step", step},
                                 {"eval_examples", result.examples}};
  if (result.loss)
    line["eval_loss"] = *result.loss;
  if (result.accuracy)
    line["accuracy"] = *result.accuracy;
  if (result.exactMatch)
    line["exact_match"] = *result.exactMatch;
  write(line.dump());
}

void MetricsLog::write(const std::string &line) {
  // After a commit the next lines go to a fresh copy: the committed file
  // stays whole.
  if (!file_)
    file_.emplace(path_, OutputFile::Mode::Append);
  file_->write(line + "\n");
}

void MetricsLog::commit() {
  if (!file_)
    return;
  file_->commit();
  file_.reset();
}

} // namespace transfuse::train
