//===- OptimizerOps.cpp - Verifiers of the optimizer updates --------------===//
//
// nn.global_norm, nn.adam_update, nn.sgd_update and their forms on buffers
// hold what the runtime's f32 kernels update: one shape for a parameter,
// its gradient and its state, and settings torch.optim accepts.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"

#include <limits>
#include <sstream>

using namespace mlir;
using namespace transfuse::nn;

namespace {

bool isF32(Value value) {
  return cast<ShapedType>(value.getType()).getElementType().isF32();
}

/// That `values` are f32 (the kernels' only element type), naming the
/// first that is not.
LogicalResult expectF32(Operation *op, ValueRange values) {
  for (Value value : values)
    if (!isF32(value))
      return op->emitOpError("updates f32 only, got ") << value.getType();
  return success();
}

/// That `tensors` (gradient, state, results) have the shape and element type
/// of `param` (buffers may differ in layout).
LogicalResult expectParamType(Operation *op, Value param, ValueRange tensors) {
  auto expected = cast<ShapedType>(param.getType());
  for (Value tensor : tensors)
    if (auto type = cast<ShapedType>(tensor.getType());
        type.getShape() != expected.getShape() ||
        type.getElementType() != expected.getElementType())
      return op->emitOpError("needs every tensor shaped as the parameter ")
             << param.getType() << ", got " << tensor.getType();
  return success();
}

/// That `value` lies in [low, high), as torch.optim requires.
LogicalResult expectInRange(Operation *op, StringRef name, APFloat value,
                            double low, double high) {
  double v = value.convertToDouble();
  // Written to reject NaN too.
  if (v >= low && v < high)
    return success();
  // Shortest forms ("0.9", "1", "inf"), as the settings are written.
  std::ostringstream text;
  text << name.str() << " must lie in [" << low << ", " << high << "), got "
       << v;
  return op->emitOpError(text.str());
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

template <typename OpT> LogicalResult verifyGlobalNorm(OpT op) {
  if (op.getInputs().empty())
    return op.emitOpError("needs at least one tensor");
  return expectF32(op, op.getInputs());
}

template <typename OpT>
LogicalResult verifyAdam(OpT op, ValueRange sameAsParam) {
  if (failed(expectF32(op, op.getParam())) ||
      failed(expectParamType(op, op.getParam(), sameAsParam)))
    return failure();
  if (failed(expectInRange(op, "beta1", op.getBeta1(), 0, 1)) ||
      failed(expectInRange(op, "beta2", op.getBeta2(), 0, 1)) ||
      failed(expectInRange(op, "eps", op.getEps(), 0, kInfinity)))
    return failure();
  return expectInRange(op, "weight_decay", op.getWeightDecay(), 0, kInfinity);
}

template <typename OpT>
LogicalResult verifySgd(OpT op, ValueRange sameAsParam) {
  if (failed(expectF32(op, op.getParam())) ||
      failed(expectParamType(op, op.getParam(), sameAsParam)) ||
      failed(expectInRange(op, "momentum", op.getMomentum(), 0, kInfinity)) ||
      failed(
          expectInRange(op, "weight_decay", op.getWeightDecay(), 0, kInfinity)))
    return failure();
  bool momentum = !op.getMomentum().isZero();
  if (momentum != static_cast<bool>(op.getMomentumBuffer()))
    return op.emitOpError(momentum ? "needs a momentum buffer for momentum "
                                     "other than 0"
                                   : "has a momentum buffer but momentum 0");
  if (op.getNesterov() && !momentum)
    return op.emitOpError("needs momentum for nesterov");
  return success();
}

SmallVector<Value> concat(ValueRange a, ValueRange b) {
  SmallVector<Value> all(a.begin(), a.end());
  all.append(b.begin(), b.end());
  return all;
}

} // namespace

LogicalResult GlobalNormOp::verify() { return verifyGlobalNorm(*this); }

LogicalResult GlobalNormIntoOp::verify() { return verifyGlobalNorm(*this); }

LogicalResult AdamUpdateOp::verify() { return verifyAdam(*this, {}); }

LogicalResult AdamUpdateIntoOp::verify() {
  return verifyAdam(*this, {getGrad(), getExpAvg(), getExpAvgSq()});
}

LogicalResult SgdUpdateOp::verify() {
  SmallVector<Value> tensors = concat(getGrad(), getResults());
  if (getMomentumBuffer())
    tensors.push_back(getMomentumBuffer());
  if (getResults().size() != (getMomentumBuffer() ? 2u : 1u))
    return emitOpError("has ")
           << getResults().size() << " results, one per updated tensor needs "
           << (getMomentumBuffer() ? 2 : 1);
  return verifySgd(*this, tensors);
}

LogicalResult SgdUpdateIntoOp::verify() {
  SmallVector<Value> tensors{getGrad()};
  if (getMomentumBuffer())
    tensors.push_back(getMomentumBuffer());
  return verifySgd(*this, tensors);
}
