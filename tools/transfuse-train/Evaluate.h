//===- Evaluate.h - Loss and accuracy on the held-out examples --*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_EVALUATE_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_EVALUATE_H

#include "Task.h"

#include <optional>

namespace transfuse::train {

struct EvalResult {
  int64_t examples = 0;
  /// The mean loss per counted label (the `loss` entry point).
  std::optional<double> loss;
  /// Labels predicted right by forward's argmax: tokens of a language model
  /// or seq2seq, rows of a classifier.
  std::optional<double> accuracy;
  /// Seq2seq: rows whose every counted label is right (teacher forcing).
  std::optional<double> exactMatch;
};

/// One pass over `heldOut` in file order with `loss` and `forward` (dropout
/// off); what the model lacks an entry point for is left out. The ranks of
/// a data-parallel run take turns at the batches and sum their tallies, so
/// each gets the result of the whole pass.
EvalResult evaluate(Session &session, const Artifact &artifact,
                    const TaskInfo &task, const data::Dataset &heldOut,
                    World world);

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_EVALUATE_H
