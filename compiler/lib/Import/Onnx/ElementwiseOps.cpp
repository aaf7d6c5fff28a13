//===- ElementwiseOps.cpp - ONNX elementwise ops to nn --------------------===//
//
// Arithmetic, comparisons, logic, Where and Cast. Each folds on the host
// when its inputs are known; at run time arithmetic is on f32 and logic on
// i1 masks (And/Or/Not through 0/1 floats, as nn has no logic ops).
//===----------------------------------------------------------------------===//
#include "OnnxNode.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"

#include "mlir/IR/BuiltinTypes.h"
#include <cmath>

using namespace mlir;

namespace transfuse::onnx_import {
namespace {

using onnx::TensorProto;

bool isF32(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType().isF32();
}

/// Folds a binary node on the host.
LogicalResult
foldBinary(NodeImporter &node, DataType resultType,
           const std::function<double(double, double)> &floatFn,
           const std::function<int64_t(int64_t, int64_t)> &intFn) {
  std::string why;
  FailureOr<HostTensor> result =
      broadcastBinary(*node.constantInput(0), *node.constantInput(1),
                      resultType, floatFn, intFn, why);
  if (failed(result))
    return node.error() << why;
  node.setOutput(0, std::move(*result));
  return success();
}

/// Input `i` for a binary op at run time: a known single element becomes a
/// rank-0 scalar (the form the fusion patterns match), unless that would
/// lower the result's rank.
FailureOr<Value> binaryOperand(NodeImporter &node, int i) {
  const HostTensor *known = node.constantInput(i);
  if (known && known->size() == 1 && known->isFloat() &&
      node.inputShape(1 - i).size() >= known->shape.size())
    return node.scalar(known->at(0), node.builder().getF32Type());
  return node.input(i);
}

/// Both operands of a binary float op at run time.
FailureOr<std::pair<Value, Value>> floatOperands(NodeImporter &node) {
  FailureOr<Value> lhs = binaryOperand(node, 0);
  FailureOr<Value> rhs = failed(lhs) ? lhs : binaryOperand(node, 1);
  if (failed(rhs))
    return failure();
  if (!isF32(*lhs) || !isF32(*rhs)) {
    node.error() << "arithmetic at run time is supported on FLOAT tensors "
                    "only, not "
                 << dataTypeName(node.inputType(isF32(*lhs) ? 1 : 0));
    return failure();
  }
  return std::make_pair(*lhs, *rhs);
}

template <typename OpTy>
LogicalResult
convertArithmetic(NodeImporter &node,
                  std::function<double(double, double)> floatFn,
                  std::function<int64_t(int64_t, int64_t)> intFn) {
  if (node.allInputsConstant())
    return foldBinary(node, static_cast<DataType>(node.inputType(0)), floatFn,
                      intFn);
  FailureOr<std::pair<Value, Value>> operands = floatOperands(node);
  if (failed(operands))
    return failure();
  return node.setResult(node.create<OpTy>(operands->first, operands->second));
}

LogicalResult convertAdd(NodeImporter &node) {
  return convertArithmetic<nn::AddOp>(node, std::plus<double>(), wrappingAdd);
}
LogicalResult convertSub(NodeImporter &node) {
  return convertArithmetic<nn::SubOp>(node, std::minus<double>(), wrappingSub);
}
LogicalResult convertMul(NodeImporter &node) {
  return convertArithmetic<nn::MulOp>(node, std::multiplies<double>(),
                                      wrappingMul);
}
LogicalResult convertDiv(NodeImporter &node) {
  if (node.allInputsConstant() && !node.constantInput(1)->isFloat() &&
      llvm::is_contained(node.constantInput(1)->ints, 0))
    return node.error() << "integer division by zero";
  return convertArithmetic<nn::DivOp>(node, std::divides<double>(),
                                      wrappingDiv);
}

/// x^p for a known exponent p that is the same everywhere: the products
/// and roots it stands for.
LogicalResult convertPow(NodeImporter &node) {
  if (node.allInputsConstant())
    return foldBinary(
        node, static_cast<DataType>(node.inputType(0)),
        [](double a, double b) { return std::pow(a, b); },
        [](int64_t a, int64_t b) {
          return toInt64(std::pow(double(a), double(b)));
        });
  FailureOr<const HostTensor *> exponent =
      node.requireConstant(1, "the exponent");
  if (failed(exponent))
    return failure();
  double p = (*exponent)->size() > 0 ? (*exponent)->at(0) : 0.0;
  for (int64_t i = 0, n = (*exponent)->size(); i < n; ++i)
    if ((*exponent)->at(i) != p)
      return node.error() << "exponents that differ by element are not "
                             "supported";
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  if (!isF32(*x))
    return node.error() << "Pow at run time needs a FLOAT base";
  FailureOr<Value> result = failure();
  if (p == 1.0)
    result = *x;
  else if (p == 2.0)
    result = node.create<nn::MulOp>(*x, *x);
  else if (p == 3.0) {
    FailureOr<Value> square = node.create<nn::MulOp>(*x, *x);
    if (succeeded(square))
      result = node.create<nn::MulOp>(*square, *x);
  } else if (p == 0.5)
    result = node.create<nn::SqrtOp>(*x);
  else if (p == -0.5)
    result = node.create<nn::RsqrtOp>(*x);
  else if (p == -1.0)
    result = node.create<nn::DivOp>(
        node.scalar(1.0, node.builder().getF32Type()), *x);
  else
    return node.error() << "exponent " << p
                        << " is not supported (1, 2, 3, 0.5, -0.5 and -1 "
                           "are)";
  return node.setResult(result);
}

/// A unary float op: folded by `fn` on the host, `OpTy` at run time.
template <typename OpTy>
LogicalResult convertUnary(NodeImporter &node,
                           std::function<double(double)> fn) {
  if (const HostTensor *known = node.constantInput(0)) {
    if (!known->isFloat())
      return node.error() << "needs a FLOAT input";
    HostTensor result = *known;
    for (float &v : result.floats)
      v = float(fn(v));
    node.setOutput(0, std::move(result));
    return success();
  }
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  if (!isF32(*x))
    return node.error() << "needs a FLOAT input";
  return node.setResult(node.create<OpTy>(*x));
}

LogicalResult convertSqrt(NodeImporter &node) {
  return convertUnary<nn::SqrtOp>(node, [](double x) { return std::sqrt(x); });
}
LogicalResult convertExp(NodeImporter &node) {
  return convertUnary<nn::ExpOp>(node, [](double x) { return std::exp(x); });
}
LogicalResult convertLog(NodeImporter &node) {
  return convertUnary<nn::LogOp>(node, [](double x) { return std::log(x); });
}
LogicalResult convertTanh(NodeImporter &node) {
  return convertUnary<nn::TanhOp>(node, [](double x) { return std::tanh(x); });
}
LogicalResult convertErf(NodeImporter &node) {
  return convertUnary<nn::ErfOp>(node, [](double x) { return std::erf(x); });
}
LogicalResult convertRelu(NodeImporter &node) {
  return convertUnary<nn::ReluOp>(node,
                                  [](double x) { return x > 0 ? x : 0.0; });
}
LogicalResult convertNeg(NodeImporter &node) {
  return convertUnary<nn::NegOp>(node, [](double x) { return -x; });
}

/// Comparisons give BOOL; at run time both operands have one type.
LogicalResult convertCompare(NodeImporter &node, nn::ComparePredicate predicate,
                             std::function<bool(double, double)> fn) {
  if (node.allInputsConstant())
    return foldBinary(
        node, TensorProto::BOOL,
        [&](double a, double b) { return double(fn(a, b)); },
        [&](int64_t a, int64_t b) {
          return int64_t(fn(double(a), double(b)));
        });
  if (node.inputType(0) != node.inputType(1))
    return node.error() << "compares " << dataTypeName(node.inputType(0))
                        << " with " << dataTypeName(node.inputType(1));
  FailureOr<Value> lhs = binaryOperand(node, 0);
  FailureOr<Value> rhs = failed(lhs) ? lhs : binaryOperand(node, 1);
  if (failed(rhs))
    return failure();
  return node.setResult(node.create<nn::CompareOp>(*lhs, *rhs, predicate));
}

LogicalResult convertEqual(NodeImporter &node) {
  return convertCompare(node, nn::ComparePredicate::eq,
                        std::equal_to<double>());
}
LogicalResult convertLess(NodeImporter &node) {
  return convertCompare(node, nn::ComparePredicate::lt, std::less<double>());
}
LogicalResult convertLessOrEqual(NodeImporter &node) {
  return convertCompare(node, nn::ComparePredicate::le,
                        std::less_equal<double>());
}
LogicalResult convertGreater(NodeImporter &node) {
  return convertCompare(node, nn::ComparePredicate::gt, std::greater<double>());
}
LogicalResult convertGreaterOrEqual(NodeImporter &node) {
  return convertCompare(node, nn::ComparePredicate::ge,
                        std::greater_equal<double>());
}

/// The negation of an i1 mask: the inverse comparison where the mask is
/// one, else `mask == false`.
FailureOr<Value> negate(NodeImporter &node, Value mask) {
  if (auto compare = mask.getDefiningOp<nn::CompareOp>()) {
    static const nn::ComparePredicate inverse[] = {
        nn::ComparePredicate::ne, nn::ComparePredicate::eq,
        nn::ComparePredicate::ge, nn::ComparePredicate::gt,
        nn::ComparePredicate::le, nn::ComparePredicate::lt};
    bool floats = isa<FloatType>(
        cast<RankedTensorType>(compare.getLhs().getType()).getElementType());
    // NaN makes every float comparison false, so only eq/ne invert there.
    auto predicate = compare.getPredicate();
    if (!floats || predicate == nn::ComparePredicate::eq ||
        predicate == nn::ComparePredicate::ne)
      return node.create<nn::CompareOp>(compare.getLhs(), compare.getRhs(),
                                        inverse[int(predicate)]);
  }
  return node.create<nn::CompareOp>(mask,
                                    node.scalar(0, node.builder().getI1Type()),
                                    nn::ComparePredicate::eq);
}

FailureOr<Value> boolInput(NodeImporter &node, int i) {
  if (node.inputType(i) != TensorProto::BOOL) {
    node.error() << "needs BOOL inputs, not "
                 << dataTypeName(node.inputType(i));
    return failure();
  }
  return node.input(i);
}

LogicalResult convertNot(NodeImporter &node) {
  if (const HostTensor *known = node.constantInput(0)) {
    HostTensor result = castTo(*known, TensorProto::BOOL);
    for (int64_t &v : result.ints)
      v = !v;
    node.setOutput(0, std::move(result));
    return success();
  }
  FailureOr<Value> mask = boolInput(node, 0);
  FailureOr<Value> result = failed(mask) ? mask : negate(node, *mask);
  return node.setResult(result);
}

/// And/Or at run time: the masks as 0/1 floats, multiplied (and) or added
/// (or), compared with 0.
template <typename CombineOp>
LogicalResult convertLogic(NodeImporter &node,
                           std::function<int64_t(int64_t, int64_t)> fn) {
  if (node.allInputsConstant())
    return foldBinary(
        node, TensorProto::BOOL,
        [&](double a, double b) { return double(fn(a != 0, b != 0)); },
        [&](int64_t a, int64_t b) { return fn(a != 0, b != 0); });
  Type f32 = node.builder().getF32Type();
  SmallVector<Value> floats;
  for (int i = 0; i < 2; ++i) {
    FailureOr<Value> mask = boolInput(node, i);
    FailureOr<Value> asFloat =
        failed(mask) ? mask : node.create<nn::CastOp>(*mask, f32);
    if (failed(asFloat))
      return failure();
    floats.push_back(*asFloat);
  }
  FailureOr<Value> combined = node.create<CombineOp>(floats[0], floats[1]);
  FailureOr<Value> result =
      failed(combined)
          ? combined
          : node.create<nn::CompareOp>(*combined, node.scalar(0.0, f32),
                                       nn::ComparePredicate::ne);
  return node.setResult(result);
}

LogicalResult convertAnd(NodeImporter &node) {
  return convertLogic<nn::MulOp>(node,
                                 [](int64_t a, int64_t b) { return a && b; });
}
LogicalResult convertOr(NodeImporter &node) {
  return convertLogic<nn::AddOp>(node,
                                 [](int64_t a, int64_t b) { return a || b; });
}

/// The value of a known tensor whose elements are all the same.
std::optional<double> uniformValue(const HostTensor *tensor) {
  if (!tensor || tensor->size() == 0)
    return std::nullopt;
  double first = tensor->at(0);
  for (int64_t i = 1, n = tensor->size(); i < n; ++i)
    if (tensor->at(i) != first)
      return std::nullopt;
  return first;
}

/// Where(c, x, y): a masked fill when one branch is a known uniform value.
LogicalResult convertWhere(NodeImporter &node) {
  if (node.allInputsConstant()) {
    const HostTensor &condition = *node.constantInput(0);
    const HostTensor &x = *node.constantInput(1), &y = *node.constantInput(2);
    if (x.type != y.type)
      return node.error() << "selects between " << dataTypeName(x.type)
                          << " and " << dataTypeName(y.type);
    std::string why;
    FailureOr<nn::Shape> pair =
        nn::broadcastShape(condition.shape, x.shape, why);
    FailureOr<nn::Shape> shape =
        failed(pair) ? pair : nn::broadcastShape(*pair, y.shape, why);
    if (failed(shape) || failed(checkFoldable(*shape, why)))
      return node.error() << why;
    HostTensor mask = broadcastTo(castTo(condition, TensorProto::BOOL), *shape);
    HostTensor result = broadcastTo(x, *shape);
    HostTensor otherwise = broadcastTo(y, *shape);
    for (int64_t i = 0, n = result.size(); i < n; ++i) {
      if (mask.ints[i])
        continue;
      if (result.isFloat())
        result.floats[i] = otherwise.floats[i];
      else
        result.ints[i] = otherwise.ints[i];
    }
    node.setOutput(0, std::move(result));
    return success();
  }
  std::optional<double> fillX = uniformValue(node.constantInput(1));
  std::optional<double> fillY = uniformValue(node.constantInput(2));
  if (!fillX && !fillY)
    return node.error() << "a Where whose branches are both computed at run "
                           "time is not supported (one must be a known "
                           "uniform value: a masked fill)";
  int kept = fillX ? 2 : 1;
  FailureOr<Value> input = node.input(kept);
  FailureOr<Value> condition = failed(input) ? input : boolInput(node, 0);
  if (failed(condition))
    return failure();
  if (!isF32(*input))
    return node.error() << "a masked fill needs a FLOAT input";
  if (!fillX) {
    condition = negate(node, *condition);
    if (failed(condition))
      return failure();
  }
  auto shape = cast<RankedTensorType>(input->getType()).getShape();
  if (!nn::broadcastsTo(cast<RankedTensorType>(condition->getType()).getShape(),
                        shape))
    return node.error() << "the condition does not broadcast to the "
                           "input's shape "
                        << nn::formatShape(shape);
  return node.setResult(node.create<nn::MaskedFillOp>(
      *input, *condition,
      node.builder().getF64FloatAttr(fillX ? *fillX : *fillY)));
}

LogicalResult convertCast(NodeImporter &node) {
  auto to = static_cast<DataType>(node.intAttr("to", 0));
  if (!TensorProto::DataType_IsValid(to) || to == TensorProto::UNDEFINED)
    return node.error() << "attribute 'to' is not a data type";
  if (const HostTensor *known = node.constantInput(0)) {
    node.setOutput(0, castTo(*known, to));
    return success();
  }
  Type element = elementTypeOf(node.getContext(), to);
  if (!element)
    return node.error() << "casting to " << dataTypeName(to)
                        << " at run time is not supported";
  FailureOr<Value> input = node.input(0);
  if (failed(input))
    return failure();
  if (cast<RankedTensorType>(input->getType()).getElementType() == element) {
    node.setOutput(0, *input);
    return success();
  }
  return node.setResult(node.create<nn::CastOp>(*input, element));
}

} // namespace

void addElementwiseConverters(llvm::StringMap<ConverterEntry> &table) {
  table["Add"] = {convertAdd, 2, 2};
  table["Sub"] = {convertSub, 2, 2};
  table["Mul"] = {convertMul, 2, 2};
  table["Div"] = {convertDiv, 2, 2};
  table["Pow"] = {convertPow, 2, 2};
  table["Sqrt"] = {convertSqrt, 1, 1};
  table["Exp"] = {convertExp, 1, 1};
  table["Log"] = {convertLog, 1, 1};
  table["Tanh"] = {convertTanh, 1, 1};
  table["Erf"] = {convertErf, 1, 1};
  table["Relu"] = {convertRelu, 1, 1};
  table["Neg"] = {convertNeg, 1, 1};
  table["Equal"] = {convertEqual, 2, 2};
  table["Less"] = {convertLess, 2, 2};
  table["LessOrEqual"] = {convertLessOrEqual, 2, 2};
  table["Greater"] = {convertGreater, 2, 2};
  table["GreaterOrEqual"] = {convertGreaterOrEqual, 2, 2};
  table["Not"] = {convertNot, 1, 1};
  table["And"] = {convertAnd, 2, 2};
  table["Or"] = {convertOr, 2, 2};
  table["Where"] = {convertWhere, 3, 3};
  table["Cast"] = {convertCast, 1, 1};
}

} // namespace transfuse::onnx_import
