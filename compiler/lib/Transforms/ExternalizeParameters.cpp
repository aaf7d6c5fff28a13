//===- ExternalizeParameters.cpp - Parameters as function arguments -------===//
//
// Every function gets all of the module's parameters as leading arguments,
// in declaration order, so that an entry point's buffer list is the same
// for every function and calls pass the parameters straight through. A
// function that reads or writes optimizer state (`nn.state`) gets every
// state tensor next, in declaration order, and one that reads or writes
// the decoding cache (`nn.cache`) gets every cache tensor after those.
//
// A function that stores (`nn.param_store`: the training step, the decoding
// entry points) updates those buffers in place: its parameter, state and
// cache arguments are memrefs, each read once as a `restrict writable`
// tensor, and each store materializes the new value in that tensor and then
// in the buffer. One-Shot Bufferize then computes the update straight into
// the argument where it can (after empty-tensor elimination) and copies
// where it cannot.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

namespace transfuse {
#define GEN_PASS_DEF_EXTERNALIZEPARAMETERS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;

namespace {

/// What a declaration is, which decides who gets it as an argument.
enum class VariableKind { Parameter, State, Cache };

/// A parameter, a state or a cache tensor: what becomes an argument.
struct Variable {
  StringAttr name;
  RankedTensorType type;
  VariableKind kind;
};

/// The argument attribute that names a variable of `kind`.
StringRef argumentAttrName(VariableKind kind) {
  switch (kind) {
  case VariableKind::Parameter:
    return "nn.param";
  case VariableKind::State:
    return "nn.state";
  case VariableKind::Cache:
    return "nn.cache";
  }
  llvm_unreachable("unknown variable kind");
}

/// Whether `func` loads or stores a variable of `kind`.
bool uses(func::FuncOp func, const llvm::StringMap<unsigned> &index,
          ArrayRef<Variable> variables, VariableKind kind) {
  auto isKind = [&](StringRef name) {
    auto it = index.find(name);
    return it != index.end() && variables[it->second].kind == kind;
  };
  bool found = false;
  func.walk([&](Operation *op) {
    if (auto load = dyn_cast<nn::ParamLoadOp>(op))
      found |= isKind(load.getName());
    if (auto store = dyn_cast<nn::ParamStoreOp>(op))
      found |= isKind(store.getName());
  });
  return found;
}

struct ExternalizeParametersPass
    : transfuse::impl::ExternalizeParametersBase<ExternalizeParametersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Variable> variables;
    SmallVector<Operation *> declarations;
    for (auto parameter : module.getOps<nn::ParameterOp>()) {
      variables.push_back({parameter.getSymNameAttr(),
                           parameter.getTensorType(), VariableKind::Parameter});
      declarations.push_back(parameter);
    }
    for (auto state : module.getOps<nn::StateOp>()) {
      variables.push_back({state.getSymNameAttr(),
                           cast<RankedTensorType>(state.getType()),
                           VariableKind::State});
      declarations.push_back(state);
    }
    for (auto cache : module.getOps<nn::CacheOp>()) {
      variables.push_back({cache.getSymNameAttr(),
                           cast<RankedTensorType>(cache.getType()),
                           VariableKind::Cache});
      declarations.push_back(cache);
    }
    if (variables.empty())
      return;
    llvm::StringMap<unsigned> index;
    for (auto [i, variable] : llvm::enumerate(variables))
      index[variable.name] = i;
    unsigned parameterCount = llvm::count_if(variables, [](const Variable &v) {
      return v.kind == VariableKind::Parameter;
    });

    for (auto func : module.getOps<func::FuncOp>())
      if (failed(checkAccesses(module, func, index, variables)))
        return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // Parameters always; state and cache tensors where used.
      SmallVector<Variable> taken;
      for (const Variable &variable : variables)
        if (variable.kind == VariableKind::Parameter ||
            uses(func, index, variables, variable.kind))
          taken.push_back(variable);
      llvm::StringMap<unsigned> argumentIndex;
      for (auto [i, variable] : llvm::enumerate(taken))
        argumentIndex[variable.name] = i;
      bool stores = !func.getOps<nn::ParamStoreOp>().empty();
      if (failed(addArguments(func, taken, stores)) ||
          failed(replaceAccesses(module, func, argumentIndex, taken,
                                 parameterCount, stores)))
        return signalPassFailure();
    }
    // The declarations have served: from here on they are buffers.
    for (Operation *declaration : declarations)
      declaration->erase();
  }

  /// That the rewrite can give `func` what it accesses: a store updates
  /// the buffer argument, so it is directly in the body and each name is
  /// stored once; and a call passes the callee only the parameters, as
  /// tensors, so no callee stores or reads optimizer state.
  static LogicalResult checkAccesses(ModuleOp module, func::FuncOp func,
                                     const llvm::StringMap<unsigned> &index,
                                     ArrayRef<Variable> variables) {
    llvm::StringSet<> stored;
    WalkResult result = func.walk([&](Operation *op) {
      if (auto store = dyn_cast<nn::ParamStoreOp>(op)) {
        if (store->getParentOp() != func) {
          store.emitOpError("must be directly in the body of its function, "
                            "whose buffer it updates");
          return WalkResult::interrupt();
        }
        if (!stored.insert(store.getName()).second) {
          store.emitOpError("stores '")
              << store.getName() << "' a second time in one function";
          return WalkResult::interrupt();
        }
      }
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
        if (callee && !callee.isExternal() &&
            (!callee.getOps<nn::ParamStoreOp>().empty() ||
             uses(callee, index, variables, VariableKind::State) ||
             uses(callee, index, variables, VariableKind::Cache))) {
          call.emitOpError("calls @")
              << callee.getSymName()
              << ", which stores parameters or reads optimizer state or the "
                 "decoding cache: only an entry point may";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Inserts the leading arguments: tensors, or buffers in a function that
  /// stores.
  LogicalResult addArguments(func::FuncOp func, ArrayRef<Variable> variables,
                             bool stores) {
    unsigned count = variables.size();
    SmallVector<Type> types;
    for (const Variable &variable : variables)
      types.push_back(
          stores ? Type(MemRefType::get(variable.type.getShape(),
                                        variable.type.getElementType()))
                 : Type(variable.type));
    if (failed(func.insertArguments(
            SmallVector<unsigned>(count, 0), types,
            SmallVector<DictionaryAttr>(count, DictionaryAttr()),
            SmallVector<Location>(count, func.getLoc()))))
      return failure();
    for (auto [i, variable] : llvm::enumerate(variables))
      func.setArgAttr(i, argumentAttrName(variable.kind), variable.name);
    return success();
  }

  LogicalResult replaceAccesses(ModuleOp module, func::FuncOp func,
                                const llvm::StringMap<unsigned> &index,
                                ArrayRef<Variable> variables,
                                unsigned parameterCount, bool stores) {
    Block &entry = func.getBody().front();
    SmallVector<Value> values(
        entry.getArguments().take_front(variables.size()));
    if (stores) {
      // One restrict tensor per buffer: bufferization may then write it.
      OpBuilder b(&entry, entry.begin());
      for (auto [value, variable] : llvm::zip_equal(values, variables))
        value = bufferization::ToTensorOp::create(b, func.getLoc(),
                                                  variable.type, value,
                                                  /*restrict=*/true,
                                                  /*writable=*/true);
    }
    func.walk([&](nn::ParamLoadOp load) {
      load.replaceAllUsesWith(values[index.lookup(load.getName())]);
      load.erase();
    });
    func.walk([&](nn::ParamStoreOp store) {
      unsigned i = index.lookup(store.getName());
      OpBuilder b(store);
      auto inTensor = bufferization::MaterializeInDestinationOp::create(
          b, store.getLoc(), values[i].getType(), store.getValue(), values[i]);
      bufferization::MaterializeInDestinationOp::create(
          b, store.getLoc(), TypeRange(), inTensor.getResult(),
          entry.getArgument(i), /*restrict=*/false, /*writable=*/true);
      store.erase();
    });
    WalkResult calls = func.walk([&](func::CallOp call) {
      // Declarations keep their signature: only calls to functions that
      // got the parameters pass them on.
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
      if (!callee || callee.isExternal())
        return WalkResult::advance();
      if (stores) {
        call.emitOpError("cannot pass the parameters on from a function "
                         "that stores them");
        return WalkResult::interrupt();
      }
      SmallVector<Value> operands(values.begin(),
                                  values.begin() + parameterCount);
      llvm::append_range(operands, call.getOperands());
      call->setOperands(operands);
      return WalkResult::advance();
    });
    return failure(calls.wasInterrupted());
  }
};

} // namespace
