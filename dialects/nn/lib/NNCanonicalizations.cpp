//===- NNCanonicalizations.cpp - Rewrites of nn ops by the canonicalizer --===//
//
// Rewrites that need new ops (folds in NNFolds.cpp only replace an op by a
// value it already has).
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"

#include "Gradients/Gradients.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace transfuse::nn;

namespace {

/// One input of a concat: the rows [begin, end) of the result along the
/// concat's axis.
struct Piece {
  int64_t begin, end;
  Value value;
};

/// The pieces of `concat` along its axis, or nothing when one has a dynamic
/// extent there.
std::optional<SmallVector<Piece>> piecesOf(ConcatOp concat) {
  SmallVector<Piece> pieces;
  int64_t at = 0;
  for (Value input : concat.getInputs()) {
    int64_t extent =
        cast<RankedTensorType>(input.getType()).getDimSize(concat.getAxis());
    if (ShapedType::isDynamic(extent))
      return std::nullopt;
    pieces.push_back({at, at + extent, input});
    at += extent;
  }
  return pieces;
}

bool isZero(Value value) { return matchPattern(value, m_AnyZeroFloat()); }

/// What `pieces` hold in [begin, end): a piece that is exactly that range,
/// a null Value for a range inside a zero piece, or nothing when the range
/// would cut a piece that is not zero.
std::optional<Value> segmentOf(ArrayRef<Piece> pieces, int64_t begin,
                               int64_t end) {
  for (const Piece &piece : pieces) {
    if (piece.end <= begin)
      continue;
    if (isZero(piece.value))
      return Value();
    if (piece.begin == begin && piece.end == end)
      return piece.value;
    return std::nullopt;
  }
  return std::nullopt;
}

/// add(concat(a₀, a₁, ...), concat(b₀, b₁, ...)) along one axis, where
/// zeros fill some of the pieces: the sum range by range, a zero range
/// adding nothing, concatenated. The adjoint of a tensor sliced several ways
/// (the fused q/k/v projection's output) is the sum of its slices'
/// adjoints, each padded with zeros to the whole tensor; this makes it the
/// concat of the adjoints, which bufferizes to writes into one buffer in
/// place of three zero-filled copies and their sum.
///
/// A zero piece may be cut anywhere; a piece that is not zero must be a
/// whole range. A range of two zeros stays zero; x + 0 becomes x, which
/// differs only in giving -0 for x = -0.
struct AddOfZeroPaddedConcats : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getLhs().getDefiningOp<ConcatOp>();
    auto rhs = op.getRhs().getDefiningOp<ConcatOp>();
    if (!lhs || !rhs || lhs.getAxis() != rhs.getAxis() ||
        lhs.getType() != op.getType() || rhs.getType() != op.getType())
      return rewriter.notifyMatchFailure(op, "not two concats along one axis");
    auto lhsPieces = piecesOf(lhs), rhsPieces = piecesOf(rhs);
    if (!lhsPieces || !rhsPieces)
      return rewriter.notifyMatchFailure(op, "a piece of dynamic extent");

    SmallVector<int64_t> cuts;
    for (const Piece &piece : llvm::concat<Piece>(*lhsPieces, *rhsPieces))
      cuts.push_back(piece.begin);
    cuts.push_back(lhsPieces->back().end);
    llvm::sort(cuts);
    cuts.erase(llvm::unique(cuts), cuts.end());

    int64_t axis = lhs.getAxis();
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<std::array<Value, 2>> segments;
    bool zeroSeen = false;
    for (auto [begin, end] : llvm::zip(cuts, llvm::drop_begin(cuts))) {
      std::optional<Value> a = segmentOf(*lhsPieces, begin, end);
      std::optional<Value> b = segmentOf(*rhsPieces, begin, end);
      if (!a || !b)
        return rewriter.notifyMatchFailure(op, "a cut inside a nonzero piece");
      zeroSeen |= !*a || !*b;
      segments.push_back({*a, *b});
    }
    if (!zeroSeen)
      return rewriter.notifyMatchFailure(op, "no zero piece to drop");

    SmallVector<Value> sums;
    for (auto [segment, begin, end] :
         llvm::zip(segments, cuts, llvm::drop_begin(cuts))) {
      auto [a, b] = segment;
      if (a && b) {
        sums.push_back(AddOp::create(rewriter, op.getLoc(), a, b));
      } else if (a || b) {
        sums.push_back(a ? a : b);
      } else {
        SmallVector<int64_t> shape(type.getShape());
        shape[axis] = end - begin;
        auto zeroType = RankedTensorType::get(shape, type.getElementType());
        sums.push_back(arith::ConstantOp::create(
            rewriter, op.getLoc(),
            DenseElementsAttr::get(
                zeroType, rewriter.getZeroAttr(type.getElementType()))));
      }
    }
    rewriter.replaceOpWithNewOp<ConcatOp>(op, type, sums, axis);
    return success();
  }
};

/// Whether every element of `value` is known to be at least zero: the
/// result of a ReLU, alone or as a product's epilogue.
bool isNonNegative(Value value) {
  if (value.getDefiningOp<ReluOp>())
    return true;
  auto product = value.getDefiningOp<FusedMatmulOp>();
  return product && product.getActivation() == Activation::relu;
}

/// Whether `mask` is `x ≤ 0` for a zero constant.
bool isNotPositive(CompareOp mask, Value &x) {
  if (!mask || mask.getPredicate() != ComparePredicate::le ||
      !matchPattern(mask.getRhs(), m_AnyZeroFloat()))
    return false;
  x = mask.getLhs();
  return true;
}

/// The gradient through a ReLU whose output y reaches the loss through
/// dropout d = dropout(y): masked_fill(dropout(dy), y ≤ 0, 0), dy's dropout
/// drawing the same mask. Where y > 0, d ≤ 0 exactly where the mask drops
/// the element, so this is masked_fill(dy · 1/(1 - rate), d ≤ 0, 0): the
/// backward draws no mask, and reads the dropout's output, which the next
/// product keeps anyway, so y need not be stored. The kept elements are the
/// same bits (dropout scales by the same f32 constant); a dropped one is +0
/// where dy · 0 gave -0 for a negative dy, and NaN for an infinite one.
struct ReluGradThroughDropout : OpRewritePattern<MaskedFillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaskedFillOp op,
                                PatternRewriter &rewriter) const override {
    auto gradient = op.getInput().getDefiningOp<DropoutOp>();
    auto mask = op.getMask().getDefiningOp<CompareOp>();
    Value y;
    if (op.getValue().convertToDouble() != 0.0 || !gradient ||
        !gradient.getSeed() || !isNotPositive(mask, y) || !isNonNegative(y) ||
        y.getType() != op.getType())
      return failure();
    DropoutOp forward;
    for (Operation *user : y.getUsers()) {
      auto dropout = dyn_cast<DropoutOp>(user);
      if (dropout && dropout.getSeed() == gradient.getSeed() &&
          dropout.getRate() == gradient.getRate() &&
          dropout.getStream() == gradient.getStream() &&
          dropout->getBlock() == op->getBlock() && dropout->isBeforeInBlock(op))
        forward = dropout;
    }
    if (!forward)
      return failure();
    Location loc = op.getLoc();
    Type element = getElementTypeOrSelf(op.getType());
    Value scaled = MulOp::create(
        rewriter, loc, gradient.getInput(),
        gradients::scalar(rewriter, loc, element,
                          1.0 / (1.0 - gradient.getRate().convertToDouble())));
    Value dropped =
        CompareOp::create(rewriter, mask.getLoc(), forward.getResult(),
                          mask.getRhs(), ComparePredicate::le);
    rewriter.replaceOpWithNewOp<MaskedFillOp>(op, scaled, dropped,
                                              op.getValueAttr());
    return success();
  }
};

} // namespace

void MaskedFillOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<ReluGradThroughDropout>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<AddOfZeroPaddedConcats>(context);
}
