//===- FuseQKVProjections.cpp - One matmul for q, k and v -----------------===//
//
// For each nn.attention, traces q, k and v back through the head split
// (reshape / transpose) to the Linear projections `x Wᵀ (+ b)` of
// parameters that produce them. Projections that read the same x become
//
//   y = x concat(W...)ᵀ (+ concat(b...)),   q = y[..., 0:n_q], k = ...
//
// The parameters keep their names: the concatenation is a view of them.
//===----------------------------------------------------------------------===//
#include "MatchUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"

namespace transfuse {
#define GEN_PASS_DEF_FUSEQKVPROJECTIONS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;
using namespace transfuse::fusion;

namespace {

/// `x Wᵀ (+ b)` with W [out, in] and b [out] parameters.
struct Projection {
  /// The projection's value, replaced by a slice of the fused product.
  Value result;
  Value input;
  nn::ParamLoadOp weight;
  nn::ParamLoadOp bias;
};

int64_t outFeatures(Projection projection) {
  return cast<RankedTensorType>(projection.weight.getType()).getDimSize(0);
}

std::optional<Projection> matchProjection(Value value) {
  Projection projection{value};
  Value product = value;
  if (auto add = value.getDefiningOp<nn::AddOp>()) {
    product = add.getLhs();
    projection.bias = add.getRhs().getDefiningOp<nn::ParamLoadOp>();
    if (!projection.bias || product.getType() != add.getType())
      return std::nullopt;
  }
  auto matmul = product.getDefiningOp<nn::MatmulOp>();
  if (!matmul)
    return std::nullopt;
  auto transpose = matmul.getRhs().getDefiningOp<nn::TransposeOp>();
  if (!transpose || !swapsLastTwo(transpose.getPerm()))
    return std::nullopt;
  projection.weight = transpose.getInput().getDefiningOp<nn::ParamLoadOp>();
  if (!projection.weight ||
      cast<RankedTensorType>(projection.weight.getType()).getRank() != 2)
    return std::nullopt;
  // One bias per output feature: a bias that broadcasts ([1]) would not line
  // up with the others in the concatenation.
  if (projection.bias) {
    ArrayRef<int64_t> biasShape =
        cast<RankedTensorType>(projection.bias.getType()).getShape();
    if (biasShape.size() != 1 || biasShape[0] != outFeatures(projection))
      return std::nullopt;
  }
  projection.input = matmul.getLhs();
  return projection;
}

/// The projection an attention operand comes from, through its head split.
std::optional<Projection> traceProjection(Value operand) {
  while (Operation *op = operand.getDefiningOp()) {
    if (!isa<nn::ReshapeOp, nn::TransposeOp>(op))
      break;
    operand = op->getOperand(0);
  }
  return matchProjection(operand);
}

struct FuseProjectionsPattern : OpRewritePattern<nn::AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::AttentionOp attention,
                                PatternRewriter &rewriter) const override {
    // Distinct projections, grouped by the input they read.
    llvm::MapVector<Value, SmallVector<Projection>> groups;
    for (Value operand :
         {attention.getQuery(), attention.getKey(), attention.getValue()}) {
      std::optional<Projection> projection = traceProjection(operand);
      if (!projection)
        continue;
      SmallVector<Projection> &group = groups[projection->input];
      if (llvm::none_of(group, [&](Projection p) {
            return p.result == projection->result;
          }))
        group.push_back(*projection);
    }
    for (auto &entry : groups) {
      Value input = entry.first;
      SmallVector<Projection> &group = entry.second;
      if (group.size() < 2)
        continue;
      bool biased = static_cast<bool>(group.front().bias);
      Block *block = group.front().result.getParentBlock();
      if (llvm::any_of(group, [&](Projection p) {
            return static_cast<bool>(p.bias) != biased ||
                   p.result.getParentBlock() != block;
          }))
        continue;
      fuse(rewriter, input, group);
      return success();
    }
    return rewriter.notifyMatchFailure(attention, "no shared projections");
  }

  /// Builds the fused product before the first projection and replaces each
  /// projection by its slice.
  static void fuse(PatternRewriter &rewriter, Value input,
                   ArrayRef<Projection> group) {
    Operation *first = group.front().result.getDefiningOp();
    for (Projection p : group)
      if (p.result.getDefiningOp()->isBeforeInBlock(first))
        first = p.result.getDefiningOp();
    rewriter.setInsertionPoint(first);
    Location loc = first->getLoc();
    // Fresh loads here: the group's own loads may come after `first`.
    auto load = [&](nn::ParamLoadOp original) -> Value {
      return nn::ParamLoadOp::create(rewriter, original.getLoc(),
                                     original.getType(),
                                     original.getNameAttr());
    };
    SmallVector<Value> weights, biases;
    for (Projection p : group) {
      weights.push_back(load(p.weight));
      if (p.bias)
        biases.push_back(load(p.bias));
    }
    Value weight = nn::ConcatOp::create(rewriter, loc, weights, 0);
    Value product =
        nn::MatmulOp::create(rewriter, loc, input,
                             nn::TransposeOp::create(rewriter, loc, weight,
                                                     ArrayRef<int64_t>{1, 0}));
    if (!biases.empty())
      product =
          nn::AddOp::create(rewriter, loc, product,
                            nn::ConcatOp::create(rewriter, loc, biases, 0));
    auto shape = cast<RankedTensorType>(product.getType()).getShape();
    SmallVector<int64_t> offsets(shape.size(), 0), sizes(shape);
    for (Projection p : group) {
      sizes.back() = outFeatures(p);
      Value slice = nn::SliceOp::create(rewriter, loc, product, offsets, sizes);
      rewriter.replaceAllUsesWith(p.result, slice);
      offsets.back() += sizes.back();
    }
  }
};

struct FuseQKVProjectionsPass
    : transfuse::impl::FuseQKVProjectionsBase<FuseQKVProjectionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseProjectionsPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
