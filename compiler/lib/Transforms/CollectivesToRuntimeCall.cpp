//===- CollectivesToRuntimeCall.cpp - All-reduces as runtime calls --------===//
//
// An all-reduce is split in two calls so that the exchange runs while the
// code between them does: the start where nn-data-parallel put the op,
// the wait just before the first op that touches one of its buffers again
// (reads it, writes it, frees it or returns it). The runtime packs the
// bucket's buffers into one message at the start and unpacks the combined
// values into them at the wait (runtime/lib/collective/).
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace transfuse {
#define GEN_PASS_DEF_COLLECTIVESTORUNTIMECALL
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;
using transfuse::buffers::Aliases;
using transfuse::buffers::runtimeName;

namespace {

struct CollectivesToRuntimeCallPass
    : transfuse::impl::CollectivesToRuntimeCallBase<
          CollectivesToRuntimeCallPass> {
  using CollectivesToRuntimeCallBase::CollectivesToRuntimeCallBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<nn::AllReduceIntoOp> ops;
    module.walk([&](nn::AllReduceIntoOp op) { ops.push_back(op); });
    for (nn::AllReduceIntoOp op : ops)
      if (failed(lower(module, op)))
        return signalPassFailure();
  }

  LogicalResult lower(ModuleOp module, nn::AllReduceIntoOp op) {
    MLIRContext *context = module.getContext();
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    Type pointer = LLVM::LLVMPointerType::get(context);
    auto add = buffers::declareRuntimeFunction(
        module, runtimeName("all_reduce_add", target),
        b.getFunctionType({i64, pointer, i64}, {}));
    auto start = buffers::declareRuntimeFunction(
        module, runtimeName("all_reduce_start", target),
        b.getFunctionType({i64, i32}, {}));
    auto wait = buffers::declareRuntimeFunction(
        module, runtimeName("all_reduce_wait", target),
        b.getFunctionType({i64}, {}));

    Value bucket =
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(op.getBucket()));
    Aliases aliases;
    for (Value buffer : op.getBuffers()) {
      auto type = cast<MemRefType>(buffer.getType());
      if (!buffers::isDenseRowMajor(type))
        return op.emitOpError("needs dense row-major buffers, got ") << type;
      Value count = arith::ConstantOp::create(
          b, loc, b.getI64IntegerAttr(type.getNumElements()));
      func::CallOp::create(
          b, loc, add,
          ValueRange{bucket, buffers::pointerOf(b, loc, buffer), count});
      for (Value alias : buffers::aliasesOf(buffer))
        aliases.insert(alias);
    }
    Value reduction = arith::ConstantOp::create(
        b, loc, b.getI32IntegerAttr(static_cast<int32_t>(op.getReduction())));
    func::CallOp::create(b, loc, start, ValueRange{bucket, reduction});

    Operation *next = op->getNextNode();
    while (!next->hasTrait<OpTrait::IsTerminator>() &&
           !buffers::touches(next, aliases))
      next = next->getNextNode();
    b.setInsertionPoint(next);
    func::CallOp::create(b, loc, wait, ValueRange{bucket});
    op.erase();
    return success();
  }
};

} // namespace
