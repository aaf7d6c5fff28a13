//===- NNOps.cpp - Verifiers and type inference of nn ops -----------------===//
//
// Result types come from the shape rules in ShapeRules.cpp; a rule's failure
// is the op's verifier error (InferTypeOpInterface checks declared result
// types against the inferred ones).
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace transfuse::nn;

namespace {
/// Gathers the operand types an inference rule reads; fails (with no
/// diagnostic: ODS has reported it) when an operand is not a ranked tensor.
struct Operands {
  SmallVector<RankedTensorType, 4> types;
  bool valid = true;

  explicit Operands(ValueRange values) {
    for (Value value : values) {
      auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
      valid &= static_cast<bool>(type);
      types.push_back(type);
    }
  }
  ArrayRef<int64_t> shape(unsigned i) const { return types[i].getShape(); }
  Type element(unsigned i) const { return types[i].getElementType(); }
};
} // namespace

/// Turns a shape rule's answer into the inferred result type.
static LogicalResult setResult(std::optional<Location> loc,
                               FailureOr<Shape> shape, const std::string &why,
                               Type element, SmallVectorImpl<Type> &results) {
  if (failed(shape))
    return emitOptionalError(loc, why);
  results.push_back(RankedTensorType::get(*shape, element));
  return success();
}

static LogicalResult sameElementType(std::optional<Location> loc,
                                     const Operands &operands) {
  for (unsigned i = 1; i < operands.types.size(); ++i)
    if (operands.types[i] && operands.element(i) != operands.element(0))
      return emitOptionalError(
          loc, "operand element types differ: ", operands.element(0), " and ",
          operands.element(i));
  return success();
}

static std::optional<ArrayRef<int64_t>> optionalShape(Value value) {
  if (!value)
    return std::nullopt;
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Whether a rule needs all its operands to share one element type.
enum class Elements { Any, Same };

/// The inference of every op whose result has a rule's shape and the first
/// operand's element type: gathers the operand types, checks them, applies
/// `rule(operands, why)`.
template <typename Rule>
static LogicalResult inferWith(std::optional<Location> loc, ValueRange values,
                               Elements elements,
                               SmallVectorImpl<Type> &results, Rule rule) {
  Operands in(values);
  if (!in.valid ||
      (elements == Elements::Same && failed(sameElementType(loc, in))))
    return failure();
  std::string why;
  FailureOr<Shape> shape = rule(in, why);
  return setResult(loc, shape, why, in.element(0), results);
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// Checks that `user` names an nn.parameter, nn.state or nn.cache of `type`.
static LogicalResult verifyVariableUse(Operation *user, FlatSymbolRefAttr name,
                                       Type type,
                                       SymbolTableCollection &symbolTable) {
  Operation *symbol = symbolTable.lookupNearestSymbolFrom(user, name);
  Type declared;
  if (auto parameter = dyn_cast_or_null<ParameterOp>(symbol))
    declared = parameter.getType();
  else if (auto state = dyn_cast_or_null<StateOp>(symbol))
    declared = state.getType();
  else if (auto cache = dyn_cast_or_null<CacheOp>(symbol))
    declared = cache.getType();
  else
    return user->emitOpError("'") << name.getValue()
                                  << "' is not an nn.parameter, nn.state or "
                                     "nn.cache";
  if (declared != type)
    return user->emitOpError("type ")
           << type << " differs from the declared " << declared;
  return success();
}

LogicalResult
ParamLoadOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyVariableUse(*this, getNameAttr(), getType(), symbolTable);
}

LogicalResult
ParamStoreOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyVariableUse(*this, getNameAttr(), getValue().getType(),
                           symbolTable);
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  return inferWith(loc, adaptor.getOperands(), Elements::Same, results,
                   [](const Operands &in, std::string &why) {
                     return matmulShape(in.shape(0), in.shape(1), why);
                   });
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferWith(loc, adaptor.getOperands(), Elements::Any, results,
                   [&](const Operands &in, std::string &why) {
                     return transposeShape(in.shape(0), adaptor.getPerm(), why);
                   });
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  if (llvm::is_contained(adaptor.getShape(), -1))
    return emitOptionalError(loc, "reshape target shape must be explicit");
  return inferWith(loc, adaptor.getOperands(), Elements::Any, results,
                   [&](const Operands &in, std::string &why) {
                     return reshapeShape(in.shape(0), adaptor.getShape(), why);
                   });
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  return inferWith(loc, adaptor.getOperands(), Elements::Any, results,
                   [&](const Operands &in, std::string &why) {
                     return sliceShape(in.shape(0), adaptor.getOffsets(),
                                       adaptor.getSizes(), why);
                   });
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "concat needs at least one operand");
  return inferWith(loc, adaptor.getOperands(), Elements::Same, results,
                   [&](const Operands &in, std::string &why) {
                     SmallVector<Shape> shapes;
                     for (RankedTensorType type : in.types)
                       shapes.emplace_back(type.getShape());
                     return concatShape(shapes, adaptor.getAxis(), why);
                   });
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// The rule of every broadcasting binary op, `element` being its result's.
static LogicalResult inferBroadcast(std::optional<Location> loc,
                                    ValueRange operands,
                                    std::optional<Type> element,
                                    SmallVectorImpl<Type> &results) {
  Operands in(operands);
  if (!in.valid || failed(sameElementType(loc, in)))
    return failure();
  std::string why;
  return setResult(loc, broadcastShape(in.shape(0), in.shape(1), why), why,
                   element.value_or(in.element(0)), results);
}

#define NN_BINARY_INFERENCE(OP)                                                \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &results) {                                        \
    return inferBroadcast(loc, adaptor.getOperands(), std::nullopt, results);  \
  }
NN_BINARY_INFERENCE(AddOp)
NN_BINARY_INFERENCE(SubOp)
NN_BINARY_INFERENCE(MulOp)
NN_BINARY_INFERENCE(DivOp)
#undef NN_BINARY_INFERENCE

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferBroadcast(loc, adaptor.getOperands(),
                        IntegerType::get(context, 1), results);
}

LogicalResult MaskedFillOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  Operands in(adaptor.getOperands());
  if (!in.valid)
    return failure();
  if (!broadcastsTo(in.shape(1), in.shape(0)))
    return emitOptionalError(loc, "mask ", formatShape(in.shape(1)),
                             " does not broadcast to the input ",
                             formatShape(in.shape(0)));
  results.push_back(in.types[0]);
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  Operands in(adaptor.getOperands());
  if (!in.valid)
    return failure();
  Type to = adaptor.getTo();
  if (!to.isIntOrFloat())
    return emitOptionalError(loc, "cast target ", to,
                             " is not an integer or float type");
  results.push_back(in.types[0].clone(to));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisations and reductions
//===----------------------------------------------------------------------===//

/// Softmax-like ops normalise along an axis of their operand.
template <typename OpTy> static LogicalResult verifyAxis(OpTy op) {
  std::string why;
  if (failed(checkAxis(op.getType().getShape(), op.getAxis(), why)))
    return op.emitOpError(why);
  return success();
}

LogicalResult SoftmaxOp::verify() { return verifyAxis(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifyAxis(*this); }

#define NN_REDUCE_INFERENCE(OP)                                                \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &results) {                                        \
    return inferWith(loc, adaptor.getOperands(), Elements::Any, results,       \
                     [&](const Operands &in, std::string &why) {               \
                       return reduceShape(in.shape(0), adaptor.getAxes(),      \
                                          adaptor.getKeepDims(), why);         \
                     });                                                       \
  }
NN_REDUCE_INFERENCE(ReduceSumOp)
NN_REDUCE_INFERENCE(ReduceMeanOp)
NN_REDUCE_INFERENCE(ReduceMaxOp)
#undef NN_REDUCE_INFERENCE

//===----------------------------------------------------------------------===//
// Embeddings, positions, masks, dropout
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferWith(loc, adaptor.getOperands(), Elements::Any, results,
                   [](const Operands &in, std::string &why) {
                     return embeddingShape(in.shape(0), in.shape(1), why);
                   });
}

LogicalResult SinusoidalEncodingOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (type.getRank() != 2 || type.getDimSize(1) % 2 != 0)
    return emitOpError("needs a [seq, d] result with even d, got ") << type;
  return success();
}

LogicalResult CacheUpdateOp::verify() {
  auto cache = cast<RankedTensorType>(getCache().getType());
  auto rows = cast<RankedTensorType>(getRows().getType());
  auto start = cast<RankedTensorType>(getStart().getType());
  if (cache.getRank() != 4 || rows.getRank() != 4)
    return emitOpError("needs a [b, h, capacity, d] cache and [b, h, t, d] "
                       "rows, got ")
           << cache << " and " << rows;
  if (cache.getElementType() != rows.getElementType())
    return emitOpError("rows ")
           << rows << " differ from the cache " << cache << " in element type";
  for (int axis : {0, 1, 3})
    if (cache.getDimSize(axis) != rows.getDimSize(axis))
      return emitOpError("rows ") << rows << " differ from the cache " << cache
                                  << " in axis " << axis;
  if (rows.getDimSize(2) > cache.getDimSize(2))
    return emitOpError("writes ")
           << rows.getDimSize(2) << " rows into a cache of capacity "
           << cache.getDimSize(2);
  if (start.getRank() != 1 || start.getDimSize(0) != cache.getDimSize(0) ||
      !start.getElementType().isInteger(64))
    return emitOpError("start must be i64 [")
           << cache.getDimSize(0) << "], got " << start;
  return success();
}

LogicalResult TriangularMaskOp::verify() {
  if (cast<RankedTensorType>(getType()).getRank() != 2)
    return emitOpError("needs a [rows, cols] result, got ") << getType();
  return success();
}

LogicalResult DropoutOp::verify() {
  double rate = getRate().convertToDouble();
  if (!(rate >= 0.0 && rate < 1.0))
    return emitOpError("rate must be in [0, 1), got ") << rate;
  return success();
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

/// The rules nn.attention and nn.attention_into share, on the operands'
/// shaped types (`mask` may be null); gives the result shape.
static FailureOr<Shape> attentionResult(std::optional<Location> loc,
                                        ArrayRef<ShapedType> qkv,
                                        ShapedType mask, double scale,
                                        std::optional<APFloat> maskFill,
                                        double dropout) {
  for (ShapedType type : qkv.drop_front())
    if (type.getElementType() != qkv[0].getElementType())
      return emitOptionalError(
          loc, "operand element types differ: ", qkv[0].getElementType(),
          " and ", type.getElementType());
  if (!(scale > 0.0))
    return emitOptionalError(loc, "attention scale must be positive");
  if (!(dropout >= 0.0 && dropout < 1.0))
    return emitOptionalError(loc, "attention dropout must be in [0, 1), got ",
                             dropout);
  bool boolMask = false;
  std::optional<ArrayRef<int64_t>> maskShape;
  if (mask) {
    Type maskElement = mask.getElementType();
    boolMask = maskElement.isInteger(1);
    if (!boolMask && maskElement != qkv[0].getElementType())
      return emitOptionalError(loc, "mask must be i1 or ",
                               qkv[0].getElementType(), ", got ", maskElement);
    maskShape = mask.getShape();
  }
  if (maskFill && !boolMask)
    return emitOptionalError(loc, "mask_fill needs an i1 mask");
  std::string why;
  FailureOr<Shape> shape = attentionShape(qkv[0].getShape(), qkv[1].getShape(),
                                          qkv[2].getShape(), maskShape, why);
  if (failed(shape))
    return emitOptionalError(loc, why);
  return shape;
}

/// The shape of attention's result for the q, k, v and mask of `op` (an
/// op with nn.attention's operands and attributes).
template <typename OpOrAdaptor>
static FailureOr<Shape> attentionResultOf(std::optional<Location> loc,
                                          OpOrAdaptor op) {
  auto typeOf = [](Value value) { return cast<ShapedType>(value.getType()); };
  return attentionResult(
      loc, {typeOf(op.getQuery()), typeOf(op.getKey()), typeOf(op.getValue())},
      op.getMask() ? typeOf(op.getMask()) : nullptr,
      op.getScale().convertToDouble(), op.getMaskFill(),
      op.getDropout().convertToDouble());
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  Operands in(
      ValueRange{adaptor.getQuery(), adaptor.getKey(), adaptor.getValue()});
  if (!in.valid)
    return failure();
  FailureOr<Shape> shape = attentionResultOf(loc, adaptor);
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, in.element(0)));
  return success();
}

LogicalResult
AttentionStatsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &results) {
  Operands in(
      ValueRange{adaptor.getQuery(), adaptor.getKey(), adaptor.getValue()});
  if (!in.valid)
    return failure();
  FailureOr<Shape> shape = attentionResultOf(loc, adaptor);
  if (failed(shape))
    return failure();
  results.push_back(RankedTensorType::get(*shape, in.element(0)));
  results.push_back(
      RankedTensorType::get(ArrayRef(*shape).drop_back(), in.element(0)));
  return success();
}

LogicalResult
AttentionGradOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  for (Value value : {adaptor.getQuery(), adaptor.getKey(), adaptor.getValue()})
    results.push_back(value.getType());
  return success();
}

LogicalResult AttentionGradOp::verify() {
  FailureOr<Shape> shape = attentionResultOf(getLoc(), *this);
  if (failed(shape))
    return failure();
  Type element = cast<ShapedType>(getQuery().getType()).getElementType();
  auto expected = RankedTensorType::get(*shape, element);
  if (getOut().getType() != expected || getGrad().getType() != expected)
    return emitOpError("out and grad must be ")
           << expected << ", got " << getOut().getType() << " and "
           << getGrad().getType();
  auto lse = RankedTensorType::get(ArrayRef(*shape).drop_back(), element);
  if (getLse().getType() != lse)
    return emitOpError("lse must be ") << lse << ", got " << getLse().getType();
  return success();
}

LogicalResult AttentionIntoOp::verify() {
  FailureOr<Shape> shape = attentionResultOf(getLoc(), *this);
  if (failed(shape))
    return failure();
  auto out = cast<ShapedType>(getOut().getType());
  Type element = cast<ShapedType>(getQuery().getType()).getElementType();
  if (out.getShape() != ArrayRef<int64_t>(*shape) ||
      out.getElementType() != element)
    return emitOpError("out must be ")
           << formatShape(*shape) << " of " << element << ", got " << out;
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  if (!(adaptor.getEpsilon().convertToDouble() > 0.0))
    return emitOptionalError(loc, "layer norm epsilon must be positive");
  return inferWith(
      loc, adaptor.getOperands(), Elements::Same, results,
      [&](const Operands &in, std::string &why) {
        return layerNormShape(
            in.shape(0), in.shape(1), optionalShape(adaptor.getBeta()),
            optionalShape(adaptor.getResidual()), adaptor.getAxis(),
            adaptor.getStatistic() == NormStatistic::unbiased_variance, why);
      });
}

LogicalResult FusedMatmulOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  return inferWith(loc, adaptor.getOperands(), Elements::Same, results,
                   [&](const Operands &in, std::string &why) {
                     return fusedMatmulShape(in.shape(0), in.shape(1),
                                             optionalShape(adaptor.getBias()),
                                             adaptor.getTransposeRhs(), why);
                   });
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

static LogicalResult inferLoss(std::optional<Location> loc, ValueRange operands,
                               SmallVectorImpl<Type> &results) {
  Operands in(operands);
  if (!in.valid)
    return failure();
  std::string why;
  if (failed(checkClassification(in.shape(0), in.shape(1), why)))
    return emitOptionalError(loc, why);
  results.push_back(RankedTensorType::get({}, in.element(0)));
  return success();
}

LogicalResult CrossEntropyOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  std::string why;
  if (failed(checkLabelSmoothing(adaptor.getLabelSmoothing().convertToDouble(),
                                 why)))
    return emitOptionalError(loc, why);
  return inferLoss(loc, adaptor.getOperands(), results);
}

LogicalResult NllLossOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  return inferLoss(loc, adaptor.getOperands(), results);
}

#define GET_OP_CLASSES
#include "transfuse/Dialect/NN/NNOps.cpp.inc"
