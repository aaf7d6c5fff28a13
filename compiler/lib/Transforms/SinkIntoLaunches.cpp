//===- SinkIntoLaunches.cpp - Views and constants into their kernels ------===//
//
// A kernel takes its buffers as bare pointers, which a statically shaped
// buffer of identity layout needs: a function argument, a temporary (a view
// of the arena at some offset) or a reshape of one. The strided views the
// host code takes of them (subviews, transposes), the constants and the
// constant tables a kernel reads are moved into the gpu.launch that uses
// them, where they become address arithmetic, before outlining turns what
// the launch still captures into kernel arguments.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace transfuse {
#define GEN_PASS_DEF_SINKINTOLAUNCHES
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// Whether a kernel can take `type` as a bare pointer: a statically shaped
/// buffer of identity layout (a function argument, a temporary in the arena
/// or a reshape of one).
bool isBarePointerBuffer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() && memref.getLayout().isIdentity();
}

/// Views a kernel cannot take as arguments, constants, constant tables and
/// side-effect-free scalar arithmetic. A view a kernel can take stays a
/// kernel argument: launches of the same code on other buffers (the same
/// glue in every layer) stay one kernel.
bool isSinkable(Operation *op) {
  if (transfuse::buffers::isView(op))
    return !isBarePointerBuffer(op->getResult(0).getType());
  if (isa<memref::GetGlobalOp>(op))
    return true;
  return op->getNumRegions() == 0 && isPure(op) &&
         llvm::none_of(op->getResultTypes(),
                       [](Type type) { return isa<MemRefType>(type); });
}

/// Clones into `launch` the sinkable ops the values it captures come from,
/// transitively, so that it captures their roots instead. (Upstream's
/// sinking keeps an op out when that would add a kernel argument, which is
/// exactly what replacing a view by the buffer it views does.)
void sinkInto(gpu::LaunchOp launch) {
  Region &body = launch.getBody();
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(body, captured);
  OpBuilder b = OpBuilder::atBlockBegin(&body.front());
  IRMapping mapping;
  std::function<Value(Value)> materialize = [&](Value value) -> Value {
    if (Value inside = mapping.lookupOrNull(value))
      return inside;
    Operation *def = value.getDefiningOp();
    if (!def || !isSinkable(def))
      return value;
    for (Value operand : def->getOperands())
      materialize(operand);
    b.clone(*def, mapping);
    return mapping.lookup(value);
  };
  for (Value value : captured)
    if (Value inside = materialize(value); inside != value)
      replaceAllUsesInRegionWith(value, inside, body);
}

struct SinkIntoLaunchesPass
    : transfuse::impl::SinkIntoLaunchesBase<SinkIntoLaunchesPass> {
  void runOnOperation() override {
    getOperation()->walk([&](gpu::LaunchOp launch) { sinkInto(launch); });
  }
};

} // namespace
