//===- LayerOps.cpp - ONNX products, normalisations and gathers to nn -----===//
//
// MatMul, Gemm, Softmax, LogSoftmax, LayerNormalization, the reductions and
// Gather (an embedding lookup, or a known index of a computed tensor).
//===----------------------------------------------------------------------===//
#include "OnnxNode.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace transfuse::onnx_import {
namespace {

using onnx::TensorProto;

/// Inputs `count` inputs as f32 nn values (absent optional ones null).
FailureOr<SmallVector<Value>> floatInputs(NodeImporter &node, int count) {
  SmallVector<Value> inputs;
  for (int i = 0; i < count; ++i) {
    if (!node.hasInput(i)) {
      inputs.push_back(Value());
      continue;
    }
    FailureOr<Value> input = node.input(i);
    if (failed(input))
      return failure();
    if (!cast<RankedTensorType>(input->getType()).getElementType().isF32()) {
      node.error() << "input " << i << " must be FLOAT, not "
                   << dataTypeName(node.inputType(i));
      return failure();
    }
    inputs.push_back(*input);
  }
  return inputs;
}

LogicalResult convertMatMul(NodeImporter &node) {
  FailureOr<SmallVector<Value>> inputs = floatInputs(node, 2);
  if (failed(inputs))
    return failure();
  if (node.inputShape(0).size() < 2 || node.inputShape(1).size() < 2)
    return node.error() << "operands of rank 1 are not supported";
  return node.setResult(node.create<nn::MatmulOp>((*inputs)[0], (*inputs)[1]));
}

/// Y = alpha op(A) op(B) + beta C.
LogicalResult convertGemm(NodeImporter &node) {
  FailureOr<SmallVector<Value>> inputs = floatInputs(node, 3);
  if (failed(inputs))
    return failure();
  Value a = (*inputs)[0], b = (*inputs)[1], c = (*inputs)[2];
  if (node.inputShape(0).size() != 2 || node.inputShape(1).size() != 2)
    return node.error() << "A and B must be matrices";
  auto transposed = [&](Value v, StringRef attr) -> FailureOr<Value> {
    if (node.intAttr(attr, 0) == 0)
      return v;
    return node.create<nn::TransposeOp>(v, ArrayRef<int64_t>{1, 0});
  };
  FailureOr<Value> lhs = transposed(a, "transA");
  FailureOr<Value> rhs = failed(lhs) ? lhs : transposed(b, "transB");
  FailureOr<Value> y =
      failed(rhs) ? rhs : node.create<nn::MatmulOp>(*lhs, *rhs);
  if (failed(y))
    return failure();
  Type f32 = node.builder().getF32Type();
  float alpha = node.floatAttr("alpha", 1.0f),
        beta = node.floatAttr("beta", 1.0f);
  if (alpha != 1.0f)
    y = node.create<nn::MulOp>(*y, node.scalar(alpha, f32));
  if (failed(y) || !c || beta == 0.0f)
    return node.setResult(y);
  FailureOr<Value> bias = c;
  if (beta != 1.0f)
    bias = node.create<nn::MulOp>(c, node.scalar(beta, f32));
  if (failed(bias))
    return failure();
  return node.setResult(node.create<nn::AddOp>(*y, *bias));
}

template <typename OpTy> LogicalResult convertSoftmaxLike(NodeImporter &node) {
  FailureOr<SmallVector<Value>> inputs = floatInputs(node, 1);
  if (failed(inputs))
    return failure();
  FailureOr<int64_t> axis = node.axisOfInput(-1);
  if (failed(axis))
    return failure();
  return node.setResult(
      node.create<OpTy>((*inputs)[0], node.builder().getI64IntegerAttr(*axis)));
}

LogicalResult convertSoftmax(NodeImporter &node) {
  return convertSoftmaxLike<nn::SoftmaxOp>(node);
}
LogicalResult convertLogSoftmax(NodeImporter &node) {
  return convertSoftmaxLike<nn::LogSoftmaxOp>(node);
}

LogicalResult convertLayerNormalization(NodeImporter &node) {
  if (failed(node.refuseOutputsFrom(1)))
    return failure();
  FailureOr<SmallVector<Value>> inputs = floatInputs(node, 3);
  if (failed(inputs))
    return failure();
  FailureOr<int64_t> axis = node.axisOfInput(-1);
  if (failed(axis))
    return failure();
  float epsilon = node.floatAttr("epsilon", 1e-5f);
  if (!(epsilon > 0.0f))
    return node.error() << "epsilon must be positive";
  OpBuilder &b = node.builder();
  return node.setResult(node.create<nn::LayerNormOp>(
      (*inputs)[0], (*inputs)[1], (*inputs)[2], /*residual=*/Value(),
      b.getI64IntegerAttr(*axis), b.getF64FloatAttr(epsilon),
      nn::NormStatisticAttr::get(node.getContext(),
                                 nn::NormStatistic::variance),
      UnitAttr()));
}

/// ReduceMean/Max/Sum over the given axes (all when none; none at all with
/// noop_with_empty_axes), keeping the reduced dimensions if keepdims.
template <typename OpTy>
LogicalResult convertReduce(NodeImporter &node, int64_t axesInputSince) {
  FailureOr<std::optional<SmallVector<int64_t>>> axes =
      node.axes(axesInputSince);
  if (failed(axes))
    return failure();
  int64_t rank = node.inputShape(0).size();
  SmallVector<int64_t> reduced;
  if (!*axes || (*axes)->empty()) {
    if (node.intAttr("noop_with_empty_axes", 0) != 0) {
      node.forwardInput(0, 0);
      return success();
    }
    reduced = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  for (int64_t axis : axes->value_or(SmallVector<int64_t>())) {
    FailureOr<int64_t> at = node.normalizeAxis(axis, rank, "axis");
    if (failed(at))
      return failure();
    if (llvm::is_contained(reduced, *at))
      return node.error() << "axis " << axis << " is given twice";
    reduced.push_back(*at);
  }
  llvm::sort(reduced);
  FailureOr<SmallVector<Value>> inputs = floatInputs(node, 1);
  if (failed(inputs))
    return failure();
  return node.setResult(node.create<OpTy>((*inputs)[0],
                                          ArrayRef<int64_t>(reduced),
                                          node.intAttr("keepdims", 1) != 0));
}

LogicalResult convertReduceMean(NodeImporter &node) {
  return convertReduce<nn::ReduceMeanOp>(node, 18);
}
LogicalResult convertReduceMax(NodeImporter &node) {
  return convertReduce<nn::ReduceMaxOp>(node, 18);
}
LogicalResult convertReduceSum(NodeImporter &node) {
  return convertReduce<nn::ReduceSumOp>(node, 13);
}

/// Gather of known data at known indices, on the host.
LogicalResult gatherHost(NodeImporter &node, const HostTensor &data,
                         const HostTensor &indices, int64_t axis) {
  SmallVector<int64_t> shape(data.shape.begin(), data.shape.begin() + axis);
  llvm::append_range(shape, indices.shape);
  shape.append(data.shape.begin() + axis + 1, data.shape.end());
  std::string why;
  if (failed(checkFoldable(shape, why)))
    return node.error() << why;
  int64_t outer = 1, inner = 1, extent = data.shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= data.shape[d];
  for (int64_t d = axis + 1; d < int64_t(data.shape.size()); ++d)
    inner *= data.shape[d];
  HostTensor result = HostTensor::zeros(data.type, shape);
  int64_t at = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0, n = indices.size(); k < n; ++k) {
      int64_t index = indices.intAt(k);
      if (index < -extent || index >= extent)
        return node.error() << "index " << index << " is out of range for "
                            << "dimension " << axis << " of size " << extent;
      if (index < 0)
        index += extent;
      for (int64_t i = 0; i < inner; ++i, ++at) {
        int64_t source = (o * extent + index) * inner + i;
        if (result.isFloat())
          result.floats[at] = data.floats[source];
        else
          result.ints[at] = data.ints[source];
      }
    }
  node.setOutput(0, std::move(result));
  return success();
}

/// Gather: an embedding lookup of computed ids in a [rows, dim] table, or
/// one known index along an axis of a computed tensor.
LogicalResult convertGather(NodeImporter &node) {
  SmallVector<int64_t, 4> shape = node.inputShape(0);
  FailureOr<int64_t> axis = node.axisOfInput(0);
  if (failed(axis))
    return failure();
  if (node.inputType(1) != TensorProto::INT64 &&
      node.inputType(1) != TensorProto::INT32)
    return node.error() << "indices must be INT64 or INT32";
  const HostTensor *indices = node.constantInput(1);
  if (node.allInputsConstant())
    return gatherHost(node, *node.constantInput(0), *indices, *axis);
  FailureOr<Value> data = node.input(0);
  if (failed(data))
    return failure();
  if (indices && indices->size() == 1) {
    int64_t index = indices->intAt(0);
    if (index < -shape[*axis] || index >= shape[*axis])
      return node.error() << "index " << index << " is out of range";
    SmallVector<int64_t> offsets(shape.size(), 0);
    SmallVector<int64_t> sizes(shape.begin(), shape.end());
    offsets[*axis] = index < 0 ? index + shape[*axis] : index;
    sizes[*axis] = 1;
    FailureOr<Value> slice = node.create<nn::SliceOp>(*data, offsets, sizes);
    if (failed(slice))
      return failure();
    SmallVector<int64_t> result(shape.begin(), shape.begin() + *axis);
    llvm::append_range(result, indices->shape);
    result.append(shape.begin() + *axis + 1, shape.end());
    return node.setResult(node.create<nn::ReshapeOp>(*slice, result));
  }
  if (*axis != 0 || shape.size() != 2)
    return node.error() << "a gather of computed indices is supported from "
                           "the rows of a matrix (an embedding), not axis "
                        << *axis << " of a rank-" << shape.size() << " tensor";
  FailureOr<Value> ids = node.input(1);
  if (failed(ids))
    return failure();
  return node.setResult(node.create<nn::EmbeddingOp>(*data, *ids));
}

} // namespace

void addLayerConverters(llvm::StringMap<ConverterEntry> &table) {
  table["MatMul"] = {convertMatMul, 2, 2};
  table["Gemm"] = {convertGemm, 2, 3};
  table["Softmax"] = {convertSoftmax, 1, 1};
  table["LogSoftmax"] = {convertLogSoftmax, 1, 1};
  table["LayerNormalization"] = {convertLayerNormalization, 2, 3};
  table["ReduceMean"] = {convertReduceMean, 1, 2};
  table["ReduceMax"] = {convertReduceMax, 1, 2};
  table["ReduceSum"] = {convertReduceSum, 1, 2};
  table["Gather"] = {convertGather, 2, 2};
}

} // namespace transfuse::onnx_import
