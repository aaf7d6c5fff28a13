//===- FuseLayerNorm.cpp - statistics/normalise/affine to layer_norm ------===//
//
// The three forms of nn.layer_norm, written out, over the trailing axes:
//
//   (x - μ) * rsqrt(σ² + ε) * γ     (x - μ) / sqrt(σ² + ε) * γ    torch
//   γ * (x - μ) / (sqrt(s²) + ε)                           Annotated Tr.
//   x * rsqrt(mean(x²) + ε) * γ                                RMSNorm
//
// with μ = mean(x), σ² = mean((x - μ)²) or mean(x²) - μ² (biased), s² =
// sum((x - μ)²) / (N - 1) (unbiased, torch's x.std() squared), and γ
// applied before or after the scaling, become nn.layer_norm(x, γ); an added
// β of the normalised shape then becomes the op's beta, and a layer norm of
// a + b takes the sum as its residual form. Multiplications and additions
// are matched in either operand order.
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
using nn::NormStatistic;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// The operand pairs of a commutative op, in both orders.
template <typename OpT>
std::array<std::pair<Value, Value>, 2> bothOrders(OpT op) {
  return {std::pair(op.getLhs(), op.getRhs()),
          std::pair(op.getRhs(), op.getLhs())};
}

/// `reduce(x)` over the trailing axes from `axis`, keeping dims: x and axis.
/// `value` may be null: what matchSquare returns when it does not match.
template <typename ReduceOpT>
std::optional<std::pair<Value, int64_t>> matchTrailing(Value value) {
  if (!value)
    return std::nullopt;
  auto reduce = value.getDefiningOp<ReduceOpT>();
  if (!reduce || !reduce.getKeepDims())
    return std::nullopt;
  int64_t rank = cast<RankedTensorType>(reduce.getInput().getType()).getRank();
  ArrayRef<int64_t> axes = reduce.getAxes();
  if (axes.empty() ||
      !llvm::equal(axes, llvm::seq<int64_t>(axes.front(), rank)))
    return std::nullopt;
  return std::make_pair(reduce.getInput(), axes.front());
}

/// `x - mean(x)`: x and the axis. `value` may be null, as above.
std::optional<std::pair<Value, int64_t>> matchCentred(Value value) {
  if (!value)
    return std::nullopt;
  auto sub = value.getDefiningOp<nn::SubOp>();
  if (!sub)
    return std::nullopt;
  auto mean = matchTrailing<nn::ReduceMeanOp>(sub.getRhs());
  if (!mean || mean->first != sub.getLhs())
    return std::nullopt;
  return mean;
}

/// `a * a`: a, or null.
Value matchSquare(Value value) {
  auto mul = value.getDefiningOp<nn::MulOp>();
  return mul && mul.getLhs() == mul.getRhs() ? mul.getLhs() : Value();
}

/// The number of elements of x's dimensions from `axis`.
int64_t trailingCount(Value x, int64_t axis) {
  int64_t count = 1;
  for (int64_t dim : shapeOf(x).drop_front(axis))
    count *= dim;
  return count;
}

/// A statistic of x over its dimensions from `axis`.
struct Statistic {
  Value x;
  int64_t axis;
  NormStatistic kind;
};

/// Whether a divisor read from a constant (perhaps as the inverse of a
/// float32 factor) is the count `count`.
bool isCount(double divisor, int64_t count) {
  return std::abs(divisor - double(count)) <= 1e-6 * double(count);
}

/// The statistic of a sum of squares over `axis..` of `base` divided by
/// `divisor`: centred, the biased (N) or unbiased (N - 1) variance of x;
/// uncentred, the mean square of `base` itself (N).
std::optional<Statistic> statisticOfSquares(Value base, int64_t axis,
                                            double divisor) {
  if (auto centred = matchCentred(base); centred && centred->second == axis) {
    int64_t count = trailingCount(centred->first, axis);
    if (isCount(divisor, count))
      return Statistic{centred->first, axis, NormStatistic::variance};
    if (count >= 2 && isCount(divisor, count - 1))
      return Statistic{centred->first, axis, NormStatistic::unbiased_variance};
    return std::nullopt;
  }
  if (isCount(divisor, trailingCount(base, axis)))
    return Statistic{base, axis, NormStatistic::mean_square};
  return std::nullopt;
}

/// `sum(a²) / c` or `sum(a²) * (1 / c)`, c a scalar constant: a, the axis
/// and c.
std::optional<std::tuple<Value, int64_t, double>>
matchSumOfSquaresOver(Value value) {
  Operation *op = value.getDefiningOp();
  if (!isa_and_nonnull<nn::DivOp, nn::MulOp>(op))
    return std::nullopt;
  std::optional<std::pair<Value, double>> scaled = matchScalarScale(op);
  if (!scaled)
    return std::nullopt;
  auto sum = matchTrailing<nn::ReduceSumOp>(scaled->first);
  Value base = sum ? matchSquare(sum->first) : Value();
  if (!base)
    return std::nullopt;
  return std::make_tuple(base, sum->second, 1.0 / scaled->second);
}

/// The row statistic `value` computes: mean(a²) (the biased variance of x
/// when a = x - mean(x), the mean square of a otherwise), mean(x²) -
/// mean(x)², or sum(a²) / c (as statisticOfSquares).
std::optional<Statistic> matchStatistic(Value value) {
  if (auto mean = matchTrailing<nn::ReduceMeanOp>(value)) {
    Value base = matchSquare(mean->first);
    if (!base)
      return std::nullopt;
    return statisticOfSquares(base, mean->second,
                              double(trailingCount(base, mean->second)));
  }
  if (auto sum = matchSumOfSquaresOver(value))
    return statisticOfSquares(std::get<0>(*sum), std::get<1>(*sum),
                              std::get<2>(*sum));
  auto sub = value.getDefiningOp<nn::SubOp>();
  if (!sub)
    return std::nullopt;
  auto meanOfSquares = matchTrailing<nn::ReduceMeanOp>(sub.getLhs());
  auto squaredMean = matchTrailing<nn::ReduceMeanOp>(matchSquare(sub.getRhs()));
  if (meanOfSquares && squaredMean &&
      meanOfSquares->second == squaredMean->second &&
      matchSquare(meanOfSquares->first) == squaredMean->first)
    return Statistic{squaredMean->first, squaredMean->second,
                     NormStatistic::variance};
  return std::nullopt;
}

/// How a value is divided by the row's spread: the statistic, ε and where
/// ε is added.
struct Scaling {
  Statistic statistic;
  double epsilon;
  bool epsilonOnStd;
};

/// `a + ε` (either order), ε a positive scalar constant keeping a's type:
/// a and ε.
std::optional<std::pair<Value, double>> matchPlusEpsilon(Value value) {
  auto add = value.getDefiningOp<nn::AddOp>();
  if (!add)
    return std::nullopt;
  for (auto [base, epsilon] : bothOrders(add)) {
    std::optional<double> eps = getScalarConstant(epsilon);
    if (eps && *eps > 0.0 && base.getType() == add.getType())
      return std::make_pair(base, *eps);
  }
  return std::nullopt;
}

/// `statistic + ε`: the scaling with ε under the root.
std::optional<Scaling> matchStatisticPlusEpsilon(Value value) {
  auto plus = matchPlusEpsilon(value);
  if (!plus)
    return std::nullopt;
  auto statistic = matchStatistic(plus->first);
  if (!statistic)
    return std::nullopt;
  return Scaling{*statistic, plus->second, /*epsilonOnStd=*/false};
}

/// What a numerator is divided by: `sqrt(statistic + ε)` or
/// `sqrt(statistic) + ε`.
std::optional<Scaling> matchDenominator(Value value) {
  if (auto sqrt = value.getDefiningOp<nn::SqrtOp>())
    return matchStatisticPlusEpsilon(sqrt.getInput());
  auto plus = matchPlusEpsilon(value);
  auto sqrt = plus ? plus->first.getDefiningOp<nn::SqrtOp>() : nn::SqrtOp();
  if (!sqrt)
    return std::nullopt;
  auto statistic = matchStatistic(sqrt.getInput());
  if (!statistic)
    return std::nullopt;
  return Scaling{*statistic, plus->second, /*epsilonOnStd=*/true};
}

/// `numerator * rsqrt(statistic + ε)` (either order) or `numerator /
/// denominator`: the numerator and the scaling.
std::optional<std::pair<Value, Scaling>> matchScaled(Value value) {
  if (auto mul = value.getDefiningOp<nn::MulOp>()) {
    for (auto [numerator, inverse] : bothOrders(mul))
      if (auto rsqrt = inverse.getDefiningOp<nn::RsqrtOp>())
        if (auto scaling = matchStatisticPlusEpsilon(rsqrt.getInput()))
          return std::make_pair(numerator, *scaling);
    return std::nullopt;
  }
  auto div = value.getDefiningOp<nn::DivOp>();
  if (!div)
    return std::nullopt;
  if (auto scaling = matchDenominator(div.getRhs()))
    return std::make_pair(div.getLhs(), *scaling);
  return std::nullopt;
}

/// Whether `numerator` is what the statistic normalises: x - mean(x) over
/// the same axes for a variance, x itself for a mean square.
bool isNormalizedOperand(Value numerator, const Statistic &statistic) {
  if (statistic.kind == NormStatistic::mean_square)
    return numerator == statistic.x;
  auto centred = matchCentred(numerator);
  return centred && centred->first == statistic.x &&
         centred->second == statistic.axis;
}

/// A layer norm without beta: `normalized * γ` (either order), or
/// `(γ * numerator)` scaled (either order in the product).
struct NormMatch {
  Scaling scaling;
  Value gamma;
};

std::optional<NormMatch> matchScaledNorm(Value value) {
  auto accept = [&](Value gamma,
                    const Scaling &scaling) -> std::optional<NormMatch> {
    const Statistic &s = scaling.statistic;
    if (s.x.getType() != value.getType() ||
        shapeOf(gamma) != shapeOf(s.x).drop_front(s.axis))
      return std::nullopt;
    return NormMatch{scaling, gamma};
  };
  if (auto mul = value.getDefiningOp<nn::MulOp>())
    for (auto [normalized, gamma] : bothOrders(mul))
      if (auto scaled = matchScaled(normalized))
        if (isNormalizedOperand(scaled->first, scaled->second.statistic))
          if (auto match = accept(gamma, scaled->second))
            return match;
  auto scaled = matchScaled(value);
  auto product =
      scaled ? scaled->first.getDefiningOp<nn::MulOp>() : nn::MulOp();
  if (!product)
    return std::nullopt;
  for (auto [gamma, numerator] : bothOrders(product))
    if (isNormalizedOperand(numerator, scaled->second.statistic))
      if (auto match = accept(gamma, scaled->second))
        return match;
  return std::nullopt;
}

/// A layer norm like `norm`, with other operands, in place of `anchor`.
void replaceWithNorm(PatternRewriter &rewriter, Operation *anchor,
                     nn::LayerNormOp norm, Value input, Value beta,
                     Value residual) {
  rewriter.replaceOpWithNewOp<nn::LayerNormOp>(
      anchor, input, norm.getGamma(), beta, residual, norm.getAxisAttr(),
      norm.getEpsilonAttr(), norm.getStatisticAttr(),
      norm.getEpsilonOnStdAttr());
}

/// The scaled, γ-multiplied form, anchored on its last mul or div.
template <typename OpT> struct FuseNormPattern : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    std::optional<NormMatch> match = matchScaledNorm(op.getResult());
    if (!match)
      return rewriter.notifyMatchFailure(op, "not a scaled layer norm");
    const Scaling &scaling = match->scaling;
    NormStatistic kind = scaling.statistic.kind;
    rewriter.replaceOpWithNewOp<nn::LayerNormOp>(
        op, scaling.statistic.x, match->gamma, /*beta=*/Value(),
        /*residual=*/Value(),
        rewriter.getI64IntegerAttr(scaling.statistic.axis),
        rewriter.getF64FloatAttr(scaling.epsilon),
        nn::NormStatisticAttr::get(rewriter.getContext(), kind),
        scaling.epsilonOnStd ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

/// layer_norm(x, γ) + β -> layer_norm(x, γ, β) for β of the normalised
/// shape, when nothing else reads the layer norm without β.
struct FuseBetaPattern : OpRewritePattern<nn::AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::AddOp add,
                                PatternRewriter &rewriter) const override {
    for (auto [normalized, beta] : bothOrders(add)) {
      auto norm = normalized.getDefiningOp<nn::LayerNormOp>();
      if (!norm || norm.getBeta() || !norm->hasOneUse() ||
          norm.getType() != add.getType() ||
          cast<RankedTensorType>(beta.getType()).getElementType() !=
              add.getType().getElementType() ||
          shapeOf(beta) != shapeOf(norm.getGamma()))
        continue;
      replaceWithNorm(rewriter, add, norm, norm.getInput(), beta,
                      norm.getResidual());
      return success();
    }
    return rewriter.notifyMatchFailure(add, "not a layer norm plus beta");
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
    replaceWithNorm(rewriter, norm, norm, add.getLhs(), norm.getBeta(),
                    add.getRhs());
    return success();
  }
};

struct FuseLayerNormPass
    : transfuse::impl::FuseLayerNormBase<FuseLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseNormPattern<nn::MulOp>, FuseNormPattern<nn::DivOp>,
                 FuseBetaPattern, FuseResidualPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
