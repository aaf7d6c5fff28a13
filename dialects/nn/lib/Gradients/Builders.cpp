//===- Builders.cpp - Shared pieces of the nn gradient rules --------------===//
#include "Gradients.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace transfuse::nn::gradients {

Value splat(OpBuilder &b, Location loc, RankedTensorType type, double value) {
  auto element = b.getFloatAttr(type.getElementType(), value);
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, element));
}

Value scalar(OpBuilder &b, Location loc, Type element, double value) {
  return splat(b, loc, RankedTensorType::get({}, element), value);
}

Value unbroadcast(OpBuilder &b, Location loc, Value grad, Type target) {
  auto gradType = cast<RankedTensorType>(grad.getType());
  auto targetType = cast<RankedTensorType>(target);
  if (gradType == targetType)
    return grad;
  // NumPy broadcasting aligns trailing dimensions: the leading extra ones
  // and those where the operand had size 1 were broadcast.
  int64_t extra = gradType.getRank() - targetType.getRank();
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < gradType.getRank(); ++d)
    if (d < extra ||
        (targetType.getDimSize(d - extra) == 1 && gradType.getDimSize(d) != 1))
      axes.push_back(d);
  Value summed = axes.empty() ? grad : ReduceSumOp::create(b, loc, grad, axes);
  if (summed.getType() == targetType)
    return summed;
  return ReshapeOp::create(b, loc, summed, targetType.getShape());
}

Value broadcastTo(OpBuilder &b, Location loc, Value value,
                  RankedTensorType type) {
  if (value.getType() == type)
    return value;
  return AddOp::create(b, loc, value, splat(b, loc, type, 0.0));
}

Value zeroWhere(OpBuilder &b, Location loc, Value grad, Value mask) {
  return MaskedFillOp::create(b, loc, grad, mask, b.getF64FloatAttr(0.0));
}

} // namespace transfuse::nn::gradients
