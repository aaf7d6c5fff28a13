//===- Shard.h - A rank's part of a data-parallel batch ---------*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_SHARD_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_SHARD_H

#include "transfuse/data.hpp"
#include "transfuse/transfuse.hpp"

namespace transfuse::train {

/// Rows [rank · rows, (rank + 1) · rows) of `global`, a batch of
/// world.size · rows rows: every rank draws the same global batch (the
/// same seed, the same position) and trains on its slice, so N ranks of
/// `rows` see what one process of N · rows would.
data::Batch shardOf(const data::Batch &global, int64_t rows, World world);

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_SHARD_H
