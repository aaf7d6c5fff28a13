//===- ScalarsToTensors.cpp - Host scalar arithmetic as 0-d tensor ops ----===//
//
// The optimizer computes a few scalars from tensors: the dropout seed from
// the step, the learning rate of the schedule, Adam's bias corrections.
// Written as tensor.extract and arith on the host, they are host code
// reading device memory, which the CUDA target cannot run. This pass
// rewrites each such computation as linalg.generic ops on 0-d tensors,
// which run as kernels: a value extracted from a tensor, and every scalar
// computed from one, gets a 0-d tensor holding it. Its uses then read that
// tensor instead: tensor.from_elements becomes the tensor itself, a use
// inside a region (a linalg body) extracts it there, inside the kernel, and
// linalg.fill of it becomes a broadcast.
//===----------------------------------------------------------------------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace transfuse {
#define GEN_PASS_DEF_SCALARSTOTENSORS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

/// A 0-d tensor holding the element of `tensor` at the constant `indices`.
FailureOr<Value> elementAsTensor(OpBuilder &b, tensor::ExtractOp extract) {
  auto type = cast<RankedTensorType>(extract.getTensor().getType());
  if (type.getRank() == 0)
    return extract.getTensor();
  SmallVector<OpFoldResult> offsets;
  for (Value index : extract.getIndices()) {
    auto constant = index.getDefiningOp<arith::ConstantIndexOp>();
    if (!constant)
      return failure();
    offsets.push_back(b.getIndexAttr(constant.value()));
  }
  Location loc = extract.getLoc();
  SmallVector<OpFoldResult> ones(type.getRank(), b.getIndexAttr(1));
  auto slice = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({}, type.getElementType()),
      extract.getTensor(), offsets, ones, ones);
  return slice.getResult();
}

/// `op` (pure, scalar results) computed by a linalg.generic on the 0-d
/// tensors of its device-scalar operands.
Value scalarOpAsTensor(OpBuilder &b, Operation *op,
                       const llvm::MapVector<Value, Value> &tensors) {
  Location loc = op->getLoc();
  SmallVector<Value> inputs, scalarOperands;
  for (Value operand : op->getOperands())
    if (Value tensor = tensors.lookup(operand)) {
      inputs.push_back(tensor);
      scalarOperands.push_back(operand);
    }
  Type resultType = op->getResult(0).getType();
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, resultType);
  AffineMap scalarMap = AffineMap::get(0, 0, b.getContext());
  SmallVector<AffineMap> maps(inputs.size() + 1, scalarMap);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, init, maps, {},
      [&](OpBuilder &inner, Location at, ValueRange args) {
        IRMapping mapping;
        for (auto [operand, arg] : llvm::zip(scalarOperands, args))
          mapping.map(operand, arg);
        Operation *clone = inner.clone(*op, mapping);
        linalg::YieldOp::create(inner, at, clone->getResult(0));
      });
  return generic.getResult(0);
}

/// Makes the uses of device scalar `scalar` read its 0-d tensor `tensor`.
void redirectUses(Value scalar, Value tensor) {
  for (OpOperand &use : llvm::make_early_inc_range(scalar.getUses())) {
    Operation *user = use.getOwner();
    Block *top = tensor.getParentBlock();
    Operation *topUser = top->findAncestorOpInBlock(*user);
    if (topUser && topUser != user) {
      // Inside a region: extract it there, where the kernel runs.
      OpBuilder b(user);
      use.set(
          tensor::ExtractOp::create(b, user->getLoc(), tensor, ValueRange()));
      continue;
    }
    if (auto elements = dyn_cast<tensor::FromElementsOp>(user);
        elements && elements.getType().getRank() == 0) {
      elements.replaceAllUsesWith(tensor);
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(user);
        fill && fill.hasPureTensorSemantics()) {
      OpBuilder b(fill);
      auto outType = cast<RankedTensorType>(fill.getResult(0).getType());
      SmallVector<AffineMap> maps = {
          AffineMap::get(outType.getRank(), 0, b.getContext()),
          b.getMultiDimIdentityMap(outType.getRank())};
      SmallVector<utils::IteratorType> iterators(outType.getRank(),
                                                 utils::IteratorType::parallel);
      auto broadcast = linalg::GenericOp::create(
          b, fill.getLoc(), outType, tensor, fill.getOutputs()[0], maps,
          iterators, [](OpBuilder &inner, Location at, ValueRange args) {
            linalg::YieldOp::create(inner, at, args[0]);
          });
      fill.getResult(0).replaceAllUsesWith(broadcast.getResult(0));
      continue;
    }
  }
}

/// Whether `op` is scalar arithmetic this pass can move into a kernel.
bool isScalarArithmetic(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumResults() == 1 && isPure(op) &&
         isScalar(op->getResult(0).getType()) &&
         llvm::all_of(op->getOperandTypes(), isScalar);
}

LogicalResult convertFunction(func::FuncOp function) {
  // Device scalar -> its 0-d tensor, in program order, so that the uses
  // are rewritten in the same order every time.
  llvm::MapVector<Value, Value> tensors;
  SmallVector<Operation *> tops;
  for (Operation &op : function.getBody().front())
    tops.push_back(&op);
  for (Operation *op : tops) {
    OpBuilder b(op);
    Value tensor;
    if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      FailureOr<Value> element = elementAsTensor(b, extract);
      if (failed(element))
        return extract.emitOpError(
            "reads a tensor element at a computed index on the host: the "
            "CUDA target keeps tensors on the device");
      tensor = *element;
    } else if (isScalarArithmetic(op) &&
               llvm::any_of(op->getOperands(), [&](Value operand) {
                 return tensors.count(operand);
               })) {
      tensor = scalarOpAsTensor(b, op, tensors);
    } else {
      continue;
    }
    tensors[op->getResult(0)] = tensor;
  }
  for (auto [scalar, tensor] : tensors)
    redirectUses(scalar, tensor);
  return success();
}

struct ScalarsToTensorsPass
    : transfuse::impl::ScalarsToTensorsBase<ScalarsToTensorsPass> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal() && failed(convertFunction(function)))
        return signalPassFailure();
  }
};

} // namespace
