//===- Replica.h - Code that knows which replica runs it ---------*- C++
//-*-===//
//
// In a data-parallel step (nn-data-parallel) each process trains on its
// shard of the batch, and what depends on an element's place in the whole
// batch (dropout's draw) must know which shard it holds: the lowerings ask
// the runtime for this process's replica index.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TRANSFORMS_REPLICA_H
#define TRANSFUSE_TRANSFORMS_REPLICA_H

#include "mlir/IR/Builders.h"

namespace transfuse {

/// The module attribute nn-data-parallel sets: how many all-reduces the step
/// issues.
inline constexpr llvm::StringLiteral kAllReduceBucketsAttr =
    "nn.all_reduce_buckets";

/// Whether `op` lies in a module made data-parallel.
bool inDataParallelModule(mlir::Operation *op);

/// The replica index (i64) of the process running `op`'s function: the
/// result of one call of the runtime's tfrt_replica_index at the start of
/// the function, shared by every user there.
mlir::Value replicaIndex(mlir::OpBuilder &b, mlir::Operation *op);

} // namespace transfuse

#endif // TRANSFUSE_TRANSFORMS_REPLICA_H
