//===- ElementwisePatterns.cpp - nn elementwise ops to linalg.generic -----===//
#include "Builders.h"
#include "Patterns.h"

#include "mlir/Transforms/DialectConversion.h"
#include <cmath>

using namespace mlir;

namespace transfuse::lowering {
namespace {

/// Any op whose result is one elementwise function of its broadcast
/// operands.
template <typename OpTy> struct ElementwisePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange x) {
          return element(b, loc, op, x);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value element(OpBuilder &b, Location loc, OpTy op, ValueRange x);
};

#define NN_ELEMENT(OP, EXPR)                                                   \
  template <>                                                                  \
  Value ElementwisePattern<nn::OP>::element(OpBuilder &b, Location loc,        \
                                            nn::OP op, ValueRange x) {         \
    return EXPR;                                                               \
  }
NN_ELEMENT(AddOp, arith::AddFOp::create(b, loc, x[0], x[1]))
NN_ELEMENT(SubOp, arith::SubFOp::create(b, loc, x[0], x[1]))
NN_ELEMENT(MulOp, arith::MulFOp::create(b, loc, x[0], x[1]))
NN_ELEMENT(DivOp, arith::DivFOp::create(b, loc, x[0], x[1]))
NN_ELEMENT(NegOp, arith::NegFOp::create(b, loc, x[0]))
NN_ELEMENT(ExpOp, math::ExpOp::create(b, loc, x[0]))
NN_ELEMENT(LogOp, math::LogOp::create(b, loc, x[0]))
NN_ELEMENT(SqrtOp, math::SqrtOp::create(b, loc, x[0]))
NN_ELEMENT(RsqrtOp, math::RsqrtOp::create(b, loc, x[0]))
NN_ELEMENT(TanhOp, math::TanhOp::create(b, loc, x[0]))
NN_ELEMENT(ErfOp, math::ErfOp::create(b, loc, x[0]))
NN_ELEMENT(ReluOp,
           arith::MaximumFOp::create(b, loc, x[0],
                                     scalar(b, loc, x[0].getType(), 0.0)))
NN_ELEMENT(GeluOp, buildGelu(b, loc, x[0], op.getApproximateTanh()))
NN_ELEMENT(MaskedFillOp,
           arith::SelectOp::create(b, loc, x[1],
                                   scalar(b, loc, x[0].getType(),
                                          op.getValue().convertToDouble()),
                                   x[0]))
NN_ELEMENT(CastOp, buildCast(b, loc, x[0], op.getTo()))
NN_ELEMENT(GeluGradOp,
           arith::MulFOp::create(b, loc, x[0],
                                 buildGeluDerivative(b, loc, x[1],
                                                     op.getApproximateTanh())))
#undef NN_ELEMENT

template <>
Value ElementwisePattern<nn::CompareOp>::element(OpBuilder &b, Location loc,
                                                 nn::CompareOp op,
                                                 ValueRange x) {
  using P = nn::ComparePredicate;
  if (isa<FloatType>(x[0].getType())) {
    static const arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    return arith::CmpFOp::create(
        b, loc, preds[static_cast<int>(op.getPredicate())], x[0], x[1]);
  }
  static const arith::CmpIPredicate preds[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
  static_assert(static_cast<int>(P::ge) == 5, "predicate order");
  return arith::CmpIOp::create(
      b, loc, preds[static_cast<int>(op.getPredicate())], x[0], x[1]);
}

} // namespace

namespace {
constexpr double kTanhCubic = 0.044715;
const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);

/// tanh(sqrt(2/pi) * (x + 0.044715 x^3)), as torch's approximate="tanh".
Value geluTanh(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  Value cube =
      arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
  Value poly = arith::AddFOp::create(
      b, loc, x,
      arith::MulFOp::create(b, loc, scalar(b, loc, type, kTanhCubic), cube));
  return math::TanhOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, scalar(b, loc, type, kSqrt2OverPi), poly));
}

/// erf(x / sqrt(2)).
Value geluErf(OpBuilder &b, Location loc, Value x) {
  return math::ErfOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, x, scalar(b, loc, x.getType(), M_SQRT1_2)));
}
} // namespace

Value buildGelu(OpBuilder &b, Location loc, Value x, bool approximateTanh) {
  Type type = x.getType();
  Value half = scalar(b, loc, type, 0.5), one = scalar(b, loc, type, 1.0);
  Value inner = approximateTanh ? geluTanh(b, loc, x) : geluErf(b, loc, x);
  Value gate = arith::MulFOp::create(b, loc, half,
                                     arith::AddFOp::create(b, loc, one, inner));
  return arith::MulFOp::create(b, loc, x, gate);
}

Value buildGeluDerivative(OpBuilder &b, Location loc, Value x,
                          bool approximateTanh) {
  Type type = x.getType();
  auto mul = [&](Value l, Value r) -> Value {
    return arith::MulFOp::create(b, loc, l, r);
  };
  auto add = [&](Value l, Value r) -> Value {
    return arith::AddFOp::create(b, loc, l, r);
  };
  auto c = [&](double v) { return scalar(b, loc, type, v); };
  if (approximateTanh) {
    // (1 + t) / 2 + x (1 - t²) √(2/π) (1 + 3 · 0.044715 x²) / 2
    Value t = geluTanh(b, loc, x);
    Value sech2 = arith::SubFOp::create(b, loc, c(1.0), mul(t, t));
    Value slope = mul(c(0.5 * kSqrt2OverPi),
                      add(c(1.0), mul(c(3.0 * kTanhCubic), mul(x, x))));
    return add(mul(c(0.5), add(c(1.0), t)), mul(mul(x, sech2), slope));
  }
  // Φ(x) + x φ(x) = (1 + erf(x/√2)) / 2 + x exp(-x²/2) / √(2π)
  Value cdf = mul(c(0.5), add(c(1.0), geluErf(b, loc, x)));
  Value pdf = mul(c(0.5 * M_2_SQRTPI * M_SQRT1_2),
                  math::ExpOp::create(b, loc, mul(c(-0.5), mul(x, x))));
  return add(cdf, mul(x, pdf));
}

Value buildCast(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (to.isInteger(1)) {
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   scalar(b, loc, from, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 scalar(b, loc, from, 0.0));
  }
  if (isa<FloatType>(to)) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, to, x);
    if (isa<IntegerType>(from))
      return arith::SIToFPOp::create(b, loc, to, x);
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    return arith::TruncFOp::create(b, loc, to, x);
  }
  if (isa<FloatType>(from))
    return arith::FPToSIOp::create(b, loc, to, x);
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, x);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, to, x);
  return arith::TruncIOp::create(b, loc, to, x);
}

void populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns
      .add<ElementwisePattern<nn::AddOp>, ElementwisePattern<nn::SubOp>,
           ElementwisePattern<nn::MulOp>, ElementwisePattern<nn::DivOp>,
           ElementwisePattern<nn::NegOp>, ElementwisePattern<nn::ExpOp>,
           ElementwisePattern<nn::LogOp>, ElementwisePattern<nn::SqrtOp>,
           ElementwisePattern<nn::RsqrtOp>, ElementwisePattern<nn::TanhOp>,
           ElementwisePattern<nn::ErfOp>, ElementwisePattern<nn::ReluOp>,
           ElementwisePattern<nn::GeluOp>, ElementwisePattern<nn::GeluGradOp>,
           ElementwisePattern<nn::MaskedFillOp>, ElementwisePattern<nn::CastOp>,
           ElementwisePattern<nn::CompareOp>>(patterns.getContext());
}

} // namespace transfuse::lowering
