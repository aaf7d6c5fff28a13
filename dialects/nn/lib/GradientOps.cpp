//===- GradientOps.cpp - Type inference of the nn backward ops ------------===//
//
// The ops the autodiff pass emits for fused, gather and loss ops. As in
// NNOps.cpp, a shape rule's failure is the op's verifier error.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"

using namespace mlir;
using namespace transfuse::nn;

/// The operand's type; null (ODS has reported it) when not a ranked tensor.
static RankedTensorType rankedType(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
}

LogicalResult
LayerNormGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  if (!(adaptor.getEpsilon().convertToDouble() > 0.0))
    return emitOptionalError(loc, "layer norm epsilon must be positive");
  RankedTensorType grad = rankedType(adaptor.getGrad());
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType gamma = rankedType(adaptor.getGamma());
  if (!grad || !input || !gamma)
    return failure();
  Type element = input.getElementType();
  if (grad.getElementType() != element || gamma.getElementType() != element)
    return emitOptionalError(
        loc, "operand element types differ: ", grad.getElementType(), ", ",
        element, " and ", gamma.getElementType());
  std::string why;
  if (failed(checkLayerNormGrad(
          grad.getShape(), input.getShape(), gamma.getShape(),
          adaptor.getAxis(),
          adaptor.getStatistic() == NormStatistic::unbiased_variance, why)))
    return emitOptionalError(loc, why);
  results.append({input, gamma, gamma});
  return success();
}

LogicalResult
EmbeddingGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  RankedTensorType grad = rankedType(adaptor.getGrad());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (!grad || !indices)
    return failure();
  std::string why;
  FailureOr<Shape> shape = embeddingGradShape(
      grad.getShape(), indices.getShape(), adaptor.getNumRows(), why);
  if (failed(shape))
    return emitOptionalError(loc, why);
  results.push_back(RankedTensorType::get(*shape, grad.getElementType()));
  return success();
}

/// A loss gradient is shaped as the scores it differentiates; nll_loss has
/// no smoothing (0).
static LogicalResult inferLossGrad(std::optional<Location> loc, Value scores,
                                   Value labels, double smoothing,
                                   SmallVectorImpl<Type> &results) {
  RankedTensorType scoresType = rankedType(scores);
  RankedTensorType labelsType = rankedType(labels);
  if (!scoresType || !labelsType)
    return failure();
  std::string why;
  if (failed(checkLabelSmoothing(smoothing, why)) ||
      failed(checkClassification(scoresType.getShape(), labelsType.getShape(),
                                 why)))
    return emitOptionalError(loc, why);
  results.push_back(scoresType);
  return success();
}

LogicalResult
CrossEntropyGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                     Adaptor adaptor,
                                     SmallVectorImpl<Type> &results) {
  return inferLossGrad(loc, adaptor.getLogits(), adaptor.getLabels(),
                       adaptor.getLabelSmoothing().convertToDouble(), results);
}

LogicalResult NllLossGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  return inferLossGrad(loc, adaptor.getLogProbs(), adaptor.getLabels(),
                       /*smoothing=*/0.0, results);
}
