//===- LossPatterns.cpp - cross entropy and NLL to linalg -----------------===//
//
// As torch.nn.functional.cross_entropy / nll_loss with reduction="mean":
//   nll  = -Σ_valid logp[i, y_i] / n_valid
//   ce   = (1 - ε) · nll + ε · Σ_valid (-Σ_c logp[i, c] / C) / n_valid
// where valid means y_i != ignore_index.
//===----------------------------------------------------------------------===//
#include "Builders.h"
#include "Patterns.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace transfuse::lowering {
namespace {

/// Per label: -logp[i..., label] and 1 where the label counts, else 0s.
std::pair<Value, Value> pickNegLogProbs(OpBuilder &b, Location loc,
                                        Value logProbs, Value labels,
                                        int64_t ignoreIndex) {
  RankedTensorType labelType = tensorType(labels);
  Type element = tensorType(logProbs).getElementType();
  auto resultType = RankedTensorType::get(labelType.getShape(), element);
  int64_t rank = labelType.getRank();
  MLIRContext *context = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  SmallVector<Value> inits = {
      tensor::EmptyOp::create(b, loc, resultType.getShape(), element),
      tensor::EmptyOp::create(b, loc, resultType.getShape(), element)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType, resultType}, labels, inits,
      SmallVector<AffineMap>(3, identity),
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value label = args[0];
        Value valid = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::ne, label,
            scalar(nb, l, label.getType(), double(ignoreIndex)));
        Value safe = arith::SelectOp::create(
            nb, l, valid, label, scalar(nb, l, label.getType(), 0.0));
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d)
          indices.push_back(linalg::IndexOp::create(nb, l, d));
        indices.push_back(
            arith::IndexCastOp::create(nb, l, nb.getIndexType(), safe));
        Value logProb = tensor::ExtractOp::create(nb, l, logProbs, indices);
        Value zero = scalar(nb, l, element, 0.0);
        Value picked = arith::SelectOp::create(
            nb, l, valid, arith::NegFOp::create(nb, l, logProb), zero);
        Value weight = arith::SelectOp::create(
            nb, l, valid, scalar(nb, l, element, 1.0), zero);
        linalg::YieldOp::create(nb, l, ValueRange{picked, weight});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

SmallVector<int64_t> allAxes(Value value) {
  return llvm::to_vector(llvm::seq<int64_t>(0, tensorType(value).getRank()));
}

/// Σ over everything, as a rank-0 tensor.
Value total(OpBuilder &b, Location loc, Value value) {
  return buildSum(b, loc, value, allAxes(value), /*keepDims=*/false);
}

Value divide(OpBuilder &b, Location loc, Value numerator, Value denominator) {
  return buildElementwise(b, loc, tensorType(numerator),
                          {numerator, denominator},
                          [](OpBuilder &nb, Location l, ValueRange x) {
                            return arith::DivFOp::create(nb, l, x[0], x[1]);
                          });
}

struct NllLossPattern : OpConversionPattern<nn::NllLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::NllLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [picked, weights] =
        pickNegLogProbs(rewriter, loc, adaptor.getLogProbs(),
                        adaptor.getLabels(), op.getIgnoreIndex());
    rewriter.replaceOp(op, divide(rewriter, loc, total(rewriter, loc, picked),
                                  total(rewriter, loc, weights)));
    return success();
  }
};

struct CrossEntropyPattern : OpConversionPattern<nn::CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType logitsType = tensorType(adaptor.getLogits());
    int64_t classAxis = logitsType.getRank() - 1;
    Value logProbs =
        buildSoftmax(rewriter, loc, adaptor.getLogits(), classAxis, true);
    auto [picked, weights] = pickNegLogProbs(
        rewriter, loc, logProbs, adaptor.getLabels(), op.getIgnoreIndex());
    Value count = total(rewriter, loc, weights);
    Value nll = total(rewriter, loc, picked);
    double smoothing = op.getLabelSmoothing().convertToDouble();
    if (smoothing == 0.0) {
      rewriter.replaceOp(op, divide(rewriter, loc, nll, count));
      return success();
    }
    // -Σ_c logp / C for each counted label.
    Value rowSums = buildSum(rewriter, loc, logProbs, {classAxis}, false);
    Type element = logitsType.getElementType();
    double classes = double(logitsType.getShape().back());
    Value smooth = buildElementwise(
        rewriter, loc, tensorType(rowSums), {rowSums, weights},
        [&](OpBuilder &b, Location l, ValueRange x) {
          Value mean =
              arith::DivFOp::create(b, l, x[0], scalar(b, l, element, classes));
          return arith::MulFOp::create(b, l, arith::NegFOp::create(b, l, mean),
                                       x[1]);
        });
    Value mixed = buildElementwise(
        rewriter, loc, tensorType(nll), {nll, total(rewriter, loc, smooth)},
        [&](OpBuilder &b, Location l, ValueRange x) {
          Value hard = arith::MulFOp::create(
              b, l, x[0], scalar(b, l, element, 1.0 - smoothing));
          Value soft = arith::MulFOp::create(b, l, x[1],
                                             scalar(b, l, element, smoothing));
          return arith::AddFOp::create(b, l, hard, soft);
        });
    rewriter.replaceOp(op, divide(rewriter, loc, mixed, count));
    return success();
  }
};

} // namespace

void populateLossPatterns(RewritePatternSet &patterns) {
  patterns.add<NllLossPattern, CrossEntropyPattern>(patterns.getContext());
}

} // namespace transfuse::lowering
