//===- StructuralPatterns.cpp - shape ops, gathers, constants -------------===//
#include "Builders.h"
#include "Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"
#include <cmath>

using namespace mlir;

namespace transfuse::lowering {
namespace {

struct ReshapePattern : OpConversionPattern<nn::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildReshape(rewriter, op.getLoc(),
                                        adaptor.getInput(), op.getShape()));
    return success();
  }
};

struct TransposePattern : OpConversionPattern<nn::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildTranspose(rewriter, op.getLoc(),
                                          adaptor.getInput(), op.getPerm()));
    return success();
  }
};

struct SlicePattern : OpConversionPattern<nn::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<int64_t> strides(op.getOffsets().size(), 1);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, cast<RankedTensorType>(op.getType()), adaptor.getInput(),
        ValueRange{}, ValueRange{}, ValueRange{}, op.getOffsets(),
        op.getSizes(), strides);
    return success();
  }
};

/// Inserts each input at its offset along the axis of an empty tensor.
struct ConcatPattern : OpConversionPattern<nn::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result = tensor::EmptyOp::create(
        rewriter, op.getLoc(), type.getShape(), type.getElementType());
    int64_t axis = op.getAxis();
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    for (Value input : adaptor.getInputs()) {
      ArrayRef<int64_t> sizes = tensorType(input).getShape();
      result = tensor::InsertSliceOp::create(
          rewriter, op.getLoc(), input, result, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, sizes, strides);
      offsets[axis] += sizes[axis];
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// out[i..., d] = table[ids[i...], d].
struct EmbeddingPattern : OpConversionPattern<nn::EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(rank, context)
            .getMajorSubMap(rank - 1),
        AffineMap::getMultiDimIdentityMap(rank, context)};
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value table = adaptor.getTable();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, adaptor.getIndices(), init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value column = linalg::IndexOp::create(b, l, rank - 1);
          Value element =
              tensor::ExtractOp::create(b, l, table, ValueRange{row, column});
          linalg::YieldOp::create(b, l, element);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The sinusoidal table, computed as PyTorch computes it in float32.
struct SinusoidalPattern : OpConversionPattern<nn::SinusoidalEncodingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::SinusoidalEncodingOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t length = type.getDimSize(0), width = type.getDimSize(1);
    SmallVector<APFloat> values;
    values.reserve(length * width);
    const float logBase = std::log(10000.0f);
    for (int64_t p = 0; p < length; ++p)
      for (int64_t i = 0; i < width; ++i) {
        float rate = std::exp(float(i - i % 2) * -(logBase / float(width)));
        float angle = float(p) * rate;
        float value = i % 2 == 0 ? std::sin(angle) : std::cos(angle);
        values.push_back(APFloat(value));
      }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, values));
    return success();
  }
};

struct TriangularMaskPattern : OpConversionPattern<nn::TriangularMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::TriangularMaskOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    // getDiagonal() is unsigned (I64Attr): read the attribute as signed so
    // that j - i < 0 compares as a negative number.
    int64_t diagonal = op.getDiagonalAttr().getInt();
    SmallVector<bool> values;
    for (int64_t i = 0; i < type.getDimSize(0); ++i)
      for (int64_t j = 0; j < type.getDimSize(1); ++j)
        values.push_back(j - i >= diagonal);
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, values));
    return success();
  }
};

/// A loop over the sequences inserting each one's rows at its own offset.
/// Bufferization turns the inserts into copies into the cache's buffer, so
/// an update costs the new rows, not the whole cache.
/// A loop over the sequences, each inserting its rows at its start: only
/// the new rows are written (the CPU's form).
Value updateRowsOfEachSequence(OpBuilder &builder, Location loc, Value cache,
                               Value rows, Value start) {
  ArrayRef<int64_t> shape = tensorType(rows).getShape();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value batch = arith::ConstantIndexOp::create(builder, loc, shape[0]);
  SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(1)};
  for (int64_t size : shape.drop_front())
    sizes.push_back(builder.getIndexAttr(size));
  SmallVector<OpFoldResult> strides(4, builder.getIndexAttr(1));
  auto loop = scf::ForOp::create(
      builder, loc, zero, batch, one, ValueRange{cache},
      [&](OpBuilder &b, Location loc, Value i, ValueRange held) {
        Value first = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            tensor::ExtractOp::create(b, loc, start, ValueRange{i}));
        OpFoldResult origin = b.getIndexAttr(0);
        Value sequence = tensor::ExtractSliceOp::create(
            b, loc, rows, SmallVector<OpFoldResult>{i, origin, origin, origin},
            sizes, strides);
        Value updated = tensor::InsertSliceOp::create(
            b, loc, sequence, held[0],
            SmallVector<OpFoldResult>{i, origin, first, origin}, sizes,
            strides);
        scf::YieldOp::create(b, loc, updated);
      });
  return loop.getResult(0);
}

/// One elementwise pass over the whole cache, in place: an element takes
/// its sequence's new row where the row lands on it, else keeps its value.
/// It reads and writes the whole cache, but is one parallel loop nest
/// without host-side indexing (the GPU's form).
Value updateWholeCache(OpBuilder &builder, Location loc, Value cache,
                       Value rows, Value start) {
  MLIRContext *context = builder.getContext();
  int64_t count = tensorType(rows).getDimSize(2);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, context);
  AffineMap sequence =
      AffineMap::get(4, 0, getAffineDimExpr(0, context), context);
  auto generic = linalg::GenericOp::create(
      builder, loc, cache.getType(), ValueRange{start}, ValueRange{cache},
      ArrayRef<AffineMap>{sequence, identity},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        SmallVector<Value> index;
        for (int64_t dim = 0; dim < 4; ++dim)
          index.push_back(linalg::IndexOp::create(b, l, dim));
        Value first =
            arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
        // Negative offsets compare as large unsigned ones: out of range.
        Value offset = arith::SubIOp::create(b, l, index[2], first);
        Value inRange =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, offset,
                                  arith::ConstantIndexOp::create(b, l, count));
        index[2] = arith::SelectOp::create(
            b, l, inRange, offset, arith::ConstantIndexOp::create(b, l, 0));
        Value row = tensor::ExtractOp::create(b, l, rows, index);
        linalg::YieldOp::create(
            b, l,
            ValueRange{arith::SelectOp::create(b, l, inRange, row, args[1])});
      });
  return generic.getResult(0);
}

struct CacheUpdatePattern : OpConversionPattern<nn::CacheUpdateOp> {
  CacheUpdatePattern(MLIRContext *context, bool wholeCache)
      : OpConversionPattern(context), wholeCache(wholeCache) {}

  LogicalResult
  matchAndRewrite(nn::CacheUpdateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto update = wholeCache ? updateWholeCache : updateRowsOfEachSequence;
    rewriter.replaceOp(op, update(rewriter, op.getLoc(), adaptor.getCache(),
                                  adaptor.getRows(), adaptor.getStart()));
    return success();
  }

  bool wholeCache;
};

} // namespace

void populateStructuralPatterns(RewritePatternSet &patterns,
                                bool wholeCacheUpdates) {
  patterns.add<ReshapePattern, TransposePattern, SlicePattern, ConcatPattern,
               EmbeddingPattern, SinusoidalPattern, TriangularMaskPattern>(
      patterns.getContext());
  patterns.add<CacheUpdatePattern>(patterns.getContext(), wholeCacheUpdates);
}

} // namespace transfuse::lowering
