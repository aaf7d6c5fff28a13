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
/// would recompute every earlier layer's norm in every later one). The fused
/// body, the producer's operations followed by the consumer's, may hold at
/// most `maxBodyOps`: each fusion copies both bodies, and code generation
/// splits a block at every select of a division (the tanh approximation has
/// one), so a chain fused without bound costs time quadratic in its length
/// (a 2000-layer stack took a minute). A longer chain becomes several loops.
bool isSoleReaderFusion(OpOperand *operand, unsigned maxBodyOps) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!producer || !consumer)
    return false;
  if (!llvm::all_of(producer->getUsers(),
                    [&](Operation *user) { return user == consumer; }))
    return false;
  // Each body ends in a yield, which the count leaves out.
  size_t fusedOps = producer.getBody()->getOperations().size() - 1 +
                    consumer.getBody()->getOperations().size() - 1;
  return fusedOps <= maxBodyOps;
}

struct FuseElementwiseLoopsPass
    : transfuse::impl::FuseElementwiseLoopsBase<FuseElementwiseLoopsPass> {
  using FuseElementwiseLoopsBase::FuseElementwiseLoopsBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GeneralizeReduce>(&getContext());
    unsigned limit = maxBodyOps;
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [limit](OpOperand *operand) {
          return isSoleReaderFusion(operand, limit);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
