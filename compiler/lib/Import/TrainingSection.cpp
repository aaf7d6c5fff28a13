//===- TrainingSection.cpp - The loss function and training settings ------===//
#include "GraphBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace transfuse::import {
namespace {

/// PyTorch's default ignore_index: no class is ignored.
constexpr int64_t kTorchIgnoreIndex = -100;

class TrainingSection {
public:
  TrainingSection(const spec::Spec &spec, ModuleOp module, func::FuncOp forward)
      : spec(spec), training(spec.getModel().training()), module(module),
        forward(forward), b(module.getContext()),
        cursor(spec.root().child("training")) {}

  LogicalResult build();

private:
  InFlightDiagnostic errorAt(StringRef field) {
    return emitError(cursor.locationOf(field)) << cursor.pathOf(field) << ": ";
  }
  FailureOr<DictionaryAttr> settings();
  FailureOr<NamedAttribute> optimizer();
  FailureOr<NamedAttribute> schedule();

  const spec::Spec &spec;
  const spec::Training &training;
  ModuleOp module;
  func::FuncOp forward;
  OpBuilder b;
  spec::SpecCursor cursor;
};

/// The `nn.name` of each of forward's results (outputs) or arguments
/// (inputs): the spec's or the ONNX graph's names.
SmallVector<StringRef> namesOf(func::FuncOp forward, bool results) {
  SmallVector<StringRef> names;
  unsigned count =
      results ? forward.getNumResults() : forward.getNumArguments();
  for (unsigned i = 0; i < count; ++i) {
    auto name = results ? forward.getResultAttrOfType<StringAttr>(i, "nn.name")
                        : forward.getArgAttrOfType<StringAttr>(i, "nn.name");
    names.push_back(name ? name.getValue() : StringRef());
  }
  return names;
}

LogicalResult TrainingSection::build() {
  SmallVector<StringRef> outputs = namesOf(forward, /*results=*/true);
  auto outputIt = llvm::find(outputs, training.logits());
  if (outputIt == outputs.end())
    return errorAt("logits")
           << "'" << training.logits() << "' is not one of the model outputs ("
           << llvm::join(outputs, ", ") << ")";
  unsigned outputIndex = std::distance(outputs.begin(), outputIt);

  const spec::Input &labels = training.labels();
  spec::SpecCursor labelCursor = cursor.child("labels");
  Type labelElement = elementTypeOf(b.getContext(), labels.dtype());
  if (labels.name().empty() || !labelElement ||
      !isa<IntegerType>(labelElement) || labelElement.isInteger(1))
    return errorAt("labels") << "labels need a name and an integer dtype";
  if (llvm::is_contained(namesOf(forward, /*results=*/false), labels.name()))
    return errorAt("labels")
           << "labels '" << labels.name() << "' are named like a model input";
  FailureOr<SmallVector<int64_t>> labelShape =
      spec.resolveShape(labelCursor, "shape");
  if (failed(labelShape))
    return failure();
  auto labelType = RankedTensorType::get(*labelShape, labelElement);
  auto logitsType =
      cast<RankedTensorType>(forward.getResultTypes()[outputIndex]);
  if (!isa<FloatType>(logitsType.getElementType()))
    return errorAt("logits") << "the loss needs float logits, but '"
                             << training.logits() << "' is " << logitsType;
  std::string why;
  if (failed(nn::checkClassification(logitsType.getShape(), *labelShape, why)))
    return errorAt("labels") << why;

  FailureOr<DictionaryAttr> attrs = settings();
  if (failed(attrs))
    return failure();
  module->setAttr("nn.training", *attrs);

  SmallVector<Type> argTypes(forward.getArgumentTypes());
  argTypes.push_back(labelType);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = cursor.getLoc();
  auto loss = func::FuncOp::create(
      b, loc, "loss",
      b.getFunctionType(argTypes, {RankedTensorType::get({}, b.getF32Type())}));
  for (unsigned i = 0; i < forward.getNumArguments(); ++i)
    loss.setArgAttrs(i, forward.getArgAttrDict(i));
  loss.setArgAttr(argTypes.size() - 1, "nn.name",
                  b.getStringAttr(labels.name()));
  Block *body = loss.addEntryBlock();
  b.setInsertionPointToStart(body);
  auto call =
      func::CallOp::create(b, loc, forward, body->getArguments().drop_back());
  Value logits = call.getResult(outputIndex);
  Value target = body->getArguments().back();
  const spec::Loss &lossSpec = training.loss();
  Value value;
  switch (lossSpec.kind_case()) {
  case spec::Loss::kCrossEntropy: {
    const spec::CrossEntropy &ce = lossSpec.cross_entropy();
    double smoothing = ce.label_smoothing();
    if (!(smoothing >= 0.0 && smoothing <= 1.0))
      return emitError(cursor.child("loss")
                           .child("cross_entropy")
                           .locationOf("label_smoothing"))
             << "training.loss.cross_entropy.label_smoothing: must be in "
                "[0, 1], got "
             << smoothing;
    value = nn::CrossEntropyOp::create(
        b, loc, logits, target,
        b.getI64IntegerAttr(ce.has_ignore_index() ? ce.ignore_index()
                                                  : kTorchIgnoreIndex),
        b.getF64FloatAttr(smoothing));
    break;
  }
  case spec::Loss::kNll: {
    const spec::NllLoss &nll = lossSpec.nll();
    value = nn::NllLossOp::create(b, loc, logits, target,
                                  b.getI64IntegerAttr(nll.has_ignore_index()
                                                          ? nll.ignore_index()
                                                          : kTorchIgnoreIndex));
    break;
  }
  case spec::Loss::KIND_NOT_SET:
    return errorAt("loss") << "choose a loss: cross_entropy or nll";
  }
  func::ReturnOp::create(b, loc, value);
  return success();
}

FailureOr<NamedAttribute> TrainingSection::optimizer() {
  const spec::Optimizer &spec = training.optimizer();
  SmallVector<NamedAttribute> fields;
  auto add = [&](StringRef name, double value) {
    fields.push_back(b.getNamedAttr(name, b.getF64FloatAttr(value)));
  };
  double lr = 0;
  switch (spec.kind_case()) {
  case spec::Optimizer::kSgd:
    fields.push_back(b.getNamedAttr("kind", b.getStringAttr("sgd")));
    lr = spec.sgd().lr();
    add("momentum", spec.sgd().momentum());
    add("weight_decay", spec.sgd().weight_decay());
    fields.push_back(
        b.getNamedAttr("nesterov", b.getBoolAttr(spec.sgd().nesterov())));
    break;
  case spec::Optimizer::kAdam:
  case spec::Optimizer::kAdamw: {
    bool decoupled = spec.has_adamw();
    const spec::Adam &adam = decoupled ? spec.adamw() : spec.adam();
    fields.push_back(
        b.getNamedAttr("kind", b.getStringAttr(decoupled ? "adamw" : "adam")));
    lr = adam.lr();
    add("beta1", adam.has_beta1() ? adam.beta1() : 0.9);
    add("beta2", adam.has_beta2() ? adam.beta2() : 0.999);
    add("eps", adam.has_eps() ? adam.eps() : 1e-8);
    add("weight_decay", adam.has_weight_decay() ? adam.weight_decay()
                                                : (decoupled ? 0.01 : 0.0));
    break;
  }
  case spec::Optimizer::KIND_NOT_SET:
    return errorAt("optimizer") << "choose an optimizer: sgd, adam or adamw";
  }
  // The ranges torch.optim checks, reported at the optimizer's fields.
  spec::SpecCursor kindCursor = cursor.child("optimizer")
                                    .child(spec.has_sgd()    ? "sgd"
                                           : spec.has_adam() ? "adam"
                                                             : "adamw");
  auto errorIn = [&](StringRef field) {
    return emitError(kindCursor.locationOf(field))
           << kindCursor.pathOf(field) << ": ";
  };
  if (!(lr > 0))
    return errorIn("lr") << "the learning rate must be positive, got " << lr;
  for (const NamedAttribute &field : fields) {
    auto value = dyn_cast<FloatAttr>(field.getValue());
    if (!value)
      continue;
    double x = value.getValueAsDouble();
    StringRef name = field.getName().getValue();
    bool beta = name == "beta1" || name == "beta2";
    if (beta ? !(x >= 0 && x < 1) : !(x >= 0))
      return errorIn(name) << (beta ? "must be in [0, 1), got "
                                    : "must not be negative, got ")
                           << x;
  }
  if (spec.has_sgd() && spec.sgd().nesterov() && !(spec.sgd().momentum() > 0))
    return errorIn("nesterov") << "nesterov needs a positive momentum";
  add("lr", lr);
  return b.getNamedAttr("optimizer", b.getDictionaryAttr(fields));
}

FailureOr<NamedAttribute> TrainingSection::schedule() {
  const spec::Schedule &spec = training.schedule();
  SmallVector<NamedAttribute> fields;
  auto kind = [&](StringRef name) {
    fields.push_back(b.getNamedAttr("kind", b.getStringAttr(name)));
  };
  auto steps = [&](StringRef name, int64_t value) -> LogicalResult {
    if (value <= 0)
      return errorAt("schedule") << name << " must be positive";
    fields.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
    return success();
  };
  switch (spec.kind_case()) {
  case spec::Schedule::KIND_NOT_SET:
  case spec::Schedule::kConstant:
    kind("constant");
    break;
  case spec::Schedule::kLinearWarmup:
    kind("linear_warmup");
    if (failed(steps("warmup_steps", spec.linear_warmup().warmup_steps())))
      return failure();
    break;
  case spec::Schedule::kInverseSqrt:
    kind("inverse_sqrt");
    if (failed(steps("warmup_steps", spec.inverse_sqrt().warmup_steps())))
      return failure();
    break;
  case spec::Schedule::kCosine:
    kind("cosine");
    if (spec.cosine().warmup_steps() < 0)
      return errorAt("schedule") << "warmup_steps must not be negative";
    if (failed(steps("total_steps", spec.cosine().total_steps())))
      return failure();
    fields.push_back(b.getNamedAttr(
        "warmup_steps", b.getI64IntegerAttr(spec.cosine().warmup_steps())));
    fields.push_back(
        b.getNamedAttr("min_lr", b.getF64FloatAttr(spec.cosine().min_lr())));
    break;
  }
  return b.getNamedAttr("schedule", b.getDictionaryAttr(fields));
}

FailureOr<DictionaryAttr> TrainingSection::settings() {
  FailureOr<NamedAttribute> opt = optimizer();
  if (failed(opt))
    return failure();
  FailureOr<NamedAttribute> sched = schedule();
  if (failed(sched))
    return failure();
  if (!(training.clip_grad_norm() >= 0))
    return errorAt("clip_grad_norm") << "must not be negative";
  SmallVector<NamedAttribute> fields = {
      *opt, *sched,
      b.getNamedAttr("clip_grad_norm",
                     b.getF64FloatAttr(training.clip_grad_norm())),
      b.getNamedAttr("seed", b.getI64IntegerAttr(training.seed()))};
  return b.getDictionaryAttr(fields);
}

} // namespace

LogicalResult buildTrainingSection(const spec::Spec &spec, ModuleOp module,
                                   func::FuncOp forward) {
  return TrainingSection(spec, module, forward).build();
}

} // namespace transfuse::import
