//===- Replica.cpp - Code that knows which replica runs it ----------------===//
#include "transfuse/Transforms/Replica.h"

#include "BufferUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace transfuse {

static constexpr llvm::StringLiteral kReplicaIndex = "tfrt_replica_index";

bool inDataParallelModule(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  return module && module->hasAttr(kAllReduceBucketsAttr);
}

Value replicaIndex(OpBuilder &b, Operation *op) {
  auto function = op->getParentOfType<func::FuncOp>();
  Block &entry = function.getBody().front();
  for (auto call : entry.getOps<func::CallOp>())
    if (call.getCallee() == kReplicaIndex)
      return call.getResult(0);
  auto declaration = buffers::declareRuntimeFunction(
      function->getParentOfType<ModuleOp>(), kReplicaIndex,
      b.getFunctionType({}, {b.getI64Type()}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&entry);
  return func::CallOp::create(b, function.getLoc(), declaration).getResult(0);
}

} // namespace transfuse
