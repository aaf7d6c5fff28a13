//===- AllReduce.h - What the tools see of the all-reduces ------*- C++ -*-===//
#ifndef TRANSFUSE_RUNTIME_LIB_COLLECTIVE_ALLREDUCE_H
#define TRANSFUSE_RUNTIME_LIB_COLLECTIVE_ALLREDUCE_H

#include <cstdint>

namespace transfuse::rt {

/// This rank's weight in the mean all-reduces that follow (its share of the
/// step's counted labels), in [0, 1]; an Error otherwise.
void setAllReduceWeight(double weight);
/// The weight the next mean all-reduce gives this rank's values: the one
/// set, or 1 / size.
double allReduceWeight();

struct AllReduceStats {
  int64_t allReduces = 0;
  int64_t bytes = 0;
  /// Time spent blocked in waits: the exchange the work did not hide.
  double waitSeconds = 0;
};

AllReduceStats allReduceStats();

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_COLLECTIVE_ALLREDUCE_H
