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

/// The buffers of `op`'s operands, in order.
FailureOr<SmallVector<Value, 8>>
operandBuffers(Operation *op, RewriterBase &rewriter,
               const BufferizationOptions &options, BufferizationState &state) {
  SmallVector<Value, 8> buffers;
  for (Value operand : op->getOperands()) {
    FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  return buffers;
}

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
    FailureOr<SmallVector<Value, 8>> operands =
        operandBuffers(op, rewriter, options, state);
    if (failed(operands))
      return failure();
    SmallVector<Value, 3> results;
    for (Value result : op->getResults()) {
      FailureOr<Value> buffer =
          options.createAlloc(rewriter, op->getLoc(), bufferTypeOf(result), {});
      if (failed(buffer))
        return failure();
      results.push_back(*buffer);
    }
    into(rewriter, cast<OpT>(op), *operands, results);
    replaceOpWithBufferizedValues(rewriter, op, results);
    return success();
  }
};

/// param, exp_avg and exp_avg_sq.
SmallVector<unsigned> updatedOperands(AdamUpdateOp op) {
  return {op.getParamMutable().getOperandNumber(),
          op.getExpAvgMutable().getOperandNumber(),
          op.getExpAvgSqMutable().getOperandNumber()};
}

/// Every operand: an all-reduce combines its buffers where they lie.
SmallVector<unsigned> updatedOperands(AllReduceOp op) {
  return llvm::to_vector(llvm::seq<unsigned>(0, op->getNumOperands()));
}

/// param and the momentum buffer, if any.
SmallVector<unsigned> updatedOperands(SgdUpdateOp op) {
  SmallVector<unsigned> updated{op.getParamMutable().getOperandNumber()};
  if (op.getMomentumBuffer())
    updated.push_back(op.getMomentumBufferMutable()[0].getOperandNumber());
  return updated;
}

/// An optimizer update kept whole for a runtime kernel, which writes each
/// result over the buffer of the tensor it updates (`updatedOperands`, one
/// per result, in order). One-Shot Bufferize copies such a tensor first
/// only where its old value is read later, which the training step never
/// does: parameters and state are updated in place.
template <typename OpT, IntoBuilder<OpT> into>
struct InPlaceUpdateInterface
    : BufferizableOpInterface::ExternalModel<InPlaceUpdateInterface<OpT, into>,
                                             OpT> {
  /// The result that `operand` becomes, if it is updated.
  static std::optional<unsigned> resultOf(Operation *op, OpOperand &operand) {
    SmallVector<unsigned> updated = updatedOperands(cast<OpT>(op));
    auto it = llvm::find(updated, operand.getOperandNumber());
    if (it == updated.end())
      return std::nullopt;
    return static_cast<unsigned>(it - updated.begin());
  }

  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand,
                               const AnalysisState &) const {
    return resultOf(op, operand).has_value();
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    std::optional<unsigned> result = resultOf(op, operand);
    if (!result)
      return {};
    return {{op->getResult(*result), BufferRelation::Equivalent,
             /*isDefinite=*/true}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    FailureOr<SmallVector<Value, 8>> operands =
        operandBuffers(op, rewriter, options, state);
    if (failed(operands))
      return failure();
    SmallVector<Value, 3> results;
    for (unsigned index : updatedOperands(cast<OpT>(op)))
      results.push_back((*operands)[index]);
    into(rewriter, cast<OpT>(op), *operands, results);
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
  // input, gamma, then beta and the residual where present, in that order.
  Value beta = op.getBeta() ? operands[2] : Value();
  Value residual = op.getResidual() ? operands.back() : Value();
  LayerNormIntoOp::create(rewriter, op.getLoc(), operands[0], operands[1], beta,
                          residual, results[0], op.getAxisAttr(),
                          op.getEpsilonAttr(), op.getStatisticAttr(),
                          op.getEpsilonOnStdAttr());
}

void layerNormGradInto(RewriterBase &rewriter, LayerNormGradOp op,
                       ArrayRef<Value> operands, ArrayRef<Value> results) {
  LayerNormGradIntoOp::create(rewriter, op.getLoc(), operands[0], operands[1],
                              operands[2], results[0], results[1], results[2],
                              op.getAxisAttr(), op.getEpsilonAttr(),
                              op.getStatisticAttr(), op.getEpsilonOnStdAttr());
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

void globalNormInto(RewriterBase &rewriter, GlobalNormOp op,
                    ArrayRef<Value> operands, ArrayRef<Value> results) {
  GlobalNormIntoOp::create(rewriter, op.getLoc(), operands, results[0]);
}

void adamUpdateInto(RewriterBase &rewriter, AdamUpdateOp op,
                    ArrayRef<Value> operands, ArrayRef<Value>) {
  AdamUpdateIntoOp::create(rewriter, op.getLoc(), TypeRange(), operands,
                           op->getAttrs());
}

void sgdUpdateInto(RewriterBase &rewriter, SgdUpdateOp op,
                   ArrayRef<Value> operands, ArrayRef<Value>) {
  SgdUpdateIntoOp::create(rewriter, op.getLoc(), TypeRange(), operands,
                          op->getAttrs());
}

void allReduceInto(RewriterBase &rewriter, AllReduceOp op,
                   ArrayRef<Value> operands, ArrayRef<Value>) {
  AllReduceIntoOp::create(rewriter, op.getLoc(), operands,
                          op.getReductionAttr(), op.getBucketAttr());
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
    GlobalNormOp::attachInterface<
        KernelOpInterface<GlobalNormOp, globalNormInto>>(*context);
    AdamUpdateOp::attachInterface<
        InPlaceUpdateInterface<AdamUpdateOp, adamUpdateInto>>(*context);
    SgdUpdateOp::attachInterface<
        InPlaceUpdateInterface<SgdUpdateOp, sgdUpdateInto>>(*context);
    AllReduceOp::attachInterface<
        InPlaceUpdateInterface<AllReduceOp, allReduceInto>>(*context);
  });
}

} // namespace transfuse::nn
