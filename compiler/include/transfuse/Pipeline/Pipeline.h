//===- Pipeline.h - The compilation phases --------------------------------===//
#ifndef TRANSFUSE_PIPELINE_PIPELINE_H
#define TRANSFUSE_PIPELINE_PIPELINE_H

#include "transfuse/Import/Importer.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

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
  /// bufferized with results as out-parameters, matmuls and the other
  /// kernels the runtime provides as calls. On the CPU buffers are freed
  /// after their last use; for CUDA they are views of one arena planned
  /// from their lifetimes.
  Plan,
  /// CUDA only: every loop nest left becomes a GPU kernel, outlined into a
  /// `gpu.module` and launched from the host function.
  Kernels,
  /// CPU: loops, then the LLVM dialect with bare-pointer calling convention.
  /// CUDA: the kernels in NVVM and PTX (a `gpu.binary`), the host functions
  /// in the LLVM dialect, calling the runtime to launch them.
  Codegen,
};

/// The target the phases after plan generate code for.
struct Target {
  enum class Kind { CPU, CUDA };
  Kind kind = Kind::CPU;
  /// CUDA: the architectures the kernels are compiled for ("sm_80", ...)
  /// and the toolkit (libdevice, ptxas).
  std::vector<std::string> cudaArchs;
  std::string cudaToolkit;
  /// CUDA: the GEMMs' arithmetic, "f32" or "tf32" (CUDAInfo::precision).
  std::string cudaPrecision = "f32";
  /// The most bytes the model may need to run (nn-check-memory's estimate,
  /// checked after fusion).
  uint64_t memoryLimit = uint64_t(64) << 30;
  /// Data-parallel training (nn-data-parallel): the gradients are averaged
  /// over the processes of the run in all-reduces of this many bytes; 0
  /// leaves the step single-process.
  int64_t allReduceBucketBytes = 0;
};

/// The phases of `target`, in order.
llvm::ArrayRef<Phase> allPhases(Target::Kind target);
llvm::StringRef phaseName(Phase phase);
/// The phase `name` of `target`; none if there is no such phase.
std::optional<Phase> parsePhase(llvm::StringRef name, Target::Kind target);

/// Runs the phases of `target` after import, up to and including `last`,
/// on `module`, honouring MLIR's pass-manager command-line options (IR
/// printing, timing). `afterPhase` sees the module after import and after
/// each later phase.
mlir::LogicalResult runPipeline(
    mlir::ModuleOp module, Phase last, const Target &target,
    llvm::function_ref<mlir::LogicalResult(Phase, mlir::ModuleOp)> afterPhase);

/// A human-readable account of a module: inputs, outputs, the layers it was
/// imported from, every parameter with its shape and init, and how many ops
/// of each kind each function has.
void printSummary(mlir::ModuleOp module, llvm::ArrayRef<ImportedLayer> layers,
                  llvm::raw_ostream &os);

} // namespace transfuse

#endif // TRANSFUSE_PIPELINE_PIPELINE_H
