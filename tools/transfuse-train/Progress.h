//===- Progress.h - What a training run prints as it goes -------*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_PROGRESS_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_PROGRESS_H

#include "Evaluate.h"

#include <chrono>
#include <string>

namespace transfuse::train {

/// On a terminal, one line rewritten every step (step/total, loss,
/// tokens/s, ETA); otherwise a plain line every tenth of the run. Quiet
/// prints nothing.
class Progress {
public:
  Progress(bool quiet, int64_t firstStep, int64_t totalSteps,
           int64_t tokensPerStep);

  /// After each step.
  void step(const tf_train_result &result);
  /// Tokens of the steps of this run per second of it.
  double tokensPerSecond() const;
  double elapsedSeconds() const;

  void eval(int64_t step, const EvalResult &result);
  /// A line of its own (clearing the progress line first).
  void note(const std::string &line);
  /// Ends the progress line.
  void finish();

private:
  void clearLine();

  bool quiet_, terminal_;
  int64_t firstStep_, totalSteps_, tokensPerStep_, lastStep_;
  int64_t every_;
  bool lineOpen_ = false;
  std::chrono::steady_clock::time_point start_;
};

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_PROGRESS_H
