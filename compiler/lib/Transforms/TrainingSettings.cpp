//===- TrainingSettings.cpp - The nn.training settings, checked -----------===//
//
// The importer writes `nn.training` from a checked spec, but nn-optimizer
// also runs on IR written by hand: every field is read with its type and
// range checked, and an error names it by its path
// (`nn.training.optimizer.lr`).
//===----------------------------------------------------------------------===//
#include "TrainingSettings.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace transfuse {
namespace {

/// What a setting must be to be one torch.optim accepts.
enum class Range { Any, Positive, NonNegative, Fraction };

/// The fields of one dictionary of `nn.training`, read with their types
/// and ranges checked; an error names the field by its path.
class Fields {
public:
  Fields(ModuleOp module, DictionaryAttr dict, std::string path)
      : module(module), dict(dict), path(std::move(path)) {}

  /// The dictionary `name`, which must be there.
  FailureOr<Fields> dictionary(StringRef name) {
    auto value = get<DictionaryAttr>(name, "a dictionary", /*required=*/true);
    if (failed(value))
      return failure();
    return Fields(module, *value, path + "." + name.str());
  }

  /// The string `name`, one of `choices`, which must be there.
  LogicalResult choice(StringRef name, ArrayRef<StringLiteral> choices,
                       std::string &field) {
    std::string expected = "one of '" + llvm::join(choices, "', '") + "'";
    auto value = get<StringAttr>(name, expected, /*required=*/true);
    if (failed(value))
      return failure();
    if (!llvm::is_contained(choices, value->getValue()))
      return error(name) << "expected " << expected << ", got " << *value;
    field = value->str();
    return success();
  }

  /// The float `name` in `range`, or `field` as it is when it is absent
  /// and not `required`.
  LogicalResult real(StringRef name, Range range, double &field,
                     bool required = false) {
    std::string expected = describe(range, "float");
    auto value = get<FloatAttr>(name, expected, required);
    if (failed(value))
      return failure();
    if (!*value)
      return success();
    field = value->getValueAsDouble();
    if (!inRange(field, range))
      return error(name) << "expected " << expected << ", got " << *value;
    return success();
  }

  /// The integer `name` in `range`, as real() reads a float.
  LogicalResult integer(StringRef name, Range range, int64_t &field,
                        bool required = false) {
    std::string expected = describe(range, "integer");
    auto value = get<IntegerAttr>(name, expected, required);
    if (failed(value))
      return failure();
    if (!*value)
      return success();
    const APInt &bits = value->getValue();
    if (bits.getSignificantBits() > 64 ||
        !inRange(static_cast<double>(bits.getSExtValue()), range))
      return error(name) << "expected " << expected << ", got " << *value;
    field = bits.getSExtValue();
    return success();
  }

  LogicalResult boolean(StringRef name, bool &field) {
    auto value = get<BoolAttr>(name, "a boolean", /*required=*/false);
    if (failed(value))
      return failure();
    if (*value)
      field = value->getValue();
    return success();
  }

  InFlightDiagnostic error(StringRef name) {
    return module.emitError() << path << "." << name << ": ";
  }

private:
  /// The attribute `name` of type `AttrT`, null when it is absent and not
  /// `required`.
  template <typename AttrT>
  FailureOr<AttrT> get(StringRef name, StringRef expected, bool required) {
    Attribute value = dict.get(name);
    if (!value) {
      if (required)
        return error(name) << "missing, expected " << expected;
      return AttrT();
    }
    auto typed = dyn_cast<AttrT>(value);
    if (!typed)
      return error(name) << "expected " << expected << ", got " << value;
    return typed;
  }

  static std::string describe(Range range, StringRef kind) {
    switch (range) {
    case Range::Any:
      return ("an " + kind).str();
    case Range::Positive:
      return ("a positive " + kind).str();
    case Range::NonNegative:
      return ("a non-negative " + kind).str();
    case Range::Fraction:
      return ("a " + kind + " in [0, 1)").str();
    }
    llvm_unreachable("unknown range");
  }

  /// Written so that NaN lies in no range but Any.
  static bool inRange(double value, Range range) {
    switch (range) {
    case Range::Any:
      return true;
    case Range::Positive:
      return value > 0;
    case Range::NonNegative:
      return value >= 0;
    case Range::Fraction:
      return value >= 0 && value < 1;
    }
    llvm_unreachable("unknown range");
  }

  ModuleOp module;
  DictionaryAttr dict;
  std::string path;
};

} // namespace

FailureOr<TrainingSettings> TrainingSettings::read(ModuleOp module) {
  auto dict = module->getAttrOfType<DictionaryAttr>("nn.training");
  if (!dict)
    return module.emitError("no nn.training settings to build the "
                            "optimizer from");
  Fields training(module, dict, "nn.training");
  FailureOr<Fields> optimizer = training.dictionary("optimizer");
  if (failed(optimizer))
    return failure();
  FailureOr<Fields> schedule = training.dictionary("schedule");
  if (failed(schedule))
    return failure();
  TrainingSettings s;
  if (failed(
          optimizer->choice("kind", {"sgd", "adam", "adamw"}, s.optimizer)) ||
      failed(optimizer->real("lr", Range::Positive, s.lr,
                             /*required=*/true)) ||
      failed(optimizer->real("momentum", Range::NonNegative, s.momentum)) ||
      failed(
          optimizer->real("weight_decay", Range::NonNegative, s.weightDecay)) ||
      failed(optimizer->real("beta1", Range::Fraction, s.beta1)) ||
      failed(optimizer->real("beta2", Range::Fraction, s.beta2)) ||
      failed(optimizer->real("eps", Range::NonNegative, s.eps)) ||
      failed(optimizer->boolean("nesterov", s.nesterov)))
    return failure();
  if (s.nesterov && s.momentum <= 0)
    return optimizer->error("nesterov") << "needs a positive momentum";

  if (failed(schedule->choice(
          "kind", {"constant", "linear_warmup", "inverse_sqrt", "cosine"},
          s.schedule)))
    return failure();
  // The warm-up divides by its length; cosine's may be 0.
  bool cosine = s.schedule == "cosine";
  if (s.schedule != "constant" &&
      failed(schedule->integer("warmup_steps",
                               cosine ? Range::NonNegative : Range::Positive,
                               s.warmup, /*required=*/!cosine)))
    return failure();
  if (cosine &&
      (failed(schedule->integer("total_steps", Range::Positive, s.total,
                                /*required=*/true)) ||
       failed(schedule->real("min_lr", Range::NonNegative, s.minLr))))
    return failure();

  if (failed(training.real("clip_grad_norm", Range::NonNegative, s.clip)) ||
      failed(training.integer("seed", Range::Any, s.seed)))
    return failure();
  return s;
}

SmallVector<StringRef, 2> TrainingSettings::stateKinds() const {
  if (optimizer != "sgd")
    return {"exp_avg", "exp_avg_sq"};
  if (momentum != 0)
    return {"momentum_buffer"};
  return {};
}

} // namespace transfuse
