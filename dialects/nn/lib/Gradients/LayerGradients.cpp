//===- LayerGradients.cpp - Gradient rules of the nn layer ops ------------===//
//
// The layers with a backward op of their own: GELU, embedding, layer norm
// and attention, whose backward ops recompute what the forward knew (the
// normalisation statistics, the attention probabilities from the row
// log-sum-exp) rather than keep it. Dropout regenerates its mask from the
// seed and stream it was drawn with.
//===----------------------------------------------------------------------===//
#include "Gradients.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace transfuse::nn::gradients {
namespace {

LogicalResult geluRule(GeluOp op, OpBuilder &b, Value dy,
                       SmallVectorImpl<Value> &dx) {
  dx.push_back(GeluGradOp::create(b, op.getLoc(), dy, op.getInput(),
                                  op.getApproximateTanh()));
  return success();
}

/// The same mask (seed, stream and rate) applied to the adjoint.
LogicalResult dropoutRule(DropoutOp op, OpBuilder &b, Value dy,
                          SmallVectorImpl<Value> &dx) {
  dx.push_back(DropoutOp::create(b, op.getLoc(), dy, op.getSeed(),
                                 op.getRateAttr(), op.getStreamAttr()));
  if (op.getSeed())
    dx.push_back(nullptr);
  return success();
}

/// Each id's row gathers the adjoints of the positions that read it.
LogicalResult embeddingRule(EmbeddingOp op, OpBuilder &b, Value dy,
                            SmallVectorImpl<Value> &dx) {
  int64_t rows = cast<RankedTensorType>(op.getTable().getType()).getDimSize(0);
  dx.push_back(EmbeddingGradOp::create(b, op.getLoc(), dy, op.getIndices(),
                                       b.getI64IntegerAttr(rows))
                   .getResult());
  dx.push_back(nullptr);
  return success();
}

/// One fused backward op of the same form; with a residual both summands
/// get its dx, and grad_beta goes to beta only where there is one.
LogicalResult layerNormRule(LayerNormOp op, OpBuilder &b, Value dy,
                            SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value input = op.getInput();
  if (Value residual = op.getResidual())
    input = AddOp::create(b, loc, input, residual);
  auto grad = LayerNormGradOp::create(
      b, loc, dy, input, op.getGamma(), op.getAxisAttr(), op.getEpsilonAttr(),
      op.getStatisticAttr(), op.getEpsilonOnStdAttr());
  dx.append({grad.getGradInput(), grad.getGradGamma()});
  if (op.getBeta())
    dx.push_back(grad.getGradBeta());
  if (op.getResidual())
    dx.push_back(grad.getGradInput());
  return success();
}

/// The adjoints of q, k and v; the mask and the seed have none.
void attentionAdjoints(OpBuilder &b, AttentionStatsOp forward, Value dy,
                       SmallVectorImpl<Value> &dx) {
  auto grad = AttentionGradOp::create(
      b, forward.getLoc(), forward.getQuery(), forward.getKey(),
      forward.getValue(), forward.getMask(), forward.getResult(),
      forward.getLse(), dy, forward.getSeed(), forward.getScaleAttr(),
      forward.getCausalAttr(), forward.getMaskFillAttr(),
      forward.getDropoutAttr(), forward.getStreamAttr());
  dx.append({grad.getGradQuery(), grad.getGradKey(), grad.getGradValue()});
  if (forward.getMask())
    dx.push_back(nullptr);
}

/// nn.attention keeps no statistics: its backward recomputes the forward
/// with them. Training graphs use nn.attention_stats instead (nn-autodiff
/// converts), so this runs only for a graph differentiated as it is.
LogicalResult attentionRule(AttentionOp op, OpBuilder &b, Value dy,
                            SmallVectorImpl<Value> &dx) {
  if (op.getDropout().convertToDouble() != 0.0)
    return op.emitOpError("has dropout but no seed; differentiate the "
                          "nn.attention_stats form");
  Location loc = op.getLoc();
  Value seed = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                             b.getI64IntegerAttr(0).getValue()));
  auto forward = AttentionStatsOp::create(
      b, loc, op.getQuery(), op.getKey(), op.getValue(), op.getMask(), seed,
      op.getScaleAttr(), op.getCausalAttr(), op.getMaskFillAttr(),
      op.getDropoutAttr(), b.getI64IntegerAttr(0));
  attentionAdjoints(b, forward, dy, dx);
  return success();
}

/// Two results: only `result` carries an adjoint (nothing reads lse but
/// the backward).
struct AttentionStatsModel
    : DifferentiableOpInterface::ExternalModel<AttentionStatsModel,
                                               AttentionStatsOp> {
  LogicalResult buildAdjoints(Operation *op, OpBuilder &b,
                              ArrayRef<Value> resultAdjoints,
                              SmallVectorImpl<Value> &operandAdjoints) const {
    if (resultAdjoints[1])
      return op->emitOpError("has no gradient rule for its lse result");
    attentionAdjoints(b, cast<AttentionStatsOp>(op), resultAdjoints[0],
                      operandAdjoints);
    operandAdjoints.push_back(nullptr); // the seed
    return success();
  }
};

} // namespace

void attachLayerGradients(MLIRContext *context) {
  attach<GeluOp, geluRule>(context);
  attach<DropoutOp, dropoutRule>(context);
  attach<EmbeddingOp, embeddingRule>(context);
  attach<LayerNormOp, layerNormRule>(context);
  attach<AttentionOp, attentionRule>(context);
  AttentionStatsOp::attachInterface<AttentionStatsModel>(*context);
}

} // namespace transfuse::nn::gradients
