//===- OnnxNode.cpp - Converting one ONNX node to nn ops ------------------===//
#include "OnnxNode.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace transfuse::onnx_import {

FailureOr<Value> NodeImporter::input(int i) {
  OnnxValue &known = values.find(node.input(i))->second;
  if (known.value)
    return known.value;
  return materializer.materialize(node.input(i), known);
}

const HostTensor *NodeImporter::constantInput(int i) const {
  if (!hasInput(i))
    return nullptr;
  const OnnxValue &known = values.find(node.input(i))->second;
  return known.isParameter ? nullptr : known.constant.get();
}

FailureOr<const HostTensor *> NodeImporter::requireConstant(int i,
                                                            StringRef what) {
  if (!hasInput(i)) {
    error() << "needs input " << i << " (" << what << ")";
    return failure();
  }
  if (const HostTensor *tensor = constantInput(i))
    return tensor;
  error() << "input " << i << " (" << what << ", '" << node.input(i)
          << "') must be known at compile time: it is computed by the model"
          << (values.find(node.input(i))->second.isParameter
                  ? " (a trainable initializer)"
                  : "");
  return failure();
}

bool NodeImporter::allInputsConstant() const {
  for (int i = 0; i < node.input_size(); ++i)
    if (hasInput(i) && !constantInput(i))
      return false;
  return true;
}

int32_t NodeImporter::inputType(int i) const {
  const OnnxValue &known = values.find(node.input(i))->second;
  if (known.constant)
    return known.constant->type;
  Type element = cast<RankedTensorType>(known.value.getType()).getElementType();
  if (element.isF32())
    return onnx::TensorProto::FLOAT;
  if (element.isInteger(1))
    return onnx::TensorProto::BOOL;
  if (element.isInteger(32))
    return onnx::TensorProto::INT32;
  return onnx::TensorProto::INT64;
}

SmallVector<int64_t, 4> NodeImporter::inputShape(int i) const {
  const OnnxValue &known = values.find(node.input(i))->second;
  if (known.constant)
    return known.constant->shape;
  auto shape = cast<RankedTensorType>(known.value.getType()).getShape();
  return SmallVector<int64_t, 4>(shape.begin(), shape.end());
}

FailureOr<SmallVector<int64_t>> NodeImporter::intsInput(int i, StringRef what) {
  FailureOr<const HostTensor *> tensor = requireConstant(i, what);
  if (failed(tensor))
    return failure();
  if ((*tensor)->isFloat() || (*tensor)->shape.size() > 1) {
    error() << what << " must be a 1-D integer tensor";
    return failure();
  }
  return SmallVector<int64_t>((*tensor)->ints.begin(), (*tensor)->ints.end());
}

FailureOr<std::optional<SmallVector<int64_t>>>
NodeImporter::axes(int64_t inputSince) {
  if (opset < inputSince)
    return intsAttr("axes");
  if (!hasInput(1))
    return std::optional<SmallVector<int64_t>>();
  FailureOr<SmallVector<int64_t>> given = intsInput(1, "axes");
  if (failed(given))
    return failure();
  return std::optional<SmallVector<int64_t>>(std::move(*given));
}

const onnx::AttributeProto *NodeImporter::attribute(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t NodeImporter::intAttr(StringRef name, int64_t fallback) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr ? attr->i() : fallback;
}

float NodeImporter::floatAttr(StringRef name, float fallback) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr ? attr->f() : fallback;
}

std::optional<SmallVector<int64_t>>
NodeImporter::intsAttr(StringRef name) const {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return std::nullopt;
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

FailureOr<int64_t> NodeImporter::normalizeAxis(int64_t axis, int64_t rank,
                                               StringRef what) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
    error() << what << " " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

void NodeImporter::setOutput(int i, Value value) {
  if (i < node.output_size() && !node.output(i).empty())
    values[node.output(i)] = OnnxValue{value, nullptr, false};
}

LogicalResult NodeImporter::setResult(FailureOr<Value> result) {
  if (failed(result))
    return failure();
  setOutput(0, *result);
  return success();
}

void NodeImporter::forwardInput(int i, int input) {
  if (i >= node.output_size() || node.output(i).empty())
    return;
  OnnxValue known = values.find(node.input(input))->second;
  // A float initializer passed on under another name is a parameter of its
  // own: exporters deduplicate equal initializers this way, and each name
  // stands for a weight of the source model.
  if (known.isParameter)
    known.value = Value();
  values[node.output(i)] = std::move(known);
}

void NodeImporter::setOutput(int i, HostTensor tensor) {
  if (i < node.output_size() && !node.output(i).empty())
    values[node.output(i)] = OnnxValue{
        Value(), std::make_shared<const HostTensor>(std::move(tensor)), false};
}

LogicalResult NodeImporter::refuseOutputsFrom(int i) {
  for (int k = i; k < node.output_size(); ++k)
    if (readNames.contains(node.output(k))) {
      error() << "output " << k << " ('" << node.output(k)
              << "') is not supported";
      return failure();
    }
  return success();
}

Value NodeImporter::scalar(double value, Type elementType) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element =
      isa<FloatType>(elementType)
          ? Attribute(FloatAttr::get(elementType, value))
          : Attribute(IntegerAttr::get(elementType, int64_t(value)));
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, element));
}

const llvm::StringMap<ConverterEntry> &converters() {
  static const llvm::StringMap<ConverterEntry> table = [] {
    llvm::StringMap<ConverterEntry> all;
    addElementwiseConverters(all);
    addShapeConverters(all);
    addLayerConverters(all);
    return all;
  }();
  return table;
}

} // namespace transfuse::onnx_import
