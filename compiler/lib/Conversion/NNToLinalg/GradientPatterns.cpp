//===- GradientPatterns.cpp - The nn backward ops to linalg ---------------===//
//
// Each backward op lowers to as few passes over its largest operand as its
// data dependences allow: a pass per reduction whose result a later element
// needs, then one elementwise pass.
//===----------------------------------------------------------------------===//
#include "Builders.h"
#include "NormRows.h"
#include "Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace transfuse::lowering {
namespace {

SmallVector<int64_t> axesBetween(int64_t begin, int64_t end) {
  return llvm::to_vector(llvm::seq<int64_t>(begin, end));
}

/// grad_input, grad_gamma, grad_beta from the input's recomputed row
/// statistics (see nn.layer_norm_grad and NormRows.h): passes over [rows,
/// normalised] for the mean (centred forms), Σ(x - mean)², the row sums
/// of g and g · x̂, grad_input and the column sums.
struct LayerNormGradPattern : OpConversionPattern<nn::LayerNormGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::LayerNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dy = adaptor.getGrad(), x = adaptor.getInput(),
          gamma = adaptor.getGamma();
    RankedTensorType type = tensorType(x);
    ArrayRef<int64_t> shape = type.getShape();
    Type element = type.getElementType();
    int64_t axis = op.getAxis();
    SmallVector<int64_t> normalizedAxes = axesBetween(axis, type.getRank());
    SmallVector<int64_t> rowAxes = axesBetween(0, axis);
    NormForm form = NormForm::of(op, shape);
    NormRows rows = buildNormRows(rewriter, loc, x, normalizedAxes, form);
    SmallVector<Value> stats = normOperands(rows);
    auto withStats = [&](std::initializer_list<Value> values) {
      SmallVector<Value> operands(values);
      operands.append(stats);
      return operands;
    };

    // Per row: Σ g for a centred form, and Σ g · x̂, with g = dy · gamma.
    bool centred = form.centred();
    SmallVector<Value> rowSums =
        buildSums(rewriter, loc, shape, element, withStats({dy, gamma, x}),
                  normalizedAxes, /*keepDims=*/true, centred ? 2 : 1,
                  [&](OpBuilder &b, Location l, ValueRange v) {
                    Value g = arith::MulFOp::create(b, l, v[0], v[1]);
                    Value gXhat = arith::MulFOp::create(
                        b, l, g, normalizeElement(b, l, v[2], v.drop_front(3)));
                    if (!centred)
                      return SmallVector<Value>{gXhat};
                    return SmallVector<Value>{g, gXhat};
                  });
    Value sumGXhat = rowSums.back();
    // dx = s · (g - mean(g) - x̂ · Σ(g · x̂) / D).
    // Operands: dy, gamma, x, Σ g · x̂, Σ g (centred), Σ(x - mean)²
    // (epsilon_on_std), the statistics.
    SmallVector<Value> dxOperands = {dy, gamma, x, sumGXhat};
    if (centred)
      dxOperands.push_back(rowSums.front());
    if (form.epsilonOnStd)
      dxOperands.push_back(rows.squares);
    size_t statsBegin = dxOperands.size();
    dxOperands.append(stats);
    Value dx = buildElementwise(
        rewriter, loc, type, dxOperands,
        [&](OpBuilder &b, Location l, ValueRange v) -> Value {
          Value g = arith::MulFOp::create(b, l, v[0], v[1]);
          Value xhat = normalizeElement(b, l, v[2], v.drop_front(statsBegin));
          Value scale = v.back();
          Value squares = form.epsilonOnStd ? v[statsBegin - 1] : Value();
          Value divisor = gradDivisorElement(b, l, form, squares, scale);
          Value centredG =
              centred ? arith::SubFOp::create(
                            b, l, g,
                            arith::DivFOp::create(
                                b, l, v[4], scalar(b, l, element, form.count)))
                      : g;
          Value inner = arith::SubFOp::create(
              b, l, centredG,
              arith::MulFOp::create(
                  b, l, xhat, arith::DivFOp::create(b, l, v[3], divisor)));
          return arith::MulFOp::create(b, l, scale, inner);
        });
    // Per normalised element, over the rows: Σ dy · x̂ and Σ dy.
    SmallVector<Value> paramGrads = buildSums(
        rewriter, loc, shape, element, withStats({dy, x}), rowAxes,
        /*keepDims=*/false, 2, [&](OpBuilder &b, Location l, ValueRange v) {
          return SmallVector<Value>{
              arith::MulFOp::create(
                  b, l, v[0], normalizeElement(b, l, v[1], v.drop_front(2))),
              v[0]};
        });
    rewriter.replaceOp(op, {dx, paramGrads[0], paramGrads[1]});
    return success();
  }
};

/// A zero table, then one scf.for over the index positions adding each
/// gradient row into the table row its id names: O(positions · d), and the
/// extract_slice / insert_slice pair on the loop-carried table bufferizes
/// to an in-place update of that row.
struct EmbeddingGradPattern : OpConversionPattern<nn::EmbeddingGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::EmbeddingGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    int64_t width = resultType.getDimSize(1);
    int64_t positions = tensorType(adaptor.getIndices()).getNumElements();
    Value ids = buildReshape(rewriter, loc, adaptor.getIndices(), {positions});
    Value rows =
        buildReshape(rewriter, loc, adaptor.getGrad(), {positions, width});
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), element);
    Value zeros = linalg::FillOp::create(
                      rewriter, loc, scalar(rewriter, loc, element, 0.0), empty)
                      .getResult(0);
    auto rowType = RankedTensorType::get({width}, element);
    auto identity = rewriter.getMultiDimIdentityMap(1);
    auto loop = scf::ForOp::create(
        rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
        arith::ConstantIndexOp::create(rewriter, loc, positions),
        arith::ConstantIndexOp::create(rewriter, loc, 1), ValueRange{zeros},
        [&](OpBuilder &b, Location l, Value position, ValueRange carried) {
          Value id = arith::IndexCastOp::create(
              b, l, b.getIndexType(),
              tensor::ExtractOp::create(b, l, ids, position));
          Value table = carried[0];
          SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                             b.getIndexAttr(width)};
          SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
          auto rowAt = [&](Value source, Value row) {
            SmallVector<OpFoldResult> offsets = {row, b.getIndexAttr(0)};
            return tensor::ExtractSliceOp::create(b, l, rowType, source,
                                                  offsets, sizes, strides);
          };
          Value gradRow = rowAt(rows, position);
          Value tableRow = rowAt(table, id);
          Value updated =
              linalg::GenericOp::create(
                  b, l, rowType, gradRow, tableRow,
                  SmallVector<AffineMap>(2, identity),
                  {utils::IteratorType::parallel},
                  [](OpBuilder &nb, Location nl, ValueRange args) {
                    linalg::YieldOp::create(nb, nl,
                                            ValueRange{arith::AddFOp::create(
                                                nb, nl, args[1], args[0])});
                  })
                  .getResult(0);
          SmallVector<OpFoldResult> offsets = {id, b.getIndexAttr(0)};
          Value inserted = tensor::InsertSliceOp::create(
              b, l, updated, table, offsets, sizes, strides);
          scf::YieldOp::create(b, l, inserted);
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// The number of labels that are not `ignoreIndex`, as a rank-0 tensor.
Value countLabels(OpBuilder &b, Location loc, Value labels, int64_t ignoreIndex,
                  Type element) {
  RankedTensorType type = tensorType(labels);
  return buildSums(b, loc, type.getShape(), element, labels,
                   axesBetween(0, type.getRank()), /*keepDims=*/false, 1,
                   [&](OpBuilder &nb, Location l, ValueRange v) {
                     Value valid = arith::CmpIOp::create(
                         nb, l, arith::CmpIPredicate::ne, v[0],
                         scalar(nb, l, v[0].getType(), double(ignoreIndex)));
                     return SmallVector<Value>{arith::SelectOp::create(
                         nb, l, valid, scalar(nb, l, element, 1.0),
                         scalar(nb, l, element, 0.0))};
                   })[0];
}

/// The element of a loss gradient: `isLabel` tells whether its class is its
/// row's label, `count` is n, `inputs` the elements of the extra operands.
using LossGradFn = function_ref<Value(OpBuilder &, Location, Value isLabel,
                                      Value count, ValueRange inputs)>;

/// The gradient of a mean loss over labels with respect to its scores
/// `[..., C]`: n counted in one pass, then one elementwise pass reading
/// `inputs` that gives `body` in rows whose label counts and 0 in the others.
template <typename OpTy>
Value buildLossGrad(OpBuilder &b, OpTy op, Value scores, Value labels,
                    ValueRange inputs, LossGradFn body) {
  Location loc = op.getLoc();
  RankedTensorType type = tensorType(scores);
  Type element = type.getElementType();
  int64_t ignoreIndex = op.getIgnoreIndex();
  SmallVector<int64_t> labelShape(tensorType(labels).getShape());
  labelShape.push_back(1);
  SmallVector<Value> operands = {
      buildReshape(b, loc, labels, labelShape),
      countLabels(b, loc, labels, ignoreIndex, element)};
  llvm::append_range(operands, inputs);
  int64_t classAxis = type.getRank() - 1;
  return buildElementwise(
      b, loc, type, operands, [&](OpBuilder &nb, Location l, ValueRange v) {
        Value label = v[0];
        Value valid = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::ne, label,
            scalar(nb, l, label.getType(), double(ignoreIndex)));
        Value classId = arith::IndexCastOp::create(
            nb, l, label.getType(), linalg::IndexOp::create(nb, l, classAxis));
        Value isLabel = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              classId, label);
        Value grad = body(nb, l, isLabel, v[1], v.drop_front(2));
        return arith::SelectOp::create(nb, l, valid, grad,
                                       scalar(nb, l, element, 0.0));
      });
}

/// (softmax - (1 - ls)·onehot - ls/C) / n: the softmax's max and exp-sum
/// passes, then buildLossGrad's.
struct CrossEntropyGradPattern : OpConversionPattern<nn::CrossEntropyGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::CrossEntropyGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits();
    RankedTensorType type = tensorType(logits);
    Type element = type.getElementType();
    int64_t classAxis = type.getRank() - 1;
    double classes = double(type.getShape().back());
    double smoothing = op.getLabelSmoothing().convertToDouble();
    Value max = buildMax(rewriter, loc, logits, {classAxis}, /*keepDims=*/true);
    Value exps =
        buildElementwise(rewriter, loc, type, {logits, max},
                         [](OpBuilder &b, Location l, ValueRange v) {
                           return math::ExpOp::create(
                               b, l, arith::SubFOp::create(b, l, v[0], v[1]));
                         });
    Value sum = buildSum(rewriter, loc, exps, {classAxis}, /*keepDims=*/true);
    rewriter.replaceOp(
        op,
        buildLossGrad(
            rewriter, op, logits, adaptor.getLabels(), {exps, sum},
            [&](OpBuilder &b, Location l, Value isLabel, Value count,
                ValueRange v) {
              Value p = arith::DivFOp::create(b, l, v[0], v[1]);
              Value target = arith::SelectOp::create(
                  b, l, isLabel,
                  scalar(b, l, element, 1.0 - smoothing + smoothing / classes),
                  scalar(b, l, element, smoothing / classes));
              return arith::DivFOp::create(
                  b, l, arith::SubFOp::create(b, l, p, target), count);
            }));
    return success();
  }
};

/// -1/n at each counted row's label: buildLossGrad's two passes.
struct NllLossGradPattern : OpConversionPattern<nn::NllLossGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::NllLossGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = tensorType(adaptor.getLogProbs()).getElementType();
    rewriter.replaceOp(
        op, buildLossGrad(
                rewriter, op, adaptor.getLogProbs(), adaptor.getLabels(), {},
                [&](OpBuilder &b, Location l, Value isLabel, Value count,
                    ValueRange) {
                  Value weight = arith::DivFOp::create(
                      b, l, scalar(b, l, element, -1.0), count);
                  return arith::SelectOp::create(b, l, isLabel, weight,
                                                 scalar(b, l, element, 0.0));
                }));
    return success();
  }
};

} // namespace

void populateGradientPatterns(RewritePatternSet &patterns) {
  patterns.add<LayerNormGradPattern, EmbeddingGradPattern,
               CrossEntropyGradPattern, NllLossGradPattern>(
      patterns.getContext());
}

} // namespace transfuse::lowering
