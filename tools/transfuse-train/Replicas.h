//===- Replicas.h - That the ranks of a run hold the same model -*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_REPLICAS_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_REPLICAS_H

#include "transfuse/transfuse.hpp"

namespace transfuse::train {

/// Checks that every rank holds bit for bit the parameters and optimizer
/// state this one does (every rank calls it); throws std::runtime_error
/// otherwise. The all-reduced gradients make every rank take the same
/// step, so a difference is a broken run, not noise: found at a checkpoint,
/// it is reported before the checkpoint is written.
void checkReplicasAgree(Session &session, const Artifact &artifact,
                        World world);

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_REPLICAS_H
