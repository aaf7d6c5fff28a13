//===- Metrics.cpp - JSON-lines metrics of a training run -----------------===//
//
// A non-finite value (the loss that stops a run) is written as null, as
// JSON has no NaN.
//===----------------------------------------------------------------------===//
#include "Metrics.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

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
  file_ = std::fopen(path.c_str(), "a");
  if (!file_)
    throw std::runtime_error("cannot write '" + path +
                             "': " + std::strerror(errno));
}

MetricsLog::~MetricsLog() { std::fclose(file_); }

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
  if (std::fprintf(file_, "%s\n", line.c_str()) < 0 || std::fflush(file_))
    throw std::runtime_error("cannot write '" + path_ +
                             "': " + std::strerror(errno));
}

} // namespace transfuse::train
