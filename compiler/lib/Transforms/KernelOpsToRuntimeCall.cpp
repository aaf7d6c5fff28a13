//===- KernelOpsToRuntimeCall.cpp - Layers on buffers to runtime kernels --===//
//
// Each layer kept whole through bufferization (nn.layer_norm_into,
// nn.layer_norm_grad_into, the losses and their gradients,
// nn.embedding_grad_into) and each optimizer update (nn.global_norm_into,
// nn.adam_update_into, nn.sgd_update_into) becomes calls of the CUDA
// runtime's kernels for it (docs/artifact.md): dense row-major buffers by
// address, the sizes as
// rows and columns, the attributes as scalars, and the scratch memory the
// kernel needs as a fresh buffer, which the memory plan places like any
// other temporary. An operand that is not dense (a strided view) is copied
// into a dense buffer first. For the CPU target only cross entropy and its
// gradient have kernels (runtime/lib/Losses.cpp), called with the same
// arguments.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"

namespace transfuse {
#define GEN_PASS_DEF_KERNELOPSTORUNTIMECALL
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse::nn;
using transfuse::RuntimeTarget;
using transfuse::buffers::addressOf;
using transfuse::buffers::declareRuntimeFunction;
using transfuse::buffers::isDenseRowMajor;
using transfuse::buffers::pointerOf;
using transfuse::buffers::runtimeName;

namespace {

/// Layer-norm gradients sum their columns over at most this many chunks of
/// rows (one partial sum per chunk and column, then the chunks in order).
constexpr int64_t kLayerNormChunks = 512;
/// Partial sums per tensor of a global norm: runtime/lib/shared/
/// OptimizerMath.h's kGlobalNormBlocks, which the runtime checks the call
/// against.
constexpr int64_t kGlobalNormBlocks = 128;

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result *= dim;
  return result;
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<MemRefType>(value.getType()).getShape();
}

/// The arguments of one runtime call, in the kernel's order, with their
/// types for its declaration.
class Call {
public:
  explicit Call(Operation *op) : b(op), loc(op->getLoc()) {}

  void i64(int64_t value) {
    add(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value)));
  }
  void i32(int32_t value) {
    add(arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value)));
  }
  void f32(double value) {
    add(arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value)));
  }
  void null() { add(LLVM::ZeroOp::create(b, loc, pointerType())); }

  /// A buffer the kernel reads, dense (copied into a dense buffer if it is
  /// a strided view).
  void input(Value buffer) { add(pointerOf(b, loc, dense(buffer))); }
  /// An optional operand: its buffer, or null where there is none.
  void inputOrNull(Value buffer) {
    if (buffer)
      input(buffer);
    else
      null();
  }
  /// A buffer the kernel writes: bufferization allocated it, dense.
  LogicalResult output(Operation *op, Value buffer) {
    if (failed(checkDense(op, buffer)))
      return failure();
    add(pointerOf(b, loc, buffer));
    return success();
  }

  /// For a call over many tensors, host arrays the runtime reads during the
  /// call: their element counts, the addresses of buffers the kernel reads
  /// (as input()) and of buffers it writes (as output()).
  void sizes(ValueRange buffers) {
    SmallVector<Value> counts;
    for (Value buffer : buffers)
      counts.push_back(arith::ConstantOp::create(
          b, loc, b.getI64IntegerAttr(product(shapeOf(buffer)))));
    hostArray(counts);
  }
  void inputs(ValueRange buffers) {
    SmallVector<Value> addresses;
    for (Value buffer : buffers)
      addresses.push_back(addressOf(b, loc, dense(buffer)));
    hostArray(addresses);
  }
  LogicalResult outputs(Operation *op, ValueRange buffers) {
    SmallVector<Value> addresses;
    for (Value buffer : buffers) {
      if (failed(checkDense(op, buffer)))
        return failure();
      addresses.push_back(addressOf(b, loc, buffer));
    }
    hostArray(addresses);
    return success();
  }
  /// Labels or ids: the buffer and its index width.
  void indices(Value buffer) {
    input(buffer);
    i32(cast<MemRefType>(buffer.getType()).getElementTypeBitWidth());
  }
  /// A fresh buffer of `count` elements of `element` for the kernel's use.
  void scratch(int64_t count, Type element) {
    add(pointerOf(b, loc, newScratch(b, loc, count, element)));
  }
  static Value newScratch(OpBuilder &b, Location loc, int64_t count,
                          Type element) {
    auto type = MemRefType::get({std::max<int64_t>(count, 1)}, element);
    return memref::AllocOp::create(b, loc, type);
  }

  void emit(ModuleOp module, StringRef name) {
    SmallVector<Type> types;
    for (Value argument : arguments)
      types.push_back(argument.getType());
    func::FuncOp callee = declareRuntimeFunction(
        module, name, FunctionType::get(b.getContext(), types, {}));
    func::CallOp::create(b, loc, callee, arguments);
  }

  OpBuilder b;
  Location loc;

private:
  Type pointerType() { return LLVM::LLVMPointerType::get(b.getContext()); }
  void add(Value value) { arguments.push_back(value); }

  static LogicalResult checkDense(Operation *op, Value buffer) {
    if (isDenseRowMajor(cast<MemRefType>(buffer.getType())))
      return success();
    return op->emitOpError("the runtime's kernel writes dense buffers, got ")
           << buffer.getType();
  }
  Value dense(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    if (isDenseRowMajor(type))
      return buffer;
    Value copy = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()));
    memref::CopyOp::create(b, loc, buffer, copy);
    return copy;
  }
  /// `values` (i64) in an array on the host's stack, by address.
  void hostArray(ArrayRef<Value> values) {
    auto type =
        MemRefType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
    Value array = memref::AllocaOp::create(b, loc, type);
    for (auto [i, value] : llvm::enumerate(values))
      memref::StoreOp::create(
          b, loc, value, array,
          ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
    add(pointerOf(b, loc, array));
  }

  SmallVector<Value> arguments;
};

/// That every floating-point buffer `op` reads or writes is f32, all the
/// kernels take.
LogicalResult checkF32(Operation *op) {
  for (Value operand : op->getOperands()) {
    Type element = cast<MemRefType>(operand.getType()).getElementType();
    if (isa<FloatType>(element) && !element.isF32())
      return op->emitOpError("the runtime's kernel is f32 only, got ")
             << operand.getType();
  }
  return success();
}

/// Rows and columns of a normalised operand: the dimensions before and from
/// `axis`.
std::pair<int64_t, int64_t> rowsAndColumns(Value value, int64_t axis) {
  ArrayRef<int64_t> shape = shapeOf(value);
  return {product(shape.take_front(axis)), product(shape.drop_front(axis))};
}

/// The runtime's `form` argument: the statistic in the low bits (its enum
/// value), 4 or'ed in for epsilon_on_std (docs/artifact.md).
template <typename OpT> int32_t layerNormForm(OpT op) {
  return static_cast<int32_t>(op.getStatistic()) |
         (op.getEpsilonOnStd() ? 4 : 0);
}

LogicalResult lower(ModuleOp module, LayerNormIntoOp op) {
  if (failed(checkF32(op)))
    return failure();
  auto [rows, cols] = rowsAndColumns(op.getInput(), op.getAxis());
  Call call(op);
  call.i64(rows);
  call.i64(cols);
  call.input(op.getInput());
  call.inputOrNull(op.getResidual());
  call.input(op.getGamma());
  call.inputOrNull(op.getBeta());
  call.f32(op.getEpsilon().convertToDouble());
  call.i32(layerNormForm(op));
  if (failed(call.output(op, op.getOut())))
    return failure();
  call.emit(module, "tfrt_cuda_layer_norm_f32");
  return success();
}

LogicalResult lower(ModuleOp module, LayerNormGradIntoOp op) {
  if (failed(checkF32(op)))
    return failure();
  auto [rows, cols] = rowsAndColumns(op.getInput(), op.getAxis());
  int64_t rowChunk =
      std::max<int64_t>(1, (rows + kLayerNormChunks - 1) / kLayerNormChunks);
  int64_t chunks = (rows + rowChunk - 1) / rowChunk;
  Call call(op);
  call.i64(rows);
  call.i64(cols);
  call.input(op.getGrad());
  call.input(op.getInput());
  call.input(op.getGamma());
  call.f32(op.getEpsilon().convertToDouble());
  call.i32(layerNormForm(op));
  for (Value out : {op.getGradInput(), op.getGradGamma(), op.getGradBeta()})
    if (failed(call.output(op, out)))
      return failure();
  call.scratch(2 * chunks * cols, call.b.getF32Type());
  call.i64(rowChunk);
  call.emit(module, "tfrt_cuda_layer_norm_grad_f32");
  return success();
}

/// A loss or its gradient: rows and classes of the scores, the scores, the
/// labels, ignore_index, the smoothing (cross entropy only), the result and
/// one float of scratch per row.
template <typename OpT>
LogicalResult lowerLoss(ModuleOp module, OpT op, Value scores,
                        std::optional<double> smoothing, StringRef name) {
  if (failed(checkF32(op)))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(scores);
  int64_t classes = shape.back(), rows = product(shape.drop_back());
  Call call(op);
  call.i64(rows);
  call.i64(classes);
  call.input(scores);
  call.indices(op.getLabels());
  call.i64(op.getIgnoreIndex());
  if (smoothing)
    call.f32(*smoothing);
  if (failed(call.output(op, op.getOut())))
    return failure();
  call.scratch(rows, call.b.getF32Type());
  call.emit(module, name);
  return success();
}

LogicalResult lower(ModuleOp module, CrossEntropyIntoOp op,
                    RuntimeTarget target) {
  return lowerLoss(module, op, op.getLogits(),
                   op.getLabelSmoothing().convertToDouble(),
                   runtimeName("cross_entropy_f32", target));
}

LogicalResult lower(ModuleOp module, CrossEntropyGradIntoOp op,
                    RuntimeTarget target) {
  return lowerLoss(module, op, op.getLogits(),
                   op.getLabelSmoothing().convertToDouble(),
                   runtimeName("cross_entropy_grad_f32", target));
}

LogicalResult lower(ModuleOp module, NllLossIntoOp op) {
  return lowerLoss(module, op, op.getLogProbs(), std::nullopt,
                   "tfrt_cuda_nll_loss_f32");
}

LogicalResult lower(ModuleOp module, NllLossGradIntoOp op) {
  return lowerLoss(module, op, op.getLogProbs(), std::nullopt,
                   "tfrt_cuda_nll_loss_grad_f32");
}

LogicalResult lower(ModuleOp module, EmbeddingGradIntoOp op) {
  if (failed(checkF32(op)))
    return failure();
  int64_t width = shapeOf(op.getGrad()).back();
  int64_t positions = product(shapeOf(op.getIndices()));
  Call call(op);
  call.i64(positions);
  call.i64(width);
  call.i64(op.getNumRows());
  call.input(op.getGrad());
  call.indices(op.getIndices());
  if (failed(call.output(op, op.getOut())))
    return failure();
  // The next position of each id (i32) and whether it is its first (i8).
  call.scratch(5 * positions, call.b.getI8Type());
  call.emit(module, "tfrt_cuda_embedding_grad_f32");
  return success();
}

/// The sum of squares of each tensor into its own kGlobalNormBlocks slots
/// of one scratch buffer (one call for all of them), then their sum's
/// square root.
LogicalResult lower(ModuleOp module, GlobalNormIntoOp op) {
  if (failed(checkF32(op)))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t slots = kGlobalNormBlocks * op.getInputs().size();
  Value partials = Call::newScratch(b, loc, slots, b.getF64Type());
  Call squares(op);
  squares.i64(op.getInputs().size());
  squares.sizes(op.getInputs());
  squares.inputs(op.getInputs());
  squares.i64(kGlobalNormBlocks);
  if (failed(squares.output(op, partials)))
    return failure();
  squares.emit(module, "tfrt_cuda_sum_squares_f32");
  Call norm(op);
  norm.i64(slots);
  if (failed(norm.output(op, partials)) || failed(norm.output(op, op.getOut())))
    return failure();
  norm.emit(module, "tfrt_cuda_global_norm_f32");
  return success();
}

/// β and 1 - β, the latter rounded from double as the chain's constant.
void betaAndComplement(Call &call, APFloat beta) {
  call.f32(beta.convertToDouble());
  call.f32(1.0 - beta.convertToDouble());
}

/// `Op`'s operand `get` of every update of `group`.
template <typename Op, typename Get>
SmallVector<Value> operandOfEach(ArrayRef<Operation *> group, Get get) {
  return llvm::map_to_vector(
      group, [&](Operation *op) { return Value(get(cast<Op>(op))); });
}

/// The leading arguments of an update call: the tensor count, their
/// element counts, the parameters (written in place, so dense) and their
/// gradients.
template <typename Op>
LogicalResult updateHead(Call &call, ArrayRef<Operation *> group) {
  for (Operation *op : group)
    if (failed(checkF32(op)))
      return failure();
  SmallVector<Value> params =
      operandOfEach<Op>(group, [](Op op) { return op.getParam(); });
  call.i64(group.size());
  call.sizes(params);
  if (failed(call.outputs(group.front(), params)))
    return failure();
  call.inputs(operandOfEach<Op>(group, [](Op op) { return op.getGrad(); }));
  return success();
}

/// One call for consecutive nn.adam_update_into ops with the same settings
/// and step scalars.
LogicalResult lowerAdam(ModuleOp module, ArrayRef<Operation *> group) {
  using Op = AdamUpdateIntoOp;
  auto op = cast<Op>(group.front());
  Call call(op);
  if (failed(updateHead<Op>(call, group)) ||
      failed(call.outputs(
          op,
          operandOfEach<Op>(group, [](Op op) { return op.getExpAvg(); }))) ||
      failed(call.outputs(op, operandOfEach<Op>(group, [](Op op) {
                            return op.getExpAvgSq();
                          }))))
    return failure();
  betaAndComplement(call, op.getBeta1());
  betaAndComplement(call, op.getBeta2());
  call.f32(op.getEps().convertToDouble());
  call.f32(op.getWeightDecay().convertToDouble());
  for (Value scalar : {op.getStepSize(), op.getBiasCorrection2Sqrt(),
                       op.getClipFactor(), op.getDecayFactor()})
    call.input(scalar);
  call.emit(module, "tfrt_cuda_adam_update_f32");
  return success();
}

/// One call for consecutive nn.sgd_update_into ops with the same settings
/// and step scalars; all have momentum buffers or none has.
LogicalResult lowerSgd(ModuleOp module, ArrayRef<Operation *> group) {
  using Op = SgdUpdateIntoOp;
  auto op = cast<Op>(group.front());
  Call call(op);
  if (failed(updateHead<Op>(call, group)))
    return failure();
  if (op.getMomentumBuffer()) {
    if (failed(call.outputs(op, operandOfEach<Op>(group, [](Op op) {
                              return op.getMomentumBuffer();
                            }))))
      return failure();
  } else {
    call.null();
  }
  call.f32(op.getMomentum().convertToDouble());
  call.f32(op.getWeightDecay().convertToDouble());
  call.i32(op.getNesterov() ? 1 : 0);
  call.input(op.getLr());
  call.input(op.getClipFactor());
  call.emit(module, "tfrt_cuda_sgd_update_f32");
  return success();
}

/// Whether update `next` can join `first`'s call: the same kind, the same
/// settings and the same step scalars (and, for SGD, momentum buffers in
/// both or in neither).
bool sameUpdate(Operation *first, Operation *next) {
  if (first->getName() != next->getName() ||
      first->getAttrDictionary() != next->getAttrDictionary())
    return false;
  if (auto a = dyn_cast<AdamUpdateIntoOp>(first)) {
    auto b = cast<AdamUpdateIntoOp>(next);
    return a.getStepSize() == b.getStepSize() &&
           a.getBiasCorrection2Sqrt() == b.getBiasCorrection2Sqrt() &&
           a.getClipFactor() == b.getClipFactor() &&
           a.getDecayFactor() == b.getDecayFactor();
  }
  auto a = cast<SgdUpdateIntoOp>(first), b = cast<SgdUpdateIntoOp>(next);
  return a.getLr() == b.getLr() && a.getClipFactor() == b.getClipFactor() &&
         !a.getMomentumBuffer() == !b.getMomentumBuffer();
}

/// What an op the CPU runtime has no kernel for gives on the CPU target.
LogicalResult noCpuKernel(Operation *op) {
  return op->emitOpError("has no kernel in the CPU runtime (the CUDA "
                         "target's only)");
}

struct KernelOpsToRuntimeCallPass
    : transfuse::impl::KernelOpsToRuntimeCallBase<KernelOpsToRuntimeCallPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    // Runs of adjacent updates that one call can make.
    SmallVector<SmallVector<Operation *>> updates;
    module.walk([&](Operation *op) {
      if (isa<LayerNormIntoOp, LayerNormGradIntoOp, CrossEntropyIntoOp,
              CrossEntropyGradIntoOp, NllLossIntoOp, NllLossGradIntoOp,
              EmbeddingGradIntoOp, GlobalNormIntoOp>(op))
        ops.push_back(op);
      if (!isa<AdamUpdateIntoOp, SgdUpdateIntoOp>(op))
        return;
      if (!updates.empty() && updates.back().back()->getNextNode() == op &&
          sameUpdate(updates.back().front(), op))
        updates.back().push_back(op);
      else
        updates.push_back({op});
    });
    bool cuda = target == RuntimeTarget::CUDA;
    for (Operation *op : ops) {
      LogicalResult lowered =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case<CrossEntropyIntoOp, CrossEntropyGradIntoOp>(
                  [&](auto into) { return lower(module, into, target); })
              .Case<LayerNormIntoOp, LayerNormGradIntoOp, NllLossIntoOp,
                    NllLossGradIntoOp, EmbeddingGradIntoOp, GlobalNormIntoOp>(
                  [&](auto into) {
                    return cuda ? lower(module, into) : noCpuKernel(into);
                  });
      if (failed(lowered))
        return signalPassFailure();
      op->erase();
    }
    if (!cuda && !updates.empty()) {
      (void)noCpuKernel(updates.front().front());
      return signalPassFailure();
    }
    for (ArrayRef<Operation *> group : updates) {
      if (failed(isa<AdamUpdateIntoOp>(group.front())
                     ? lowerAdam(module, group)
                     : lowerSgd(module, group)))
        return signalPassFailure();
      for (Operation *op : group)
        op->erase();
    }
  }
};

} // namespace
