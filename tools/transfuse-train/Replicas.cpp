//===- Replicas.cpp - That the ranks of a run hold the same model ---------===//
//
// Each rank hashes its parameters and state (FNV-1a over 64-bit words) and
// the ranks sum the hash's two 26-bit halves and their squares: the sums
// are N·a and N·a² on every rank exactly when all the a agree (their
// variance is zero), and doubles hold them exactly.
//===----------------------------------------------------------------------===//
#include "Replicas.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace transfuse::train {
namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

uint64_t hashTensor(const tf_tensor &tensor, uint64_t hash) {
  int64_t numel = tf_tensor_numel(&tensor);
  size_t bytes = static_cast<size_t>(numel) * tf_dtype_size(tensor.dtype);
  const auto *data = static_cast<const unsigned char *>(tensor.data);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t word;
    std::memcpy(&word, data + i, 8);
    hash = (hash ^ word) * kFnvPrime;
  }
  for (; i < bytes; ++i)
    hash = (hash ^ data[i]) * kFnvPrime;
  return hash;
}

} // namespace

void checkReplicasAgree(Session &session, const Artifact &artifact,
                        World world) {
  if (world.size == 1)
    return;
  uint64_t hash = kFnvOffset;
  for (const tf_tensor_info &info : artifact.parameters())
    hash = hashTensor(session.parameter(info.name), hash);
  for (const tf_tensor_info &info : artifact.state())
    hash = hashTensor(session.state(info.name), hash);
  double low = static_cast<double>(hash & 0x3ffffff);
  double high = static_cast<double>((hash >> 26) & 0x3ffffff);
  double sums[4] = {low, low * low, high, high * high};
  double mine[4] = {low, low * low, high, high * high};
  worldSum(sums, 4);
  for (int i = 0; i < 4; ++i)
    if (sums[i] != world.size * mine[i])
      throw std::runtime_error(
          "the ranks' parameters and optimizer state differ after step " +
          std::to_string(session.step()) +
          ": the data-parallel run is broken (a rank ran another artifact, "
          "or its memory was corrupted)");
}

} // namespace transfuse::train
