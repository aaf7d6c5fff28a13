//===- Artifact.h - What a .tfm holds and how it is written ---------------===//
//
// docs/artifact.md defines the format. The description is taken from the
// module after the optimizer phase, before parameters become arguments.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_BACKEND_ARTIFACT_H
#define TRANSFUSE_BACKEND_ARTIFACT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace transfuse {

struct TensorInfo {
  std::string name;
  std::string dtype;
  llvm::SmallVector<int64_t> shape;
  /// For integer inputs used as ids: the largest valid id.
  std::optional<int64_t> maxValue;
  /// For class labels: the value the loss skips (its ignore_index), valid
  /// besides [0, maxValue].
  std::optional<int64_t> ignoreValue;
};

struct ParameterInfo {
  std::string name;
  llvm::SmallVector<int64_t> shape;
  std::string initKind;
  double a = 0.0, b = 0.0;
};

struct EntryPointInfo {
  std::string name;
  /// The state tensors it updates in place with the parameters (train_step).
  std::vector<std::string> state;
  /// The decoding cache tensors it reads and updates in place (prefill,
  /// decode_step).
  std::vector<std::string> cache;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  /// CUDA: the bytes of the arena its temporaries are planned in.
  std::optional<int64_t> arenaBytes;
};

/// One image of a CUDA artifact's kernels, exported by the code as
/// `symbol`.
struct CUDAImageInfo {
  std::string arch; // "sm_90" (cubin) or "compute_90" (PTX)
  bool ptx = false;
  std::string symbol;
  std::string bytes;
};

/// The manifest's `cuda` section.
struct CUDAInfo {
  std::vector<std::string> archs;
  std::vector<CUDAImageInfo> images;
  /// The generated kernels in tfrt_cuda_launch's numbering.
  std::vector<std::string> kernels;
  /// Device memory for the library calls (cuBLASLt's workspace).
  int64_t workspaceBytes = 0;
  /// The arithmetic of the GEMMs (cuBLASLt): "f32", IEEE fp32 throughout,
  /// or "tf32", inputs rounded to TF32 on tensor cores, fp32 accumulation.
  std::string precision = "f32";
};

struct ArtifactInfo {
  std::string model;
  std::string target;
  std::string cpu;
  std::vector<ParameterInfo> parameters;
  /// Optimizer state (zero at first).
  std::vector<TensorInfo> state;
  /// The decoding cache (zero at first, never saved).
  std::vector<TensorInfo> cache;
  std::vector<EntryPointInfo> entryPoints;
  /// The manifest's `training` object, for a model that trains.
  std::optional<llvm::json::Object> training;
  /// Target "cuda": its kernels and device memory.
  std::optional<CUDAInfo> cuda;
};

/// Parameters, state and the entry points (`forward`, and `loss`,
/// `loss_and_grads` and `train_step` when present) of a module in nn form.
mlir::FailureOr<ArtifactInfo> describeArtifact(mlir::ModuleOp module);

/// The manifest JSON of `info`.
std::string renderManifest(const ArtifactInfo &info);

/// Writes the container with `code` (a shared object) atomically.
mlir::LogicalResult writeArtifact(llvm::StringRef path,
                                  const ArtifactInfo &info,
                                  llvm::StringRef code, std::string &error);

/// FNV-1a 64 of `bytes`: the container's checksum.
uint64_t fnv1a64(llvm::StringRef bytes);

} // namespace transfuse

#endif // TRANSFUSE_BACKEND_ARTIFACT_H
