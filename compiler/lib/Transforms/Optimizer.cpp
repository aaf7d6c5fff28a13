//===- Optimizer.cpp - The training step: gradients, clipping, update -----===//
//
// Builds `train_step` from `loss_and_grads` and the module's `nn.training`
// settings. Scalars (the step, the learning rate, bias corrections, the
// clipping factor) are computed once with arith and math in f64, as
// torch.optim does in Python floats, and enter the tensor math as rank-0
// tensors that the nn elementwise ops broadcast. Every parameter's update
// is a chain of elementwise nn ops ending in `nn.param_store`, which
// bufferization writes in place; with runtime-update, the norm is one
// nn.global_norm and each update one nn.adam_update or nn.sgd_update, the
// ops the CUDA runtime's kernels run, with the chain's f32 arithmetic.
//===----------------------------------------------------------------------===//
#include "TrainingSettings.h"
#include "transfuse/Transforms/Passes.h"

#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

#include <cmath>

namespace transfuse {
#define GEN_PASS_DEF_OPTIMIZER
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse;

namespace {

constexpr llvm::StringLiteral kGradientFunction = "loss_and_grads";
constexpr llvm::StringLiteral kTrainStep = "train_step";
constexpr llvm::StringLiteral kDropoutSeed = "dropout_seed";
constexpr llvm::StringLiteral kStep = "step";
/// What clip_grad_norm_ adds to the norm before dividing by it.
constexpr double kClipEpsilon = 1e-6;

/// The name of the optimizer state `kind` of `parameter`.
std::string stateName(StringRef kind, nn::ParameterOp parameter) {
  return ("optimizer." + kind + "." + parameter.getSymName()).str();
}

/// Scalar arithmetic at one insertion point.
struct Scalars {
  OpBuilder &b;
  Location loc;

  Value f64(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value min(Value x, Value y) {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
  Value pow(Value x, Value y) { return math::PowFOp::create(b, loc, x, y); }

  /// `value` (f64) as a rank-0 tensor of `element`, which nn ops broadcast.
  Value tensor(Value value, Type element) {
    if (value.getType() != element)
      value = arith::TruncFOp::create(b, loc, element, value);
    return tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({}, element), value);
  }
  /// The constant `v` of `element` as a rank-0 tensor.
  Value tensorConstant(double v, Type element) {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, element),
                               b.getFloatAttr(element, v)));
  }
  /// The element of a rank-0 tensor.
  Value extract(Value tensor) {
    return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
  }
};

/// The schedule's factor f(t) at the 1-based step t (f64), so that the
/// step's learning rate is lr · f(t).
Value scheduleFactor(Scalars &s, const TrainingSettings &settings, Value t) {
  double warmup = static_cast<double>(settings.warmup);
  if (settings.schedule == "linear_warmup")
    return s.min(s.f64(1.0), s.div(t, s.f64(warmup)));
  if (settings.schedule == "inverse_sqrt")
    return s.mul(s.min(math::RsqrtOp::create(s.b, s.loc, t),
                       s.mul(t, s.f64(std::pow(warmup, -1.5)))),
                 s.f64(std::sqrt(warmup)));
  if (settings.schedule == "cosine") {
    double floor = settings.minLr / settings.lr;
    double span = std::max(1.0, double(settings.total) - warmup);
    Value progress =
        s.min(s.f64(1.0), s.div(s.sub(t, s.f64(warmup)), s.f64(span)));
    Value wave = s.mul(
        s.f64(0.5),
        s.add(s.f64(1.0),
              math::CosOp::create(s.b, s.loc, s.mul(s.f64(M_PI), progress))));
    Value decay = s.add(s.f64(floor), s.mul(s.f64(1.0 - floor), wave));
    if (settings.warmup == 0)
      return decay;
    Value warming = arith::CmpFOp::create(s.b, s.loc, arith::CmpFPredicate::OLE,
                                          t, s.f64(warmup));
    return arith::SelectOp::create(s.b, s.loc, warming, s.div(t, s.f64(warmup)),
                                   decay);
  }
  return s.f64(1.0);
}

/// The 64-bit dropout seed of a step: the training seed in the high word,
/// the step in the low one, so no two steps share a mask.
Value dropoutSeed(OpBuilder &b, Location loc, int64_t seed, Value step) {
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  Value low = arith::AndIOp::create(b, loc, step, i64(0xffffffff));
  Value value = arith::OrIOp::create(
      b, loc, low,
      i64(static_cast<int64_t>(static_cast<uint64_t>(seed) << 32)));
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, b.getI64Type()), value);
}

class TrainStepBuilder {
public:
  TrainStepBuilder(ModuleOp module, const TrainingSettings &settings,
                   bool runtimeUpdate)
      : module(module), settings(settings), runtimeUpdate(runtimeUpdate),
        b(module.getContext()) {}

  LogicalResult build(func::FuncOp gradients) {
    if (failed(checkGradients(gradients)) || failed(checkStateNames()))
      return failure();
    Location loc = gradients.getLoc();

    // train_step takes loss_and_grads's arguments but the dropout seed,
    // then the step.
    SmallVector<Type> argumentTypes;
    SmallVector<DictionaryAttr> argumentAttrs;
    std::optional<unsigned> seedIndex;
    for (auto [i, type] : llvm::enumerate(gradients.getArgumentTypes())) {
      auto name = gradients.getArgAttrOfType<StringAttr>(i, "nn.name");
      if (name && name.getValue() == kDropoutSeed) {
        seedIndex = i;
        continue;
      }
      argumentTypes.push_back(type);
      argumentAttrs.push_back(gradients.getArgAttrDict(i));
    }
    argumentTypes.push_back(RankedTensorType::get({}, b.getI64Type()));
    argumentAttrs.push_back(
        b.getDictionaryAttr(b.getNamedAttr("nn.name", b.getStringAttr(kStep))));
    auto scalarF32 = RankedTensorType::get({}, b.getF32Type());
    SmallVector<Type> resultTypes(3, scalarF32);
    resultTypes[0] = gradients.getResultTypes()[0];

    b.setInsertionPointAfter(gradients);
    auto function = func::FuncOp::create(
        b, loc, kTrainStep, b.getFunctionType(argumentTypes, resultTypes));
    function.setAllArgAttrs(argumentAttrs);
    const char *resultNames[] = {"loss", "grad_norm", "lr"};
    for (auto [i, name] : llvm::enumerate(resultNames))
      function.setResultAttr(i, "nn.name", b.getStringAttr(name));
    Block *body = function.addEntryBlock();
    b.setInsertionPointToEnd(body);
    Scalars s{b, loc};

    Value step = s.extract(body->getArguments().back());
    IRMapping mapping;
    unsigned next = 0;
    for (auto [i, argument] : llvm::enumerate(gradients.getArguments()))
      mapping.map(argument, seedIndex == i
                                ? dropoutSeed(b, loc, settings.seed, step)
                                : body->getArgument(next++));
    SmallVector<Value> outputs;
    for (Operation &op : gradients.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (Value v : ret.getOperands())
          outputs.push_back(mapping.lookup(v));
        break;
      }
      b.clone(op, mapping);
    }

    Value t = arith::SIToFPOp::create(b, loc, b.getF64Type(), step);
    Value lr = s.mul(s.f64(settings.lr), scheduleFactor(s, settings, t));
    ArrayRef<Value> grads = ArrayRef(outputs).drop_front();
    Value norm = runtimeUpdate
                     ? nn::GlobalNormOp::create(b, loc, scalarF32, grads)
                     : globalNorm(s, grads);
    Value clipFactor = clipping(s, norm);
    // The kernels always scale by the factor; by 1 it changes nothing.
    if (runtimeUpdate && !clipFactor)
      clipFactor = s.tensorConstant(1.0, b.getF32Type());

    for (auto [i, parameter] : llvm::enumerate(parameters())) {
      if (runtimeUpdate)
        runtimeKernelUpdate(s, parameter, outputs[i + 1], lr, t, clipFactor);
      else
        update(s, parameter, outputs[i + 1], lr, t, clipFactor);
    }
    func::ReturnOp::create(
        b, loc, ValueRange{outputs[0], norm, s.tensor(lr, b.getF32Type())});
    return success();
  }

private:
  SmallVector<nn::ParameterOp> parameters() {
    return llvm::to_vector(module.getOps<nn::ParameterOp>());
  }

  /// That `gradients` is what nn-autodiff builds for f32 parameters: the
  /// body in one block, results the loss (a float scalar) and then every
  /// parameter's gradient, of its type, in declaration order; among the
  /// arguments at most one dropout seed, and none named like train_step's
  /// `step`.
  LogicalResult checkGradients(func::FuncOp gradients) {
    if (!gradients.getBody().hasOneBlock())
      return gradients.emitOpError("must have a single block");
    SmallVector<nn::ParameterOp> trained = parameters();
    if (trained.empty())
      return module.emitError("nothing to train: the module declares no "
                              "nn.parameter");
    if (gradients.getNumResults() != trained.size() + 1)
      return gradients.emitOpError("has ")
             << gradients.getNumResults()
             << " results; the loss and one gradient for each of the "
             << trained.size() << " parameters need " << trained.size() + 1;
    auto loss = dyn_cast<RankedTensorType>(gradients.getResultTypes()[0]);
    if (!loss || loss.getRank() != 0 || !isa<FloatType>(loss.getElementType()))
      return gradients.emitOpError("result 0 must be the loss, a float "
                                   "scalar (rank-0 tensor), got ")
             << gradients.getResultTypes()[0];
    for (auto [i, parameter] : llvm::enumerate(trained)) {
      // The step's scalars (the norm, the clipping factor, the learning
      // rate) are f32, as the runtime's kernels and the artifact's
      // checkpoints are.
      if (!parameter.getTensorType().getElementType().isF32())
        return parameter.emitOpError("must be f32 to be trained, got ")
               << parameter.getType();
      unsigned result = i + 1;
      auto name = gradients.getResultAttrOfType<StringAttr>(result, "nn.grad");
      if (!name || name.getValue() != parameter.getSymName())
        return gradients.emitOpError("result ")
               << result << " is not the gradient of '"
               << parameter.getSymName() << "'";
      if (gradients.getResultTypes()[result] != parameter.getType())
        return gradients.emitOpError("result ")
               << result << ", the gradient of '" << parameter.getSymName()
               << "', is " << gradients.getResultTypes()[result]
               << ", not the parameter's " << parameter.getType();
    }
    auto seedType = RankedTensorType::get({}, b.getI64Type());
    std::optional<unsigned> seed;
    for (unsigned i = 0; i < gradients.getNumArguments(); ++i) {
      auto name = gradients.getArgAttrOfType<StringAttr>(i, "nn.name");
      if (!name)
        continue;
      if (name.getValue() == kStep)
        return gradients.emitOpError("argument ")
               << i << " is named '" << kStep
               << "', the name of the argument train_step adds";
      if (name.getValue() != kDropoutSeed)
        continue;
      if (seed)
        return gradients.emitOpError("has two dropout seeds, arguments ")
               << *seed << " and " << i;
      if (gradients.getArgumentTypes()[i] != seedType)
        return gradients.emitOpError("argument ")
               << i << ", the dropout seed, must be " << seedType << ", got "
               << gradients.getArgumentTypes()[i];
      seed = i;
    }
    return success();
  }

  /// That the names of the optimizer state the update declares are free.
  LogicalResult checkStateNames() {
    for (nn::ParameterOp parameter : parameters())
      for (StringRef kind : settings.stateKinds()) {
        std::string name = stateName(kind, parameter);
        if (Operation *taken = module.lookupSymbol(name))
          return taken->emitOpError("is named '")
                 << name << "', the name of the optimizer state of '"
                 << parameter.getSymName() << "'";
      }
    return success();
  }

  /// sqrt(Σ |g|²) over every gradient, as a rank-0 f32 tensor. The squares
  /// are summed in f64: a loop summing a million f32 squares into one f32
  /// accumulator loses their low bits as the sum grows (an embedding
  /// gradient's norm came out 5e-5 low, relative), where PyTorch's and the
  /// CUDA kernels' blocked sums do not.
  Value globalNorm(Scalars &s, ArrayRef<Value> grads) {
    Type f64 = b.getF64Type();
    Value sum;
    for (Value grad : grads) {
      auto type = cast<RankedTensorType>(grad.getType());
      Value wide = nn::CastOp::create(b, s.loc, grad, TypeAttr::get(f64));
      Value squares = nn::MulOp::create(b, s.loc, wide, wide);
      Value term = nn::ReduceSumOp::create(
          b, s.loc, squares,
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
      sum = sum ? nn::AddOp::create(b, s.loc, sum, term).getResult() : term;
    }
    Value norm = nn::SqrtOp::create(b, s.loc, sum);
    return nn::CastOp::create(b, s.loc, norm, TypeAttr::get(b.getF32Type()));
  }

  /// min(1, clip / (norm + 1e-6)) in f32 as clip_grad_norm_ computes it, or
  /// null when the settings do not clip.
  Value clipping(Scalars &s, Value norm) {
    if (settings.clip <= 0)
      return nullptr;
    Type f32 = b.getF32Type();
    auto c = [&](double v) -> Value {
      return arith::ConstantOp::create(b, s.loc, b.getF32FloatAttr(v));
    };
    Value coefficient =
        s.div(c(settings.clip), s.add(s.extract(norm), c(kClipEpsilon)));
    return s.tensor(s.min(coefficient, c(1.0)), f32);
  }

  /// Declares optimizer state `kind` of `parameter` and reads it.
  std::pair<StringAttr, Value> state(nn::ParameterOp parameter,
                                     StringRef kind) {
    std::string name = stateName(kind, parameter);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(lastDeclaration());
      nn::StateOp::create(b, parameter.getLoc(), name, parameter.getType());
    }
    Value value = nn::ParamLoadOp::create(b, parameter.getLoc(),
                                          parameter.getType(), name);
    return {b.getStringAttr(name), value};
  }

  Operation *lastDeclaration() {
    Operation *last = nullptr;
    for (Operation &op : *module.getBody())
      if (isa<nn::ParameterOp, nn::StateOp>(op))
        last = &op;
    return last;
  }

  void store(Value value, StringRef name) {
    nn::ParamStoreOp::create(b, value.getLoc(), value, name);
  }

  /// One parameter's update, as torch.optim's single-tensor step.
  void update(Scalars &s, nn::ParameterOp parameter, Value grad, Value lr,
              Value t, Value clipFactor) {
    Location loc = parameter.getLoc();
    Type element = parameter.getTensorType().getElementType();
    auto scalar = [&](Value v) { return s.tensor(v, element); };
    auto constant = [&](double v) { return s.tensorConstant(v, element); };
    auto mul = [&](Value x, Value y) -> Value {
      return nn::MulOp::create(b, loc, x, y);
    };
    auto add = [&](Value x, Value y) -> Value {
      return nn::AddOp::create(b, loc, x, y);
    };
    auto sub = [&](Value x, Value y) -> Value {
      return nn::SubOp::create(b, loc, x, y);
    };
    Value p = nn::ParamLoadOp::create(b, loc, parameter.getType(),
                                      parameter.getSymName());
    Value g = clipFactor ? mul(grad, clipFactor) : grad;
    bool decoupled = settings.optimizer == "adamw";
    if (settings.weightDecay != 0 && !decoupled)
      g = add(g, mul(p, constant(settings.weightDecay)));

    // The parameter is stored before its optimizer state: every read of the
    // state's new value then follows the update that computes it too, so
    // the update fuses into one loop (nn-fuse-elementwise-loops).
    if (settings.optimizer == "sgd") {
      Value direction = g, updated;
      StringAttr bufferName;
      if (settings.momentum != 0) {
        auto [name, buffer] = state(parameter, "momentum_buffer");
        updated = add(mul(buffer, constant(settings.momentum)), g);
        bufferName = name;
        direction = settings.nesterov
                        ? add(g, mul(updated, constant(settings.momentum)))
                        : updated;
      }
      store(sub(p, mul(direction, scalar(lr))), parameter.getSymName());
      if (updated)
        store(updated, bufferName);
      return;
    }

    if (decoupled && settings.weightDecay != 0)
      p = mul(
          p, scalar(s.sub(s.f64(1.0), s.mul(lr, s.f64(settings.weightDecay)))));
    auto [mName, m] = state(parameter, "exp_avg");
    auto [vName, v] = state(parameter, "exp_avg_sq");
    Value mNew = add(mul(m, constant(settings.beta1)),
                     mul(g, constant(1.0 - settings.beta1)));
    Value vNew = add(mul(v, constant(settings.beta2)),
                     mul(mul(g, g), constant(1.0 - settings.beta2)));
    Value correction1 = s.sub(s.f64(1.0), s.pow(s.f64(settings.beta1), t));
    Value correction2 = s.sub(s.f64(1.0), s.pow(s.f64(settings.beta2), t));
    Value stepSize = scalar(s.div(lr, correction1));
    Value denominator =
        add(nn::DivOp::create(b, loc, nn::SqrtOp::create(b, loc, vNew),
                              scalar(s.sqrt(correction2))),
            constant(settings.eps));
    Value direction = nn::DivOp::create(b, loc, mNew, denominator);
    store(sub(p, mul(direction, stepSize)), parameter.getSymName());
    store(mNew, mName);
    store(vNew, vName);
  }

  /// One parameter's update as the op of the runtime's kernel: what
  /// update() computes, the scalars computed here as there.
  void runtimeKernelUpdate(Scalars &s, nn::ParameterOp parameter, Value grad,
                           Value lr, Value t, Value clipFactor) {
    Location loc = parameter.getLoc();
    Type f32 = b.getF32Type();
    Type type = parameter.getType();
    Value p = nn::ParamLoadOp::create(b, loc, type, parameter.getSymName());
    FloatAttr weightDecay = b.getF64FloatAttr(settings.weightDecay);

    if (settings.optimizer == "sgd") {
      std::optional<std::pair<StringAttr, Value>> buffer;
      if (settings.momentum != 0)
        buffer = state(parameter, "momentum_buffer");
      SmallVector<Type, 2> results(buffer ? 2 : 1, type);
      auto op = nn::SgdUpdateOp::create(
          b, loc, results, p, grad, s.tensor(lr, f32), clipFactor,
          buffer ? buffer->second : Value(),
          b.getF64FloatAttr(settings.momentum), weightDecay,
          settings.nesterov ? b.getUnitAttr() : UnitAttr());
      store(op.getResult(0), parameter.getSymName());
      if (buffer)
        store(op.getResult(1), buffer->first);
      return;
    }

    bool decoupled = settings.optimizer == "adamw";
    Value decay = decoupled && settings.weightDecay != 0
                      ? s.tensor(s.sub(s.f64(1.0),
                                       s.mul(lr, s.f64(settings.weightDecay))),
                                 f32)
                      : s.tensorConstant(1.0, f32);
    auto [mName, m] = state(parameter, "exp_avg");
    auto [vName, v] = state(parameter, "exp_avg_sq");
    Value correction1 = s.sub(s.f64(1.0), s.pow(s.f64(settings.beta1), t));
    Value correction2 = s.sub(s.f64(1.0), s.pow(s.f64(settings.beta2), t));
    auto op = nn::AdamUpdateOp::create(
        b, loc, TypeRange{type, type, type}, p, grad, m, v,
        s.tensor(s.div(lr, correction1), f32),
        s.tensor(s.sqrt(correction2), f32), clipFactor, decay,
        b.getF64FloatAttr(settings.beta1), b.getF64FloatAttr(settings.beta2),
        b.getF64FloatAttr(settings.eps),
        decoupled ? b.getF64FloatAttr(0.0) : weightDecay);
    store(op.getNewParam(), parameter.getSymName());
    store(op.getNewExpAvg(), mName);
    store(op.getNewExpAvgSq(), vName);
  }

  ModuleOp module;
  const TrainingSettings &settings;
  bool runtimeUpdate;
  OpBuilder b;
};

struct OptimizerPass : transfuse::impl::OptimizerBase<OptimizerPass> {
  using OptimizerBase::OptimizerBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto gradients = module.lookupSymbol<func::FuncOp>(kGradientFunction);
    if (!gradients) {
      module.emitError("no '") << kGradientFunction
                               << "' to build the training step from (run "
                                  "nn-autodiff first)";
      return signalPassFailure();
    }
    if (module.lookupSymbol(kTrainStep)) {
      module.emitError("'") << kTrainStep << "' exists already";
      return signalPassFailure();
    }
    FailureOr<TrainingSettings> settings = TrainingSettings::read(module);
    if (failed(settings) ||
        failed(TrainStepBuilder(module, *settings, runtimeUpdate)
                   .build(gradients)))
      signalPassFailure();
  }
};

} // namespace
