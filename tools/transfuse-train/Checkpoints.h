//===- Checkpoints.h - What transfuse-train adds to a checkpoint *- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_CHECKPOINTS_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_CHECKPOINTS_H

#include "transfuse/data.hpp"

#include <map>
#include <optional>
#include <string>

namespace transfuse::train {

/// Beside the runtime's (parameters, state, step), what resuming needs to
/// cut the same batches: where the data was, its seed and its size, the
/// rows of a step over all ranks, and a word vocabulary (which
/// `transfuse-run --text` also reads).
struct DataState {
  data::Position position;
  uint64_t seed = 0;
  int64_t trainExamples = 0;
  /// Absent in checkpoints written before it was recorded.
  std::optional<int64_t> globalBatch;
  std::optional<data::Vocabulary> vocabulary;
};

std::map<std::string, std::string> toMetadata(const DataState &state);
/// Reads the DataState of a checkpoint at `step` (the runtime's, checked);
/// throws std::runtime_error naming the file and the entry if one is
/// missing, malformed, or out of what a run of `step` steps could write.
DataState fromMetadata(const TensorFile &checkpoint, const std::string &path,
                       int64_t step);

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_CHECKPOINTS_H
