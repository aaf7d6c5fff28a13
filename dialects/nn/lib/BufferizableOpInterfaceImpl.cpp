//===- BufferizableOpInterfaceImpl.cpp - Bufferizing nn ops ---------------===//
//
// The attention ops are kept whole through bufferization so that each runs
// as one fused runtime kernel; so are layer norm, the losses and the
// embedding gradient when the CUDA target keeps them for its kernels.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/BufferizableOpInterfaceImpl.h"
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace transfuse::nn {
namespace {

/// `into(rewriter, op, operandBuffers, resultBuffers)` builds the
/// bufferized form of OpT.
template <typename OpT>
using IntoBuilder = void (*)(RewriterBase &, OpT, ArrayRef<Value>,
                             ArrayRef<Value>);

/// An op kept whole for a runtime kernel: it reads its operands in place
/// (whatever their layout) and writes fresh buffers, like any op that
/// allocates its results.
template <typename OpT, IntoBuilder<OpT> into>
struct KernelOpInterface
    : BufferizableOpInterface::ExternalModel<KernelOpInterface<OpT, into>,
                                             OpT> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  static MemRefType bufferTypeOf(Value result) {
    auto type = cast<RankedTensorType>(result.getType());
    return MemRefType::get(type.getShape(), type.getElementType());
  }

  FailureOr<BufferLikeType> getBufferType(Operation *, Value value,
                                          const BufferizationOptions &,
                                          const BufferizationState &,
                                          SmallVector<Value> &) const {
    return cast<BufferLikeType>(bufferTypeOf(value));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    SmallVector<Value, 8> operands;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      operands.push_back(*buffer);
    }
    SmallVector<Value, 3> results;
    for (Value result : op->getResults()) {
      FailureOr<Value> buffer =
          options.createAlloc(rewriter, op->getLoc(), bufferTypeOf(result), {});
      if (failed(buffer))
        return failure();
      results.push_back(*buffer);
    }
    into(rewriter, cast<OpT>(op), operands, results);
    replaceOpWithBufferizedValues(rewriter, op, results);
    return success();
  }
};

/// The optional mask of an attention op among its operand buffers: the
/// operand after q, k and v when present.
Value maskBuffer(Value mask, ArrayRef<Value> operands) {
  return mask ? operands[3] : Value();
}

void attentionInto(RewriterBase &rewriter, AttentionOp op,
                   ArrayRef<Value> operands, ArrayRef<Value> results) {
  AttentionIntoOp::create(rewriter, op.getLoc(), operands[0], operands[1],
                          operands[2], maskBuffer(op.getMask(), operands),
                          results[0], op.getScaleAttr(), op.getCausalAttr(),
                          op.getMaskFillAttr(), op.getDropoutAttr());
}

void attentionStatsInto(RewriterBase &rewriter, AttentionStatsOp op,
                        ArrayRef<Value> operands, ArrayRef<Value> results) {
  AttentionStatsIntoOp::create(
      rewriter, op.getLoc(), operands[0], operands[1], operands[2],
      maskBuffer(op.getMask(), operands), operands.back(), results[0],
      results[1], op.getScaleAttr(), op.getCausalAttr(), op.getMaskFillAttr(),
      op.getDropoutAttr(), op.getStreamAttr());
}

void attentionGradInto(RewriterBase &rewriter, AttentionGradOp op,
                       ArrayRef<Value> operands, ArrayRef<Value> results) {
  // out, lse, grad and seed are the last four operands.
  ArrayRef<Value> tail = operands.take_back(4);
  AttentionGradIntoOp::create(
      rewriter, op.getLoc(), operands[0], operands[1], operands[2],
      maskBuffer(op.getMask(), operands), tail[0], tail[1], tail[2], tail[3],
      results[0], results[1], results[2], op.getScaleAttr(), op.getCausalAttr(),
      op.getMaskFillAttr(), op.getDropoutAttr(), op.getStreamAttr());
}

void layerNormInto(RewriterBase &rewriter, LayerNormOp op,
                   ArrayRef<Value> operands, ArrayRef<Value> results) {
  Value residual = op.getResidual() ? operands[3] : Value();
  LayerNormIntoOp::create(rewriter, op.getLoc(), operands[0], operands[1],
                          operands[2], residual, results[0], op.getAxisAttr(),
                          op.getEpsilonAttr());
}

void layerNormGradInto(RewriterBase &rewriter, LayerNormGradOp op,
                       ArrayRef<Value> operands, ArrayRef<Value> results) {
  LayerNormGradIntoOp::create(rewriter, op.getLoc(), operands[0], operands[1],
                              operands[2], results[0], results[1], results[2],
                              op.getAxisAttr(), op.getEpsilonAttr());
}

/// The losses and their gradients: two operands, one result, the same
/// attributes on tensors and on buffers.
template <typename OpT, typename IntoT>
void lossInto(RewriterBase &rewriter, OpT op, ArrayRef<Value> operands,
              ArrayRef<Value> results) {
  IntoT::create(rewriter, op.getLoc(), TypeRange(),
                ValueRange{operands[0], operands[1], results[0]},
                op->getAttrs());
}

void embeddingGradInto(RewriterBase &rewriter, EmbeddingGradOp op,
                       ArrayRef<Value> operands, ArrayRef<Value> results) {
  EmbeddingGradIntoOp::create(rewriter, op.getLoc(), operands[0], operands[1],
                              results[0], op.getNumRowsAttr());
}

} // namespace

void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, NNDialect *) {
    AttentionOp::attachInterface<KernelOpInterface<AttentionOp, attentionInto>>(
        *context);
    AttentionStatsOp::attachInterface<
        KernelOpInterface<AttentionStatsOp, attentionStatsInto>>(*context);
    AttentionGradOp::attachInterface<
        KernelOpInterface<AttentionGradOp, attentionGradInto>>(*context);
    LayerNormOp::attachInterface<KernelOpInterface<LayerNormOp, layerNormInto>>(
        *context);
    LayerNormGradOp::attachInterface<
        KernelOpInterface<LayerNormGradOp, layerNormGradInto>>(*context);
    CrossEntropyOp::attachInterface<KernelOpInterface<
        CrossEntropyOp, lossInto<CrossEntropyOp, CrossEntropyIntoOp>>>(
        *context);
    CrossEntropyGradOp::attachInterface<KernelOpInterface<
        CrossEntropyGradOp,
        lossInto<CrossEntropyGradOp, CrossEntropyGradIntoOp>>>(*context);
    NllLossOp::attachInterface<
        KernelOpInterface<NllLossOp, lossInto<NllLossOp, NllLossIntoOp>>>(
        *context);
    NllLossGradOp::attachInterface<KernelOpInterface<
        NllLossGradOp, lossInto<NllLossGradOp, NllLossGradIntoOp>>>(*context);
    EmbeddingGradOp::attachInterface<
        KernelOpInterface<EmbeddingGradOp, embeddingGradInto>>(*context);
  });
}

} // namespace transfuse::nn
