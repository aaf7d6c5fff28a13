//===- FuseAttention.cpp - Scaled dot-product attention to nn.attention ---===//
//
// Anchors on `matmul(p, v)` with `p = [dropout](softmax(scores, last axis))`
// and walks the scores back to `matmul(q, kᵀ)`, collecting constant scales
// and masks. Scales on q and k (`q / d^¼`), also before the head split, are
// peeled off and multiplied into `scale`. A mask that hides exactly the
// future keys becomes the `causal` flag; one other mask is kept as the
// `mask` operand.
//===----------------------------------------------------------------------===//
#include "MatchUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <cmath>

namespace transfuse {
#define GEN_PASS_DEF_FUSEATTENTION
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;
using namespace transfuse::fusion;

namespace {

/// A fill or additive value at most this hides a key: exp underflows to 0.
constexpr double kHidingValue = -1e4;

/// What the walk from the softmax back to `q kᵀ` found.
struct Scores {
  nn::MatmulOp qk;
  /// The product of the scales on the scores.
  double scale = 1.0;
  bool causal = false;
  /// The value the causal mask gives the future keys, as the softmax sees it.
  double causalFill = 0.0;
  /// The one mask that is not causal: i1 (with `fill`) or additive.
  Value mask;
  /// The value an i1 mask writes, as seen by the softmax.
  double fill = 0.0;
  /// The scale applied after an additive mask, which the mask must take.
  double maskScale = 1.0;
};

/// The trailing two dimensions of a mask with only unit dimensions before
/// them (looking through reshapes), or failure.
FailureOr<Value> stripUnitDims(Value mask) {
  while (auto reshape = mask.getDefiningOp<nn::ReshapeOp>())
    mask = reshape.getInput();
  auto shape = cast<RankedTensorType>(mask.getType()).getShape();
  if (shape.size() < 2 ||
      !llvm::all_of(shape.drop_back(2), [](int64_t d) { return d == 1; }))
    return failure();
  return mask;
}

/// Whether `hidden(i, j)` holds exactly for the future keys j > i of every
/// element of a [.., sq, sk] constant.
template <typename T>
bool isCausalConstant(DenseElementsAttr attr, int64_t sq, int64_t sk,
                      function_ref<std::optional<bool>(T)> hidden) {
  auto shape = attr.getType().getShape();
  if (shape.take_back(2) != ArrayRef<int64_t>{sq, sk})
    return false;
  auto values = attr.getValues<T>();
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = 0; j < sk; ++j) {
      std::optional<bool> isHidden =
          hidden(attr.isSplat() ? values[0] : values[i * sk + j]);
      if (!isHidden || *isHidden != (j > i))
        return false;
    }
  return true;
}

/// An i1 mask true exactly on the future keys of [.., sq, sk] scores.
bool isCausalBoolMask(Value mask, int64_t sq, int64_t sk) {
  FailureOr<Value> base = stripUnitDims(mask);
  if (failed(base))
    return false;
  if (auto tri = base->getDefiningOp<nn::TriangularMaskOp>())
    return tri.getDiagonal() == 1 &&
           cast<RankedTensorType>(tri.getType()).getShape() ==
               ArrayRef<int64_t>{sq, sk};
  DenseIntElementsAttr attr;
  if (!matchPattern(*base, m_Constant(&attr)))
    return false;
  return isCausalConstant<bool>(
      attr, sq, sk, [](bool v) -> std::optional<bool> { return v; });
}

/// For a float mask 0 on the visible keys and one hiding value (-inf,
/// -1e9) on the future ones, that value.
std::optional<double> causalAdditiveFill(Value mask, int64_t sq, int64_t sk) {
  FailureOr<Value> base = stripUnitDims(mask);
  DenseFPElementsAttr attr;
  if (failed(base) || !matchPattern(*base, m_Constant(&attr)))
    return std::nullopt;
  std::optional<double> fill;
  bool causal = isCausalConstant<APFloat>(
      attr, sq, sk, [&](APFloat v) -> std::optional<bool> {
        double x = v.convertToDouble();
        if (x == 0.0)
          return false;
        if (x > kHidingValue || (fill && *fill != x))
          return std::nullopt;
        fill = x;
        return true;
      });
  return causal ? fill : std::nullopt;
}

/// Ops through which the scores flow on their way to the softmax.
bool isScoreOp(Operation *op) {
  return isa_and_present<nn::MatmulOp, nn::DivOp, nn::MulOp, nn::MaskedFillOp,
                         nn::AddOp>(op);
}

/// nn.attention gives every hidden key one value: the future keys and those
/// of an i1 mask take `mask_fill`, a float mask is added after. Alone, the
/// causal mask's fill does not matter (every query sees its own key), but
/// next to another mask a query may see no key at all, and then the fills
/// decide the result: they must be the same, or -inf under an additive mask.
LogicalResult checkHiddenKeys(const Scores &scores) {
  if (!scores.causal || !scores.mask)
    return success();
  bool boolMask = cast<RankedTensorType>(scores.mask.getType())
                      .getElementType()
                      .isInteger(1);
  if (boolMask)
    return success(scores.causalFill == scores.fill);
  return success(std::isinf(scores.causalFill) && scores.causalFill < 0);
}

/// Walks from the softmax input back to `q kᵀ`. Every op on the way must
/// have no other user.
FailureOr<Scores> matchScores(Value softmaxInput) {
  auto shape = cast<RankedTensorType>(softmaxInput.getType()).getShape();
  int64_t sq = shape[shape.size() - 2], sk = shape.back();
  Scores scores;
  Value current = softmaxInput;
  while (true) {
    Operation *op = current.getDefiningOp();
    if (!op || !op->hasOneUse() || current.getType() != softmaxInput.getType())
      return failure();
    if (auto qk = dyn_cast<nn::MatmulOp>(op)) {
      scores.qk = qk;
      if (failed(checkHiddenKeys(scores)))
        return failure();
      return scores;
    }
    if (auto scale = matchScalarScale(op)) {
      scores.scale *= scale->second;
      current = scale->first;
      continue;
    }
    if (auto fill = dyn_cast<nn::MaskedFillOp>(op)) {
      double value = fill.getValue().convertToDouble() * scores.scale;
      if (!scores.causal && value <= kHidingValue &&
          isCausalBoolMask(fill.getMask(), sq, sk)) {
        scores.causal = true;
        scores.causalFill = value;
      } else {
        if (scores.mask)
          return failure();
        scores.mask = fill.getMask();
        scores.fill = value;
      }
      current = fill.getInput();
      continue;
    }
    if (auto add = dyn_cast<nn::AddOp>(op)) {
      // The scores are the operand with the sum's type that comes from the
      // score computation; the other operand is an additive mask.
      bool lhsIsScores = add.getLhs().getType() == add.getType() &&
                         isScoreOp(add.getLhs().getDefiningOp());
      Value chain = lhsIsScores ? add.getLhs() : add.getRhs();
      Value mask = lhsIsScores ? add.getRhs() : add.getLhs();
      if (chain.getType() != add.getType())
        return failure();
      std::optional<double> causalFill = causalAdditiveFill(mask, sq, sk);
      if (!scores.causal && causalFill) {
        scores.causal = true;
        scores.causalFill = *causalFill * scores.scale;
      } else {
        if (scores.mask)
          return failure();
        scores.mask = mask;
        scores.maskScale = scores.scale;
      }
      current = chain;
      continue;
    }
    return failure();
  }
}

/// [n, s, d] -> [n, 1, s, d], and masks of rank <= 3 likewise.
Value toRank4(PatternRewriter &rewriter, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(3 - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  shape.insert(shape.begin() + 1, 1);
  return nn::ReshapeOp::create(rewriter, loc, value, shape);
}

struct FuseAttentionPattern : OpRewritePattern<nn::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nn::MatmulOp pv,
                                PatternRewriter &rewriter) const override {
    Value probs = pv.getLhs();
    double dropout = 0.0;
    if (auto drop = probs.getDefiningOp<nn::DropoutOp>()) {
      if (!drop->hasOneUse())
        return rewriter.notifyMatchFailure(pv, "dropped probabilities reused");
      // nn.attention draws no mask: a seeded (training) dropout stays.
      if (drop.getSeed())
        return rewriter.notifyMatchFailure(pv, "training-mode dropout");
      dropout = drop.getRate().convertToDouble();
      probs = drop.getInput();
    }
    auto softmax = probs.getDefiningOp<nn::SoftmaxOp>();
    if (!softmax)
      return rewriter.notifyMatchFailure(pv, "not a product of probabilities");
    if (!softmax->hasOneUse())
      return rewriter.notifyMatchFailure(pv, "probabilities have another user");
    auto scoreType = cast<RankedTensorType>(softmax.getType());
    int64_t rank = scoreType.getRank();
    if ((rank != 3 && rank != 4) || softmax.getAxis() != rank - 1)
      return rewriter.notifyMatchFailure(pv, "softmax is not over the keys");

    FailureOr<Scores> scores = matchScores(softmax.getInput());
    if (failed(scores))
      return rewriter.notifyMatchFailure(pv, "scores are not q kᵀ");
    Value query = scores->qk.getLhs(), keyT = scores->qk.getRhs();
    Value value = pv.getRhs();
    auto batchOf = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape().drop_back(2);
    };
    if (cast<RankedTensorType>(query.getType()).getRank() != rank ||
        batchOf(query) != scoreType.getShape().drop_back(2) ||
        batchOf(keyT) != batchOf(query) || batchOf(value) != batchOf(query))
      return rewriter.notifyMatchFailure(pv, "q, k and v batches differ");
    if (scores->mask) {
      auto maskType = cast<RankedTensorType>(scores->mask.getType());
      Type element = maskType.getElementType();
      if (!element.isInteger(1) && element != scoreType.getElementType())
        return rewriter.notifyMatchFailure(pv, "mask of another type");
      if (!nn::broadcastsTo(maskType.getShape(), scoreType.getShape()))
        return rewriter.notifyMatchFailure(pv, "mask does not broadcast");
    }

    // The match holds; from here on the rewrite only builds.
    Location loc = pv.getLoc();
    PeeledScale q = peelScalarScales(rewriter, query);
    PeeledScale kT = peelScalarScales(rewriter, keyT);
    double scale = scores->scale * q.factor * kT.factor;
    SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(swap[rank - 1], swap[rank - 2]);
    Value key = nn::TransposeOp::create(rewriter, loc, kT.base, swap);

    Value mask = scores->mask;
    FloatAttr fill;
    if (mask &&
        cast<RankedTensorType>(mask.getType()).getElementType().isInteger(1)) {
      if (!std::isinf(scores->fill))
        fill = rewriter.getF64FloatAttr(scores->fill);
    } else if (mask && scores->maskScale != 1.0) {
      Value factor = nn::MulOp::create(
          rewriter, loc, mask,
          arith::ConstantOp::create(
              rewriter, loc,
              DenseElementsAttr::get(
                  RankedTensorType::get({}, scoreType.getElementType()),
                  FloatAttr::get(scoreType.getElementType(),
                                 scores->maskScale))));
      mask = factor;
    }
    Value queryValue = q.base, valueValue = value;
    if (rank == 3) {
      queryValue = toRank4(rewriter, loc, queryValue);
      key = toRank4(rewriter, loc, key);
      valueValue = toRank4(rewriter, loc, valueValue);
      if (mask)
        mask = toRank4(rewriter, loc, mask);
    }
    Value attention = nn::AttentionOp::create(
        rewriter, loc, queryValue, key, valueValue, mask,
        rewriter.getF64FloatAttr(scale),
        scores->causal ? rewriter.getUnitAttr() : UnitAttr(), fill,
        rewriter.getF64FloatAttr(dropout));
    if (rank == 3)
      attention = nn::ReshapeOp::create(
          rewriter, loc, attention,
          cast<RankedTensorType>(pv.getType()).getShape());
    rewriter.replaceOp(pv, attention);
    return success();
  }
};

struct FuseAttentionPass
    : transfuse::impl::FuseAttentionBase<FuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttentionPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
