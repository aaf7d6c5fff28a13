//===- FuseMatmulEpilogue.cpp - matmul + bias + activation ----------------===//
//
// Three patterns that compose under the greedy driver:
//   matmul(x, transpose(W))        -> fused_matmul(x, W) {transpose_rhs}
//                                     (also on a fused_matmul)
//   matmul(..) + b  (b along N)    -> fused_matmul(.., bias b)
//   relu / gelu(matmul(..))        -> fused_matmul(..) {activation}
// Each absorbs an op only when it is the matmul's one user.
//===----------------------------------------------------------------------===//
#include "MatchUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace transfuse {
#define GEN_PASS_DEF_FUSEMATMULEPILOGUE
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;
using namespace transfuse::fusion;

namespace {

/// A matmul, plain or fused, seen as the parts of a fused_matmul.
struct Product {
  Value lhs, rhs, bias;
  bool transposeRhs = false;
  nn::Activation activation = nn::Activation::none;
};

/// The parts of a matmul or fused_matmul.
std::optional<Product> productOf(Operation *op) {
  if (auto matmul = dyn_cast_if_present<nn::MatmulOp>(op))
    return Product{matmul.getLhs(), matmul.getRhs()};
  if (auto fused = dyn_cast_if_present<nn::FusedMatmulOp>(op))
    return Product{fused.getLhs(), fused.getRhs(), fused.getBias(),
                   fused.getTransposeRhs(), fused.getActivation()};
  return std::nullopt;
}

/// A product whose one user may absorb it.
std::optional<Product> matchProduct(Value value) {
  if (!value.hasOneUse())
    return std::nullopt;
  return productOf(value.getDefiningOp());
}

void replaceWithFused(PatternRewriter &rewriter, Operation *op,
                      const Product &product) {
  rewriter.replaceOpWithNewOp<nn::FusedMatmulOp>(
      op, product.lhs, product.rhs, product.bias,
      product.transposeRhs ? rewriter.getUnitAttr() : UnitAttr(),
      nn::ActivationAttr::get(rewriter.getContext(), product.activation));
}

/// A product of x and transpose(W) with a 2-D W (a Linear weight [out, in]).
template <typename OpTy>
struct AbsorbTransposedWeight : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<Product> product = productOf(op);
    auto transpose = product->rhs.template getDefiningOp<nn::TransposeOp>();
    if (product->transposeRhs || !transpose ||
        cast<RankedTensorType>(transpose.getType()).getRank() != 2 ||
        !swapsLastTwo(transpose.getPerm()))
      return rewriter.notifyMatchFailure(op, "rhs is not a weight transposed");
    product->rhs = transpose.getInput();
    product->transposeRhs = true;
    replaceWithFused(rewriter, op, *product);
    return success();
  }
};

/// product + bias, where the bias runs along the product's last axis.
struct AbsorbBias : OpRewritePattern<nn::AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::AddOp add,
                                PatternRewriter &rewriter) const override {
    for (auto [productValue, bias] : {std::pair(add.getLhs(), add.getRhs()),
                                      std::pair(add.getRhs(), add.getLhs())}) {
      std::optional<Product> product = matchProduct(productValue);
      if (!product || product->bias ||
          product->activation != nn::Activation::none ||
          productValue.getType() != add.getType())
        continue;
      auto shape = cast<RankedTensorType>(add.getType()).getShape();
      auto biasShape = cast<RankedTensorType>(bias.getType()).getShape();
      bool alongLastAxis =
          !biasShape.empty() && biasShape.size() <= shape.size() &&
          biasShape.back() == shape.back() &&
          llvm::all_of(biasShape.drop_back(), [](int64_t d) { return d == 1; });
      if (!alongLastAxis)
        continue;
      product->bias = bias;
      if (biasShape.size() > 1)
        product->bias = nn::ReshapeOp::create(rewriter, add.getLoc(), bias,
                                              ArrayRef<int64_t>{shape.back()});
      replaceWithFused(rewriter, add, *product);
      return success();
    }
    return rewriter.notifyMatchFailure(add, "not a bias on a product");
  }
};

/// relu / gelu of a product without an activation.
template <typename OpTy> struct AbsorbActivation : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<Product> product = matchProduct(op.getInput());
    if (!product || product->activation != nn::Activation::none)
      return rewriter.notifyMatchFailure(op, "not an activated product");
    product->activation = activationOf(op);
    replaceWithFused(rewriter, op, *product);
    return success();
  }

  static nn::Activation activationOf(nn::ReluOp) {
    return nn::Activation::relu;
  }
  static nn::Activation activationOf(nn::GeluOp gelu) {
    return gelu.getApproximateTanh() ? nn::Activation::gelu_tanh
                                     : nn::Activation::gelu;
  }
};

struct FuseMatmulEpiloguePass
    : transfuse::impl::FuseMatmulEpilogueBase<FuseMatmulEpiloguePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<AbsorbTransposedWeight<nn::MatmulOp>,
                 AbsorbTransposedWeight<nn::FusedMatmulOp>, AbsorbBias,
                 AbsorbActivation<nn::ReluOp>, AbsorbActivation<nn::GeluOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
