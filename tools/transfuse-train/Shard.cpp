//===- Shard.cpp - A rank's part of a data-parallel batch -----------------===//
#include "Shard.h"

#include <algorithm>

namespace transfuse::train {
namespace {

/// Rows [first, first + rows) of `values`, a [globalRows, ...] tensor.
std::vector<int64_t> slice(const std::vector<int64_t> &values,
                           int64_t globalRows, int64_t first, int64_t rows) {
  if (values.empty())
    return {};
  size_t perRow = values.size() / globalRows;
  auto begin = values.begin() + first * perRow;
  return std::vector<int64_t>(begin, begin + rows * perRow);
}

} // namespace

data::Batch shardOf(const data::Batch &global, int64_t rows, World world) {
  int64_t globalRows = rows * world.size;
  int64_t first = rows * world.rank;
  data::Batch shard;
  // The examples of the global batch come first, padding after them.
  shard.rows = std::clamp<int64_t>(global.rows - first, 0, rows);
  shard.inputs = slice(global.inputs, globalRows, first, rows);
  shard.decoderInputs = slice(global.decoderInputs, globalRows, first, rows);
  shard.labels = slice(global.labels, globalRows, first, rows);
  return shard;
}

} // namespace transfuse::train
