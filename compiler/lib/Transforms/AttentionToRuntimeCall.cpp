//===- AttentionToRuntimeCall.cpp - nn.attention_into to the kernel ------===//
//
// Bufferized attention runs on the runtime's fused kernel,
// tfrt_attention_f32, which takes every operand as a pointer and strides.
// That lets the head-splitting transposes around attention become views:
// a buffer written only by a transpose and read only by the kernel is
// replaced by a transposed view of the transpose's source, and the kernel
// writes straight through a transposed view into the buffer its result was
// copied to. Both keep the last dimension in place, which the kernel needs
// contiguous.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace transfuse {
#define GEN_PASS_DEF_ATTENTIONTORUNTIMECALL
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse::buffers;
using transfuse::nn::AttentionIntoOp;

namespace {

constexpr llvm::StringLiteral kAttention = "tfrt_attention_f32";
constexpr int64_t kRank = 4;

/// A transpose that keeps the last dimension, the form the kernel can read
/// through strides.
bool keepsLastDim(linalg::TransposeOp transpose) {
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  return permutation.back() == int64_t(permutation.size()) - 1;
}

/// A transposed view of `source` (permutation as linalg.transpose spells
/// it: result dim i is source dim permutation[i]).
Value transposedView(OpBuilder &b, Location loc, Value source,
                     ArrayRef<int64_t> permutation) {
  SmallVector<unsigned> dims(permutation.begin(), permutation.end());
  AffineMap map = AffineMap::getPermutationMap(dims, b.getContext());
  return memref::TransposeOp::create(b, loc, source, AffineMapAttr::get(map));
}

/// Whether `op` overwrites all of `buffer` without reading it first.
bool overwritesWhole(Operation *op, Value buffer) {
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return copy.getTarget() == buffer && copy.getSource() != buffer;
  if (auto attention = dyn_cast<AttentionIntoOp>(op))
    return attention.getOut() == buffer &&
           llvm::count(op->getOperands(), buffer) == 1;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
      linalgOp.getNumDpsInits() != 1 || linalgOp.getDpsInits()[0] != buffer)
    return false;
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  return !linalgOp.payloadUsesValueFromOperand(init) &&
         linalgOp.getNumLoops() == linalgOp.getNumParallelLoops() &&
         llvm::count(op->getOperands(), buffer) == 1;
}

/// The last op before `op` in its block that touches `aliases` (views
/// aside), or null.
Operation *lastToucherBefore(Operation *op, const Aliases &aliases) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (touches(prev, aliases) && !isa<ViewLikeOpInterface>(prev))
      return prev;
  return nullptr;
}

/// The first op after `op` in its block that touches `aliases` (views
/// aside), or null.
Operation *firstToucherAfter(Operation *op, const Aliases &aliases) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (touches(next, aliases) && !isa<ViewLikeOpInterface>(next))
      return next;
  return nullptr;
}

/// If `operand` is a buffer that a transpose has just filled for `op`
/// alone (the next access after `op` overwrites it, or there is none),
/// reads the transpose's source through a view instead and drops the copy.
/// Buffers are shared: one-shot bufferization reuses a buffer for the same
/// transpose in every layer.
void absorbInputTranspose(AttentionIntoOp op, OpOperand &operand) {
  Value buffer = operand.get();
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || llvm::count(op->getOperands(), buffer) != 1)
    return;
  Aliases aliases = aliasesOf(buffer);
  auto transpose =
      dyn_cast_or_null<linalg::TransposeOp>(lastToucherBefore(op, aliases));
  if (!transpose || transpose.getInit() != buffer || !keepsLastDim(transpose))
    return;
  Operation *next = firstToucherAfter(op, aliases);
  if (next && !overwritesWhole(next, buffer))
    return;
  // The source must still hold what the transpose read when op runs.
  Value source = transpose.getInput();
  if (touchedBetween(transpose, op, aliasesOf(source), /*writesOnly=*/true))
    return;
  OpBuilder b(op);
  operand.set(
      transposedView(b, op.getLoc(), source, transpose.getPermutation()));
  transpose.erase();
  if (alloc->use_empty())
    alloc.erase();
}

/// If op's result buffer is only copied by a transpose into another buffer,
/// writes that buffer directly through the inverse-transposed view.
void absorbOutputTranspose(AttentionIntoOp op) {
  auto alloc = op.getOut().getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return;
  linalg::TransposeOp transpose;
  for (Operation *user : alloc->getUsers()) {
    auto candidate = dyn_cast<linalg::TransposeOp>(user);
    if (candidate && candidate.getInput() == alloc.getResult() && !transpose)
      transpose = candidate;
    else if (user != op.getOperation())
      return;
  }
  if (!transpose || !keepsLastDim(transpose) ||
      transpose->getBlock() != op->getBlock() || op->isBeforeInBlock(alloc) ||
      !op->isBeforeInBlock(transpose))
    return;
  // The destination is written earlier than before: nothing in between may
  // read or write it, and it must exist by then.
  Value target = transpose.getInit();
  if (touchedBetween(op, transpose, aliasesOf(target), /*writesOnly=*/false))
    return;
  Operation *targetDef = target.getDefiningOp();
  if (targetDef && !targetDef->isBeforeInBlock(op)) {
    auto targetAlloc = dyn_cast<memref::AllocOp>(targetDef);
    if (!targetAlloc || targetAlloc->getNumOperands() != 0 ||
        targetAlloc->getBlock() != op->getBlock())
      return;
    targetAlloc->moveBefore(op);
  } else if (!targetDef &&
             cast<BlockArgument>(target).getOwner() != op->getBlock()) {
    return;
  }
  SmallVector<int64_t> inverse(transpose.getPermutation().size());
  for (auto [i, p] : llvm::enumerate(transpose.getPermutation()))
    inverse[p] = i;
  OpBuilder b(op);
  op.getOutMutable().set(transposedView(b, op.getLoc(), target, inverse));
  transpose.erase();
  alloc.erase();
}

func::FuncOp declareKernel(ModuleOp module) {
  MLIRContext *context = module.getContext();
  Type i64 = IntegerType::get(context, 64), i32 = IntegerType::get(context, 32);
  Type f32 = Float32Type::get(context);
  Type ptr = LLVM::LLVMPointerType::get(context);
  SmallVector<Type> arguments(6, i64); // batch, heads, sq, sk, dk, dv
  for (int i = 0; i < 3; ++i)          // q, k, v and their strides
    arguments.append({ptr, i64, i64, i64});
  arguments.append({ptr, i32, i64, i64, i64, i64}); // the mask
  arguments.append({f32, i32, f32});                // scale, causal, fill
  arguments.append({ptr, i64, i64, i64});           // out
  return declareRuntimeFunction(module, kAttention,
                                FunctionType::get(context, arguments, {}));
}

/// The strides of `memref` as i64 values, outermost first.
SmallVector<Value> stridesOf(OpBuilder &b, Location loc, Value memref) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  SmallVector<Value> strides;
  for (Value stride : metadata.getStrides())
    strides.push_back(
        arith::IndexCastOp::create(b, loc, b.getI64Type(), stride));
  return strides;
}

bool hasContiguousLastDim(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

LogicalResult lower(AttentionIntoOp op, func::FuncOp kernel) {
  SmallVector<Value> tensors = {op.getQuery(), op.getKey(), op.getValue(),
                                op.getOut()};
  for (Value value : tensors) {
    auto type = cast<MemRefType>(value.getType());
    if (!type.getElementType().isF32() || type.getRank() != kRank)
      return op.emitOpError("the runtime kernel takes rank-4 f32 buffers, "
                            "got ")
             << type;
    if (!hasContiguousLastDim(value))
      return op.emitOpError("the runtime kernel needs a contiguous last "
                            "dimension, got ")
             << type;
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  auto i32 = [&](int32_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  auto f32 = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  auto shapeOf = [](Value v) {
    return cast<MemRefType>(v.getType()).getShape();
  };
  ArrayRef<int64_t> q = shapeOf(op.getQuery()), k = shapeOf(op.getKey()),
                    v = shapeOf(op.getValue());
  SmallVector<Value> arguments = {i64(q[0]), i64(q[1]), i64(q[2]),
                                  i64(k[2]), i64(q[3]), i64(v[3])};
  auto appendTensor = [&](Value memref) {
    arguments.push_back(pointerOf(b, loc, memref));
    SmallVector<Value> strides = stridesOf(b, loc, memref);
    arguments.append(strides.begin(), strides.begin() + kRank - 1);
  };
  appendTensor(op.getQuery());
  appendTensor(op.getKey());
  appendTensor(op.getValue());

  // The mask broadcasts to [b, h, sq, sk]: its dims align right, and a
  // missing or size-1 dim repeats (stride 0).
  Value mask = op.getMask();
  if (!mask) {
    arguments.push_back(LLVM::ZeroOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext())));
    arguments.push_back(i32(0));
    arguments.append(kRank, i64(0));
  } else {
    auto type = cast<MemRefType>(mask.getType());
    bool bytes = type.getElementType().isInteger(1);
    if (!bytes && !type.getElementType().isF32())
      return op.emitOpError("the runtime kernel takes an i1 or f32 mask, got ")
             << type;
    arguments.push_back(pointerOf(b, loc, mask));
    arguments.push_back(i32(bytes ? 1 : 2));
    SmallVector<Value> strides = stridesOf(b, loc, mask);
    int64_t missing = kRank - type.getRank();
    for (int64_t dim = 0; dim < kRank; ++dim) {
      int64_t own = dim - missing;
      bool repeats = own < 0 || type.getDimSize(own) == 1;
      arguments.push_back(repeats ? i64(0) : strides[own]);
    }
  }
  double fill = op.getHiddenScoreFill();
  arguments.append({f32(op.getScale().convertToDouble()),
                    i32(op.getCausal() ? 1 : 0), f32(fill)});
  appendTensor(op.getOut());
  func::CallOp::create(b, loc, kernel, arguments);
  op.erase();
  return success();
}

struct AttentionToRuntimeCallPass
    : transfuse::impl::AttentionToRuntimeCallBase<AttentionToRuntimeCallPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<AttentionIntoOp> ops;
    module.walk([&](AttentionIntoOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    func::FuncOp kernel = declareKernel(module);
    for (AttentionIntoOp op : ops) {
      for (OpOperand *operand :
           {&op.getQueryMutable(), &op.getKeyMutable(), &op.getValueMutable()})
        absorbInputTranspose(op, *operand);
      absorbOutputTranspose(op);
      if (failed(lower(op, kernel)))
        return signalPassFailure();
    }
  }
};

} // namespace
