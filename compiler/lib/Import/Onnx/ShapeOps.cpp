//===- ShapeOps.cpp - ONNX structural ops to nn ---------------------------===//
//
// Constants, shapes and data movement: Constant, Identity, Shape,
// ConstantOfShape, Range, Trilu (on the host only), Reshape, Flatten,
// Unsqueeze, Squeeze, Transpose, Concat, Slice, Expand and Dropout
// (inference: the identity). Shape arguments must be known at compile time,
// which they are once the inputs' sizes are bound.
//===----------------------------------------------------------------------===//
#include "OnnxNode.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace transfuse::onnx_import {
namespace {

using onnx::TensorProto;

/// Output 0 is input 0 with shape `shape` (same element count): a host
/// tensor reshaped, or nn.reshape.
LogicalResult reshapeTo(NodeImporter &node, ArrayRef<int64_t> shape) {
  if (const HostTensor *known = node.constantInput(0)) {
    HostTensor result = *known;
    result.shape.assign(shape.begin(), shape.end());
    node.setOutput(0, std::move(result));
    return success();
  }
  FailureOr<Value> input = node.input(0);
  if (failed(input))
    return failure();
  if (cast<RankedTensorType>(input->getType()).getShape() == shape) {
    node.setOutput(0, *input);
    return success();
  }
  return node.setResult(node.create<nn::ReshapeOp>(*input, shape));
}

LogicalResult convertIdentity(NodeImporter &node) {
  node.forwardInput(0, 0);
  return success();
}

/// Dropout in inference is the identity; its mask output is not supported.
LogicalResult convertDropout(NodeImporter &node) {
  if (const HostTensor *training = node.constantInput(2))
    if (training->size() == 1 && training->at(0) != 0)
      return node.error() << "training_mode is true; the importer builds "
                             "the inference graph (training comes from the "
                             "training configuration)";
  node.forwardInput(0, 0);
  return node.refuseOutputsFrom(1);
}

LogicalResult convertConstant(NodeImporter &node) {
  for (const onnx::AttributeProto &attr : node.getNode().attribute()) {
    HostTensor result;
    if (attr.name() == "value") {
      std::string why;
      FailureOr<HostTensor> tensor = decodeTensor(attr.t(), "", why);
      if (failed(tensor))
        return node.error() << "attribute 'value': " << why;
      result = std::move(*tensor);
    } else if (attr.name() == "value_float") {
      result = HostTensor::zeros(TensorProto::FLOAT, {});
      result.floats[0] = attr.f();
    } else if (attr.name() == "value_floats") {
      result = HostTensor::zeros(TensorProto::FLOAT, {attr.floats_size()});
      result.floats.assign(attr.floats().begin(), attr.floats().end());
    } else if (attr.name() == "value_int") {
      result = HostTensor::zeros(TensorProto::INT64, {});
      result.ints[0] = attr.i();
    } else if (attr.name() == "value_ints") {
      result = HostTensor::ofInts(
          SmallVector<int64_t>(attr.ints().begin(), attr.ints().end()));
    } else {
      return node.error() << "attribute '" << attr.name()
                          << "' is not supported";
    }
    node.setOutput(0, std::move(result));
    return success();
  }
  return node.error() << "has no value attribute";
}

LogicalResult convertShape(NodeImporter &node) {
  SmallVector<int64_t, 4> shape = node.inputShape(0);
  int64_t rank = shape.size();
  auto clamp = [&](int64_t axis) {
    if (axis < 0)
      axis += rank;
    return std::clamp<int64_t>(axis, 0, rank);
  };
  int64_t start = clamp(node.intAttr("start", 0));
  int64_t end = clamp(node.intAttr("end", rank));
  node.setOutput(0, HostTensor::ofInts(ArrayRef<int64_t>(shape).slice(
                        start, std::max<int64_t>(end - start, 0))));
  return success();
}

LogicalResult convertConstantOfShape(NodeImporter &node) {
  FailureOr<SmallVector<int64_t>> shape = node.intsInput(0, "the shape");
  if (failed(shape))
    return failure();
  std::string why;
  if (failed(checkFoldable(*shape, why)))
    return node.error() << why;
  HostTensor fill = HostTensor::zeros(TensorProto::FLOAT, {1});
  if (const onnx::AttributeProto *value = node.attribute("value")) {
    FailureOr<HostTensor> tensor = decodeTensor(value->t(), "", why);
    if (failed(tensor) || tensor->size() != 1)
      return node.error() << "attribute 'value' must be one element"
                          << (why.empty() ? "" : ": " + why);
    fill = std::move(*tensor);
  }
  fill.shape.assign(shape->size(), 1);
  node.setOutput(0, broadcastTo(fill, *shape));
  return success();
}

LogicalResult convertRange(NodeImporter &node) {
  SmallVector<const HostTensor *> known;
  for (int i = 0; i < 3; ++i) {
    FailureOr<const HostTensor *> tensor =
        node.requireConstant(i, i == 0   ? "start"
                                : i == 1 ? "limit"
                                         : "delta");
    if (failed(tensor))
      return failure();
    if ((*tensor)->size() != 1)
      return node.error() << "start, limit and delta must be scalars";
    known.push_back(*tensor);
  }
  double start = known[0]->at(0), limit = known[1]->at(0),
         delta = known[2]->at(0);
  if (delta == 0)
    return node.error() << "delta is 0";
  double count = std::ceil((limit - start) / delta);
  if (!(count <= double(int64_t(1) << 24)))
    return node.error() << "the range is longer than 2^24 elements";
  int64_t n = std::max<int64_t>(int64_t(count), 0);
  HostTensor result = HostTensor::zeros(known[0]->type, {n});
  for (int64_t i = 0; i < n; ++i) {
    if (result.isFloat())
      result.floats[i] = float(start + double(i) * delta);
    else
      result.ints[i] =
          wrappingAdd(known[0]->intAt(0), wrappingMul(i, known[2]->intAt(0)));
  }
  node.setOutput(0, std::move(result));
  return success();
}

/// Trilu of a known matrix (exports build causal masks with it).
LogicalResult convertTrilu(NodeImporter &node) {
  FailureOr<const HostTensor *> input = node.requireConstant(0, "the input");
  if (failed(input))
    return failure();
  int64_t k = 0;
  if (node.hasInput(1)) {
    FailureOr<const HostTensor *> diagonal = node.requireConstant(1, "k");
    if (failed(diagonal))
      return failure();
    if ((*diagonal)->size() != 1)
      return node.error() << "k must be a scalar";
    k = (*diagonal)->intAt(0);
  }
  if ((*input)->shape.size() < 2)
    return node.error() << "needs a tensor of rank 2 or more";
  bool upper = node.intAttr("upper", 1) != 0;
  HostTensor result = **input;
  int64_t rows = result.shape[result.shape.size() - 2];
  int64_t cols = result.shape.back();
  for (int64_t e = 0, n = result.size(); e < n; ++e) {
    int64_t col = e % cols, row = (e / cols) % rows;
    bool keep = upper ? col - row >= k : col - row <= k;
    if (keep)
      continue;
    if (result.isFloat())
      result.floats[e] = 0;
    else
      result.ints[e] = 0;
  }
  node.setOutput(0, std::move(result));
  return success();
}

LogicalResult convertReshape(NodeImporter &node) {
  FailureOr<SmallVector<int64_t>> target = node.intsInput(1, "the shape");
  if (failed(target))
    return failure();
  SmallVector<int64_t, 4> input = node.inputShape(0);
  bool allowZero = node.intAttr("allowzero", 0) != 0;
  for (size_t k = 0; k < target->size(); ++k) {
    if ((*target)[k] != 0 || allowZero)
      continue;
    if (k >= input.size())
      return node.error() << "shape entry " << k
                          << " copies a dimension the input does not have";
    (*target)[k] = input[k];
  }
  std::string why;
  FailureOr<nn::Shape> shape = nn::reshapeShape(input, *target, why);
  if (failed(shape))
    return node.error() << why;
  return reshapeTo(node, *shape);
}

LogicalResult convertFlatten(NodeImporter &node) {
  SmallVector<int64_t, 4> input = node.inputShape(0);
  int64_t rank = input.size();
  FailureOr<int64_t> axis =
      node.normalizeAxis(node.intAttr("axis", 1), rank + 1, "axis");
  if (failed(axis))
    return failure();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < *axis ? outer : inner) *= input[d];
  return reshapeTo(node, {outer, inner});
}

LogicalResult convertUnsqueeze(NodeImporter &node) {
  FailureOr<std::optional<SmallVector<int64_t>>> axes = node.axes(13);
  if (failed(axes))
    return failure();
  if (!*axes)
    return node.error() << "needs axes";
  SmallVector<int64_t, 4> input = node.inputShape(0);
  int64_t rank = input.size() + (*axes)->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t axis : **axes) {
    FailureOr<int64_t> at = node.normalizeAxis(axis, rank, "axis");
    if (failed(at))
      return failure();
    if (inserted[*at])
      return node.error() << "axis " << axis << " is given twice";
    inserted[*at] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0, k = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : input[k++]);
  return reshapeTo(node, shape);
}

LogicalResult convertSqueeze(NodeImporter &node) {
  FailureOr<std::optional<SmallVector<int64_t>>> axes = node.axes(13);
  if (failed(axes))
    return failure();
  SmallVector<int64_t, 4> input = node.inputShape(0);
  int64_t rank = input.size();
  SmallVector<bool> removed(rank, false);
  for (int64_t d = 0; d < rank && !*axes; ++d)
    removed[d] = input[d] == 1;
  for (int64_t axis : axes->value_or(SmallVector<int64_t>())) {
    FailureOr<int64_t> at = node.normalizeAxis(axis, rank, "axis");
    if (failed(at))
      return failure();
    if (input[*at] != 1)
      return node.error() << "axis " << axis << " has size " << input[*at]
                          << ", not 1";
    removed[*at] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!removed[d])
      shape.push_back(input[d]);
  return reshapeTo(node, shape);
}

LogicalResult convertTranspose(NodeImporter &node) {
  int64_t rank = node.inputShape(0).size();
  SmallVector<int64_t> perm = node.intsAttr("perm").value_or(
      llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank))));
  std::string why;
  if (failed(nn::transposeShape(node.inputShape(0), perm, why)))
    return node.error() << why;
  if (const HostTensor *known = node.constantInput(0)) {
    node.setOutput(0, transposeHost(*known, perm));
    return success();
  }
  FailureOr<Value> input = node.input(0);
  if (failed(input))
    return failure();
  return node.setResult(node.create<nn::TransposeOp>(*input, perm));
}

/// Copies the box [offsets, offsets + sizes) of a known tensor.
HostTensor sliceHost(const HostTensor &tensor, ArrayRef<int64_t> offsets,
                     ArrayRef<int64_t> sizes) {
  HostTensor result = HostTensor::zeros(tensor.type, sizes);
  int64_t rank = sizes.size();
  SmallVector<int64_t> index(rank, 0);
  for (int64_t e = 0, n = result.size(); e < n; ++e) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source = source * tensor.shape[d] + offsets[d] + index[d];
    if (result.isFloat())
      result.floats[e] = tensor.floats[source];
    else
      result.ints[e] = tensor.ints[source];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return result;
}

/// Output 0 is the box [offsets, offsets + sizes) of input 0.
LogicalResult sliceTo(NodeImporter &node, ArrayRef<int64_t> offsets,
                      ArrayRef<int64_t> sizes) {
  if (const HostTensor *known = node.constantInput(0)) {
    node.setOutput(0, sliceHost(*known, offsets, sizes));
    return success();
  }
  FailureOr<Value> input = node.input(0);
  if (failed(input))
    return failure();
  if (cast<RankedTensorType>(input->getType()).getShape() == sizes) {
    node.setOutput(0, *input);
    return success();
  }
  if (llvm::is_contained(sizes, 0))
    return node.error() << "the slice " << nn::formatShape(sizes)
                        << " is empty, which a tensor computed at run time "
                           "cannot be";
  return node.setResult(node.create<nn::SliceOp>(*input, offsets, sizes));
}

LogicalResult convertSlice(NodeImporter &node) {
  SmallVector<int64_t, 4> shape = node.inputShape(0);
  int64_t rank = shape.size();
  FailureOr<SmallVector<int64_t>> starts = node.intsInput(1, "starts");
  FailureOr<SmallVector<int64_t>> ends =
      failed(starts) ? starts : node.intsInput(2, "ends");
  if (failed(ends))
    return failure();
  SmallVector<int64_t> axes = llvm::to_vector(
      llvm::seq<int64_t>(0, std::min<int64_t>(starts->size(), rank)));
  if (node.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> given = node.intsInput(3, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  if (node.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> steps = node.intsInput(4, "steps");
    if (failed(steps))
      return failure();
    if (llvm::any_of(*steps, [](int64_t s) { return s != 1; }))
      return node.error() << "steps other than 1 are not supported";
  }
  if (starts->size() != ends->size() || axes.size() != starts->size())
    return node.error() << "starts, ends and axes differ in length";
  SmallVector<int64_t> offsets(rank, 0), sizes(shape.begin(), shape.end());
  for (auto [k, axis] : llvm::enumerate(axes)) {
    FailureOr<int64_t> d = node.normalizeAxis(axis, rank, "axis");
    if (failed(d))
      return failure();
    auto clamp = [&](int64_t index) {
      if (index < 0)
        index = index < -shape[*d] ? 0 : index + shape[*d];
      return std::min(index, shape[*d]);
    };
    int64_t start = clamp((*starts)[k]), end = clamp((*ends)[k]);
    offsets[*d] = start;
    sizes[*d] = std::max<int64_t>(end - start, 0);
  }
  return sliceTo(node, offsets, sizes);
}

/// Concatenates known tensors along `axis`.
HostTensor concatHost(ArrayRef<const HostTensor *> parts, int64_t axis,
                      ArrayRef<int64_t> shape) {
  HostTensor result = HostTensor::zeros(parts[0]->type, shape);
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  int64_t at = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const HostTensor *part : parts) {
      int64_t chunk = part->size() / std::max<int64_t>(outer, 1);
      for (int64_t i = 0; i < chunk; ++i, ++at) {
        if (result.isFloat())
          result.floats[at] = part->floats[o * chunk + i];
        else
          result.ints[at] = part->ints[o * chunk + i];
      }
    }
  return result;
}

LogicalResult convertConcat(NodeImporter &node) {
  int count = node.getNode().input_size();
  if (count == 0)
    return node.error() << "needs inputs";
  SmallVector<nn::Shape> shapes;
  for (int i = 0; i < count; ++i) {
    shapes.push_back(nn::Shape(node.inputShape(i)));
    if (node.inputType(i) != node.inputType(0))
      return node.error() << "inputs of different types";
  }
  FailureOr<int64_t> axis = node.axisOfInput(0);
  if (failed(axis))
    return failure();
  std::string why;
  FailureOr<nn::Shape> shape = nn::concatShape(shapes, *axis, why);
  if (failed(shape))
    return node.error() << why;
  if (node.allInputsConstant()) {
    if (failed(checkFoldable(*shape, why)))
      return node.error() << why;
    SmallVector<const HostTensor *> parts;
    for (int i = 0; i < count; ++i)
      parts.push_back(node.constantInput(i));
    node.setOutput(0, concatHost(parts, *axis, *shape));
    return success();
  }
  SmallVector<Value> inputs;
  for (int i = 0; i < count; ++i) {
    FailureOr<Value> input = node.input(i);
    if (failed(input))
      return failure();
    inputs.push_back(*input);
  }
  return node.setResult(node.create<nn::ConcatOp>(inputs, *axis));
}

/// Expand broadcasts input and shape both ways. At run time a float tensor
/// is broadcast by adding zeros of the result's shape.
LogicalResult convertExpand(NodeImporter &node) {
  FailureOr<SmallVector<int64_t>> target = node.intsInput(1, "the shape");
  if (failed(target))
    return failure();
  std::string why;
  FailureOr<nn::Shape> shape =
      nn::broadcastShape(node.inputShape(0), *target, why);
  if (failed(shape))
    return node.error() << why;
  if (llvm::any_of(*target, [](int64_t d) { return d < 1; }))
    return node.error() << "the shape must be positive";
  if (const HostTensor *known = node.constantInput(0)) {
    if (failed(checkFoldable(*shape, why)))
      return node.error() << why;
    node.setOutput(0, broadcastTo(*known, *shape));
    return success();
  }
  FailureOr<Value> input = node.input(0);
  if (failed(input))
    return failure();
  auto type = cast<RankedTensorType>(input->getType());
  if (type.getShape() == ArrayRef<int64_t>(*shape)) {
    node.setOutput(0, *input);
    return success();
  }
  // nn broadcasts only in elementwise ops: a float tensor is expanded by
  // adding zeros of the result's shape, a mask through 0/1 floats.
  Type element = type.getElementType();
  Type f32 = node.builder().getF32Type();
  if (!element.isF32() && !element.isInteger(1))
    return node.error() << "expanding a " << dataTypeName(node.inputType(0))
                        << " tensor at run time is not supported (FLOAT and "
                           "BOOL are)";
  Value zeros = arith::ConstantOp::create(
      node.builder(), node.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get(*shape, f32),
                             node.builder().getF32FloatAttr(0.0f)));
  FailureOr<Value> value =
      element.isF32() ? *input : node.create<nn::CastOp>(*input, f32);
  FailureOr<Value> expanded =
      failed(value) ? value : node.create<nn::AddOp>(*value, zeros);
  if (failed(expanded) || element.isF32())
    return node.setResult(expanded);
  return node.setResult(node.create<nn::CompareOp>(
      *expanded, node.scalar(0.0, f32), nn::ComparePredicate::ne));
}

} // namespace

void addShapeConverters(llvm::StringMap<ConverterEntry> &table) {
  table["Identity"] = {convertIdentity, 1, 1};
  table["Dropout"] = {convertDropout, 1, 3};
  table["Constant"] = {convertConstant, 0, 0};
  table["Shape"] = {convertShape, 1, 1};
  table["ConstantOfShape"] = {convertConstantOfShape, 1, 1};
  table["Range"] = {convertRange, 3, 3};
  table["Trilu"] = {convertTrilu, 1, 2};
  table["Reshape"] = {convertReshape, 2, 2};
  table["Flatten"] = {convertFlatten, 1, 1};
  table["Unsqueeze"] = {convertUnsqueeze, 1, 2};
  table["Squeeze"] = {convertSqueeze, 1, 2};
  table["Transpose"] = {convertTranspose, 1, 1};
  table["Slice"] = {convertSlice, 3, 5};
  table["Concat"] = {convertConcat, 1, -1};
  table["Expand"] = {convertExpand, 2, 2};
}

} // namespace transfuse::onnx_import
