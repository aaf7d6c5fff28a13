//===- FuseGelu.cpp - The erf form of GELU to nn.gelu ---------------------===//
//
//   x · 0.5 · (1 + erf(x / √2))   ->   nn.gelu(x)
//
// as exporters and hand-written models spell torch.nn.GELU(): the product
// is matched as a tree of nn.mul in any order and grouping (its inner
// products used only by it), the scalar factors multiplying to 1/2, and
// the erf argument as x / √2 or x · (1/√2). The fused op computes the same
// function, and the matmul epilogue pass can then take it as an activation.
//===----------------------------------------------------------------------===//
#include "MatchUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <cmath>

namespace transfuse {
#define GEN_PASS_DEF_FUSEGELU
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;
using namespace transfuse::fusion;

namespace {

/// Whether `value` equals `expected` to the precision of an f32 constant.
bool isClose(double value, double expected) {
  return std::abs(value - expected) <= 1e-6 * std::abs(expected);
}

/// The factors of a product: the leaves of the nn.mul tree under `root`,
/// descending into operands that are products used only by their parent.
void collectFactors(nn::MulOp root, SmallVectorImpl<Value> &factors) {
  for (Value operand : {root.getLhs(), root.getRhs()}) {
    auto inner = operand.getDefiningOp<nn::MulOp>();
    if (inner && operand.hasOneUse())
      collectFactors(inner, factors);
    else
      factors.push_back(operand);
  }
}

/// If `value` is `1 + erf(x / √2)` (in either order), x.
Value matchErfTerm(Value value) {
  auto add = value.getDefiningOp<nn::AddOp>();
  if (!add || !value.hasOneUse())
    return Value();
  for (auto [one, term] : {std::pair(add.getLhs(), add.getRhs()),
                           std::pair(add.getRhs(), add.getLhs())}) {
    std::optional<double> c = getScalarConstant(one);
    auto erf = term.getDefiningOp<nn::ErfOp>();
    if (!c || *c != 1.0 || !erf || !term.hasOneUse() ||
        term.getType() != add.getType())
      continue;
    auto scale = matchScalarScale(erf.getInput().getDefiningOp());
    if (scale && isClose(scale->second, M_SQRT1_2) &&
        erf.getInput().hasOneUse())
      return scale->first;
  }
  return Value();
}

struct FuseGeluPattern : OpRewritePattern<nn::MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::MulOp root,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> factors;
    collectFactors(root, factors);
    double scale = 1.0;
    Value x, erfOf;
    for (Value factor : factors) {
      if (std::optional<double> c = getScalarConstant(factor)) {
        scale *= *c;
        continue;
      }
      if (Value argument = matchErfTerm(factor); argument && !erfOf) {
        erfOf = argument;
        continue;
      }
      if (x)
        return rewriter.notifyMatchFailure(root, "more than x and erf");
      x = factor;
    }
    if (!x || !erfOf || x != erfOf)
      return rewriter.notifyMatchFailure(root, "not x · (1 + erf(x / √2))");
    if (!isClose(scale, 0.5))
      return rewriter.notifyMatchFailure(root, "scalar factors are not 1/2");
    if (x.getType() != root.getType())
      return rewriter.notifyMatchFailure(root, "the product broadcasts x");
    rewriter.replaceOpWithNewOp<nn::GeluOp>(root, x, UnitAttr());
    return success();
  }
};

struct FuseGeluPass : transfuse::impl::FuseGeluBase<FuseGeluPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseGeluPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
