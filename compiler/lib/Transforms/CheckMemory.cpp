//===- CheckMemory.cpp - Refusing a model too large to run ----------------===//
//
// A spec whose batch is 10^11 imports in milliseconds, since its tensors
// are only types; it would fail at run time, after a long compile. This
// pass estimates the memory at the end of fusion and refuses such a model
// with the estimate and the dims that drive it.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

namespace transfuse {
#define GEN_PASS_DEF_CHECKMEMORY
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;

namespace {

/// `bytes` as "1.5 GiB".
std::string formatBytes(uint64_t bytes) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB",
                                      "TiB",   "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0)
    return std::to_string(bytes) + " bytes";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.1f ", value) << units[unit];
  return text;
}

/// The bytes of a tensor type (0 for other types), saturating.
uint64_t bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  uint64_t bytes = std::max<uint64_t>(tensor.getElementTypeBitWidth() / 8, 1);
  for (int64_t dim : tensor.getShape())
    bytes = llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(dim));
  return bytes;
}

/// The bytes of every op result in `function` and in the functions it
/// calls, each time it calls them.
uint64_t activationBytes(func::FuncOp function) {
  uint64_t total = 0;
  function.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      total = llvm::SaturatingAdd(total, bytesOf(type));
    if (auto call = dyn_cast<func::CallOp>(op))
      if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
              op, call.getCalleeAttr());
          callee && callee != function)
        total = llvm::SaturatingAdd(total, activationBytes(callee));
  });
  return total;
}

/// Parameter-sized tensors a training step keeps per parameter besides the
/// parameter: its gradient and the optimizer's slots.
uint64_t trainingCopies(DictionaryAttr training) {
  auto optimizer = training.getAs<DictionaryAttr>("optimizer");
  if (!optimizer)
    return 1;
  auto kind = optimizer.getAs<StringAttr>("kind");
  if (kind && (kind.getValue() == "adam" || kind.getValue() == "adamw"))
    return 3;
  auto momentum = optimizer.getAs<FloatAttr>("momentum");
  return momentum && momentum.getValueAsDouble() != 0 ? 2 : 1;
}

struct CheckMemoryPass
    : public transfuse::impl::CheckMemoryBase<CheckMemoryPass> {
  using CheckMemoryBase::CheckMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    uint64_t parameters = 0;
    for (auto parameter : module.getOps<nn::ParameterOp>())
      parameters =
          llvm::SaturatingAdd(parameters, bytesOf(parameter.getTensorType()));

    auto training = module->getAttrOfType<DictionaryAttr>("nn.training");
    uint64_t trainingState =
        training
            ? llvm::SaturatingMultiply(parameters, trainingCopies(training))
            : 0;
    uint64_t activations = 0;
    if (auto function =
            module.lookupSymbol<func::FuncOp>(training ? "loss" : "forward"))
      activations = activationBytes(function);
    if (training)
      activations = llvm::SaturatingMultiply(activations, uint64_t(2));

    uint64_t total = llvm::SaturatingAdd(
        llvm::SaturatingAdd(parameters, trainingState), activations);
    if (total <= limitBytes)
      return;
    InFlightDiagnostic diag = module.emitError()
                              << "the model needs an estimated "
                              << formatBytes(total) << " (parameters "
                              << formatBytes(parameters);
    if (training)
      diag << ", gradients and optimizer state " << formatBytes(trainingState);
    diag << ", activations " << formatBytes(activations)
         << "), more than the limit of " << formatBytes(limitBytes);
    if (auto dims = module->getAttrOfType<DictionaryAttr>("nn.dims");
        dims && !dims.empty()) {
      diag << "; its dims:";
      for (NamedAttribute dim : dims)
        if (auto value = dyn_cast<IntegerAttr>(dim.getValue()))
          diag << " " << dim.getName().getValue() << "=" << value.getInt();
    }
    diag << " (smaller ones with -D name=value, or a higher "
            "--memory-limit)";
    signalPassFailure();
  }
};

} // namespace
