//===- ComputePatterns.cpp - reductions, normalisations, contractions -----===//
#include "Builders.h"
#include "NormRows.h"
#include "Patterns.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/Transforms/DialectConversion.h"
#include <limits>

using namespace mlir;

namespace transfuse::lowering {
namespace {

template <typename OpTy> struct ReducePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    bool keep = op.getKeepDims();
    Value result;
    if constexpr (std::is_same_v<OpTy, nn::ReduceSumOp>)
      result = buildSum(rewriter, loc, input, op.getAxes(), keep);
    else if constexpr (std::is_same_v<OpTy, nn::ReduceMeanOp>)
      result = buildMean(rewriter, loc, input, op.getAxes(), keep);
    else
      result = buildMax(rewriter, loc, input, op.getAxes(), keep);
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy, bool Log>
struct SoftmaxPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildSoftmax(rewriter, op.getLoc(),
                                        adaptor.getInput(), op.getAxis(), Log));
    return success();
  }
};

Value binary(OpBuilder &b, Location loc, Value lhs, Value rhs,
             function_ref<Value(OpBuilder &, Location, Value, Value)> fn) {
  SmallVector<int64_t> shape;
  (void)OpTrait::util::getBroadcastedShape(tensorType(lhs).getShape(),
                                           tensorType(rhs).getShape(), shape);
  auto type = RankedTensorType::get(shape, tensorType(lhs).getElementType());
  return buildElementwise(b, loc, type, {lhs, rhs},
                          [&](OpBuilder &nb, Location l, ValueRange x) {
                            return fn(nb, l, x[0], x[1]);
                          });
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return binary(b, loc, x, y, [](OpBuilder &nb, Location l, Value p, Value q) {
    return arith::AddFOp::create(nb, l, p, q);
  });
}

/// (x - mean) · s · gamma (+ beta) over the trailing axes, in the form the
/// op names (NormRows.h).
struct LayerNormPattern : OpConversionPattern<nn::LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    if (adaptor.getResidual())
      x = add(rewriter, loc, x, adaptor.getResidual());
    RankedTensorType type = tensorType(x);
    SmallVector<int64_t> axes =
        llvm::to_vector(llvm::seq<int64_t>(op.getAxis(), type.getRank()));
    NormRows rows = buildNormRows(rewriter, loc, x, axes,
                                  NormForm::of(op, type.getShape()));
    SmallVector<Value> stats = normOperands(rows);
    SmallVector<Value> inputs = {x, adaptor.getGamma()};
    if (adaptor.getBeta())
      inputs.push_back(adaptor.getBeta());
    size_t statsBegin = inputs.size();
    inputs.append(stats);
    bool hasBeta = bool(adaptor.getBeta());
    Value normalized = buildElementwise(
        rewriter, loc, type, inputs,
        [&](OpBuilder &b, Location l, ValueRange v) -> Value {
          Value xhat = normalizeElement(b, l, v[0], v.drop_front(statsBegin));
          Value scaled = arith::MulFOp::create(b, l, xhat, v[1]);
          return hasBeta ? arith::AddFOp::create(b, l, scaled, v[2]) : scaled;
        });
    rewriter.replaceOp(op, normalized);
    return success();
  }
};

/// The input of `value` when it is a rank-2 nn.transpose.
static Value transposedMatrix(Value value) {
  auto transpose = value.getDefiningOp<nn::TransposeOp>();
  if (!transpose || transpose.getPerm().size() != 2 ||
      transpose.getPerm()[0] != 1)
    return nullptr;
  return transpose.getInput();
}

struct MatmulPattern : OpConversionPattern<nn::MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Xᵀ x dY (a weight gradient): the matmul reads X where it lies, and the
    // transpose goes away with its last use.
    Value stored = transposedMatrix(op.getLhs());
    if (stored && tensorType(adaptor.getRhs()).getRank() == 2) {
      rewriter.replaceOp(
          op, buildTransposedLhsMatmul(rewriter, op.getLoc(),
                                       rewriter.getRemappedValue(stored),
                                       adaptor.getRhs()));
      return success();
    }
    rewriter.replaceOp(op, buildMatmul(rewriter, op.getLoc(), adaptor.getLhs(),
                                       adaptor.getRhs()));
    return success();
  }
};

SmallVector<int64_t> swapLastTwo(int64_t rank) {
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return perm;
}

/// activation(lhs x rhs(ᵀ) + bias).
struct FusedMatmulPattern : OpConversionPattern<nn::FusedMatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::FusedMatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value product = buildMatmul(rewriter, loc, adaptor.getLhs(),
                                adaptor.getRhs(), op.getTransposeRhs());
    nn::Activation activation = op.getActivation();
    if (!adaptor.getBias() && activation == nn::Activation::none) {
      rewriter.replaceOp(op, product);
      return success();
    }
    SmallVector<Value> inputs = {product};
    if (adaptor.getBias())
      inputs.push_back(adaptor.getBias());
    Value result = buildElementwise(
        rewriter, loc, tensorType(product), inputs,
        [&](OpBuilder &b, Location l, ValueRange v) -> Value {
          Value x =
              v.size() > 1 ? arith::AddFOp::create(b, l, v[0], v[1]) : v[0];
          switch (activation) {
          case nn::Activation::none:
            return x;
          case nn::Activation::relu:
            return arith::MaximumFOp::create(b, l, x,
                                             scalar(b, l, x.getType(), 0.0));
          case nn::Activation::gelu:
            return buildGelu(b, l, x, /*approximateTanh=*/false);
          case nn::Activation::gelu_tanh:
            return buildGelu(b, l, x, /*approximateTanh=*/true);
          }
          llvm_unreachable("unknown activation");
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// softmax(scale q kᵀ, hidden keys at mask_fill, + float mask) v.
struct AttentionPattern : OpConversionPattern<nn::AttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value keyT =
        buildTranspose(rewriter, loc, adaptor.getKey(), swapLastTwo(4));
    Value scores = buildMatmul(rewriter, loc, adaptor.getQuery(), keyT);
    RankedTensorType scoreType = tensorType(scores);
    Type element = scoreType.getElementType();
    double scale = op.getScale().convertToDouble();
    double fill = op.getHiddenScoreFill();
    Value mask = adaptor.getMask();
    bool boolMask = mask && tensorType(mask).getElementType().isInteger(1);
    SmallVector<Value> inputs = {scores};
    if (op.getCausal()) {
      int64_t sq = scoreType.getDimSize(2), sk = scoreType.getDimSize(3);
      auto futureType = RankedTensorType::get({sq, sk}, rewriter.getI1Type());
      SmallVector<bool> future;
      for (int64_t i = 0; i < sq; ++i)
        for (int64_t j = 0; j < sk; ++j)
          future.push_back(j > i);
      inputs.push_back(arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(futureType, future)));
    }
    if (mask)
      inputs.push_back(mask);
    bool causal = op.getCausal();
    Value masked = buildElementwise(
        rewriter, loc, scoreType, inputs,
        [&](OpBuilder &b, Location l, ValueRange v) {
          Value s =
              arith::MulFOp::create(b, l, v[0], scalar(b, l, element, scale));
          Value isHidden;
          unsigned next = 1;
          if (causal)
            isHidden = v[next++];
          if (boolMask)
            isHidden =
                isHidden
                    ? arith::OrIOp::create(b, l, isHidden, v[next]).getResult()
                    : v[next];
          if (isHidden)
            s = arith::SelectOp::create(b, l, isHidden,
                                        scalar(b, l, element, fill), s);
          if (mask && !boolMask)
            s = arith::AddFOp::create(b, l, s, v[next]);
          return s;
        });
    Value probs = buildSoftmax(rewriter, loc, masked, 3, /*log=*/false);
    rewriter.replaceOp(op,
                       buildMatmul(rewriter, loc, probs, adaptor.getValue()));
    return success();
  }
};

} // namespace

void populateComputePatterns(RewritePatternSet &patterns) {
  patterns
      .add<ReducePattern<nn::ReduceSumOp>, ReducePattern<nn::ReduceMeanOp>,
           ReducePattern<nn::ReduceMaxOp>, SoftmaxPattern<nn::SoftmaxOp, false>,
           SoftmaxPattern<nn::LogSoftmaxOp, true>, LayerNormPattern,
           MatmulPattern, FusedMatmulPattern, AttentionPattern>(
          patterns.getContext());
}

} // namespace transfuse::lowering
