//===- ConvertNNToLinalg.cpp - The nn to linalg conversion pass -----------===//
#include "Patterns.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace transfuse {
#define GEN_PASS_DEF_CONVERTNNTOLINALG
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

struct ConvertNNToLinalgPass
    : transfuse::impl::ConvertNNToLinalgBase<ConvertNNToLinalgPass> {
  using ConvertNNToLinalgBase::ConvertNNToLinalgBase;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           scf::SCFDialect, func::FuncDialect>();
    target.addIllegalDialect<transfuse::nn::NNDialect>();
    // Declarations stay; their loads must be arguments by now.
    target.addLegalOp<transfuse::nn::ParameterOp>();
    // Collectives are runtime calls, made on buffers.
    target.addLegalOp<transfuse::nn::AllReduceOp>();
    // f32 attention runs on the runtime's fused kernel, kept whole until
    // bufferization (BufferizableOpInterfaceImpl.cpp).
    target.addDynamicallyLegalOp<transfuse::nn::AttentionOp>(
        [&](transfuse::nn::AttentionOp op) {
          return !expandAttention &&
                 cast<RankedTensorType>(op.getType()).getElementType().isF32();
        });
    // With keep-kernel-ops, f32 layer norm, the losses and the embedding
    // gradient stay for the runtime's kernels too (the CUDA target's); with
    // keep-cross-entropy, cross entropy and its gradient (the CPU target's).
    target.addDynamicallyLegalOp<
        transfuse::nn::LayerNormOp, transfuse::nn::LayerNormGradOp,
        transfuse::nn::CrossEntropyOp, transfuse::nn::CrossEntropyGradOp,
        transfuse::nn::NllLossOp, transfuse::nn::NllLossGradOp,
        transfuse::nn::EmbeddingGradOp>([&](Operation *op) {
      bool kept = keepKernelOps || (keepCrossEntropy &&
                                    isa<transfuse::nn::CrossEntropyOp,
                                        transfuse::nn::CrossEntropyGradOp>(op));
      return kept && cast<RankedTensorType>(op->getOperand(0).getType())
                         .getElementType()
                         .isF32();
    });
    // The optimizer's runtime updates (nn-optimizer{runtime-update}) exist
    // only as the CUDA runtime's kernels.
    target.addDynamicallyLegalOp<transfuse::nn::GlobalNormOp,
                                 transfuse::nn::AdamUpdateOp,
                                 transfuse::nn::SgdUpdateOp>(
        [&](Operation *) { return keepKernelOps.getValue(); });
    // Training attention exists only as the runtime's f32 kernels.
    target.addDynamicallyLegalOp<transfuse::nn::AttentionStatsOp,
                                 transfuse::nn::AttentionGradOp>(
        [](Operation *op) {
          return cast<RankedTensorType>(op->getOperand(0).getType())
              .getElementType()
              .isF32();
        });
    RewritePatternSet patterns(context);
    transfuse::lowering::populateElementwisePatterns(patterns);
    transfuse::lowering::populateStructuralPatterns(patterns,
                                                    wholeCacheUpdates);
    transfuse::lowering::populateDropoutPatterns(patterns);
    transfuse::lowering::populateComputePatterns(patterns);
    transfuse::lowering::populateLossPatterns(patterns);
    transfuse::lowering::populateGradientPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
