//===- OutlineLoops.cpp - One function per top-level loop nest ------------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace transfuse {
#define GEN_PASS_DEF_OUTLINELOOPS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// What a loop nest needs from its function: the ops to clone in with it,
/// in an order where each comes after the ops it uses, and the values to
/// pass as arguments.
struct Captures {
  SetVector<Operation *> cloned;
  SetVector<Value> arguments;
};

/// A value that can cross a call as it is: a buffer of static shape and
/// identity layout (a bare pointer) or a scalar.
bool isPassable(Value value) {
  Type type = value.getType();
  if (auto memref = dyn_cast<MemRefType>(type))
    return memref.hasStaticShape() && memref.getLayout().isIdentity();
  return type.isIntOrIndexOrFloat();
}

/// Clones in region-free ops without side effects (constants, index
/// arithmetic, views) together with what they use; everything else becomes
/// an argument. Fails when an argument cannot be passed.
LogicalResult capture(Value value, Captures &captures) {
  Operation *producer = value.getDefiningOp();
  if (producer && producer->getNumRegions() == 0 && isPure(producer)) {
    if (captures.cloned.contains(producer))
      return success();
    for (Value operand : producer->getOperands())
      if (failed(capture(operand, captures)))
        return failure();
    captures.cloned.insert(producer);
    return success();
  }
  if (!isPassable(value))
    return failure();
  captures.arguments.insert(value);
  return success();
}

FailureOr<Captures> captureFor(Operation *loop) {
  SetVector<Value> used;
  getUsedValuesDefinedAbove(loop->getRegions(), used);
  used.insert(loop->operand_begin(), loop->operand_end());
  Captures captures;
  for (Value value : used)
    if (failed(capture(value, captures)))
      return failure();
  return captures;
}

/// Replaces `loop` with a call to a new function holding it, placed after
/// `previous` (the loop's function or its last outlined loop), and returns
/// that function.
func::FuncOp outline(Operation *loop, const Captures &captures, StringRef name,
                     Operation *previous, SymbolTable &symbols) {
  OpBuilder b(loop->getContext());
  b.setInsertionPointAfter(previous);
  SmallVector<Value> arguments(captures.arguments.getArrayRef());
  auto function = func::FuncOp::create(
      b, loop->getLoc(), name,
      b.getFunctionType(ValueRange(arguments).getTypes(), {}));
  function.setPrivate();
  symbols.insert(function);

  Block *body = function.addEntryBlock();
  b.setInsertionPointToEnd(body);
  IRMapping mapping;
  mapping.map(arguments, body->getArguments());
  for (Operation *op : captures.cloned)
    b.clone(*op, mapping);
  b.clone(*loop, mapping);
  func::ReturnOp::create(b, loop->getLoc());

  b.setInsertionPoint(loop);
  auto call = func::CallOp::create(b, loop->getLoc(), function, arguments);
  // Inlined back, the loop would be in the long function again.
  call.setNoInline(true);
  loop->erase();
  // What was cloned in and has no other use here goes.
  for (Operation *op : llvm::reverse(captures.cloned))
    if (op->use_empty())
      op->erase();
  return function;
}

struct OutlineLoopsPass : transfuse::impl::OutlineLoopsBase<OutlineLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      unsigned count = 0;
      Operation *previous = func;
      for (Operation &op :
           llvm::make_early_inc_range(func.getBody().getOps())) {
        if (op.getNumRegions() == 0 || op.getNumResults() != 0)
          continue;
        FailureOr<Captures> captures = captureFor(&op);
        if (failed(captures))
          continue;
        std::string name = (func.getSymName() + ".loop" + Twine(count++)).str();
        previous = outline(&op, *captures, name, previous, symbols);
      }
    }
  }
};

} // namespace
