//===- Pipeline.h - The compilation phases --------------------------------===//
#ifndef TRANSFUSE_PIPELINE_PIPELINE_H
#define TRANSFUSE_PIPELINE_PIPELINE_H

#include "transfuse/Import/Importer.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

namespace transfuse {

/// The phases of the pipeline in order; each one's output can be printed.
enum class Phase {
  /// The spec expanded into primitive nn ops.
  Import,
  /// Verified, canonicalized (constants folded), common subexpressions
  /// eliminated.
  Graph,
  /// Attention, layer norm, q/k/v projections and matmul epilogues fused,
  /// with canonicalization in between, to a fixed point.
  Fuse,
  /// For a model that trains: `loss_and_grads`, the loss and every
  /// parameter's gradient, built by reverse-mode differentiation, then
  /// simplified and fused like the forward pass.
  Autodiff,
  /// For a model that trains: `train_step`, the gradients clipped and the
  /// optimizer's update stored in place.
  Optimizer,
  /// Parameters as arguments, lowered to linalg, elementwise chains fused,
  /// bufferized with results as out-parameters, matmuls on the runtime's
  /// GEMM, buffers freed after their last use.
  Plan,
  /// Loops, then the LLVM dialect with bare-pointer calling convention.
  Codegen,
};

llvm::ArrayRef<Phase> allPhases();
llvm::StringRef phaseName(Phase phase);
std::optional<Phase> parsePhase(llvm::StringRef name);

/// Runs the phases after import, up to and including `last`, on `module`,
/// honouring MLIR's pass-manager command-line options (IR printing, timing).
/// `afterPhase` sees the module after import and after each later phase.
mlir::LogicalResult runPipeline(
    mlir::ModuleOp module, Phase last,
    llvm::function_ref<mlir::LogicalResult(Phase, mlir::ModuleOp)> afterPhase);

/// A human-readable account of a module: inputs, outputs, the layers it was
/// imported from, every parameter with its shape and init, and how many ops
/// of each kind each function has.
void printSummary(mlir::ModuleOp module, llvm::ArrayRef<ImportedLayer> layers,
                  llvm::raw_ostream &os);

} // namespace transfuse

#endif // TRANSFUSE_PIPELINE_PIPELINE_H
