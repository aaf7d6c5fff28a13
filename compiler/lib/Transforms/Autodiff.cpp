//===- Autodiff.cpp - Reverse-mode differentiation of the loss ------------===//
//
// Builds `loss_and_grads` from `loss`: the loss function with every call
// inlined (the forward pass), then, walking that body backwards, each op's
// gradient rule (DifferentiableOpInterface) turning the adjoints of its
// results into those of its operands. A value read several times sums the
// adjoints of its reads. The adjoints reaching the `nn.param_load`s of a
// parameter are its gradient.
//===----------------------------------------------------------------------===//
#include "transfuse/Transforms/Passes.h"

#include "transfuse/Dialect/NN/DifferentiableOpInterface.h"
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/IRMapping.h"

namespace transfuse {
#define GEN_PASS_DEF_AUTODIFF
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;

namespace {

constexpr llvm::StringLiteral kLossFunction = "loss";
constexpr llvm::StringLiteral kGradientFunction = "loss_and_grads";
constexpr llvm::StringLiteral kDropoutSeed = "dropout_seed";

/// The cycle of calls that `callee` closes on `stack`, the functions being
/// inlined: "@f -> @g -> @f".
std::string describeCycle(ArrayRef<func::FuncOp> stack, func::FuncOp callee) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (func::FuncOp function :
       stack.drop_front(llvm::find(stack, callee) - stack.begin()))
    os << "@" << function.getSymName() << " -> ";
  os << "@" << callee.getSymName();
  return text;
}

/// Clones `callee`'s body at `b`'s insertion point with its arguments
/// mapped to `arguments`, inlining calls to other functions of `module`
/// the same way; returns the values it returns. `stack` holds the
/// functions being inlined, callee last: a call of one of them is
/// recursion, which no finite inlining unrolls.
FailureOr<SmallVector<Value>> inlineBody(OpBuilder &b, ModuleOp module,
                                         SmallVectorImpl<func::FuncOp> &stack,
                                         ValueRange arguments) {
  func::FuncOp callee = stack.back();
  if (!callee.getBody().hasOneBlock())
    return callee.emitOpError("must have a single block to be differentiated");
  IRMapping mapping;
  mapping.map(callee.getArguments(), arguments);
  for (Operation &op : callee.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op))
      return llvm::map_to_vector(ret.getOperands(),
                                 [&](Value v) { return mapping.lookup(v); });
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto target = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!target || target.isExternal())
        return call.emitOpError(
            "calls a function with no body to differentiate");
      if (llvm::is_contained(stack, target))
        return call.emitOpError("makes the recursive calls ")
               << describeCycle(stack, target)
               << ", which cannot be inlined to differentiate";
      stack.push_back(target);
      auto results =
          inlineBody(b, module, stack,
                     llvm::map_to_vector(call.getOperands(), [&](Value v) {
                       return mapping.lookup(v);
                     }));
      stack.pop_back();
      if (failed(results))
        return failure();
      mapping.map(call.getResults(), *results);
      continue;
    }
    b.clone(op, mapping);
  }
  return callee.emitOpError("has no return");
}

/// Switches the forward pass in `function` to training: every dropout with
/// a nonzero rate draws its mask from a `dropout_seed` argument (appended
/// when there is one) and a stream of its own, and every nn.attention
/// becomes nn.attention_stats, which keeps the row statistics its backward
/// reuses.
void enterTrainingMode(func::FuncOp function) {
  SmallVector<nn::DropoutOp> dropouts;
  SmallVector<nn::AttentionOp> attentions;
  bool drops = false;
  function.walk([&](Operation *op) {
    if (auto dropout = dyn_cast<nn::DropoutOp>(op);
        dropout && !dropout.getSeed() && !dropout.getRate().isZero()) {
      dropouts.push_back(dropout);
      drops = true;
    }
    if (auto attention = dyn_cast<nn::AttentionOp>(op)) {
      attentions.push_back(attention);
      drops |= !attention.getDropout().isZero();
    }
  });
  OpBuilder b(function.getContext());
  Location loc = function.getLoc();
  Value seed;
  if (drops) {
    unsigned index = function.getNumArguments();
    auto type = RankedTensorType::get({}, b.getI64Type());
    (void)function.insertArgument(
        index, type,
        b.getDictionaryAttr(
            b.getNamedAttr("nn.name", b.getStringAttr(kDropoutSeed))),
        loc);
    seed = function.getArgument(index);
  }
  int64_t stream = 0;
  for (nn::DropoutOp dropout : dropouts) {
    dropout.getSeedMutable().assign(seed);
    dropout.setStream(++stream);
  }
  for (nn::AttentionOp attention : attentions) {
    b.setInsertionPoint(attention);
    Value key = seed;
    if (attention.getDropout().isZero())
      key = arith::ConstantOp::create(
          b, attention.getLoc(),
          DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                 b.getI64IntegerAttr(0).getValue()));
    auto stats = nn::AttentionStatsOp::create(
        b, attention.getLoc(), attention.getQuery(), attention.getKey(),
        attention.getValue(), attention.getMask(), key,
        attention.getScaleAttr(), attention.getCausalAttr(),
        attention.getMaskFillAttr(), attention.getDropoutAttr(),
        b.getI64IntegerAttr(++stream));
    attention.replaceAllUsesWith(stats.getResult());
    attention.erase();
  }
}

Value splat(OpBuilder &b, Location loc, Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  auto element = b.getFloatAttr(tensor.getElementType(), value);
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(tensor, element));
}

struct AutodiffPass : transfuse::impl::AutodiffBase<AutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto loss = module.lookupSymbol<func::FuncOp>(kLossFunction);
    if (!loss) {
      module.emitError("nothing to differentiate: no '")
          << kLossFunction << "' function (the spec has no training section)";
      return signalPassFailure();
    }
    if (module.lookupSymbol(kGradientFunction)) {
      module.emitError("'") << kGradientFunction << "' exists already";
      return signalPassFailure();
    }
    auto result = loss.getNumResults() == 1
                      ? dyn_cast<RankedTensorType>(loss.getResultTypes()[0])
                      : nullptr;
    if (!result || result.getRank() != 0 ||
        !isa<FloatType>(result.getElementType())) {
      loss.emitOpError("must return one float scalar (a rank-0 tensor) to be "
                       "differentiated");
      return signalPassFailure();
    }
    // nn-optimizer finds the seed it derives from the step by this name.
    for (unsigned i = 0; i < loss.getNumArguments(); ++i)
      if (auto name = loss.getArgAttrOfType<StringAttr>(i, "nn.name");
          name && name.getValue() == kDropoutSeed) {
        loss.emitOpError("argument ")
            << i << " is named '" << kDropoutSeed
            << "', the name kept for the seed of the training dropout";
        return signalPassFailure();
      }
    if (failed(buildGradientFunction(module, loss)))
      signalPassFailure();
  }

  LogicalResult buildGradientFunction(ModuleOp module, func::FuncOp loss) {
    Location loc = loss.getLoc();
    auto parameters = llvm::to_vector(module.getOps<nn::ParameterOp>());
    SmallVector<Type> resultTypes(loss.getResultTypes());
    for (nn::ParameterOp parameter : parameters)
      resultTypes.push_back(parameter.getTensorType());
    OpBuilder b(module.getContext());
    b.setInsertionPointAfter(loss);
    auto function = func::FuncOp::create(
        b, loc, kGradientFunction,
        b.getFunctionType(loss.getArgumentTypes(), resultTypes));
    if (ArrayAttr argAttrs = loss.getAllArgAttrs())
      function.setAllArgAttrs(argAttrs);
    function.setResultAttr(0, "nn.name", b.getStringAttr("loss"));
    for (auto [i, parameter] : llvm::enumerate(parameters)) {
      function.setResultAttr(i + 1, "nn.grad", parameter.getSymNameAttr());
      function.setResultAttr(
          i + 1, "nn.name",
          b.getStringAttr("grad." + parameter.getSymName().str()));
    }
    Block *body = function.addEntryBlock();
    b.setInsertionPointToEnd(body);

    SmallVector<func::FuncOp> stack = {loss};
    auto lossValues =
        inlineBody(b, module, stack, SmallVector<Value>(body->getArguments()));
    if (failed(lossValues))
      return failure();
    Value lossValue = lossValues->front();
    enterTrainingMode(function);

    DenseMap<Value, Value> adjoints;
    adjoints[lossValue] = splat(b, loc, lossValue.getType(), 1.0);
    auto forward =
        llvm::map_to_vector(*body, [](Operation &op) { return &op; });
    for (Operation *op : llvm::reverse(forward))
      if (failed(propagate(b, op, adjoints)))
        return failure();

    SmallVector<Value> results = {lossValue};
    for (nn::ParameterOp parameter : parameters) {
      Value gradient;
      for (Operation *op : forward)
        if (auto read = dyn_cast<nn::ParamLoadOp>(op);
            read && read.getName() == parameter.getSymName())
          if (Value adjoint = adjoints.lookup(read.getResult()))
            gradient =
                gradient
                    ? nn::AddOp::create(b, loc, gradient, adjoint).getResult()
                    : adjoint;
      if (!gradient)
        gradient = splat(b, loc, parameter.getTensorType(), 0.0);
      // Each output needs a buffer of its own: two parameters with one
      // gradient (the operands of an add, say) return a copy for the second.
      if (llvm::is_contained(results, gradient))
        gradient = bufferization::AllocTensorOp::create(
            b, loc, parameter.getTensorType(), ValueRange(), gradient);
      results.push_back(gradient);
    }
    func::ReturnOp::create(b, loc, results);
    return success();
  }

  /// Applies `op`'s gradient rule if any of its results has an adjoint,
  /// adding what it gives each operand to that operand's adjoint.
  LogicalResult propagate(OpBuilder &b, Operation *op,
                          DenseMap<Value, Value> &adjoints) {
    SmallVector<Value> resultAdjoints = llvm::map_to_vector(
        op->getResults(), [&](Value r) { return adjoints.lookup(r); });
    // Ops without operands (parameter reads, constants) end the sweep.
    if (llvm::all_of(resultAdjoints, [](Value v) { return !v; }) ||
        op->getNumOperands() == 0)
      return success();
    auto rule = dyn_cast<nn::DifferentiableOpInterface>(op);
    if (!rule)
      return op->emitOpError("has no gradient rule");
    SmallVector<Value> operandAdjoints;
    if (failed(rule.buildAdjoints(b, resultAdjoints, operandAdjoints)))
      return failure();
    assert(operandAdjoints.size() == op->getNumOperands() &&
           "a gradient rule gives one adjoint (or null) per operand");
    for (auto [operand, adjoint] :
         llvm::zip_equal(op->getOperands(), operandAdjoints)) {
      if (!adjoint)
        continue;
      assert(adjoint.getType() == operand.getType() &&
             "a gradient rule gives an adjoint of its operand's type");
      Value &sum = adjoints[operand];
      sum = sum ? nn::AddOp::create(b, op->getLoc(), sum, adjoint).getResult()
                : adjoint;
    }
    return success();
  }
};

} // namespace
