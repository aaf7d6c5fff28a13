//===- DataParallel.cpp - Gradients averaged over the replicas ------------===//
//
// Data parallelism as PyTorch's DistributedDataParallel does it, decided at
// compile time: the gradients are grouped into buckets in the order
// backward produces them, and each bucket's all-reduce is placed right
// after its last gradient, where the runtime starts the exchange; it waits
// only where the values are next used (nn-collectives-to-runtime-call), so
// the exchange of one bucket overlaps the backward of the layers below.
//===----------------------------------------------------------------------===//
#include "transfuse/Transforms/Passes.h"
#include "transfuse/Transforms/Replica.h"

#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace transfuse {
#define GEN_PASS_DEF_DATAPARALLEL
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;

namespace {

constexpr llvm::StringLiteral kGradientFunction = "loss_and_grads";

int64_t byteSize(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

/// Where `value` becomes available in `block`: its defining op, or nothing
/// for an argument (available from the start).
Operation *producer(Value value, Block &block) {
  Operation *op = value.getDefiningOp();
  return op ? block.findAncestorOpInBlock(*op) : nullptr;
}

struct DataParallelPass : transfuse::impl::DataParallelBase<DataParallelPass> {
  using DataParallelBase::DataParallelBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (bucketBytes <= 0) {
      module.emitError("nn-data-parallel: bucket-bytes must be positive, got ")
          << static_cast<int64_t>(bucketBytes);
      return signalPassFailure();
    }
    auto function = module.lookupSymbol<func::FuncOp>(kGradientFunction);
    if (!function || function.isExternal()) {
      module.emitError("nn-data-parallel: no '")
          << kGradientFunction << "' to make data-parallel";
      return signalPassFailure();
    }
    if (!function.getBody().hasOneBlock()) {
      function.emitOpError("must have a single block to be made "
                           "data-parallel");
      return signalPassFailure();
    }
    if (inDataParallelModule(function)) {
      module.emitError("nn-data-parallel: the module is data-parallel "
                       "already");
      return signalPassFailure();
    }

    Block &body = function.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    if (ret.getNumOperands() == 0 || !isF32Scalar(ret.getOperand(0))) {
      ret.emitOpError("must return the loss, an f32 scalar, first");
      return signalPassFailure();
    }
    for (Value grad : ret.getOperands().drop_front())
      if (!cast<RankedTensorType>(grad.getType()).getElementType().isF32()) {
        ret.emitOpError("returns a gradient of ")
            << grad.getType() << "; only f32 gradients are all-reduced";
        return signalPassFailure();
      }

    OpBuilder b(module.getContext());
    int64_t bucket = 0;
    // The loss first: it is known before backward starts.
    allReduce(b, body, {ret.getOperand(0)}, bucket++, ret);
    for (ArrayRef<Value> members : buckets(body, ret))
      allReduce(b, body, members, bucket++, ret);
    // For the artifact's manifest: the runtime checks a data-parallel
    // run's ranks against it.
    module->setAttr(kAllReduceBucketsAttr, b.getI64IntegerAttr(bucket));
  }

private:
  static bool isF32Scalar(Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.getRank() == 0 && type.getElementType().isF32();
  }

  /// The distinct gradients returned, in the order they are produced, cut
  /// into runs of at least bucketBytes.
  SmallVector<SmallVector<Value>> buckets(Block &body, func::ReturnOp ret) {
    SmallVector<Value> grads;
    for (Value grad : ret.getOperands().drop_front())
      if (!llvm::is_contained(grads, grad))
        grads.push_back(grad);
    llvm::stable_sort(grads, [&](Value x, Value y) {
      Operation *px = producer(x, body), *py = producer(y, body);
      return px != py && (!px || (py && px->isBeforeInBlock(py)));
    });
    SmallVector<SmallVector<Value>> result;
    int64_t bytes = 0;
    for (Value grad : grads) {
      if (result.empty() || bytes >= bucketBytes) {
        result.emplace_back();
        bytes = 0;
      }
      result.back().push_back(grad);
      bytes += byteSize(grad);
    }
    return result;
  }

  /// An all-reduce of `members` right after the last of them is produced;
  /// `ret` returns its results instead.
  void allReduce(OpBuilder &b, Block &body, ArrayRef<Value> members,
                 int64_t bucket, func::ReturnOp ret) {
    Operation *last = nullptr;
    for (Value member : members) {
      Operation *op = producer(member, body);
      if (op && (!last || last->isBeforeInBlock(op)))
        last = op;
    }
    if (last)
      b.setInsertionPointAfter(last);
    else
      b.setInsertionPointToStart(&body);
    auto reduce = nn::AllReduceOp::create(
        b, members.front().getLoc(), members,
        nn::ReductionAttr::get(b.getContext(), nn::Reduction::mean),
        b.getI64IntegerAttr(bucket));
    for (auto [member, result] : llvm::zip(members, reduce.getResults()))
      ret->replaceUsesOfWith(member, result);
  }
};

} // namespace
