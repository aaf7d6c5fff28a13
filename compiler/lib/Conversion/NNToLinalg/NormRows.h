//===- NormRows.h - Row statistics of nn.layer_norm's forms -----*- C++ -*-===//
//
// What nn.layer_norm and nn.layer_norm_grad share on the CPU: the form's
// row statistics (the mean, Σ(x - mean)² and the scale s) and x̂, so the
// backward recomputes exactly what the forward normalised with.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_LIB_CONVERSION_NNTOLINALG_NORMROWS_H
#define TRANSFUSE_LIB_CONVERSION_NNTOLINALG_NORMROWS_H

#include "transfuse/Dialect/NN/NNOps.h"

namespace transfuse::lowering {

/// A layer norm's form over `count` normalised elements.
struct NormForm {
  nn::NormStatistic statistic;
  bool epsilonOnStd;
  double epsilon;
  double count;

  /// The form of `op` normalising `shape` from the op's axis.
  template <typename OpT>
  static NormForm of(OpT op, llvm::ArrayRef<int64_t> shape) {
    double count = 1.0;
    for (int64_t dim : shape.drop_front(op.getAxis()))
      count *= double(dim);
    return {op.getStatistic(), op.getEpsilonOnStd(),
            op.getEpsilon().convertToDouble(), count};
  }
  /// Whether the mean is subtracted (all but RMSNorm).
  bool centred() const { return statistic != nn::NormStatistic::mean_square; }
  /// M, what Σ(x - mean)² is divided by to give the variance.
  double divisor() const {
    return statistic == nn::NormStatistic::unbiased_variance ? count - 1
                                                             : count;
  }
};

/// Per row of x over `axes`, dims kept: the mean (null when the form does
/// not centre), Σ(x - mean)² and s = 1 / sqrt(var + ε) or 1 / (sqrt(var) +
/// ε).
struct NormRows {
  mlir::Value mean, squares, scale;
};
NormRows buildNormRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       llvm::ArrayRef<int64_t> axes, const NormForm &form);

/// The operands an element of x̂ needs after x's: the mean where there is
/// one, then s.
llvm::SmallVector<mlir::Value> normOperands(const NormRows &rows);

/// x̂ = (x - mean) · s of one element, `stats` the elements of
/// normOperands.
mlir::Value normalizeElement(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value x, mlir::ValueRange stats);

/// D of grad_input's Σ(g · x̂) / D (see nn.layer_norm_grad) from the
/// elements of Σ(x - mean)² (read only with epsilon_on_std; may be null
/// otherwise) and s.
mlir::Value gradDivisorElement(mlir::OpBuilder &b, mlir::Location loc,
                               const NormForm &form, mlir::Value squares,
                               mlir::Value scale);

} // namespace transfuse::lowering

#endif // TRANSFUSE_LIB_CONVERSION_NNTOLINALG_NORMROWS_H
