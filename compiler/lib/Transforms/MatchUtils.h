//===- MatchUtils.h - Small matchers shared by the fusion passes -*- C++
//-*-===//
#ifndef TRANSFUSE_LIB_TRANSFORMS_MATCHUTILS_H
#define TRANSFUSE_LIB_TRANSFORMS_MATCHUTILS_H

#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/IR/PatternMatch.h"
#include <optional>

namespace transfuse::fusion {

/// The value of a splat float constant with only unit dimensions: a scalar
/// operand of a broadcasting op.
std::optional<double> getScalarConstant(mlir::Value value);

/// If `op` is `x * c` or `x / c` (or `c * x`) with a positive scalar
/// constant `c` that keeps x's type, `x` and the factor it applies to it.
std::optional<std::pair<mlir::Value, double>>
matchScalarScale(mlir::Operation *op);

/// A value that is `factor · base` viewed through a chain of reshapes and
/// transposes (`transpose(reshape(div(x, c)))`).
struct PeeledScale {
  mlir::Value base;
  double factor = 1.0;
};

/// Strips scalar scales from `value`, looking through single-use reshapes
/// and transposes, and rebuilds those shape ops on the unscaled value. The
/// result has `value`'s type and `result.factor · result.base == value`.
PeeledScale peelScalarScales(mlir::PatternRewriter &rewriter,
                             mlir::Value value);

/// `perm` swaps the last two dimensions and keeps the others.
bool swapsLastTwo(llvm::ArrayRef<int64_t> perm);

} // namespace transfuse::fusion

#endif // TRANSFUSE_LIB_TRANSFORMS_MATCHUTILS_H
