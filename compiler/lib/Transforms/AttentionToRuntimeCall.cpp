//===- AttentionToRuntimeCall.cpp - Attention ops to the runtime kernels --===//
//
// Bufferized attention runs on the runtime's fused kernels:
// tfrt_attention_f32 for nn.attention_into, and the training pair
// tfrt_attention_stats_f32 and tfrt_attention_backward_f32 for
// nn.attention_stats_into and nn.attention_grad_into. Each takes every
// operand as a pointer and strides. For the CUDA target the same ops call
// the tfrt_cuda_ kernels, which take the dropout seed as a pointer (it is
// in device memory, where the host code cannot read it) and the backward a
// scratch buffer for its row statistics.
// That lets the head-splitting transposes around attention become views:
// a buffer written only by a transpose and read only by kernels (training
// reads q, k and v in the forward and again in the backward) is replaced by
// a transposed view of the transpose's source, and the kernel writes
// straight through a transposed view into the buffer its result was copied
// to. Both keep the last dimension in place, which the kernel needs
// contiguous.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"
#include "transfuse/Transforms/Replica.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <type_traits>

namespace transfuse {
#define GEN_PASS_DEF_ATTENTIONTORUNTIMECALL
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse::buffers;
using transfuse::nn::AttentionGradIntoOp;
using transfuse::nn::AttentionIntoOp;
using transfuse::nn::AttentionStatsIntoOp;

namespace {

constexpr llvm::StringLiteral kAttention = "attention_f32";
constexpr llvm::StringLiteral kAttentionStats = "attention_stats_f32";
constexpr llvm::StringLiteral kAttentionBackward = "attention_backward_f32";
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
    if (touches(prev, aliases) && !isView(prev))
      return prev;
  return nullptr;
}

/// The first op after `op` in its block that touches `aliases` (views
/// aside), or null.
Operation *firstToucherAfter(Operation *op, const Aliases &aliases) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (touches(next, aliases) && !isView(next))
      return next;
  return nullptr;
}

/// The operands an attention kernel op reads through strides: q, k and v,
/// and the backward's forward result and its gradient.
SmallVector<OpOperand *, 5> stridedInputs(Operation *op) {
  if (auto attention = dyn_cast<AttentionIntoOp>(op))
    return {&attention.getQueryMutable(), &attention.getKeyMutable(),
            &attention.getValueMutable()};
  if (auto stats = dyn_cast<AttentionStatsIntoOp>(op))
    return {&stats.getQueryMutable(), &stats.getKeyMutable(),
            &stats.getValueMutable()};
  if (auto grad = dyn_cast<AttentionGradIntoOp>(op))
    return {&grad.getQueryMutable(), &grad.getKeyMutable(),
            &grad.getValueMutable(), &grad.getOutMutable(),
            &grad.getGradMutable()};
  return {};
}

/// The operands through which `op` reads `buffer`, if it is an attention
/// kernel that reads it through strides and in no other way; none
/// otherwise.
SmallVector<OpOperand *> stridedReads(Operation *op, Value buffer) {
  SmallVector<OpOperand *> reads;
  for (OpOperand *input : stridedInputs(op))
    if (input->get() == buffer)
      reads.push_back(input);
  if (reads.size() !=
      static_cast<size_t>(llvm::count(op->getOperands(), buffer)))
    return {};
  return reads;
}

/// The operands through which the ops after `transpose` read the buffer it
/// fills, if each one until the buffer is overwritten whole (or never again
/// touched) is an attention kernel reading it through strides; none
/// otherwise.
SmallVector<OpOperand *> attentionReaders(linalg::TransposeOp transpose,
                                          Value buffer,
                                          const Aliases &aliases) {
  SmallVector<OpOperand *> readers;
  for (Operation *next = firstToucherAfter(transpose, aliases); next;
       next = firstToucherAfter(next, aliases)) {
    if (overwritesWhole(next, buffer))
      break;
    SmallVector<OpOperand *> reads = stridedReads(next, buffer);
    if (reads.empty())
      return {};
    readers.append(reads);
  }
  return readers;
}

/// If `operand` is a buffer that a transpose has just filled for attention
/// kernels alone (the training step's forward and backward both read q, k
/// and v), they read the transpose's source through a view instead and the
/// copy is dropped. The source must hold what the transpose read until the
/// last of them runs. Buffers are shared: one-shot bufferization reuses a
/// buffer for the same transpose in every layer.
void absorbInputTranspose(Operation *op, OpOperand &operand) {
  Value buffer = operand.get();
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return;
  Aliases aliases = aliasesOf(buffer);
  auto transpose =
      dyn_cast_or_null<linalg::TransposeOp>(lastToucherBefore(op, aliases));
  if (!transpose || transpose.getInit() != buffer || !keepsLastDim(transpose))
    return;
  SmallVector<OpOperand *> readers =
      attentionReaders(transpose, buffer, aliases);
  if (readers.empty())
    return;
  Value source = transpose.getInput();
  if (touchedBetween(transpose, readers.back()->getOwner(), aliasesOf(source),
                     /*writesOnly=*/true))
    return;
  OpBuilder b(transpose);
  Value view =
      transposedView(b, op->getLoc(), source, transpose.getPermutation());
  for (OpOperand *reader : readers)
    reader->set(view);
  transpose.erase();
  if (alloc->use_empty())
    alloc.erase();
}

/// If the buffer `op` writes through `operand` is only copied by a transpose
/// into another buffer (and read by attention kernels after the copy),
/// writes that buffer directly through the inverse-transposed view, which
/// those kernels read too: the forward's result, which training's backward
/// reads again, and the gradients of q, k and v, which training copies back
/// to [batch, seq, heads, dim].
void absorbOutputTranspose(Operation *op, OpOperand &operand) {
  auto alloc = operand.get().getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return;
  linalg::TransposeOp transpose;
  SmallVector<OpOperand *> laterReads;
  for (Operation *user : alloc->getUsers()) {
    auto candidate = dyn_cast<linalg::TransposeOp>(user);
    if (candidate && candidate.getInput() == alloc.getResult() && !transpose) {
      transpose = candidate;
    } else if (user != op) {
      SmallVector<OpOperand *> reads = stridedReads(user, alloc.getResult());
      if (reads.empty())
        return;
      laterReads.append(reads);
    }
  }
  if (!transpose || !keepsLastDim(transpose) ||
      transpose->getBlock() != op->getBlock() || op->isBeforeInBlock(alloc) ||
      !op->isBeforeInBlock(transpose))
    return;
  // The destination is written earlier than before: nothing in between may
  // read or write it, and it must exist by then. The later readers read it
  // instead of the buffer: nothing may write it before they run.
  Value target = transpose.getInit();
  Aliases targetAliases = aliasesOf(target);
  if (touchedBetween(op, transpose, targetAliases, /*writesOnly=*/false))
    return;
  for (OpOperand *read : laterReads)
    if (read->getOwner()->getBlock() != op->getBlock() ||
        !transpose->isBeforeInBlock(read->getOwner()) ||
        touchedBetween(transpose, read->getOwner(), targetAliases,
                       /*writesOnly=*/true))
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
  Value view = transposedView(b, op->getLoc(), target, inverse);
  operand.set(view);
  for (OpOperand *read : laterReads)
    read->set(view);
  transpose.erase();
  alloc.erase();
}

/// The kernels' leading arguments: the sizes, q, k and v, the mask, then
/// scale, causal and fill.
SmallVector<Type> commonArgumentTypes(MLIRContext *context) {
  Type i64 = IntegerType::get(context, 64), i32 = IntegerType::get(context, 32);
  Type f32 = Float32Type::get(context);
  Type ptr = LLVM::LLVMPointerType::get(context);
  SmallVector<Type> arguments(6, i64); // batch, heads, sq, sk, dk, dv
  for (int i = 0; i < 3; ++i)          // q, k, v and their strides
    arguments.append({ptr, i64, i64, i64});
  arguments.append({ptr, i32, i64, i64, i64, i64}); // the mask
  arguments.append({f32, i32, f32});                // scale, causal, fill
  return arguments;
}

/// The kernel `name` of `op`'s kind, declared once per module.
template <typename OpT>
func::FuncOp declareKernel(ModuleOp module, OpT, bool cuda) {
  MLIRContext *context = module.getContext();
  Type i64 = IntegerType::get(context, 64), f32 = Float32Type::get(context);
  Type ptr = LLVM::LLVMPointerType::get(context);
  SmallVector<Type> arguments = commonArgumentTypes(context);
  SmallVector<Type> tensor = {ptr, i64, i64, i64};
  // rate, seed (its value, or on the GPU its address), stream
  SmallVector<Type> dropout = {f32, cuda ? ptr : i64, i64};
  StringRef name = kAttention;
  if constexpr (std::is_same_v<OpT, AttentionIntoOp>) {
    arguments.append(tensor); // out
  } else if constexpr (std::is_same_v<OpT, AttentionStatsIntoOp>) {
    name = kAttentionStats;
    arguments.append(tensor); // out
    arguments.push_back(ptr); // lse
    arguments.append(dropout);
  } else {
    name = kAttentionBackward;
    arguments.append(tensor);   // out
    arguments.push_back(ptr);   // lse
    for (int i = 0; i < 4; ++i) // grad_out, grad_q, grad_k, grad_v
      arguments.append(tensor);
    arguments.append(dropout);
    if (cuda)
      arguments.push_back(ptr); // scratch
  }
  return declareRuntimeFunction(
      module,
      runtimeName(name, cuda ? transfuse::RuntimeTarget::CUDA
                             : transfuse::RuntimeTarget::CPU),
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

/// The argument list of one kernel call, built in the kernel's order.
class KernelCall {
public:
  KernelCall(Operation *op, bool cuda) : b(op), loc(op->getLoc()), cuda(cuda) {}

  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value i32(int32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }

  /// A rank-4 tensor: its first element and its three outer strides.
  void tensor(Value memref) {
    arguments.push_back(pointerOf(b, loc, memref));
    SmallVector<Value> strides = stridesOf(b, loc, memref);
    arguments.append(strides.begin(), strides.begin() + kRank - 1);
  }

  /// The mask broadcasts to [b, h, sq, sk]: its dims align right, and a
  /// missing or size-1 dim repeats (stride 0).
  LogicalResult mask(Operation *op, Value mask) {
    if (!mask) {
      arguments.push_back(LLVM::ZeroOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext())));
      arguments.push_back(i32(0));
      arguments.append(kRank, i64(0));
      return success();
    }
    auto type = cast<MemRefType>(mask.getType());
    bool bytes = type.getElementType().isInteger(1);
    if (!bytes && !type.getElementType().isF32())
      return op->emitOpError("the runtime kernel takes an i1 or f32 mask, got ")
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
    return success();
  }

  /// The sizes, q, k, v, the mask, scale, causal and fill of `op`.
  template <typename OpT> LogicalResult common(OpT op) {
    auto shapeOf = [](Value v) {
      return cast<MemRefType>(v.getType()).getShape();
    };
    ArrayRef<int64_t> q = shapeOf(op.getQuery()), k = shapeOf(op.getKey()),
                      v = shapeOf(op.getValue());
    arguments.append(
        {i64(q[0]), i64(q[1]), i64(q[2]), i64(k[2]), i64(q[3]), i64(v[3])});
    tensor(op.getQuery());
    tensor(op.getKey());
    tensor(op.getValue());
    if (failed(mask(op, op.getMask())))
      return failure();
    arguments.append({f32(op.getScale().convertToDouble()),
                      i32(op.getCausal() ? 1 : 0),
                      f32(op.getHiddenScoreFill())});
    return success();
  }

  /// Dropout's rate, the seed loaded from its buffer (on the GPU, the
  /// buffer's address), and the stream, with the replica in its high word
  /// in a data-parallel step (dropoutSite in runtime/lib/shared/Philox.h).
  void dropout(Operation *op, double rate, Value seed, int64_t stream) {
    Value key = cuda ? pointerOf(b, loc, seed)
                     : Value(memref::LoadOp::create(b, loc, seed));
    Value site = i64(stream);
    if (transfuse::inDataParallelModule(op))
      site = arith::OrIOp::create(
          b, loc, site,
          arith::ShLIOp::create(b, loc, transfuse::replicaIndex(b, op),
                                i64(32)));
    arguments.append({f32(rate), key, site});
  }

  /// A fresh f32 buffer of `count` elements for the kernel's own use.
  void scratch(int64_t count) {
    auto type = MemRefType::get({count}, b.getF32Type());
    arguments.push_back(
        pointerOf(b, loc, memref::AllocOp::create(b, loc, type)));
  }

  void emit(func::FuncOp kernel) {
    func::CallOp::create(b, loc, kernel, arguments);
  }

  OpBuilder b;
  Location loc;
  bool cuda;
  SmallVector<Value> arguments;
};

/// The rank-4 f32 buffers with a contiguous last dimension the kernels
/// take.
LogicalResult checkTensors(Operation *op, ArrayRef<Value> tensors) {
  for (Value value : tensors) {
    auto type = cast<MemRefType>(value.getType());
    if (!type.getElementType().isF32() || type.getRank() != kRank)
      return op->emitOpError("the runtime kernel takes rank-4 f32 buffers, "
                             "got ")
             << type;
    if (!hasContiguousLastDim(value))
      return op->emitOpError("the runtime kernel needs a contiguous last "
                             "dimension, got ")
             << type;
  }
  return success();
}

/// Replaces `op` by a call of `kernel`: the arguments every attention
/// kernel starts with, then what `tail` adds. `tensors` are the rank-4
/// buffers it passes.
template <typename OpT>
LogicalResult lowerWith(OpT op, func::FuncOp kernel, bool cuda,
                        ArrayRef<Value> tensors,
                        function_ref<void(KernelCall &)> tail) {
  SmallVector<Value> checked = {op.getQuery(), op.getKey(), op.getValue()};
  checked.append(tensors.begin(), tensors.end());
  if (failed(checkTensors(op, checked)))
    return failure();
  KernelCall call(op, cuda);
  if (failed(call.common(op)))
    return failure();
  tail(call);
  call.emit(kernel);
  op.erase();
  return success();
}

LogicalResult lower(AttentionIntoOp op, func::FuncOp kernel, bool cuda) {
  return lowerWith(op, kernel, cuda, {op.getOut()},
                   [&](KernelCall &call) { call.tensor(op.getOut()); });
}

LogicalResult lower(AttentionStatsIntoOp op, func::FuncOp kernel, bool cuda) {
  return lowerWith(op, kernel, cuda, {op.getOut()}, [&](KernelCall &call) {
    call.tensor(op.getOut());
    call.arguments.push_back(pointerOf(call.b, call.loc, op.getLse()));
    call.dropout(op, op.getDropout().convertToDouble(), op.getSeed(),
                 op.getStream());
  });
}

LogicalResult lower(AttentionGradIntoOp op, func::FuncOp kernel, bool cuda) {
  SmallVector<Value> tensors = {op.getGrad(), op.getGradQuery(),
                                op.getGradKey(), op.getGradValue()};
  SmallVector<Value> checked = {op.getOut()};
  checked.append(tensors);
  return lowerWith(op, kernel, cuda, checked, [&](KernelCall &call) {
    call.tensor(op.getOut());
    call.arguments.push_back(pointerOf(call.b, call.loc, op.getLse()));
    for (Value tensor : tensors)
      call.tensor(tensor);
    call.dropout(op, op.getDropout().convertToDouble(), op.getSeed(),
                 op.getStream());
    // D = rowsum(dO ∘ O), one float per query row.
    if (cuda)
      call.scratch(cast<MemRefType>(op.getLse().getType()).getNumElements());
  });
}

/// Lowers every `OpT` of `module` to its kernel, reading its inputs through
/// views of the transposes that filled them and writing its result through a
/// view of the buffer a transpose copied it to, where it can.
template <typename OpT> LogicalResult lowerAll(ModuleOp module, bool cuda) {
  SmallVector<OpT> ops;
  module.walk([&](OpT op) { ops.push_back(op); });
  if (ops.empty())
    return success();
  func::FuncOp kernel = declareKernel(module, ops.front(), cuda);
  for (OpT op : ops) {
    for (OpOperand *operand : stridedInputs(op))
      absorbInputTranspose(op, *operand);
    if constexpr (!std::is_same_v<OpT, AttentionGradIntoOp>)
      absorbOutputTranspose(op, op.getOutMutable());
    if constexpr (std::is_same_v<OpT, AttentionGradIntoOp>)
      for (OpOperand *operand :
           {&op.getGradQueryMutable(), &op.getGradKeyMutable(),
            &op.getGradValueMutable()})
        absorbOutputTranspose(op, *operand);
    if (failed(lower(op, kernel, cuda)))
      return failure();
  }
  return success();
}

struct AttentionToRuntimeCallPass
    : transfuse::impl::AttentionToRuntimeCallBase<AttentionToRuntimeCallPass> {
  using AttentionToRuntimeCallBase::AttentionToRuntimeCallBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool cuda = target == transfuse::RuntimeTarget::CUDA;
    if (failed(lowerAll<AttentionIntoOp>(module, cuda)) ||
        failed(lowerAll<AttentionStatsIntoOp>(module, cuda)) ||
        failed(lowerAll<AttentionGradIntoOp>(module, cuda)))
      signalPassFailure();
  }
};

} // namespace
