//===- UnshareInitTensors.cpp - One init tensor per loop ------------------===//
//
// tensor.empty and linalg.fill are pure, so CSE merges every empty tensor
// of one type, and every zero-filled one, into a single op whose uses are
// the init operands of hundreds of loops. The One-Shot analysis (in
// eliminate-empty-tensors and one-shot-bufferize) then puts every in-place
// result written into it in one alias set and checks each new write
// against all of them, so compile time grows with the square of the
// model's depth. A shared fill is worse at run time too: every reduction
// that accumulates into it conflicts with the others and gets a copy of
// the zeros. Giving each use an op of its own, placed just before it,
// bounds the alias sets and turns each copy back into a fill.
//===----------------------------------------------------------------------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace transfuse {
#define GEN_PASS_DEF_UNSHAREINITTENSORS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// The ops that compute a fill of an empty tensor of its own, in order, if
/// `fill` is one.
SmallVector<Operation *> fillComputation(linalg::FillOp fill) {
  if (!fill.hasPureTensorSemantics())
    return {};
  Operation *empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
  if (!empty || !empty->hasOneUse())
    return {};
  return {empty, fill};
}

bool isShared(Operation *op) {
  return op->getNumResults() == 1 && !op->use_empty() && !op->hasOneUse();
}

/// Replaces each use of `computation`'s result by a copy of the ops,
/// cloned just before the op of their block that holds the use, and erases
/// the original ops.
void unshare(ArrayRef<Operation *> computation) {
  Operation *result = computation.back();
  Block *block = result->getBlock();
  OpBuilder builder(result->getContext());
  SmallVector<OpOperand *> uses = llvm::map_to_vector(
      result->getUses(), [](OpOperand &use) { return &use; });
  for (OpOperand *use : uses) {
    builder.setInsertionPoint(block->findAncestorOpInBlock(*use->getOwner()));
    IRMapping mapping;
    for (Operation *op : computation)
      builder.clone(*op, mapping);
    use->set(mapping.lookup(result->getResult(0)));
  }
  for (Operation *op : llvm::reverse(computation))
    op->erase();
}

struct UnshareInitTensors
    : transfuse::impl::UnshareInitTensorsBase<UnshareInitTensors> {
  void runOnOperation() override {
    // Empty tensors first, so that each shared fill then has an empty
    // tensor of its own to clone with it.
    SmallVector<SmallVector<Operation *>> shared;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (isShared(empty))
        shared.push_back({empty});
    });
    for (ArrayRef<Operation *> computation : shared)
      unshare(computation);
    shared.clear();
    getOperation()->walk([&](linalg::FillOp fill) {
      if (isShared(fill))
        if (SmallVector<Operation *> computation = fillComputation(fill);
            !computation.empty())
          shared.push_back(std::move(computation));
    });
    for (ArrayRef<Operation *> computation : shared)
      unshare(computation);
  }
};

} // namespace
