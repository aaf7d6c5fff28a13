//===- NormRows.cpp - Row statistics of nn.layer_norm's forms -------------===//
#include "NormRows.h"
#include "Builders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace transfuse::lowering {

NormRows buildNormRows(OpBuilder &b, Location loc, Value x,
                       ArrayRef<int64_t> axes, const NormForm &form) {
  RankedTensorType type = tensorType(x);
  Type element = type.getElementType();
  NormRows rows;
  SmallVector<Value> inputs = {x};
  if (form.centred()) {
    rows.mean = buildMean(b, loc, x, axes, /*keepDims=*/true);
    inputs.push_back(rows.mean);
  }
  rows.squares = buildSums(
      b, loc, type.getShape(), element, inputs, axes,
      /*keepDims=*/true, 1, [](OpBuilder &nb, Location l, ValueRange v) {
        Value centred =
            v.size() == 2 ? arith::SubFOp::create(nb, l, v[0], v[1]) : v[0];
        return SmallVector<Value>{
            arith::MulFOp::create(nb, l, centred, centred)};
      })[0];
  rows.scale = buildElementwise(
      b, loc, tensorType(rows.squares), rows.squares,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Value variance = arith::DivFOp::create(
            nb, l, v[0], scalar(nb, l, element, form.divisor()));
        Value epsilon = scalar(nb, l, element, form.epsilon);
        if (!form.epsilonOnStd)
          return math::RsqrtOp::create(
              nb, l, arith::AddFOp::create(nb, l, variance, epsilon));
        Value std = math::SqrtOp::create(nb, l, variance);
        return arith::DivFOp::create(
            nb, l, scalar(nb, l, element, 1.0),
            arith::AddFOp::create(nb, l, std, epsilon));
      });
  return rows;
}

SmallVector<Value> normOperands(const NormRows &rows) {
  if (rows.mean)
    return {rows.mean, rows.scale};
  return {rows.scale};
}

Value normalizeElement(OpBuilder &b, Location loc, Value x, ValueRange stats) {
  Value centred =
      stats.size() == 2 ? arith::SubFOp::create(b, loc, x, stats[0]) : x;
  return arith::MulFOp::create(b, loc, centred, stats.back());
}

Value gradDivisorElement(OpBuilder &b, Location loc, const NormForm &form,
                         Value squares, Value scale) {
  Type element = scale.getType();
  Value divisor = scalar(b, loc, element, form.divisor());
  if (!form.epsilonOnStd)
    return divisor;
  // ds/dσ = -s² for s = 1 / (σ + ε), where s = 1 / sqrt(σ² + ε) has
  // ds/dσ = -s³ σ: the x̂ term of the root form divided by σ · s.
  Value std = math::SqrtOp::create(
      b, loc, arith::DivFOp::create(b, loc, squares, divisor));
  return arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, divisor, std), scale);
}

} // namespace transfuse::lowering
