//===- BufferUtils.cpp - Buffer queries of the runtime-call passes --------===//
#include "BufferUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace transfuse::buffers {

bool isView(Operation *op) {
  return isa<ViewLikeOpInterface, memref::TransposeOp>(op);
}

Value viewSource(Operation *op) {
  if (auto transpose = dyn_cast<memref::TransposeOp>(op))
    return transpose.getIn();
  return cast<ViewLikeOpInterface>(op).getViewSource();
}

namespace {

/// Where a memref's elements live: the buffer it is ultimately a view of (a
/// function argument, an allocation, a global), and, when it is one slice
/// of that buffer made by memref.view (the arena's temporaries), that
/// slice, whose byte offset is then relative to the root. A slice of a
/// slice is not kept: its offset is not.
struct Place {
  Value root;
  memref::ViewOp slice;
};

Place placeOf(Value memref) {
  Place place{memref, nullptr};
  int slices = 0;
  while (Operation *op = place.root.getDefiningOp()) {
    if (!isView(op))
      break;
    if (auto slice = dyn_cast<memref::ViewOp>(op)) {
      place.slice = slice;
      ++slices;
    }
    place.root = viewSource(op);
  }
  if (slices > 1)
    place.slice = nullptr;
  return place;
}

/// The bytes [begin, end) `slice` covers, when its offset and shape are
/// static.
std::optional<std::pair<int64_t, int64_t>> bytesOf(memref::ViewOp slice) {
  auto offset = slice.getByteShift().getDefiningOp<arith::ConstantIndexOp>();
  MemRefType type = slice.getType();
  if (!offset || !type.hasStaticShape() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  int64_t begin = offset.value();
  return std::make_pair(begin, begin + type.getNumElements() *
                                           type.getElementTypeBitWidth() / 8);
}

bool disjoint(const Place &a, const Place &b) {
  if (a.root != b.root)
    return true;
  if (!a.slice || !b.slice)
    return false;
  auto x = bytesOf(a.slice), y = bytesOf(b.slice);
  return x && y && (x->second <= y->first || y->second <= x->first);
}

} // namespace

bool certainlyDisjoint(Value a, Value b) {
  return disjoint(placeOf(a), placeOf(b));
}

Aliases aliasesOf(Value buffer) {
  Value root = buffer;
  while (root.getDefiningOp() && isView(root.getDefiningOp()))
    root = viewSource(root.getDefiningOp());
  Aliases aliases;
  SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!aliases.insert(value).second)
      continue;
    for (Operation *user : value.getUsers())
      if (isView(user) && viewSource(user) == value)
        llvm::append_range(worklist, user->getResults());
  }
  return aliases;
}

bool touches(Operation *op, const Aliases &aliases) {
  WalkResult result = op->walk([&](Operation *nested) {
    return llvm::any_of(
               nested->getOperands(),
               [&](Value operand) { return aliases.contains(operand); })
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

bool mayWrite(Operation *op, const Aliases &aliases) {
  if (!touches(op, aliases) || isView(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect()) &&
           (!e.getValue() || aliases.contains(e.getValue()));
  });
}

bool touchedBetween(Operation *from, Operation *to, const Aliases &aliases,
                    bool writesOnly) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (writesOnly ? mayWrite(op, aliases)
                   : touches(op, aliases) && !isView(op))
      return true;
  return false;
}

Value throughIdentity(Value index) {
  auto apply = index.getDefiningOp<affine::AffineApplyOp>();
  if (apply && apply.getAffineMap().isIdentity() &&
      apply.getAffineMap().getNumDims() == 1)
    return apply.getOperand(0);
  return index;
}

bool isDenseRowMajor(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    if (type.getDimSize(dim) != 1 && strides[dim] != expected)
      return false;
    expected *= type.getDimSize(dim);
  }
  return true;
}

Value addressOf(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  if (!type.getLayout().isIdentity()) {
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    unsigned bits = type.getElementTypeBitWidth();
    Value elementBytes =
        arith::ConstantIndexOp::create(b, loc, std::max(bits / 8, 1u));
    Value offset =
        arith::MulIOp::create(b, loc, metadata.getOffset(), elementBytes);
    address = arith::AddIOp::create(b, loc, address, offset);
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
}

Value pointerOf(OpBuilder &b, Location loc, Value memref) {
  return LLVM::IntToPtrOp::create(b, loc,
                                  LLVM::LLVMPointerType::get(b.getContext()),
                                  addressOf(b, loc, memref));
}

std::string runtimeName(StringRef kernel, RuntimeTarget target) {
  return ((target == RuntimeTarget::CUDA ? "tfrt_cuda_" : "tfrt_") + kernel)
      .str();
}

func::FuncOp declareRuntimeFunction(ModuleOp module, StringRef name,
                                    FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto function = func::FuncOp::create(b, module.getLoc(), name, type);
  function.setPrivate();
  return function;
}

} // namespace transfuse::buffers
