//===- ElementwiseGradients.cpp - Gradient rules of elementwise nn ops ----===//
//
// Binary ops broadcast, so each operand's adjoint is summed back to its own
// shape. Rules reuse the forward result where the derivative is a function
// of it (exp, sqrt, rsqrt, tanh, relu), as PyTorch's autograd does.
//===----------------------------------------------------------------------===//
#include "Gradients.h"

#include <cmath>

using namespace mlir;

namespace transfuse::nn::gradients {
namespace {

LogicalResult addRule(AddOp op, OpBuilder &b, Value dy,
                      SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  dx.push_back(unbroadcast(b, loc, dy, op.getLhs().getType()));
  dx.push_back(unbroadcast(b, loc, dy, op.getRhs().getType()));
  return success();
}

LogicalResult subRule(SubOp op, OpBuilder &b, Value dy,
                      SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  dx.push_back(unbroadcast(b, loc, dy, op.getLhs().getType()));
  dx.push_back(
      unbroadcast(b, loc, NegOp::create(b, loc, dy), op.getRhs().getType()));
  return success();
}

LogicalResult mulRule(MulOp op, OpBuilder &b, Value dy,
                      SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value lhs = op.getLhs(), rhs = op.getRhs();
  dx.push_back(
      unbroadcast(b, loc, MulOp::create(b, loc, dy, rhs), lhs.getType()));
  dx.push_back(
      unbroadcast(b, loc, MulOp::create(b, loc, dy, lhs), rhs.getType()));
  return success();
}

/// d(a / b) = da / b - db · (a / b) / b.
LogicalResult divRule(DivOp op, OpBuilder &b, Value dy,
                      SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value lhs = op.getLhs(), rhs = op.getRhs();
  Value dyOverRhs = DivOp::create(b, loc, dy, rhs);
  dx.push_back(unbroadcast(b, loc, dyOverRhs, lhs.getType()));
  Value quotientTerm = MulOp::create(b, loc, dyOverRhs, op.getResult());
  dx.push_back(
      unbroadcast(b, loc, NegOp::create(b, loc, quotientTerm), rhs.getType()));
  return success();
}

LogicalResult negRule(NegOp op, OpBuilder &b, Value dy,
                      SmallVectorImpl<Value> &dx) {
  dx.push_back(NegOp::create(b, op.getLoc(), dy));
  return success();
}

LogicalResult expRule(ExpOp op, OpBuilder &b, Value dy,
                      SmallVectorImpl<Value> &dx) {
  dx.push_back(MulOp::create(b, op.getLoc(), dy, op.getResult()));
  return success();
}

LogicalResult logRule(LogOp op, OpBuilder &b, Value dy,
                      SmallVectorImpl<Value> &dx) {
  dx.push_back(DivOp::create(b, op.getLoc(), dy, op.getInput()));
  return success();
}

/// d sqrt(x) = dy / (2 sqrt(x)).
LogicalResult sqrtRule(SqrtOp op, OpBuilder &b, Value dy,
                       SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value twice = AddOp::create(b, loc, op.getResult(), op.getResult());
  dx.push_back(DivOp::create(b, loc, dy, twice));
  return success();
}

/// d x^(-1/2) = -dy · y³ / 2.
LogicalResult rsqrtRule(RsqrtOp op, OpBuilder &b, Value dy,
                        SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value y = op.getResult();
  Value cube = MulOp::create(b, loc, MulOp::create(b, loc, y, y), y);
  Value half = scalar(b, loc, getElementTypeOrSelf(y.getType()), -0.5);
  dx.push_back(MulOp::create(b, loc, MulOp::create(b, loc, dy, cube), half));
  return success();
}

/// d tanh(x) = dy · (1 - y²).
LogicalResult tanhRule(TanhOp op, OpBuilder &b, Value dy,
                       SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value y = op.getResult();
  Value one = scalar(b, loc, getElementTypeOrSelf(y.getType()), 1.0);
  Value slope = SubOp::create(b, loc, one, MulOp::create(b, loc, y, y));
  dx.push_back(MulOp::create(b, loc, dy, slope));
  return success();
}

/// d erf(x) = dy · 2/√π · exp(-x²).
LogicalResult erfRule(ErfOp op, OpBuilder &b, Value dy,
                      SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value x = op.getInput();
  Type element = getElementTypeOrSelf(x.getType());
  Value square = MulOp::create(b, loc, x, x);
  Value density = ExpOp::create(b, loc, NegOp::create(b, loc, square));
  Value slope =
      MulOp::create(b, loc, density, scalar(b, loc, element, M_2_SQRTPI));
  dx.push_back(MulOp::create(b, loc, dy, slope));
  return success();
}

/// Zero where the output is not positive (PyTorch's threshold_backward).
LogicalResult reluRule(ReluOp op, OpBuilder &b, Value dy,
                       SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value y = op.getResult();
  Value zero = scalar(b, loc, getElementTypeOrSelf(y.getType()), 0.0);
  Value off = CompareOp::create(b, loc, y, zero, ComparePredicate::le);
  dx.push_back(zeroWhere(b, loc, dy, off));
  return success();
}

/// The filled positions take no gradient; the mask has none.
LogicalResult maskedFillRule(MaskedFillOp op, OpBuilder &b, Value dy,
                             SmallVectorImpl<Value> &dx) {
  dx.push_back(zeroWhere(b, op.getLoc(), dy, op.getMask()));
  dx.push_back(nullptr);
  return success();
}

/// A float conversion converts its adjoint back. Integer values (ids,
/// masks, a float rounded to an integer) carry no gradient, as in PyTorch,
/// where an integer tensor cannot require grad: a cast from an integer
/// gives its input none, so a path through integers contributes nothing.
LogicalResult castRule(CastOp op, OpBuilder &b, Value dy,
                       SmallVectorImpl<Value> &dx) {
  Type from = getElementTypeOrSelf(op.getInput().getType());
  if (!isa<FloatType>(from))
    dx.push_back(nullptr);
  else
    dx.push_back(CastOp::create(b, op.getLoc(), dy, TypeAttr::get(from)));
  return success();
}

} // namespace

void attachElementwiseGradients(MLIRContext *context) {
  attach<AddOp, addRule>(context);
  attach<SubOp, subRule>(context);
  attach<MulOp, mulRule>(context);
  attach<DivOp, divRule>(context);
  attach<NegOp, negRule>(context);
  attach<ExpOp, expRule>(context);
  attach<LogOp, logRule>(context);
  attach<SqrtOp, sqrtRule>(context);
  attach<RsqrtOp, rsqrtRule>(context);
  attach<TanhOp, tanhRule>(context);
  attach<ErfOp, erfRule>(context);
  attach<ReluOp, reluRule>(context);
  attach<MaskedFillOp, maskedFillRule>(context);
  attach<CastOp, castRule>(context);
}

} // namespace transfuse::nn::gradients
