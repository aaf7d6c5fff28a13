//===- TrainingSettings.h - The nn.training settings, checked ---*- C++ -*-===//
#ifndef TRANSFUSE_LIB_TRANSFORMS_TRAININGSETTINGS_H
#define TRANSFUSE_LIB_TRANSFORMS_TRAININGSETTINGS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace transfuse {

/// The module's `nn.training` settings that the training step needs, with
/// PyTorch's defaults for those left out.
struct TrainingSettings {
  std::string optimizer, schedule;
  double lr = 0, momentum = 0, weightDecay = 0, beta1 = 0.9, beta2 = 0.999,
         eps = 1e-8, minLr = 0, clip = 0;
  bool nesterov = false;
  int64_t warmup = 0, total = 0, seed = 0;

  /// Reads the settings of `module`, checking that each has its type and
  /// a value torch.optim accepts; an error names the field.
  static mlir::FailureOr<TrainingSettings> read(mlir::ModuleOp module);

  /// The state tensors each parameter's update keeps.
  llvm::SmallVector<llvm::StringRef, 2> stateKinds() const;
};

} // namespace transfuse

#endif // TRANSFUSE_LIB_TRANSFORMS_TRAININGSETTINGS_H
