//===- Builders.cpp - linalg building blocks for nn lowering --------------===//
#include "Builders.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;

namespace transfuse::lowering {

Value scalar(OpBuilder &b, Location loc, Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, FloatAttr::get(type, value));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(type, static_cast<int64_t>(value)));
}

/// The map reading an operand of `shape` broadcast to a result of rank
/// `rank`: leading dimensions are dropped, size-1 dimensions read index 0.
static AffineMap broadcastMap(MLIRContext *context, ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> resultShape) {
  int64_t rank = resultShape.size(), offset = rank - shape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    int64_t resultDim = offset + i;
    exprs.push_back(dim == 1 && resultShape[resultDim] != 1
                        ? getAffineConstantExpr(0, context)
                        : getAffineDimExpr(resultDim, context));
  }
  return AffineMap::get(rank, 0, exprs, context);
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ElementFn body) {
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(context, tensorType(input).getShape(),
                                resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value buildReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
    bool keepDims, TypedAttr init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  RankedTensorType type = tensorType(input);
  SmallVector<int64_t> kept;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
      kept.push_back(size);
  Value empty = tensor::EmptyOp::create(b, loc, kept, type.getElementType());
  Value start = arith::ConstantOp::create(b, loc, init);
  Value filled = linalg::FillOp::create(b, loc, start, empty).getResult(0);
  auto reduce = linalg::ReduceOp::create(
      b, loc, input, filled, axes,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        // linalg.reduce passes (element, accumulator).
        Value result = combine(nested, nestedLoc, args[1], args[0]);
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  Value reduced = reduce.getResult(0);
  if (!keepDims)
    return reduced;
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t axis : axes)
    shape[axis] = 1;
  return buildReshape(b, loc, reduced, shape);
}

/// Reductions may be evaluated in any order: that is what lets the code
/// generator vectorise them (a strict left-to-right float chain cannot be),
/// and it is the freedom PyTorch's own reductions take.
static constexpr arith::FastMathFlags kReassociable =
    arith::FastMathFlags::reassoc;

Value buildSum(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
               bool keepDims) {
  Type element = tensorType(input).getElementType();
  return buildReduction(
      b, loc, input, axes, keepDims, b.getFloatAttr(element, 0.0),
      [](OpBuilder &nb, Location l, Value acc, Value x) {
        return arith::AddFOp::create(nb, l, acc, x, kReassociable);
      });
}

SmallVector<Value> buildSums(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> shape, Type element,
                             ValueRange inputs, ArrayRef<int64_t> axes,
                             bool keepDims, unsigned count, ElementsFn terms) {
  MLIRContext *context = b.getContext();
  int64_t rank = shape.size();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(context, tensorType(input).getShape(), shape));
  SmallVector<AffineExpr> keptDims;
  SmallVector<int64_t> keptShape, keepDimsShape;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(axes, d);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    keepDimsShape.push_back(reduced ? 1 : shape[d]);
    if (reduced)
      continue;
    keptDims.push_back(getAffineDimExpr(d, context));
    keptShape.push_back(shape[d]);
  }
  maps.append(count, AffineMap::get(rank, 0, keptDims, context));
  auto resultType = RankedTensorType::get(keptShape, element);
  SmallVector<Value> inits;
  for (unsigned i = 0; i < count; ++i) {
    Value empty = tensor::EmptyOp::create(b, loc, keptShape, element);
    inits.push_back(
        linalg::FillOp::create(b, loc, scalar(b, loc, element, 0.0), empty)
            .getResult(0));
  }
  auto generic = linalg::GenericOp::create(
      b, loc, SmallVector<Type>(count, resultType), inputs, inits, maps,
      iterators, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> values =
            terms(nested, nestedLoc, args.take_front(inputs.size()));
        SmallVector<Value> sums;
        for (auto [accumulator, value] :
             llvm::zip_equal(args.drop_front(inputs.size()), values))
          sums.push_back(arith::AddFOp::create(nested, nestedLoc, accumulator,
                                               value, kReassociable));
        linalg::YieldOp::create(nested, nestedLoc, sums);
      });
  SmallVector<Value> results;
  for (Value sum : generic.getResults())
    results.push_back(keepDims ? buildReshape(b, loc, sum, keepDimsShape)
                               : sum);
  return results;
}

Value buildMean(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
                bool keepDims) {
  RankedTensorType type = tensorType(input);
  int64_t count = 1;
  for (int64_t axis : axes)
    count *= type.getDimSize(axis);
  Value sum = buildSum(b, loc, input, axes, keepDims);
  Value divisor = scalar(b, loc, type.getElementType(), double(count));
  return buildElementwise(b, loc, tensorType(sum), sum,
                          [&](OpBuilder &nb, Location l, ValueRange x) {
                            return arith::DivFOp::create(nb, l, x[0], divisor);
                          });
}

Value buildMax(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
               bool keepDims) {
  auto element = cast<FloatType>(tensorType(input).getElementType());
  APFloat lowest = APFloat::getInf(element.getFloatSemantics(), true);
  return buildReduction(
      b, loc, input, axes, keepDims, b.getFloatAttr(element, lowest),
      [](OpBuilder &nb, Location l, Value acc, Value x) {
        return arith::MaximumFOp::create(nb, l, acc, x, kReassociable);
      });
}

Value buildSoftmax(OpBuilder &b, Location loc, Value input, int64_t axis,
                   bool log) {
  RankedTensorType type = tensorType(input);
  Value max = buildMax(b, loc, input, {axis}, /*keepDims=*/true);
  Value shifted = buildElementwise(
      b, loc, type, {input, max}, [](OpBuilder &nb, Location l, ValueRange x) {
        return arith::SubFOp::create(nb, l, x[0], x[1]);
      });
  Value exps = buildElementwise(b, loc, type, shifted,
                                [](OpBuilder &nb, Location l, ValueRange x) {
                                  return math::ExpOp::create(nb, l, x[0]);
                                });
  Value sum = buildSum(b, loc, exps, {axis}, /*keepDims=*/true);
  if (log)
    return buildElementwise(b, loc, type, {shifted, sum},
                            [](OpBuilder &nb, Location l, ValueRange x) {
                              return arith::SubFOp::create(
                                  nb, l, x[0],
                                  math::LogOp::create(nb, l, x[1]));
                            });
  return buildElementwise(b, loc, type, {exps, sum},
                          [](OpBuilder &nb, Location l, ValueRange x) {
                            return arith::DivFOp::create(nb, l, x[0], x[1]);
                          });
}

Value buildReshape(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> shape) {
  RankedTensorType type = tensorType(input);
  if (type.getShape() == shape)
    return input;
  auto flatType =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  auto allDims = [](int64_t rank) {
    ReassociationIndices dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return SmallVector<ReassociationIndices>{dims};
  };
  Value flat = input;
  if (type.getRank() != 1)
    flat =
        type.getRank() == 0
            ? tensor::ExpandShapeOp::create(b, loc, flatType, input,
                                            SmallVector<ReassociationIndices>{})
                  .getResult()
            : tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                              allDims(type.getRank()))
                  .getResult();
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (shape.size() == 1)
    return flat;
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, resultType, flat,
                                           SmallVector<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       allDims(shape.size()));
}

Value buildTranspose(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> perm) {
  RankedTensorType type = tensorType(input);
  SmallVector<int64_t> shape;
  for (int64_t axis : perm)
    shape.push_back(type.getDimSize(axis));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, input, init, perm).getResult()[0];
}

/// Repeats `value` to `shape` (a broadcast batch), as a generic copy.
static Value broadcastTo(OpBuilder &b, Location loc, Value value,
                         ArrayRef<int64_t> shape) {
  if (tensorType(value).getShape() == shape)
    return value;
  auto type = RankedTensorType::get(shape, tensorType(value).getElementType());
  return buildElementwise(
      b, loc, type, value,
      [](OpBuilder &, Location, ValueRange x) { return x[0]; });
}

/// linalg.matmul's indexing maps with the lhs read as `[k, m]` when
/// `transposeLhs` and the rhs as `[n, k]` when `transposeRhs`.
static ArrayAttr matmulMaps(MLIRContext *context, bool transposeLhs,
                            bool transposeRhs) {
  AffineExpr m, n, k;
  bindDims(context, m, n, k);
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMapAttr::get(AffineMap::get(3, 0, results, context));
  };
  return ArrayAttr::get(context, {transposeLhs ? map({k, m}) : map({m, k}),
                                  transposeRhs ? map({n, k}) : map({k, n}),
                                  map({m, n})});
}

ArrayAttr transposedRhsMatmulMaps(MLIRContext *context) {
  return matmulMaps(context, /*transposeLhs=*/false, /*transposeRhs=*/true);
}

/// A zero-filled `shape` tensor of `element`, a matmul's accumulator.
static Value zeroFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        Type element) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, element);
  return linalg::FillOp::create(b, loc, scalar(b, loc, element, 0.0), empty)
      .getResult(0);
}

Value buildTransposedLhsMatmul(OpBuilder &b, Location loc, Value lhs,
                               Value rhs) {
  RankedTensorType lhsType = tensorType(lhs), rhsType = tensorType(rhs);
  assert(lhsType.getRank() == 2 && rhsType.getRank() == 2 &&
         "a transposed lhs is read in place at rank 2 only");
  int64_t m = lhsType.getDimSize(1), n = rhsType.getDimSize(1);
  auto matmul = linalg::MatmulOp::create(
      b, loc, ValueRange{lhs, rhs},
      ValueRange{zeroFilled(b, loc, {m, n}, lhsType.getElementType())});
  // The builder sets the default maps; the body is the same either way.
  matmul.setIndexingMapsAttr(matmulMaps(b.getContext(), /*transposeLhs=*/true,
                                        /*transposeRhs=*/false));
  return matmul.getResult(0);
}

Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  bool transposeRhs) {
  if (transposeRhs && tensorType(rhs).getRank() != 2) {
    int64_t rank = tensorType(rhs).getRank();
    SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(swap[rank - 1], swap[rank - 2]);
    rhs = buildTranspose(b, loc, rhs, swap);
    transposeRhs = false;
  }
  RankedTensorType lhsType = tensorType(lhs), rhsType = tensorType(rhs);
  Type element = lhsType.getElementType();
  int64_t m = lhsType.getDimSize(lhsType.getRank() - 2);
  int64_t k = lhsType.getShape().back();
  int64_t n = transposeRhs ? rhsType.getDimSize(0) : rhsType.getShape().back();
  // A shared rank-2 rhs: fold the lhs batch into its rows.
  if (rhsType.getRank() == 2) {
    int64_t rows = lhsType.getNumElements() / k;
    Value flat = buildReshape(b, loc, lhs, {rows, k});
    auto matmul = linalg::MatmulOp::create(
        b, loc, ValueRange{flat, rhs},
        ValueRange{zeroFilled(b, loc, {rows, n}, element)});
    // The builder sets the default maps; the body is the same either way.
    if (transposeRhs)
      matmul.setIndexingMapsAttr(transposedRhsMatmulMaps(b.getContext()));
    Value product = matmul.getResult(0);
    SmallVector<int64_t> shape(lhsType.getShape().drop_back());
    shape.push_back(n);
    return buildReshape(b, loc, product, shape);
  }
  // Broadcast both batches to the joint one, flatten it, batch_matmul.
  SmallVector<int64_t> batch;
  (void)OpTrait::util::getBroadcastedShape(
      lhsType.getShape().drop_back(2), rhsType.getShape().drop_back(2), batch);
  int64_t batchSize = 1;
  for (int64_t dim : batch)
    batchSize *= dim;
  auto withBatch = [&](ArrayRef<int64_t> tail) {
    SmallVector<int64_t> shape(batch);
    llvm::append_range(shape, tail);
    return shape;
  };
  Value lhs3 = buildReshape(b, loc, broadcastTo(b, loc, lhs, withBatch({m, k})),
                            {batchSize, m, k});
  Value rhs3 = buildReshape(b, loc, broadcastTo(b, loc, rhs, withBatch({k, n})),
                            {batchSize, k, n});
  Value product =
      linalg::BatchMatmulOp::create(
          b, loc, ValueRange{lhs3, rhs3},
          ValueRange{zeroFilled(b, loc, {batchSize, m, n}, element)})
          .getResult(0);
  return buildReshape(b, loc, product, withBatch({m, n}));
}

} // namespace transfuse::lowering
