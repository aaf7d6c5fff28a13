//===- Metrics.h - JSON-lines metrics of a training run ---------*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_METRICS_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_METRICS_H

#include "Evaluate.h"

#include <cstdio>
#include <string>

namespace transfuse::train {

/// One JSON object per line, flushed as it is written, so a crash loses
/// nothing logged before it. A resumed run appends to the same file.
class MetricsLog {
public:
  /// Opens `path` for appending; throws std::runtime_error if it cannot.
  explicit MetricsLog(const std::string &path);
  MetricsLog(const MetricsLog &) = delete;
  MetricsLog &operator=(const MetricsLog &) = delete;
  ~MetricsLog();

  void step(const tf_train_result &result, double tokensPerSecond,
            double elapsedSeconds);
  void eval(int64_t step, const EvalResult &result);

private:
  void write(const std::string &line);

  std::string path_;
  std::FILE *file_ = nullptr;
};

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_METRICS_H
