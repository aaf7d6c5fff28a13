//===- BufferizableOpInterfaceImpl.cpp - Bufferizing nn ops ---------------===//
//
// `nn.attention` is kept whole through bufferization so that it runs as one
// fused kernel: it reads its operands in place (whatever their layout) and
// writes a fresh buffer, like any op that allocates its result.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/BufferizableOpInterfaceImpl.h"
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace transfuse::nn {
namespace {

struct AttentionOpInterface
    : BufferizableOpInterface::ExternalModel<AttentionOpInterface,
                                             AttentionOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  FailureOr<BufferLikeType> getBufferType(Operation *op, Value,
                                          const BufferizationOptions &,
                                          const BufferizationState &,
                                          SmallVector<Value> &) const {
    auto type = cast<RankedTensorType>(cast<AttentionOp>(op).getType());
    return cast<BufferLikeType>(
        MemRefType::get(type.getShape(), type.getElementType()));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto attention = cast<AttentionOp>(op);
    SmallVector<Value, 4> buffers;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      buffers.push_back(*buffer);
    }
    auto type = cast<RankedTensorType>(attention.getType());
    FailureOr<Value> out = options.createAlloc(
        rewriter, op->getLoc(),
        MemRefType::get(type.getShape(), type.getElementType()), {});
    if (failed(out))
      return failure();
    Value mask = attention.getMask() ? buffers[3] : Value();
    AttentionIntoOp::create(
        rewriter, op->getLoc(), buffers[0], buffers[1], buffers[2], mask, *out,
        attention.getScaleAttr(), attention.getCausalAttr(),
        attention.getMaskFillAttr(), attention.getDropoutAttr());
    replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

} // namespace

void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, NNDialect *) {
    AttentionOp::attachInterface<AttentionOpInterface>(*context);
  });
}

} // namespace transfuse::nn
