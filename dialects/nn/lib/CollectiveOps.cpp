//===- CollectiveOps.cpp - Verifiers of the collectives -------------------===//
//
// nn.all_reduce and nn.all_reduce_into: a result per operand, of its type,
// and a bucket number the runtime can index.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"

using namespace mlir;
using namespace transfuse::nn;

namespace {

LogicalResult verifyBucket(Operation *op, int64_t bucket, size_t count) {
  if (bucket < 0)
    return op->emitOpError("bucket must be non-negative, got ") << bucket;
  if (count == 0)
    return op->emitOpError("needs at least one operand");
  return success();
}

} // namespace

LogicalResult AllReduceOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            ValueRange operands, DictionaryAttr,
                                            OpaqueProperties, RegionRange,
                                            SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, operands.getTypes());
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyBucket(*this, getBucket(), getInputs().size());
}

LogicalResult AllReduceIntoOp::verify() {
  return verifyBucket(*this, getBucket(), getBuffers().size());
}
