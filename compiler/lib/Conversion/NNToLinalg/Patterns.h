//===- Patterns.h - The nn to linalg conversion patterns --------*- C++ -*-===//
#ifndef TRANSFUSE_LIB_CONVERSION_NNTOLINALG_PATTERNS_H
#define TRANSFUSE_LIB_CONVERSION_NNTOLINALG_PATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace transfuse::lowering {

/// Elementwise ops (broadcasting), comparisons, masked_fill, cast.
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
/// Reshape, transpose, slice, concat, embedding, constants, and the
/// decoding cache's update: a loop over the sequences writing their rows,
/// or with `wholeCacheUpdates` one elementwise pass over the cache.
void populateStructuralPatterns(mlir::RewritePatternSet &patterns,
                                bool wholeCacheUpdates);
/// nn.dropout: the identity without a seed, a Philox mask with one.
void populateDropoutPatterns(mlir::RewritePatternSet &patterns);
/// Reductions, softmax, layer norm, matmuls, attention.
void populateComputePatterns(mlir::RewritePatternSet &patterns);

/// cross_entropy and nll_loss, as PyTorch's mean reduction.
void populateLossPatterns(mlir::RewritePatternSet &patterns);
/// The backward ops: layer_norm_grad, embedding_grad, cross_entropy_grad,
/// nll_loss_grad.
void populateGradientPatterns(mlir::RewritePatternSet &patterns);

/// x * Φ(x), with erf or the tanh approximation.
mlir::Value buildGelu(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      bool approximateTanh);
/// gelu'(x), the derivative buildGelu's function.
mlir::Value buildGeluDerivative(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value x, bool approximateTanh);
/// One element converted to `to` (bool to 0/1, ints, floats).
mlir::Value buildCast(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Type to);

} // namespace transfuse::lowering

#endif // TRANSFUSE_LIB_CONVERSION_NNTOLINALG_PATTERNS_H
