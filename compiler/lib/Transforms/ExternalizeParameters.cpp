//===- ExternalizeParameters.cpp - Parameters as function arguments -------===//
//
// Every function gets all of the module's parameters as leading arguments,
// in declaration order, so that an entry point's buffer list is the same
// for every function and calls pass the parameters straight through.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace transfuse {
#define GEN_PASS_DEF_EXTERNALIZEPARAMETERS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;

namespace {

struct ExternalizeParametersPass
    : transfuse::impl::ExternalizeParametersBase<ExternalizeParametersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<nn::ParameterOp> parameters(module.getOps<nn::ParameterOp>());
    if (parameters.empty())
      return;
    SmallVector<Type> types;
    llvm::StringMap<unsigned> index;
    for (auto [i, parameter] : llvm::enumerate(parameters)) {
      types.push_back(parameter.getType());
      index[parameter.getSymName()] = i;
    }
    unsigned count = parameters.size();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      Block &entry = func.getBody().front();
      SmallVector<unsigned> positions(count, 0);
      if (failed(func.insertArguments(
              positions, types,
              SmallVector<DictionaryAttr>(count, DictionaryAttr()),
              SmallVector<Location>(count, func.getLoc()))))
        return signalPassFailure();
      for (auto [i, parameter] : llvm::enumerate(parameters))
        func.setArgAttr(i, "nn.param", parameter.getSymNameAttr());
      func.walk([&](nn::ParamLoadOp load) {
        load.replaceAllUsesWith(entry.getArgument(index[load.getName()]));
        load.erase();
      });
      func.walk([&](func::CallOp call) {
        // Declarations keep their signature: only calls to functions that
        // got the parameters pass them on.
        auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
        if (!callee || callee.isExternal())
          return;
        SmallVector<Value> operands(entry.getArguments().take_front(count));
        llvm::append_range(operands, call.getOperands());
        call->setOperands(operands);
      });
    }
    // The declarations have served: from here on parameters are buffers.
    for (nn::ParameterOp parameter : parameters)
      parameter.erase();
  }
};

} // namespace
