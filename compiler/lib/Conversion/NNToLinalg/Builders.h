//===- Builders.h - linalg building blocks for nn lowering ------*- C++ -*-===//
#ifndef TRANSFUSE_LIB_CONVERSION_NNTOLINALG_BUILDERS_H
#define TRANSFUSE_LIB_CONVERSION_NNTOLINALG_BUILDERS_H

#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace transfuse::lowering {

using mlir::Location;
using mlir::OpBuilder;
using mlir::RankedTensorType;
using mlir::Value;
using mlir::ValueRange;

/// Computes one element from the operands' elements.
using ElementFn =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange elements)>;

/// A linalg.generic producing `resultType` from `inputs`, each broadcast to
/// it NumPy-style (leading dimensions added, size-1 dimensions repeated).
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ElementFn body);

/// Reduces `input` over `axes` (sorted) starting from `init`, combining with
/// `combine(accumulator, element)`; keeps the reduced dims with size 1 when
/// `keepDims`.
Value buildReduction(
    OpBuilder &b, Location loc, Value input, llvm::ArrayRef<int64_t> axes,
    bool keepDims, mlir::TypedAttr init,
    llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> combine);

/// Sum, mean and max over `axes`.
Value buildSum(OpBuilder &b, Location loc, Value input,
               llvm::ArrayRef<int64_t> axes, bool keepDims);
Value buildMean(OpBuilder &b, Location loc, Value input,
                llvm::ArrayRef<int64_t> axes, bool keepDims);
Value buildMax(OpBuilder &b, Location loc, Value input,
               llvm::ArrayRef<int64_t> axes, bool keepDims);

/// Computes several values from the operands' elements.
using ElementsFn = llvm::function_ref<llvm::SmallVector<Value>(
    OpBuilder &, Location, ValueRange elements)>;

/// One linalg.generic over the iteration space `shape` reading `inputs`
/// (broadcast to it as in buildElementwise) that sums each of the `count`
/// values `terms` computes over `axes` into its own zero-initialised result
/// of `element` type. Several sums of one pass share the pass; the sums
/// reassociate as buildSum's do.
llvm::SmallVector<Value> buildSums(OpBuilder &b, Location loc,
                                   llvm::ArrayRef<int64_t> shape,
                                   mlir::Type element, ValueRange inputs,
                                   llvm::ArrayRef<int64_t> axes, bool keepDims,
                                   unsigned count, ElementsFn terms);

/// softmax (or log_softmax) of `input` along `axis`, computed stably.
Value buildSoftmax(OpBuilder &b, Location loc, Value input, int64_t axis,
                   bool log);

/// Any static reshape: collapse to one dimension, expand to the target.
Value buildReshape(OpBuilder &b, Location loc, Value input,
                   llvm::ArrayRef<int64_t> shape);

/// linalg.transpose by `perm`.
Value buildTranspose(OpBuilder &b, Location loc, Value input,
                     llvm::ArrayRef<int64_t> perm);

/// `[..., m, k] x [..., k, n]` with broadcast batch dimensions, as
/// linalg.matmul (rank 2, or a rank-2 rhs under a batched lhs) or
/// linalg.batch_matmul. With `transposeRhs` the rhs is `[..., n, k]`; a
/// rank-2 one is read transposed by the matmul's indexing maps (a Linear
/// weight is never copied), others are transposed first.
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  bool transposeRhs = false);

/// `lhsᵀ x rhs` for a rank-2 `lhs` stored `[k, m]` and a rank-2 `rhs`, as a
/// linalg.matmul whose indexing maps read `lhs` transposed where it lies (a
/// weight gradient's `dYᵀ x X` never copies `dYᵀ` out).
Value buildTransposedLhsMatmul(OpBuilder &b, Location loc, Value lhs,
                               Value rhs);

/// The indexing maps of a linalg.matmul reading its rhs as `[n, k]`.
mlir::ArrayAttr transposedRhsMatmulMaps(mlir::MLIRContext *context);

/// A scalar constant of `type` (float or integer).
Value scalar(OpBuilder &b, Location loc, mlir::Type type, double value);

inline RankedTensorType tensorType(Value value) {
  return mlir::cast<RankedTensorType>(value.getType());
}

} // namespace transfuse::lowering

#endif // TRANSFUSE_LIB_CONVERSION_NNTOLINALG_BUILDERS_H
