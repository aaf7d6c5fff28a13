//===- FuseElementwiseLoops.cpp - One loop per elementwise chain ----------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
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

/// Whether every reader of `producer` but `consumer` comes after `consumer`
/// in its block.
bool otherReadersFollow(linalg::GenericOp producer,
                        linalg::GenericOp consumer) {
  Block *block = consumer->getBlock();
  for (Operation *user : producer->getUsers()) {
    if (user == consumer)
      continue;
    Operation *reader = block->findAncestorOpInBlock(*user);
    if (!reader || !consumer->isBeforeInBlock(reader))
      return false;
  }
  return true;
}

/// Whether `operand`'s producer folds into its consumer without the fused
/// loop recomputing a value another loop computes or reading back what it
/// wrote:
///  - the consumer is the producer's sole reader; or
///  - the consumer is elementwise, in the producer's block, and every other
///    reader follows it: the fused loop then also stores the producer's
///    values for them (an optimizer update, the scaled gradient, both
///    moments and the step, is one loop rather than four that store and
///    reload each intermediate tensor).
/// A value read by several loops that cannot all fuse is computed once and
/// stored, never recomputed in each of them (which, along a residual stream,
/// would recompute every earlier layer's norm in every later one). The fused
/// body, the producer's operations followed by the consumer's, may hold at
/// most `maxBodyOps`: each fusion copies both bodies, and code generation
/// splits a block at every select of a division (the tanh approximation has
/// one), so a chain fused without bound costs time quadratic in its length
/// (a 2000-layer stack took a minute). A longer chain becomes several loops.
bool fusesWithoutRecomputing(OpOperand *operand, unsigned maxBodyOps) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!producer || !consumer || !linalg::areElementwiseOpsFusable(operand))
    return false;
  // Each body ends in a yield, which the count leaves out. A consumer that
  // reads the producer k times gets k copies of its body before CSE merges
  // them: all fit, or the consumer fuses none (a copy left out would make
  // the producer run as its own loop as well).
  size_t reads = llvm::count_if(consumer->getOperands(), [&](Value v) {
    return v.getDefiningOp() == producer;
  });
  size_t fusedOps = reads * (producer.getBody()->getOperations().size() - 1) +
                    consumer.getBody()->getOperations().size() - 1;
  if (fusedOps > maxBodyOps)
    return false;
  if (llvm::all_of(producer->getUsers(),
                   [&](Operation *user) { return user == consumer; }))
    return true;
  return consumer.getNumReductionLoops() == 0 &&
         producer->getBlock() == consumer->getBlock() &&
         otherReadersFollow(producer, consumer);
}

/// Makes `loop` compute each value once: upstream's deduplication gives
/// inputs that read the same tensor through the same map one block argument
/// (and drops dead results), then CSE merges the operations repeated over
/// them (a consumer that reads a producer twice gets the producer's body
/// once per fusion).
void mergeRepeatedWork(PatternRewriter &rewriter, linalg::GenericOp loop) {
  FailureOr<linalg::GenericOp> merged =
      linalg::deduplicateOperandsAndRemoveDeadResults(rewriter, loop,
                                                      /*removeOutputs=*/true);
  if (failed(merged))
    return;
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, *merged);
}

/// Upstream's elementwise fusion of a producer into its consumer, where the
/// producer's results that the fused loop keeps as outputs replace the
/// producer's for its later readers (upstream leaves them reading the
/// producer, which then runs as a loop of its own as well). A consumer that
/// reads the producer twice fuses one operand at a time: the fused loop
/// still reads the producer until the next round folds it in again.
struct FuseWithoutRecomputing : OpRewritePattern<linalg::GenericOp> {
  FuseWithoutRecomputing(MLIRContext *context, unsigned maxBodyOps)
      : OpRewritePattern(context), maxBodyOps(maxBodyOps) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      if (!fusesWithoutRecomputing(&operand, maxBodyOps))
        continue;
      Operation *producer = operand.get().getDefiningOp();
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        return rewriter.notifyMatchFailure(consumer, "fusion failed");
      auto loop = cast<linalg::GenericOp>(fused->fusedOp);
      Block *block = loop->getBlock();
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          if (original.getDefiningOp() == consumer)
            return true;
          Operation *reader = block->findAncestorOpInBlock(*use.getOwner());
          return reader && loop->isBeforeInBlock(reader);
        });
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      mergeRepeatedWork(rewriter, loop);
      return success();
    }
    return failure();
  }

  unsigned maxBodyOps;
};

struct FuseElementwiseLoopsPass
    : transfuse::impl::FuseElementwiseLoopsBase<FuseElementwiseLoopsPass> {
  using FuseElementwiseLoopsBase::FuseElementwiseLoopsBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GeneralizeReduce>(&getContext());
    patterns.add<FuseWithoutRecomputing>(&getContext(), maxBodyOps);
    // Upstream's folding of fills and constants and its removal of dead
    // operands; its own fusion pattern is left out (the one above
    // replaces it).
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *) { return false; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
