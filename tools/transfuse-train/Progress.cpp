//===- Progress.cpp - What a training run prints as it goes ---------------===//
#include "Progress.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace transfuse::train {
namespace {

std::string duration(double seconds) {
  long total = static_cast<long>(seconds + 0.5);
  char text[32];
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600,
                  total / 60 % 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
  return text;
}

} // namespace

Progress::Progress(bool quiet, int64_t firstStep, int64_t totalSteps,
                   int64_t tokensPerStep)
    : quiet_(quiet), terminal_(isatty(STDOUT_FILENO)), firstStep_(firstStep),
      totalSteps_(totalSteps), tokensPerStep_(tokensPerStep),
      lastStep_(firstStep), start_(std::chrono::steady_clock::now()) {
  every_ = std::max<int64_t>(1, (totalSteps - firstStep) / 10);
}

double Progress::elapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start_)
      .count();
}

double Progress::tokensPerSecond() const {
  double elapsed = elapsedSeconds();
  return elapsed > 0
             ? double((lastStep_ - firstStep_) * tokensPerStep_) / elapsed
             : 0;
}

void Progress::step(const tf_train_result &result) {
  lastStep_ = result.step;
  if (quiet_)
    return;
  int64_t done = result.step - firstStep_;
  bool last = result.step == totalSteps_;
  if (terminal_) {
    double eta = done > 0 ? elapsedSeconds() / double(done) *
                                double(totalSteps_ - result.step)
                          : 0;
    std::printf("\r\033[Kstep %lld/%lld  loss %.4f  %.0f tok/s  ETA %s",
                static_cast<long long>(result.step),
                static_cast<long long>(totalSteps_), result.loss,
                tokensPerSecond(), duration(eta).c_str());
    lineOpen_ = true;
  } else if (done % every_ == 0 || last) {
    std::printf("step %lld/%lld loss %.4f grad_norm %.4f lr %.6g %.0f tok/s\n",
                static_cast<long long>(result.step),
                static_cast<long long>(totalSteps_), result.loss,
                result.grad_norm, result.lr, tokensPerSecond());
  }
  std::fflush(stdout);
}

void Progress::eval(int64_t step, const EvalResult &result) {
  if (quiet_)
    return;
  std::string line = "eval at step " + std::to_string(step) + ":";
  char number[64];
  if (result.loss) {
    std::snprintf(number, sizeof number, " loss %.4f", *result.loss);
    line += number;
  }
  if (result.accuracy) {
    std::snprintf(number, sizeof number, " accuracy %.4f", *result.accuracy);
    line += number;
  }
  if (result.exactMatch) {
    std::snprintf(number, sizeof number, " exact_match %.4f",
                  *result.exactMatch);
    line += number;
  }
  note(line + " (" + std::to_string(result.examples) + " held-out examples)");
}

void Progress::note(const std::string &line) {
  if (quiet_)
    return;
  clearLine();
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void Progress::finish() {
  if (!quiet_ && lineOpen_)
    std::printf("\n");
  lineOpen_ = false;
  std::fflush(stdout);
}

void Progress::clearLine() {
  if (lineOpen_)
    std::printf("\r\033[K");
  lineOpen_ = false;
}

} // namespace transfuse::train
