//===- PrimitiveLayers.cpp - Spec primitives to single nn ops -------------===//
//
// A primitive layer is one nn op. Its shapes are checked with the dialect's
// shape rules before the op is built, so a mismatch is reported against the
// layer with both shapes.
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include <cmath>

using namespace mlir;

namespace transfuse::import {
namespace {

using nn::formatShape;
using nn::Shape;
using Values = SmallVector<Value>;

/// Builds an op whose shape rule has already passed.
template <typename OpTy, typename... Args>
FailureOr<Values> build(GraphBuilder &graph, const LayerSite &site,
                        Args &&...args) {
  return Values{
      OpTy::create(graph.builder(), site.loc, std::forward<Args>(args)...)
          ->getResult(0)};
}

/// Whether `value` converts to an integer element exactly.
bool isInteger(double value) {
  return std::isfinite(value) && value == std::trunc(value);
}

FailureOr<Values> fail(const LayerSite &site, const std::string &why) {
  return site.error() << why;
}

LogicalResult checkArity(const LayerSite &site, ArrayRef<Value> inputs,
                         size_t count) {
  if (inputs.size() == count)
    return success();
  return site.error() << layerKindName(site.layer) << " takes " << count
                      << " input" << (count == 1 ? "" : "s") << ", got "
                      << inputs.size();
}

/// Checks that every input is a float tensor, naming the one that is not.
LogicalResult checkFloat(const LayerSite &site, ArrayRef<Value> inputs) {
  for (auto [i, value] : llvm::enumerate(inputs))
    if (!isa<FloatType>(GraphBuilder::elementType(value)))
      return site.error() << layerKindName(site.layer)
                          << " needs float tensors, but input '"
                          << site.layer.inputs(i) << "' is " << value.getType();
  return success();
}

/// Maps a possibly negative axis into [0, rank), reporting at `kind.field`.
FailureOr<int64_t> normalizeAxis(const LayerSite &site, StringRef kind,
                                 StringRef field, int64_t axis, Value input) {
  int64_t rank = GraphBuilder::tensorType(input).getRank();
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized >= 0 && normalized < rank)
    return normalized;
  return site.errorAt(kind, field)
         << "axis " << axis << " is out of range for " << input.getType();
}

FailureOr<Values> buildParameter(GraphBuilder &graph, const LayerSite &site) {
  const spec::Parameter &spec = site.layer.parameter();
  FailureOr<SmallVector<int64_t>> shape =
      graph.getSpec().resolveShape(site.cursor.child("parameter"), "shape");
  if (failed(shape))
    return failure();
  std::string name =
      spec.name().empty() ? site.path : site.scopedName(spec.name());
  // torch.nn.init's fan-in: every axis but the first; none for a vector.
  int64_t fanIn = 0;
  if (shape->size() >= 2) {
    fanIn = 1;
    for (int64_t dim : ArrayRef<int64_t>(*shape).drop_front())
      fanIn *= dim;
  }
  FailureOr<Value> value = graph.parameter(site, name, *shape, "parameter",
                                           "init", DefaultInit::None, fanIn);
  if (failed(value))
    return failure();
  return Values{*value};
}

FailureOr<Values> buildConstant(GraphBuilder &graph, const LayerSite &site) {
  const spec::Constant &spec = site.layer.constant();
  spec::SpecCursor cursor = site.cursor.child("constant");
  FailureOr<SmallVector<int64_t>> shape =
      graph.getSpec().resolveShape(cursor, "shape");
  if (failed(shape))
    return failure();
  MLIRContext *context = graph.builder().getContext();
  Type element = spec.dtype() == spec::DTYPE_UNSPECIFIED
                     ? Float32Type::get(context)
                     : elementTypeOf(context, spec.dtype());
  auto type = RankedTensorType::get(*shape, element);
  int64_t count = type.getNumElements();
  if (spec.values_size() != 1 && spec.values_size() != count)
    return site.errorAt("constant", "values")
           << "a constant of shape " << formatShape(*shape) << " needs 1 or "
           << count << " values, got " << spec.values_size();
  if (!isa<FloatType>(element))
    for (double value : spec.values())
      if (!isInteger(value) ||
          (element.isInteger(1) && value != 0 && value != 1))
        return site.errorAt("constant", "values")
               << "value " << value << " is not "
               << (element.isInteger(1) ? "0 or 1, as a BOOL constant needs"
                                        : "an integer, as the dtype needs");
  SmallVector<Attribute> elements;
  for (double value : spec.values())
    elements.push_back(isa<FloatType>(element)
                           ? Attribute(FloatAttr::get(element, value))
                           : Attribute(IntegerAttr::get(
                                 element, static_cast<int64_t>(value))));
  DenseElementsAttr value = elements.size() == 1
                                ? DenseElementsAttr::get(type, elements.front())
                                : DenseElementsAttr::get(type, elements);
  return build<arith::ConstantOp>(graph, site, value);
}

FailureOr<Values> buildMatmul(GraphBuilder &graph, const LayerSite &site,
                              ArrayRef<Value> in) {
  if (failed(checkArity(site, in, 2)) || failed(checkFloat(site, in)))
    return failure();
  std::string why;
  if (failed(nn::matmulShape(GraphBuilder::shape(in[0]),
                             GraphBuilder::shape(in[1]), why)))
    return fail(site, why);
  return build<nn::MatmulOp>(graph, site, in[0], in[1]);
}

FailureOr<Values> buildTranspose(GraphBuilder &graph, const LayerSite &site,
                                 ArrayRef<Value> in) {
  if (failed(checkArity(site, in, 1)))
    return failure();
  SmallVector<int64_t> perm(site.layer.transpose().perm().begin(),
                            site.layer.transpose().perm().end());
  std::string why;
  if (failed(nn::transposeShape(GraphBuilder::shape(in[0]), perm, why)))
    return site.errorAt("transpose", "perm") << why;
  return build<nn::TransposeOp>(graph, site, in[0], perm);
}

FailureOr<Values> buildReshape(GraphBuilder &graph, const LayerSite &site,
                               ArrayRef<Value> in) {
  if (failed(checkArity(site, in, 1)))
    return failure();
  FailureOr<SmallVector<int64_t>> target = graph.getSpec().resolveShape(
      site.cursor.child("reshape"), "shape", /*allowInferred=*/true);
  if (failed(target))
    return failure();
  std::string why;
  FailureOr<Shape> shape =
      nn::reshapeShape(GraphBuilder::shape(in[0]), *target, why);
  if (failed(shape))
    return site.errorAt("reshape", "shape") << why;
  return build<nn::ReshapeOp>(graph, site, in[0], ArrayRef<int64_t>(*shape));
}

FailureOr<Values> buildSlice(GraphBuilder &graph, const LayerSite &site,
                             ArrayRef<Value> in) {
  if (failed(checkArity(site, in, 1)))
    return failure();
  const spec::Slice &spec = site.layer.slice();
  FailureOr<int64_t> axis =
      normalizeAxis(site, "slice", "axis", spec.axis(), in[0]);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> shape = GraphBuilder::shape(in[0]);
  int64_t dim = shape[*axis];
  auto bound = [&](int64_t index) { return index < 0 ? index + dim : index; };
  int64_t start = bound(spec.start());
  int64_t end = spec.has_end() ? bound(spec.end()) : dim;
  if (start < 0 || end > dim || start >= end)
    return site.errorAt("slice", "start")
           << "slice [" << spec.start() << ":"
           << (spec.has_end() ? std::to_string(spec.end()) : "") << "] of axis "
           << spec.axis() << " is empty or outside " << formatShape(shape);
  SmallVector<int64_t> offsets(shape.size(), 0), sizes(shape);
  offsets[*axis] = start;
  sizes[*axis] = end - start;
  return build<nn::SliceOp>(graph, site, in[0], offsets, sizes);
}

FailureOr<Values> buildConcat(GraphBuilder &graph, const LayerSite &site,
                              ArrayRef<Value> in) {
  if (in.empty())
    return site.error() << "concat needs at least one input";
  FailureOr<int64_t> axis =
      normalizeAxis(site, "concat", "axis", site.layer.concat().axis(), in[0]);
  if (failed(axis))
    return failure();
  SmallVector<Shape> shapes;
  for (Value value : in) {
    if (GraphBuilder::elementType(value) != GraphBuilder::elementType(in[0]))
      return site.error() << "concat inputs have different element types";
    shapes.emplace_back(GraphBuilder::shape(value));
  }
  for (auto [i, shape] :
       llvm::enumerate(ArrayRef<Shape>(shapes).drop_front())) {
    bool sameRank = shape.size() == shapes[0].size();
    bool fits = sameRank;
    for (size_t d = 0; fits && d < shape.size(); ++d)
      fits = d == static_cast<size_t>(*axis) || shape[d] == shapes[0][d];
    if (!fits)
      return site.error() << "cannot concat '" << site.layer.inputs(i + 1)
                          << "' " << formatShape(shape) << " to '"
                          << site.layer.inputs(0) << "' "
                          << formatShape(shapes[0]) << " along axis " << *axis
                          << (sameRank ? ": the other sizes differ"
                                       : ": the ranks differ");
  }
  std::string why;
  if (failed(nn::concatShape(shapes, *axis, why)))
    return fail(site, why);
  return build<nn::ConcatOp>(graph, site, ValueRange(in), *axis);
}

/// add/sub/mul/div: two tensors, or one and the layer's `scalar`.
template <typename OpTy>
FailureOr<Values> buildBinary(GraphBuilder &graph, const LayerSite &site,
                              ArrayRef<Value> in, const spec::Binary &spec) {
  if (failed(checkArity(site, in, spec.has_scalar() ? 1 : 2)) ||
      failed(checkFloat(site, in)))
    return failure();
  if (spec.has_scalar())
    return Values{graph.withScalar<OpTy>(site.loc, in[0], spec.scalar())};
  if (GraphBuilder::elementType(in[0]) != GraphBuilder::elementType(in[1]))
    return site.error() << "inputs have different element types: "
                        << in[0].getType() << " and " << in[1].getType();
  std::string why;
  if (failed(nn::broadcastShape(GraphBuilder::shape(in[0]),
                                GraphBuilder::shape(in[1]), why)))
    return fail(site, why);
  return build<OpTy>(graph, site, in[0], in[1]);
}

template <typename OpTy>
FailureOr<Values> buildUnary(GraphBuilder &graph, const LayerSite &site,
                             ArrayRef<Value> in) {
  if (failed(checkArity(site, in, 1)) || failed(checkFloat(site, in)))
    return failure();
  return build<OpTy>(graph, site, in[0]);
}

template <typename OpTy>
FailureOr<Values> buildSoftmax(GraphBuilder &graph, const LayerSite &site,
                               ArrayRef<Value> in, const spec::Axis &spec) {
  if (failed(checkArity(site, in, 1)) || failed(checkFloat(site, in)))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(site, layerKindName(site.layer), "axis",
                    spec.has_axis() ? spec.axis() : -1, in[0]);
  if (failed(axis))
    return failure();
  return build<OpTy>(graph, site, in[0],
                     graph.builder().getI64IntegerAttr(*axis));
}

template <typename OpTy>
FailureOr<Values> buildReduce(GraphBuilder &graph, const LayerSite &site,
                              ArrayRef<Value> in, const spec::Reduce &spec) {
  if (failed(checkArity(site, in, 1)) || failed(checkFloat(site, in)))
    return failure();
  std::string kind = layerKindName(site.layer);
  SmallVector<int64_t> axes;
  for (int64_t axis : spec.axes()) {
    FailureOr<int64_t> normalized =
        normalizeAxis(site, kind, "axes", axis, in[0]);
    if (failed(normalized))
      return failure();
    axes.push_back(*normalized);
  }
  llvm::sort(axes);
  std::string why;
  if (failed(nn::reduceShape(GraphBuilder::shape(in[0]), axes, spec.keep_dims(),
                             why)))
    return site.errorAt(kind, "axes") << why;
  return build<OpTy>(graph, site, in[0], ArrayRef<int64_t>(axes),
                     spec.keep_dims());
}

FailureOr<Values> buildCompare(GraphBuilder &graph, const LayerSite &site,
                               ArrayRef<Value> in) {
  const spec::Compare &spec = site.layer.compare();
  if (failed(checkArity(site, in, spec.has_scalar() ? 1 : 2)))
    return failure();
  Type element = GraphBuilder::elementType(in[0]);
  if (spec.has_scalar() && !isa<FloatType>(element) &&
      !isInteger(spec.scalar()))
    return site.errorAt("compare", "scalar")
           << "cannot compare " << in[0].getType() << " with the scalar "
           << spec.scalar();
  Value rhs = spec.has_scalar() ? graph.scalar(site.loc, spec.scalar(), element)
                                : in[1];
  if (GraphBuilder::elementType(in[0]) != GraphBuilder::elementType(rhs))
    return site.error() << "inputs have different element types: "
                        << in[0].getType() << " and " << rhs.getType();
  std::string why;
  if (failed(nn::broadcastShape(GraphBuilder::shape(in[0]),
                                GraphBuilder::shape(rhs), why)))
    return fail(site, why);
  auto predicate = static_cast<nn::ComparePredicate>(spec.predicate());
  return build<nn::CompareOp>(graph, site, in[0], rhs, predicate);
}

FailureOr<Values> buildMaskedFill(GraphBuilder &graph, const LayerSite &site,
                                  ArrayRef<Value> in) {
  if (failed(checkArity(site, in, 2)) || failed(checkFloat(site, in[0])))
    return failure();
  if (!GraphBuilder::elementType(in[1]).isInteger(1))
    return site.error() << "the mask '" << site.layer.inputs(1)
                        << "' must be bool, got " << in[1].getType();
  if (!nn::broadcastsTo(GraphBuilder::shape(in[1]), GraphBuilder::shape(in[0])))
    return site.error() << "mask " << formatShape(GraphBuilder::shape(in[1]))
                        << " does not broadcast to the input "
                        << formatShape(GraphBuilder::shape(in[0]));
  return build<nn::MaskedFillOp>(
      graph, site, in[0], in[1],
      graph.builder().getF64FloatAttr(site.layer.masked_fill().value()));
}

FailureOr<Values> buildCast(GraphBuilder &graph, const LayerSite &site,
                            ArrayRef<Value> in) {
  if (failed(checkArity(site, in, 1)))
    return failure();
  Type to =
      elementTypeOf(graph.builder().getContext(), site.layer.cast().dtype());
  if (!to)
    return site.errorAt("cast", "dtype") << "cast needs a dtype";
  return build<nn::CastOp>(graph, site, in[0], TypeAttr::get(to));
}

FailureOr<Values> buildTriangularMask(GraphBuilder &graph,
                                      const LayerSite &site) {
  spec::SpecCursor cursor = site.cursor.child("triangular_mask");
  FailureOr<SmallVector<int64_t>> shape =
      graph.getSpec().resolveShape(cursor, "shape");
  if (failed(shape))
    return failure();
  if (shape->size() != 2)
    return site.errorAt("triangular_mask", "shape")
           << "a triangular mask is [rows, cols], got " << formatShape(*shape);
  OpBuilder &b = graph.builder();
  auto type = RankedTensorType::get(*shape, b.getI1Type());
  return build<nn::TriangularMaskOp>(
      graph, site, type,
      b.getI64IntegerAttr(site.layer.triangular_mask().diagonal()));
}

} // namespace

FailureOr<Values> buildPrimitiveLayer(GraphBuilder &graph,
                                      const LayerSite &site,
                                      ArrayRef<Value> in) {
  const spec::Layer &layer = site.layer;
  switch (layer.kind_case()) {
  case spec::Layer::kParameter:
  case spec::Layer::kConstant:
  case spec::Layer::kTriangularMask:
    if (failed(checkArity(site, in, 0)))
      return failure();
    if (layer.has_parameter())
      return buildParameter(graph, site);
    if (layer.has_constant())
      return buildConstant(graph, site);
    return buildTriangularMask(graph, site);
  case spec::Layer::kMatmul:
    return buildMatmul(graph, site, in);
  case spec::Layer::kTranspose:
    return buildTranspose(graph, site, in);
  case spec::Layer::kReshape:
    return buildReshape(graph, site, in);
  case spec::Layer::kSlice:
    return buildSlice(graph, site, in);
  case spec::Layer::kConcat:
    return buildConcat(graph, site, in);
  case spec::Layer::kAdd:
    return buildBinary<nn::AddOp>(graph, site, in, layer.add());
  case spec::Layer::kSub:
    return buildBinary<nn::SubOp>(graph, site, in, layer.sub());
  case spec::Layer::kMul:
    return buildBinary<nn::MulOp>(graph, site, in, layer.mul());
  case spec::Layer::kDiv:
    return buildBinary<nn::DivOp>(graph, site, in, layer.div());
  case spec::Layer::kNeg:
    return buildUnary<nn::NegOp>(graph, site, in);
  case spec::Layer::kExp:
    return buildUnary<nn::ExpOp>(graph, site, in);
  case spec::Layer::kLog:
    return buildUnary<nn::LogOp>(graph, site, in);
  case spec::Layer::kSqrt:
    return buildUnary<nn::SqrtOp>(graph, site, in);
  case spec::Layer::kRsqrt:
    return buildUnary<nn::RsqrtOp>(graph, site, in);
  case spec::Layer::kTanh:
    return buildUnary<nn::TanhOp>(graph, site, in);
  case spec::Layer::kRelu:
    return buildUnary<nn::ReluOp>(graph, site, in);
  case spec::Layer::kGelu:
    if (failed(checkArity(site, in, 1)) || failed(checkFloat(site, in)))
      return failure();
    return build<nn::GeluOp>(graph, site, in[0],
                             layer.gelu().tanh_approximation());
  case spec::Layer::kSoftmax:
    return buildSoftmax<nn::SoftmaxOp>(graph, site, in, layer.softmax());
  case spec::Layer::kLogSoftmax:
    return buildSoftmax<nn::LogSoftmaxOp>(graph, site, in, layer.log_softmax());
  case spec::Layer::kReduceSum:
    return buildReduce<nn::ReduceSumOp>(graph, site, in, layer.reduce_sum());
  case spec::Layer::kReduceMean:
    return buildReduce<nn::ReduceMeanOp>(graph, site, in, layer.reduce_mean());
  case spec::Layer::kReduceMax:
    return buildReduce<nn::ReduceMaxOp>(graph, site, in, layer.reduce_max());
  case spec::Layer::kCompare:
    return buildCompare(graph, site, in);
  case spec::Layer::kMaskedFill:
    return buildMaskedFill(graph, site, in);
  case spec::Layer::kCast:
    return buildCast(graph, site, in);
  default:
    break;
  }
  llvm_unreachable("composite and block layers are built elsewhere");
}

} // namespace transfuse::import
