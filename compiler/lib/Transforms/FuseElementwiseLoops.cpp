//===- FuseElementwiseLoops.cpp - One loop per elementwise chain ----------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace transfuse {
#define GEN_PASS_DEF_FUSEELEMENTWISELOOPS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// A named reduction becomes a linalg.generic with a reduction iterator, so
/// that the elementwise chain computing its input can fold into it.
struct GeneralizeReduce : OpRewritePattern<linalg::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::ReduceOp op,
                                PatternRewriter &rewriter) const override {
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// Folds `operand`'s producer into its consumer only when the consumer is the
/// producer's sole reader: a value read by several loops is computed once and
/// stored, never recomputed in each of them (which, along a residual stream,
/// would recompute every earlier layer's norm in every later one).
bool isSoleReaderFusion(OpOperand *operand) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  Operation *consumer = operand->getOwner();
  if (!producer || !isa<linalg::GenericOp>(consumer))
    return false;
  return llvm::all_of(producer->getUsers(),
                      [&](Operation *user) { return user == consumer; });
}

struct FuseElementwiseLoopsPass
    : transfuse::impl::FuseElementwiseLoopsBase<FuseElementwiseLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GeneralizeReduce>(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, isSoleReaderFusion);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
