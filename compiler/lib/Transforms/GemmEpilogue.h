//===- GemmEpilogue.h - Bias and ReLU after a GEMM, into its call -*- C++ -*-//
//
// nn.fused_matmul's bias and activation reach bufferized IR as an
// elementwise linalg.generic that reads the product and writes a buffer of
// its own: one more pass over the product, and a temporary of its size
// (transformer_small's 51 MB of logits). The runtime's GEMM applies a bias
// and an activation to each tile of C while the tile is in cache, so
// nn-matmul-to-runtime-call hands that op to the call.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_LIB_TRANSFORMS_GEMMEPILOGUE_H
#define TRANSFUSE_LIB_TRANSFORMS_GEMMEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace transfuse::buffers {

/// The runtime GEMM's `activation` argument (docs/artifact.md).
enum class GemmActivation : int32_t { None = 0, Relu = 1 };

/// An elementwise op that a GEMM's call can apply instead.
struct GemmEpilogue {
  mlir::linalg::GenericOp op;
  /// [n], added to every row of the product.
  mlir::Value bias;
  GemmActivation activation = GemmActivation::None;
  /// Where the op writes act(product + bias): the call's C instead.
  mlir::Value output;
};

/// The op after `gemm` (a matmul writing `product`, zeroed by `zeroInit`)
/// that computes output = act(product + bias) with bias [n] broadcast over
/// the rows, act nothing or ReLU, when the call can write that output
/// directly: the product is read by nothing else and dies there, the
/// output is contiguous, is not `lhs` or `rhs` and is not used between the
/// two ops (an allocation of it after `gemm` can move up), and the bias is
/// not used between them either. Nothing otherwise.
std::optional<GemmEpilogue> findGemmEpilogue(mlir::Operation *gemm,
                                             mlir::Operation *zeroInit,
                                             mlir::Value lhs, mlir::Value rhs,
                                             mlir::Value product);

/// Makes `epilogue.output` usable at `gemm`: moves its allocation up when
/// it comes after it.
void hoistEpilogueOutput(const GemmEpilogue &epilogue, mlir::Operation *gemm);

} // namespace transfuse::buffers

#endif // TRANSFUSE_LIB_TRANSFORMS_GEMMEPILOGUE_H
