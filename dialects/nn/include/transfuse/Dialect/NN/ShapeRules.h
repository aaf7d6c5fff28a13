//===- ShapeRules.h - Result shapes of nn ops -----------------------------===//
//
// The shape rule of every nn op, written once. The ops' type inference uses
// them, and so does the importer, which checks a layer's shapes before it
// builds any op so that a bad spec gets an error naming the layer instead of
// a failed op construction.
//
// Each rule returns the result shape, or failure with a one-line reason in
// `why` (no trailing period, shapes printed as [2, 3]).
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_DIALECT_NN_SHAPERULES_H
#define TRANSFUSE_DIALECT_NN_SHAPERULES_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace transfuse::nn {

using Shape = llvm::SmallVector<int64_t, 4>;
using mlir::ArrayRef;
using mlir::FailureOr;

/// "[2, 3]".
std::string formatShape(ArrayRef<int64_t> shape);

/// NumPy broadcasting of two shapes.
FailureOr<Shape> broadcastShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                std::string &why);
/// True if `from` broadcasts to exactly `to`.
bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to);

FailureOr<Shape> matmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                             std::string &why);
FailureOr<Shape> transposeShape(ArrayRef<int64_t> input, ArrayRef<int64_t> perm,
                                std::string &why);
/// `target` may hold one -1, inferred from the element count.
FailureOr<Shape> reshapeShape(ArrayRef<int64_t> input, ArrayRef<int64_t> target,
                              std::string &why);
FailureOr<Shape> sliceShape(ArrayRef<int64_t> input, ArrayRef<int64_t> offsets,
                            ArrayRef<int64_t> sizes, std::string &why);
FailureOr<Shape> concatShape(ArrayRef<Shape> inputs, int64_t axis,
                             std::string &why);
FailureOr<Shape> reduceShape(ArrayRef<int64_t> input, ArrayRef<int64_t> axes,
                             bool keepDims, std::string &why);
/// Checks 0 <= axis < rank.
mlir::LogicalResult checkAxis(ArrayRef<int64_t> input, int64_t axis,
                              std::string &why);
FailureOr<Shape> embeddingShape(ArrayRef<int64_t> table,
                                ArrayRef<int64_t> indices, std::string &why);
/// q [b, h, sq, dk], k [b, h, sk, dk], v [b, h, sk, dv], optional mask.
FailureOr<Shape> attentionShape(ArrayRef<int64_t> q, ArrayRef<int64_t> k,
                                ArrayRef<int64_t> v,
                                std::optional<ArrayRef<int64_t>> mask,
                                std::string &why);
/// nn.layer_norm: gamma (and beta, when present) shaped as the input's
/// dimensions from `axis`, of which an unbiased variance needs two elements.
FailureOr<Shape> layerNormShape(ArrayRef<int64_t> input,
                                ArrayRef<int64_t> gamma,
                                std::optional<ArrayRef<int64_t>> beta,
                                std::optional<ArrayRef<int64_t>> residual,
                                int64_t axis, bool unbiased, std::string &why);
FailureOr<Shape> fusedMatmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                  std::optional<ArrayRef<int64_t>> bias,
                                  bool transposeRhs, std::string &why);
/// nn.layer_norm_grad: the gradient shaped as the input, gamma as its
/// dimensions from `axis`, two of them at least for an unbiased variance.
mlir::LogicalResult checkLayerNormGrad(ArrayRef<int64_t> grad,
                                       ArrayRef<int64_t> input,
                                       ArrayRef<int64_t> gamma, int64_t axis,
                                       bool unbiased, std::string &why);
/// nn.embedding_grad: grad [..., d] against indices [...] gives [rows, d].
FailureOr<Shape> embeddingGradShape(ArrayRef<int64_t> grad,
                                    ArrayRef<int64_t> indices, int64_t rows,
                                    std::string &why);
/// Checks 0 <= smoothing <= 1.
mlir::LogicalResult checkLabelSmoothing(double smoothing, std::string &why);
/// logits [..., c] against labels [...].
mlir::LogicalResult checkClassification(ArrayRef<int64_t> logits,
                                        ArrayRef<int64_t> labels,
                                        std::string &why);

} // namespace transfuse::nn

#endif // TRANSFUSE_DIALECT_NN_SHAPERULES_H
