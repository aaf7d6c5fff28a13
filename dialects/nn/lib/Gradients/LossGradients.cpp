//===- LossGradients.cpp - Gradient rules of the losses -------------------===//
//
// The backward ops give the gradient of the mean loss itself; the rules
// scale it by the loss's adjoint (1 when the loss is what is minimised).
//===----------------------------------------------------------------------===//
#include "Gradients.h"

using namespace mlir;

namespace transfuse::nn::gradients {
namespace {

/// Logits get softmax - target, computed once by the backward op.
LogicalResult crossEntropyRule(CrossEntropyOp op, OpBuilder &b, Value dy,
                               SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value grad = CrossEntropyGradOp::create(
      b, loc, op.getLogits(), op.getLabels(), op.getIgnoreIndexAttr(),
      op.getLabelSmoothingAttr());
  dx.push_back(MulOp::create(b, loc, grad, dy));
  dx.push_back(nullptr);
  return success();
}

LogicalResult nllLossRule(NllLossOp op, OpBuilder &b, Value dy,
                          SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value grad = NllLossGradOp::create(b, loc, op.getLogProbs(), op.getLabels(),
                                     op.getIgnoreIndexAttr());
  dx.push_back(MulOp::create(b, loc, grad, dy));
  dx.push_back(nullptr);
  return success();
}

} // namespace

void attachLossGradients(MLIRContext *context) {
  attach<CrossEntropyOp, crossEntropyRule>(context);
  attach<NllLossOp, nllLossRule>(context);
}

} // namespace transfuse::nn::gradients
