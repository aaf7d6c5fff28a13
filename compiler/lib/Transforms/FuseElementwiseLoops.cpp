//===- FuseElementwiseLoops.cpp - One loop per elementwise chain ----------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace transfuse {
#define GEN_PASS_DEF_FUSEELEMENTWISELOOPS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

struct FuseElementwiseLoopsPass
    : transfuse::impl::FuseElementwiseLoopsBase<FuseElementwiseLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn genericIntoGeneric = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return isa_and_present<linalg::GenericOp>(producer) &&
             isa<linalg::GenericOp>(operand->getOwner());
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, genericIntoGeneric);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
