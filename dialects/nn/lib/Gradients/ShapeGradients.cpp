//===- ShapeGradients.cpp - Gradient rules of nn shape ops ----------------===//
#include "Gradients.h"

using namespace mlir;

namespace transfuse::nn::gradients {
namespace {

LogicalResult transposeRule(TransposeOp op, OpBuilder &b, Value dy,
                            SmallVectorImpl<Value> &dx) {
  ArrayRef<int64_t> perm = op.getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  dx.push_back(TransposeOp::create(b, op.getLoc(), dy, inverse));
  return success();
}

LogicalResult reshapeRule(ReshapeOp op, OpBuilder &b, Value dy,
                          SmallVectorImpl<Value> &dx) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  dx.push_back(ReshapeOp::create(b, op.getLoc(), dy, type.getShape()));
  return success();
}

/// The slice's adjoint placed back in a zero tensor of the input's shape:
/// along each cut dimension, zeros before and after it are concatenated.
LogicalResult sliceRule(SliceOp op, OpBuilder &b, Value dy,
                        SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  Value grad = dy;
  for (auto [d, offset] : llvm::enumerate(op.getOffsets())) {
    auto gradType = cast<RankedTensorType>(grad.getType());
    int64_t after = inputType.getDimSize(d) - offset - gradType.getDimSize(d);
    if (offset == 0 && after == 0)
      continue;
    SmallVector<Value> pieces;
    auto zeros = [&](int64_t size) {
      SmallVector<int64_t> shape(gradType.getShape());
      shape[d] = size;
      return splat(b, loc, gradType.clone(shape), 0.0);
    };
    if (offset > 0)
      pieces.push_back(zeros(offset));
    pieces.push_back(grad);
    if (after > 0)
      pieces.push_back(zeros(after));
    grad = ConcatOp::create(b, loc, pieces, static_cast<int64_t>(d));
  }
  dx.push_back(grad);
  return success();
}

LogicalResult concatRule(ConcatOp op, OpBuilder &b, Value dy,
                         SmallVectorImpl<Value> &dx) {
  int64_t axis = op.getAxis();
  auto resultType = cast<RankedTensorType>(op.getType());
  SmallVector<int64_t> offsets(resultType.getRank(), 0);
  for (Value input : op.getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    dx.push_back(SliceOp::create(b, op.getLoc(), dy, offsets, type.getShape()));
    offsets[axis] += type.getDimSize(axis);
  }
  return success();
}

} // namespace

void attachShapeGradients(MLIRContext *context) {
  attach<TransposeOp, transposeRule>(context);
  attach<ReshapeOp, reshapeRule>(context);
  attach<SliceOp, sliceRule>(context);
  attach<ConcatOp, concatRule>(context);
}

} // namespace transfuse::nn::gradients
