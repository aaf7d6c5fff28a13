//===- ReductionGradients.cpp - Gradient rules of reductions and softmax --===//
#include "Gradients.h"

using namespace mlir;

namespace transfuse::nn::gradients {
namespace {

/// `value` (a reduction's result or adjoint) with the reduced axes of
/// `input` back as dimensions of size 1.
Value withKeptDims(OpBuilder &b, Location loc, Value value, Value input,
                   ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(
      cast<RankedTensorType>(input.getType()).getShape());
  for (int64_t axis : axes)
    shape[axis] = 1;
  if (cast<RankedTensorType>(value.getType()).getShape() == ArrayRef(shape))
    return value;
  return ReshapeOp::create(b, loc, value, shape);
}

/// The adjoint of a sum spread back over the summed elements.
Value spread(OpBuilder &b, Location loc, Value dy, Value input,
             ArrayRef<int64_t> axes) {
  return broadcastTo(b, loc, withKeptDims(b, loc, dy, input, axes),
                     cast<RankedTensorType>(input.getType()));
}

LogicalResult reduceSumRule(ReduceSumOp op, OpBuilder &b, Value dy,
                            SmallVectorImpl<Value> &dx) {
  dx.push_back(spread(b, op.getLoc(), dy, op.getInput(), op.getAxes()));
  return success();
}

LogicalResult reduceMeanRule(ReduceMeanOp op, OpBuilder &b, Value dy,
                             SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t count = 1;
  for (int64_t axis : op.getAxes())
    count *= type.getDimSize(axis);
  Value share = DivOp::create(
      b, loc, dy, scalar(b, loc, type.getElementType(), double(count)));
  dx.push_back(spread(b, loc, share, op.getInput(), op.getAxes()));
  return success();
}

/// The adjoint goes to the elements equal to the maximum (to each of them
/// on a tie, where PyTorch's amax would split it).
LogicalResult reduceMaxRule(ReduceMaxOp op, OpBuilder &b, Value dy,
                            SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value input = op.getInput();
  Value max = withKeptDims(b, loc, op.getResult(), input, op.getAxes());
  Value notMax = CompareOp::create(b, loc, input, max, ComparePredicate::ne);
  dx.push_back(
      zeroWhere(b, loc, spread(b, loc, dy, input, op.getAxes()), notMax));
  return success();
}

/// dx = y · (dy - Σ dy·y).
LogicalResult softmaxRule(SoftmaxOp op, OpBuilder &b, Value dy,
                          SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value y = op.getResult();
  Value dot =
      ReduceSumOp::create(b, loc, MulOp::create(b, loc, dy, y),
                          ArrayRef<int64_t>{static_cast<int64_t>(op.getAxis())},
                          /*keep_dims=*/true);
  dx.push_back(MulOp::create(b, loc, y, SubOp::create(b, loc, dy, dot)));
  return success();
}

/// dx = dy - exp(y) · Σ dy.
LogicalResult logSoftmaxRule(LogSoftmaxOp op, OpBuilder &b, Value dy,
                             SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value total = ReduceSumOp::create(
      b, loc, dy, ArrayRef<int64_t>{static_cast<int64_t>(op.getAxis())},
      /*keep_dims=*/true);
  Value probabilities = ExpOp::create(b, loc, op.getResult());
  dx.push_back(
      SubOp::create(b, loc, dy, MulOp::create(b, loc, probabilities, total)));
  return success();
}

} // namespace

void attachReductionGradients(MLIRContext *context) {
  attach<ReduceSumOp, reduceSumRule>(context);
  attach<ReduceMeanOp, reduceMeanRule>(context);
  attach<ReduceMaxOp, reduceMaxRule>(context);
  attach<SoftmaxOp, softmaxRule>(context);
  attach<LogSoftmaxOp, logSoftmaxRule>(context);
}

} // namespace transfuse::nn::gradients
