//===- FuseLayerNorm.cpp - mean/variance/normalise/affine to layer_norm ---===//
//
//   y = (x - μ) * rsqrt(σ² + ε) * γ + β      or      (x - μ) / sqrt(σ² + ε)
//   μ = mean(x), σ² = mean((x - μ)²) or mean(x²) - μ², over trailing axes
//
// becomes nn.layer_norm(x, γ, β); a layer norm of a + b then takes the sum
// as its residual form. Multiplications and additions are matched in
// either operand order.
//===----------------------------------------------------------------------===//
#include "MatchUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace transfuse {
#define GEN_PASS_DEF_FUSELAYERNORM
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;
using namespace transfuse::fusion;

namespace {

/// `mean(x)` over the trailing axes from `axis`, keeping dims: x and axis.
/// `value` may be null: what matchSquare returns when it does not match.
std::optional<std::pair<Value, int64_t>> matchTrailingMean(Value value) {
  if (!value)
    return std::nullopt;
  auto mean = value.getDefiningOp<nn::ReduceMeanOp>();
  if (!mean || !mean.getKeepDims())
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(mean.getInput().getType()).getRank();
  ArrayRef<int64_t> axes = mean.getAxes();
  if (axes.empty() ||
      !llvm::equal(axes, llvm::seq<int64_t>(axes.front(), rank)))
    return std::nullopt;
  return std::make_pair(mean.getInput(), axes.front());
}

/// `x - mean(x)`: x and the axis. `value` may be null, as above.
std::optional<std::pair<Value, int64_t>> matchCentred(Value value) {
  if (!value)
    return std::nullopt;
  auto sub = value.getDefiningOp<nn::SubOp>();
  if (!sub)
    return std::nullopt;
  auto mean = matchTrailingMean(sub.getRhs());
  if (!mean || mean->first != sub.getLhs())
    return std::nullopt;
  return mean;
}

/// `a * a`: a, or null.
Value matchSquare(Value value) {
  auto mul = value.getDefiningOp<nn::MulOp>();
  return mul && mul.getLhs() == mul.getRhs() ? mul.getLhs() : Value();
}

/// The biased variance of x over `axis..`: mean((x - μ)²) or mean(x²) - μ².
bool isVariance(Value value, Value x, int64_t axis) {
  if (auto mean = matchTrailingMean(value)) {
    auto centred = matchCentred(matchSquare(mean->first));
    return mean->second == axis && centred && centred->first == x &&
           centred->second == axis;
  }
  auto sub = value.getDefiningOp<nn::SubOp>();
  if (!sub)
    return false;
  auto meanOfSquares = matchTrailingMean(sub.getLhs());
  auto squaredMean = matchTrailingMean(matchSquare(sub.getRhs()));
  return meanOfSquares && squaredMean && meanOfSquares->second == axis &&
         squaredMean->second == axis && squaredMean->first == x &&
         matchSquare(meanOfSquares->first) == x;
}

/// `variance + ε`: ε.
std::optional<double> matchVariancePlusEpsilon(Value value, Value x,
                                               int64_t axis) {
  auto add = value.getDefiningOp<nn::AddOp>();
  if (!add)
    return std::nullopt;
  for (auto [variance, epsilon] : {std::pair(add.getLhs(), add.getRhs()),
                                   std::pair(add.getRhs(), add.getLhs())}) {
    std::optional<double> eps = getScalarConstant(epsilon);
    if (eps && *eps > 0.0 && variance.getType() == add.getType() &&
        isVariance(variance, x, axis))
      return eps;
  }
  return std::nullopt;
}

struct Normalized {
  Value x;
  int64_t axis;
  double epsilon;
};

/// `x - μ` and `σ² + ε` of the same x over the same axes.
std::optional<Normalized> matchParts(Value centredValue,
                                     Value variancePlusEpsilon) {
  auto centred = matchCentred(centredValue);
  if (!centred)
    return std::nullopt;
  auto eps = matchVariancePlusEpsilon(variancePlusEpsilon, centred->first,
                                      centred->second);
  if (!eps)
    return std::nullopt;
  return Normalized{centred->first, centred->second, *eps};
}

/// `(x - μ) * rsqrt(σ² + ε)` in either order, or `(x - μ) / sqrt(σ² + ε)`.
std::optional<Normalized> matchNormalized(Value value) {
  if (auto mul = value.getDefiningOp<nn::MulOp>()) {
    for (auto [centred, inverseStd] : {std::pair(mul.getLhs(), mul.getRhs()),
                                       std::pair(mul.getRhs(), mul.getLhs())})
      if (auto rsqrt = inverseStd.getDefiningOp<nn::RsqrtOp>())
        if (auto normalized = matchParts(centred, rsqrt.getInput()))
          return normalized;
    return std::nullopt;
  }
  auto div = value.getDefiningOp<nn::DivOp>();
  auto sqrt = div ? div.getRhs().getDefiningOp<nn::SqrtOp>() : nn::SqrtOp();
  if (!sqrt)
    return std::nullopt;
  return matchParts(div.getLhs(), sqrt.getInput());
}

/// normalized(x) * γ + β, anchored on the final add.
struct FuseLayerNormPattern : OpRewritePattern<nn::AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::AddOp add,
                                PatternRewriter &rewriter) const override {
    for (auto [scaledValue, beta] : {std::pair(add.getLhs(), add.getRhs()),
                                     std::pair(add.getRhs(), add.getLhs())}) {
      auto scaled = scaledValue.getDefiningOp<nn::MulOp>();
      if (!scaled)
        continue;
      for (auto [normalizedValue, gamma] :
           {std::pair(scaled.getLhs(), scaled.getRhs()),
            std::pair(scaled.getRhs(), scaled.getLhs())}) {
        std::optional<Normalized> norm = matchNormalized(normalizedValue);
        if (!norm || norm->x.getType() != add.getType())
          continue;
        auto shape = cast<RankedTensorType>(norm->x.getType()).getShape();
        ArrayRef<int64_t> normalizedShape = shape.drop_front(norm->axis);
        auto shapeOf = [](Value v) {
          return cast<RankedTensorType>(v.getType()).getShape();
        };
        if (shapeOf(gamma) != normalizedShape ||
            shapeOf(beta) != normalizedShape)
          continue;
        rewriter.replaceOpWithNewOp<nn::LayerNormOp>(
            add, norm->x, gamma, beta, /*residual=*/Value(),
            rewriter.getI64IntegerAttr(norm->axis),
            rewriter.getF64FloatAttr(norm->epsilon));
        return success();
      }
    }
    return rewriter.notifyMatchFailure(add, "not an affine layer norm");
  }
};

/// layer_norm(a + b) -> layer_norm(a + residual b), for same-shaped a, b.
struct FuseResidualPattern : OpRewritePattern<nn::LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::LayerNormOp norm,
                                PatternRewriter &rewriter) const override {
    auto add = norm.getInput().getDefiningOp<nn::AddOp>();
    if (norm.getResidual() || !add || !add->hasOneUse() ||
        add.getLhs().getType() != add.getType() ||
        add.getRhs().getType() != add.getType())
      return rewriter.notifyMatchFailure(norm, "input is not a residual sum");
    rewriter.replaceOpWithNewOp<nn::LayerNormOp>(
        norm, add.getLhs(), norm.getGamma(), norm.getBeta(), add.getRhs(),
        norm.getAxisAttr(), norm.getEpsilonAttr());
    return success();
  }
};

struct FuseLayerNormPass
    : transfuse::impl::FuseLayerNormBase<FuseLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseLayerNormPattern, FuseResidualPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
