//===- Trainer.h - A training run from start to end -------------*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_TRAINER_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_TRAINER_H

#include "Options.h"

namespace transfuse::train {

/// Loads the model and the data (or resumes), trains, evaluates, saves and
/// samples as `options` say. Throws transfuse::Error or std::runtime_error
/// with a message for the user; nothing is written before everything given
/// has been checked.
void run(const Options &options);

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_TRAINER_H
