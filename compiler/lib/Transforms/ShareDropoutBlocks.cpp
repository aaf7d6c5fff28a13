//===- ShareDropoutBlocks.cpp - One Philox block per four dropout draws ---===//
//
// Four consecutive elements of a dropout share a Philox block, one word
// each (docs/autodiff.md), but a loop over the elements computes each
// element's block on its own: four times the ten rounds that matter. Where
// the lowering marked an element's block within its row as j >> 2 and its
// word as j & 3, j the index the loop runs over from a multiple of 4, the
// loop is unrolled by 4: in copy i (index j + i, j now a multiple of 4) the
// block is copy 0's and the word is i. Each copy loads the seed again; a
// load of an element the loop never writes leaves the loop, once. The
// four copies' rounds are then the same ops on the same values, and CSE
// keeps one.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Transforms/DropoutBlocks.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

namespace transfuse {
#define GEN_PASS_DEF_SHAREDROPOUTBLOCKS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using transfuse::kDropoutBlockAttr;
using transfuse::kDropoutWordAttr;

namespace {

constexpr int64_t kElementsPerBlock = 4;

bool isMarked(Operation *op) {
  return op->hasAttr(kDropoutBlockAttr) || op->hasAttr(kDropoutWordAttr);
}

/// Whether `loop`'s body draws marked blocks and words of its own index,
/// and the loop runs over whole blocks: from a multiple of 4, by 1, a
/// multiple of 4 times.
bool drawsWholeBlocks(scf::ForOp loop) {
  bool marked = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (!isMarked(&op))
      continue;
    auto index = op.getOperand(0).getDefiningOp<arith::IndexCastUIOp>();
    if (!index || index.getIn() != loop.getInductionVar())
      return false;
    marked = true;
  }
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  return marked && lower && upper && step && *step == 1 &&
         *lower % kElementsPerBlock == 0 && *upper > *lower &&
         (*upper - *lower) % kElementsPerBlock == 0;
}

/// Whether nothing in `loop` may write the memory of `buffer`: every op
/// there with a memref operand that may overlap it loads or is a view.
bool readOnlyIn(scf::ForOp loop, Value buffer) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (isa<memref::LoadOp>(op) || transfuse::buffers::isView(op))
      return WalkResult::advance();
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()) &&
          !transfuse::buffers::certainlyDisjoint(operand, buffer))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Moves the loads in `loop`'s body of an element fixed across it that
/// nothing in it writes (the dropout's seed, which every unrolled copy
/// loads) before the loop, one per element. The loop runs at least once.
void hoistInvariantLoads(scf::ForOp loop) {
  SmallVector<memref::LoadOp> hoisted;
  for (Operation &op :
       llvm::make_early_inc_range(loop.getBody()->without_terminator())) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load || !llvm::all_of(load->getOperands(), [&](Value v) {
          return loop.isDefinedOutsideOfLoop(v);
        }))
      continue;
    if (!readOnlyIn(loop, load.getMemRef()))
      continue;
    auto twin = llvm::find_if(hoisted, [&](memref::LoadOp other) {
      return other->getOperands() == load->getOperands();
    });
    if (twin != hoisted.end()) {
      load.replaceAllUsesWith(twin->getResult());
      load.erase();
    } else {
      load->moveBefore(loop);
      hoisted.push_back(load);
    }
  }
}

/// Unrolls `loop` by 4 and gives each copy copy 0's block and its own word.
void share(RewriterBase &rewriter, scf::ForOp loop) {
  // The copies the unrolling makes, by copy; the original ops are copy 0.
  DenseMap<Operation *, unsigned> copyOf;
  FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(
      loop, kElementsPerBlock, [&](unsigned copy, Operation *op, OpBuilder) {
        if (isMarked(op))
          copyOf[op] = copy;
      });
  if (failed(unrolled) || !unrolled->mainLoopOp)
    return;
  scf::ForOp main = *unrolled->mainLoopOp;
  SmallVector<Operation *> marked;
  Operation *firstBlock = nullptr;
  for (Operation &op : main.getBody()->without_terminator()) {
    if (!isMarked(&op))
      continue;
    marked.push_back(&op);
    if (!firstBlock && op.hasAttr(kDropoutBlockAttr) && !copyOf.lookup(&op))
      firstBlock = &op;
  }
  for (Operation *op : marked) {
    unsigned copy = copyOf.lookup(op);
    rewriter.setInsertionPoint(op);
    if (op->hasAttr(kDropoutWordAttr))
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, IntegerAttr::get(op->getResult(0).getType(), copy));
    else if (copy != 0 && firstBlock)
      rewriter.replaceOp(op, firstBlock->getResults());
  }
  hoistInvariantLoads(main);
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, main);
}

struct ShareDropoutBlocksPass
    : transfuse::impl::ShareDropoutBlocksBase<ShareDropoutBlocksPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (drawsWholeBlocks(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      share(rewriter, loop);
  }
};

} // namespace
