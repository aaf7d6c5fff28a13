//===- PromoteAccumulators.cpp - A loop's running element in a register ---===//
//
// A reduction lowered to loops reads and writes its output element on every
// iteration (`acc[i] = acc[i] + x[i, k]`). On the GPU, a store to a buffer
// the loop's loads may alias keeps every load behind the store before it, so
// each iteration waits out a memory round trip; on the CPU, LLVM cannot
// vectorise a loop that stores two such elements it cannot tell apart. Where
// the element's buffer cannot overlap anything else the loop touches, the
// element is loaded once before the loop, carried in an iter_arg and stored
// once after it: the same additions in the same order, on a register. Applied
// from the innermost loop out, the load and store leave a whole nest.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace transfuse {
#define GEN_PASS_DEF_PROMOTEACCUMULATORS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using transfuse::buffers::certainlyDisjoint;
using transfuse::buffers::isView;
using transfuse::buffers::throughIdentity;

namespace {

/// Whether nothing in `loop` but `load` and `store` may touch the memory
/// of `buffer`: every other op that has a memref operand declares its
/// effects, and each such operand is disjoint from `buffer`.
bool onlyAccesses(scf::ForOp loop, Value buffer, Operation *load,
                  Operation *store) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op == load || op == store)
      return WalkResult::advance();
    bool memrefs = false;
    for (Value operand : op->getOperands()) {
      if (!isa<MemRefType>(operand.getType()))
        continue;
      memrefs = true;
      if (!certainlyDisjoint(operand, buffer))
        return WalkResult::interrupt();
    }
    if (memrefs && !isa<MemoryEffectOpInterface>(op) && !isView(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// The element's indices, seen through the identity maps the loop lowering
/// wraps them in.
SmallVector<Value> elementIndices(ValueRange indices) {
  return llvm::map_to_vector(indices, throughIdentity);
}

/// A store in `loop`'s body of an element fixed across its iterations, with
/// the one load of that element before it, both directly in the body, and
/// nothing else touching the element's buffer in the loop.
std::optional<std::pair<memref::LoadOp, memref::StoreOp>>
findAccumulator(scf::ForOp loop) {
  auto outside = [&](Value value) {
    return loop.isDefinedOutsideOfLoop(value);
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto store = dyn_cast<memref::StoreOp>(op);
    if (!store || !outside(store.getMemRef()) ||
        !llvm::all_of(elementIndices(store.getIndices()), outside))
      continue;
    memref::LoadOp load;
    bool single = true;
    for (Operation *user : store.getMemRef().getUsers()) {
      if (user == store || !loop->isProperAncestor(user))
        continue;
      auto candidate = dyn_cast<memref::LoadOp>(user);
      if (load || !candidate || candidate->getBlock() != loop.getBody() ||
          !candidate->isBeforeInBlock(store) ||
          elementIndices(candidate.getIndices()) !=
              elementIndices(store.getIndices())) {
        single = false;
        break;
      }
      load = candidate;
    }
    if (single && load && onlyAccesses(loop, store.getMemRef(), load, store))
      return std::make_pair(load, store);
  }
  return std::nullopt;
}

/// Carries every accumulator of `loop` in an iter_arg; returns the loop
/// that replaces it.
scf::ForOp promote(RewriterBase &rewriter, scf::ForOp loop) {
  while (auto found = findAccumulator(loop)) {
    auto [load, store] = *found;
    Location loc = store.getLoc();
    SmallVector<Value> indices = elementIndices(store.getIndices());
    rewriter.setInsertionPoint(loop);
    Value initial =
        memref::LoadOp::create(rewriter, loc, store.getMemRef(), indices);
    Value stored = store.getValueToStore();
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{stored};
        });
    if (failed(replaced))
      return loop;
    loop = cast<scf::ForOp>(replaced->getOperation());
    rewriter.replaceOp(load, loop.getRegionIterArgs().back());
    rewriter.setInsertionPointAfter(loop);
    memref::StoreOp::create(rewriter, loc, loop.getResults().back(),
                            store.getMemRef(), indices);
    rewriter.eraseOp(store);
  }
  return loop;
}

struct PromoteAccumulatorsPass
    : transfuse::impl::PromoteAccumulatorsBase<PromoteAccumulatorsPass> {
  void runOnOperation() override {
    // Post-order: a loop's inner loops first, so that their hoisted loads
    // and stores are in its body when it is looked at.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      promote(rewriter, loop);
  }
};

} // namespace
