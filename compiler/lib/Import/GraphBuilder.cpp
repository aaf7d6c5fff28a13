//===- GraphBuilder.cpp - Parameters, constants, Linear -------------------===//
#include "GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include <cmath>

using namespace mlir;
namespace pb = google::protobuf;

namespace transfuse::import {

/// `path: layer 'name': `; an unnamed layer is known by its path alone.
static InFlightDiagnostic layerError(Location loc, StringRef fieldPath,
                                     StringRef layerPath) {
  InFlightDiagnostic diag = emitError(loc) << fieldPath << ": ";
  if (!layerPath.empty())
    diag << "layer '" << layerPath << "': ";
  return diag;
}

InFlightDiagnostic LayerSite::error() const {
  return layerError(cursor.getLoc(), cursor.getPath(), path);
}

InFlightDiagnostic LayerSite::errorAt(StringRef kind, StringRef field) const {
  spec::SpecCursor kindCursor = cursor.child(kind);
  return layerError(kindCursor.locationOf(field), kindCursor.pathOf(field),
                    path);
}

std::string LayerSite::paramName(StringRef name) const {
  return path + "." + name.str();
}

std::string LayerSite::scopedName(StringRef name) const {
  return scope.empty() ? name.str() : scope + "." + name.str();
}

Type elementTypeOf(MLIRContext *context, spec::DType dtype) {
  switch (dtype) {
  case spec::F32:
    return Float32Type::get(context);
  case spec::I64:
    return IntegerType::get(context, 64);
  case spec::I32:
    return IntegerType::get(context, 32);
  case spec::BOOL:
    return IntegerType::get(context, 1);
  default:
    return {};
  }
}

std::string layerKindName(const spec::Layer &layer) {
  const pb::FieldDescriptor *kind =
      layer.GetReflection()->GetOneofFieldDescriptor(
          layer, spec::Layer::descriptor()->FindOneofByName("kind"));
  return kind ? kind->name() : "";
}

Value GraphBuilder::scalar(Location loc, double value, Type elementType) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element = isa<FloatType>(elementType)
                          ? Attribute(FloatAttr::get(elementType, value))
                          : Attribute(IntegerAttr::get(
                                elementType, static_cast<int64_t>(value)));
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, element));
}

/// The Init message in `kind.initField` of the layer, if the spec sets it.
static const spec::Init *specifiedInit(const LayerSite &site, StringRef kind,
                                       StringRef initField) {
  if (initField.empty())
    return nullptr;
  const pb::Message &kindMessage = site.cursor.child(kind).getMessage();
  const pb::FieldDescriptor *field =
      kindMessage.GetDescriptor()->FindFieldByName(initField.str());
  if (!kindMessage.GetReflection()->HasField(kindMessage, field))
    return nullptr;
  return static_cast<const spec::Init *>(
      &kindMessage.GetReflection()->GetMessage(kindMessage, field));
}

FailureOr<nn::InitAttr>
GraphBuilder::resolveInit(const LayerSite &site, StringRef kind,
                          StringRef initField, DefaultInit fallback,
                          ArrayRef<int64_t> shape, int64_t fanIn) {
  MLIRContext *context = b.getContext();
  auto uniform = [&](double bound) {
    return nn::InitAttr::get(context, nn::InitKind::uniform, -bound, bound);
  };
  const spec::Init *init = specifiedInit(site, kind, initField);
  if (!init || init->kind_case() == spec::Init::KIND_NOT_SET) {
    switch (fallback) {
    case DefaultInit::LinearWeight:
    case DefaultInit::LinearBias:
      // torch.nn.Linear: kaiming_uniform(a=sqrt(5)) for the weight and
      // U(±1/sqrt(fan_in)) for the bias: both U(±1/sqrt(fan_in)).
      return uniform(1.0 / std::sqrt(static_cast<double>(fanIn)));
    case DefaultInit::Normal:
      return nn::InitAttr::get(context, nn::InitKind::normal, 0.0, 1.0);
    case DefaultInit::Ones:
      return nn::InitAttr::get(context, nn::InitKind::ones);
    case DefaultInit::Zeros:
      return nn::InitAttr::get(context, nn::InitKind::zeros);
    case DefaultInit::None:
      return site.errorAt(kind, initField.empty() ? "init" : initField)
             << "the parameter needs an init";
    }
  }
  // Xavier's fans are those of a [out, in] matrix.
  auto fans = [&]() -> FailureOr<std::pair<double, double>> {
    if (shape.size() != 2)
      return site.errorAt(kind, initField)
             << "xavier init needs a 2-D parameter, got "
             << nn::formatShape(shape);
    return std::make_pair(static_cast<double>(shape[1]),
                          static_cast<double>(shape[0]));
  };
  switch (init->kind_case()) {
  case spec::Init::kZeros:
    return nn::InitAttr::get(context, nn::InitKind::zeros);
  case spec::Init::kOnes:
    return nn::InitAttr::get(context, nn::InitKind::ones);
  case spec::Init::kConstant:
    return nn::InitAttr::get(context, nn::InitKind::constant, init->constant());
  case spec::Init::kUniform:
    if (!(init->uniform().low() <= init->uniform().high()))
      return site.errorAt(kind, initField) << "uniform init needs low <= high";
    return nn::InitAttr::get(context, nn::InitKind::uniform,
                             init->uniform().low(), init->uniform().high());
  case spec::Init::kNormal:
    if (!(init->normal().std() >= 0))
      return site.errorAt(kind, initField) << "normal init needs std >= 0";
    return nn::InitAttr::get(context, nn::InitKind::normal,
                             init->normal().mean(), init->normal().std());
  case spec::Init::kXavierUniform: {
    FailureOr<std::pair<double, double>> fan = fans();
    if (failed(fan))
      return failure();
    return uniform(std::sqrt(6.0 / (fan->first + fan->second)));
  }
  case spec::Init::kXavierNormal: {
    FailureOr<std::pair<double, double>> fan = fans();
    if (failed(fan))
      return failure();
    return nn::InitAttr::get(context, nn::InitKind::normal, 0.0,
                             std::sqrt(2.0 / (fan->first + fan->second)));
  }
  case spec::Init::kKaimingUniform:
    if (fanIn <= 0)
      return site.errorAt(kind, initField)
             << "kaiming_uniform init needs a fan-in: a Linear weight or "
                "bias, or a parameter of rank 2 or more";
    return uniform(1.0 / std::sqrt(static_cast<double>(fanIn)));
  case spec::Init::KIND_NOT_SET:
    break;
  }
  llvm_unreachable("init kinds are handled above");
}

FailureOr<Value> GraphBuilder::parameter(const LayerSite &site,
                                         StringRef fullName,
                                         ArrayRef<int64_t> shape,
                                         StringRef kind, StringRef initField,
                                         DefaultInit fallback, int64_t fanIn) {
  auto type = RankedTensorType::get(shape, b.getF32Type());
  auto symbol = FlatSymbolRefAttr::get(b.getContext(), fullName);
  if (decoding_.mode != DecodingMode::None) {
    // The same layers built again: forward declared every parameter.
    auto declared = module.lookupSymbol<nn::ParameterOp>(fullName);
    assert(declared && declared.getType() == type &&
           "a decoding entry point's parameter differs from forward's");
    return nn::ParamLoadOp::create(b, site.loc, type, symbol).getResult();
  }
  auto [it, inserted] = declaredBy.try_emplace(fullName, site.path);
  if (!inserted)
    return site.error() << "parameter '" << fullName
                        << "' is already declared by layer '" << it->second
                        << "'; layer names must be unique";
  FailureOr<nn::InitAttr> init =
      resolveInit(site, kind, initField, fallback, shape, fanIn);
  if (failed(init))
    return failure();
  // Parameters come first in the module, in declaration order.
  OpBuilder moduleBuilder = OpBuilder::atBlockBegin(module.getBody());
  if (lastParameter)
    moduleBuilder.setInsertionPointAfter(lastParameter);
  lastParameter = nn::ParameterOp::create(moduleBuilder, site.loc,
                                          moduleBuilder.getStringAttr(fullName),
                                          TypeAttr::get(type), *init);
  return nn::ParamLoadOp::create(b, site.loc, type, symbol).getResult();
}

FailureOr<FlatSymbolRefAttr> GraphBuilder::cache(const LayerSite &site,
                                                 StringRef name,
                                                 RankedTensorType type) {
  auto symbol = FlatSymbolRefAttr::get(b.getContext(), name);
  Operation *existing = module.lookupSymbol(name);
  if (auto declared = dyn_cast_or_null<nn::CacheOp>(existing)) {
    assert(declared.getType() == type && "the cache changed its type");
    return symbol;
  }
  if (existing)
    return site.error() << "the decoding cache '" << name
                        << "' has the name of a parameter";
  // After the parameters, in the order the layers ask.
  OpBuilder moduleBuilder(module.getBody(), module.getBody()->end());
  if (auto functions = module.getOps<func::FuncOp>(); !functions.empty())
    moduleBuilder.setInsertionPoint(*functions.begin());
  nn::CacheOp::create(moduleBuilder, site.loc, b.getStringAttr(name),
                      TypeAttr::get(type));
  return symbol;
}

FailureOr<Value> GraphBuilder::linear(const LayerSite &site, Value x,
                                      StringRef name, int64_t outFeatures,
                                      bool bias) {
  std::string kind = layerKindName(site.layer);
  int64_t inFeatures = shape(x).back();
  std::string prefix = name.empty() ? "" : name.str() + ".";
  FailureOr<Value> weight = parameter(
      site, site.paramName(prefix + "weight"), {outFeatures, inFeatures}, kind,
      "weight_init", DefaultInit::LinearWeight, inFeatures);
  if (failed(weight))
    return failure();
  Value transposed =
      nn::TransposeOp::create(b, site.loc, *weight, ArrayRef<int64_t>{1, 0});
  // A vector is one row, as torch.nn.Linear takes it: [in] -> [1, in] -> [out].
  bool vector = shape(x).size() == 1;
  if (vector)
    x = nn::ReshapeOp::create(b, site.loc, x, ArrayRef<int64_t>{1, inFeatures});
  Value y = nn::MatmulOp::create(b, site.loc, x, transposed);
  if (vector)
    y = nn::ReshapeOp::create(b, site.loc, y, ArrayRef<int64_t>{outFeatures});
  if (!bias)
    return y;
  FailureOr<Value> biasValue =
      parameter(site, site.paramName(prefix + "bias"), {outFeatures}, kind,
                "bias_init", DefaultInit::LinearBias, inFeatures);
  if (failed(biasValue))
    return failure();
  return nn::AddOp::create(b, site.loc, y, *biasValue).getResult();
}

} // namespace transfuse::import
