//===- LayerIntoOps.cpp - Verifiers of the layers on buffers --------------===//
//
// The `*_into` layers hold the buffers of an op that was verified on tensors
// before bufferization; their verifiers check that the buffers still have
// the shapes that op's rules give (ShapeRules.cpp), so that IR written by
// hand or by a pass cannot hand the runtime's kernels mismatched buffers.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"

#include <type_traits>

using namespace mlir;
using namespace transfuse::nn;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

Type elementOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// That `buffer` is `shape` of `element`, naming it `name` otherwise.
LogicalResult expectBuffer(Operation *op, StringRef name, Value buffer,
                           ArrayRef<int64_t> shape, Type element) {
  if (shapeOf(buffer) == shape && elementOf(buffer) == element)
    return success();
  return op->emitOpError() << name << " must be " << formatShape(shape)
                           << " of " << element << ", got " << buffer.getType();
}

LogicalResult fromRule(Operation *op, LogicalResult rule,
                       const std::string &why) {
  if (failed(rule))
    return op->emitOpError(why);
  return success();
}

/// That the floating-point buffers `op` reads (its operands before the
/// first of `results`) hold one element type, as the op on tensors
/// requires; the results' types are checked with their shapes.
LogicalResult sameFloats(Operation *op, Type element, Value firstResult) {
  for (Value operand : op->getOperands()) {
    if (operand == firstResult)
      break;
    if (isa<FloatType>(elementOf(operand)) && elementOf(operand) != element)
      return op->emitOpError() << "mixes element types " << element << " and "
                               << elementOf(operand);
  }
  return success();
}

LogicalResult checkEpsilon(Operation *op, APFloat epsilon) {
  if (epsilon.convertToDouble() > 0.0)
    return success();
  return op->emitOpError("layer norm epsilon must be positive");
}

/// The operands of a loss or its gradient: logits against labels, one
/// element type, and for cross entropy a smoothing in [0, 1].
template <typename OpT> LogicalResult verifyScores(OpT op, Value logits) {
  std::string why;
  if (failed(fromRule(
          op,
          checkClassification(shapeOf(logits), shapeOf(op.getLabels()), why),
          why)) ||
      failed(sameFloats(op, elementOf(logits), op.getOut())))
    return failure();
  if constexpr (std::is_same_v<OpT, CrossEntropyIntoOp> ||
                std::is_same_v<OpT, CrossEntropyGradIntoOp>)
    return fromRule(
        op, checkLabelSmoothing(op.getLabelSmoothing().convertToDouble(), why),
        why);
  return success();
}

/// A loss of logits against labels into a scalar.
template <typename OpT> LogicalResult verifyLoss(OpT op, Value logits) {
  if (failed(verifyScores(op, logits)))
    return failure();
  return expectBuffer(op, "out", op.getOut(), {}, elementOf(logits));
}

/// A loss gradient: shaped as the logits.
template <typename OpT> LogicalResult verifyLossGrad(OpT op, Value logits) {
  if (failed(verifyScores(op, logits)))
    return failure();
  return expectBuffer(op, "out", op.getOut(), shapeOf(logits),
                      elementOf(logits));
}

} // namespace

LogicalResult LayerNormIntoOp::verify() {
  std::string why;
  std::optional<ArrayRef<int64_t>> beta, residual;
  if (getBeta())
    beta = shapeOf(getBeta());
  if (getResidual())
    residual = shapeOf(getResidual());
  FailureOr<Shape> shape = layerNormShape(
      shapeOf(getInput()), shapeOf(getGamma()), beta, residual, getAxis(),
      getStatistic() == NormStatistic::unbiased_variance, why);
  if (failed(shape))
    return emitOpError(why);
  if (failed(checkEpsilon(*this, getEpsilon())) ||
      failed(sameFloats(*this, elementOf(getInput()), getOut())))
    return failure();
  return expectBuffer(*this, "out", getOut(), *shape, elementOf(getInput()));
}

LogicalResult LayerNormGradIntoOp::verify() {
  std::string why;
  if (failed(fromRule(
          *this,
          checkLayerNormGrad(shapeOf(getGrad()), shapeOf(getInput()),
                             shapeOf(getGamma()), getAxis(),
                             getStatistic() == NormStatistic::unbiased_variance,
                             why),
          why)))
    return failure();
  if (failed(checkEpsilon(*this, getEpsilon())) ||
      failed(sameFloats(*this, elementOf(getInput()), getGradInput())))
    return failure();
  Type element = elementOf(getInput());
  if (failed(expectBuffer(*this, "grad_input", getGradInput(),
                          shapeOf(getInput()), element)) ||
      failed(expectBuffer(*this, "grad_gamma", getGradGamma(),
                          shapeOf(getGamma()), element)))
    return failure();
  return expectBuffer(*this, "grad_beta", getGradBeta(), shapeOf(getGamma()),
                      element);
}

LogicalResult CrossEntropyIntoOp::verify() {
  return verifyLoss(*this, getLogits());
}

LogicalResult CrossEntropyGradIntoOp::verify() {
  return verifyLossGrad(*this, getLogits());
}

LogicalResult NllLossIntoOp::verify() {
  return verifyLoss(*this, getLogProbs());
}

LogicalResult NllLossGradIntoOp::verify() {
  return verifyLossGrad(*this, getLogProbs());
}

LogicalResult EmbeddingGradIntoOp::verify() {
  std::string why;
  FailureOr<Shape> shape = embeddingGradShape(
      shapeOf(getGrad()), shapeOf(getIndices()), getNumRows(), why);
  if (failed(shape))
    return emitOpError(why);
  if (failed(sameFloats(*this, elementOf(getGrad()), getOut())))
    return failure();
  return expectBuffer(*this, "out", getOut(), *shape, elementOf(getGrad()));
}
