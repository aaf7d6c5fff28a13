//===- Metrics.h - JSON-lines metrics of a training run ---------*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_METRICS_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_METRICS_H

#include "Evaluate.h"

#include "transfuse/output.hpp"

#include <optional>
#include <string>

namespace transfuse::train {

/// One JSON object per line. The lines go to a temporary copy of the log,
/// which replaces it at every commit() (with every checkpoint, and at the
/// end): the log says as much as the checkpoint, so a resumed run appends
/// after the checkpoint's step, and a failed or interrupted run leaves the
/// log as it was at the last commit.
class MetricsLog {
public:
  /// Copies `path`, if it exists, to add to it; throws transfuse::Error if
  /// it cannot.
  explicit MetricsLog(const std::string &path);

  void step(const tf_train_result &result, double tokensPerSecond,
            double elapsedSeconds);
  void eval(int64_t step, const EvalResult &result);
  /// Puts the lines written so far in place of the log.
  void commit();

private:
  void write(const std::string &line);

  std::string path_;
  std::optional<OutputFile> file_;
};

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_METRICS_H
