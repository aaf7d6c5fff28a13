//===- OnnxImporter.cpp - ONNX models to the nn dialect -------------------===//
//
// Reads the ModelProto, checks what a converter would trip over (opset,
// graph order, duplicate names, initializers), binds the inputs' symbolic
// dimensions, then converts the nodes in order into @forward. Float
// initializers become parameters when a run-time op reads them; every
// other known tensor is folded through the ops that read it, so shapes,
// masks and scales reach the nn ops as constants.
//===----------------------------------------------------------------------===//
#include "transfuse/Import/OnnxImporter.h"
#include "OnnxNode.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include <climits>
#include <cmath>

using namespace mlir;

namespace transfuse {
namespace {

using onnx_import::HostTensor;
using onnx_import::NodeImporter;
using onnx_import::OnnxValue;

/// The opsets whose operator definitions the converters implement.
constexpr int64_t kMinOpset = 13, kMaxOpset = 18;

bool isDefaultDomain(StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

class OnnxImporter : public onnx_import::ValueMaterializer {
public:
  OnnxImporter(MLIRContext *context, StringRef path,
               const OnnxImportOptions &options,
               std::vector<ImportedWeight> *weights,
               std::vector<std::string> *unsupported)
      : context(context), path(path.str()), options(options), builder(context),
        weights(weights), unsupported(unsupported) {}

  /// Parses and checks the model, then builds the module.
  FailureOr<OwningOpRef<ModuleOp>> run(StringRef bytes);

  FailureOr<Value> materialize(StringRef name, OnnxValue &known) override;

private:
  LogicalResult parse(StringRef bytes);
  LogicalResult checkGraph();
  LogicalResult declareInitializers();
  FailureOr<SmallVector<Type>> declareInputs();
  LogicalResult convertNodes();
  LogicalResult convertNode(const onnx::NodeProto &node);
  FailureOr<SmallVector<Value>> collectOutputs();
  LogicalResult checkDeclaredType(const onnx::ValueInfoProto &info,
                                  Type actual);

  /// An error at the model file; `node` names the node it concerns.
  InFlightDiagnostic error(const onnx::NodeProto *node = nullptr);
  static std::string describe(const onnx::NodeProto &node);

  MLIRContext *context;
  std::string path;
  const OnnxImportOptions &options;
  OpBuilder builder;
  std::vector<ImportedWeight> *weights;
  /// Set in --list-unsupported mode: nodes that fail are listed here and
  /// the import goes on without them.
  std::vector<std::string> *unsupported;

  onnx::ModelProto model;
  int64_t opset = 0;
  OwningOpRef<ModuleOp> module;
  func::FuncOp forward;
  llvm::StringMap<OnnxValue> values;
  llvm::StringSet<> readNames;
  /// Names the outputs of nodes that failed in --list-unsupported mode.
  llvm::StringSet<> poisoned;
  /// The node being converted, for the errors' prefix.
  const onnx::NodeProto *currentNode = nullptr;
  SmallVector<NamedAttribute> boundDims;
};

std::string OnnxImporter::describe(const onnx::NodeProto &node) {
  return "node '" + node.name() + "' (" + node.op_type() + ")";
}

InFlightDiagnostic OnnxImporter::error(const onnx::NodeProto *node) {
  InFlightDiagnostic diag = emitError(FileLineColLoc::get(context, path, 0, 0));
  if (node)
    diag << describe(*node) << ": ";
  return diag;
}

LogicalResult OnnxImporter::parse(StringRef bytes) {
  if (bytes.size() > size_t(INT_MAX))
    return error() << "the model is larger than 2 GiB; keep its weights "
                      "as external data";
  if (!model.ParseFromArray(bytes.data(), int(bytes.size())))
    return error() << "not a valid ONNX model (the protobuf does not parse)";
  if (!model.has_graph())
    return error() << "the model has no graph";
  bool found = false;
  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (isDefaultDomain(set.domain())) {
      opset = set.version();
      found = true;
    }
  if (!found)
    return error() << "the model imports no opset of the default domain";
  if (opset < kMinOpset || opset > kMaxOpset)
    return error() << "opset " << opset << " is not supported (opsets "
                   << kMinOpset << " to " << kMaxOpset
                   << "; re-export with opset_version in that range)";
  return success();
}

LogicalResult OnnxImporter::checkGraph() {
  const onnx::GraphProto &graph = model.graph();
  if (graph.sparse_initializer_size() > 0)
    return error() << "sparse initializers are not supported";
  llvm::StringSet<> defined;
  auto define = [&](const std::string &name,
                    const onnx::NodeProto *node) -> LogicalResult {
    if (name.empty())
      return success();
    if (!defined.insert(name).second)
      return error(node) << "'" << name << "' is defined twice";
    return success();
  };
  for (const onnx::TensorProto &init : graph.initializer())
    if (failed(define(init.name(), nullptr)))
      return failure();
  for (const onnx::ValueInfoProto &input : graph.input())
    if (!defined.contains(input.name()) &&
        failed(define(input.name(), nullptr)))
      return failure();
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input()) {
      if (!input.empty() && !defined.contains(input))
        return error(&node)
               << "input '" << input
               << "' is not an initializer, a graph input or the output of "
                  "an earlier node (a cycle, an unsorted graph or a missing "
                  "initializer)";
      readNames.insert(input);
    }
    for (const std::string &output : node.output())
      if (failed(define(output, &node)))
        return failure();
  }
  if (graph.output_size() == 0)
    return error() << "the graph has no outputs";
  for (const onnx::ValueInfoProto &output : graph.output()) {
    if (!defined.contains(output.name()))
      return error() << "graph output '" << output.name()
                     << "' is not produced by any node";
    readNames.insert(output.name());
  }
  return success();
}

LogicalResult OnnxImporter::declareInitializers() {
  for (const std::string &name : options.frozen)
    if (llvm::none_of(
            model.graph().initializer(),
            [&](const onnx::TensorProto &init) { return init.name() == name; }))
      return error() << "--freeze " << name
                     << ": the model has no initializer of that name";
  StringRef dir = llvm::sys::path::parent_path(path);
  for (const onnx::TensorProto &init : model.graph().initializer()) {
    std::string why;
    FailureOr<HostTensor> tensor = onnx_import::decodeTensor(init, dir, why);
    if (failed(tensor))
      return error() << "initializer '" << init.name() << "': " << why;
    // A float initializer is a weight, unless it holds an infinity or a
    // NaN: no trained weight does, and exporters fold additive attention
    // masks (0 and -inf) into initializers. --freeze keeps one constant.
    bool parameter =
        tensor->isFloat() && !llvm::is_contained(options.frozen, init.name()) &&
        llvm::all_of(tensor->floats, [](float v) { return std::isfinite(v); });
    values[init.name()] = OnnxValue{
        Value(), std::make_shared<const HostTensor>(std::move(*tensor)),
        parameter};
  }
  return success();
}

FailureOr<SmallVector<Type>> OnnxImporter::declareInputs() {
  llvm::StringMap<int64_t> overrides;
  for (const spec::DimOverride &dim : options.dims)
    overrides[dim.name] = dim.value;
  llvm::StringSet<> symbols, usedOverrides;
  SmallVector<Type> types;
  for (const onnx::ValueInfoProto &input : model.graph().input()) {
    if (values.contains(input.name()))
      continue; // An initializer listed as an input (IR version < 4).
    if (!input.type().has_tensor_type())
      return error() << "input '" << input.name() << "' is not a tensor";
    const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    Type element = onnx_import::elementTypeOf(context, tensor.elem_type());
    if (!element)
      return error() << "input '" << input.name() << "' has element type "
                     << onnx_import::dataTypeName(tensor.elem_type())
                     << " (inputs may be FLOAT, INT64, INT32 or BOOL)";
    if (!tensor.has_shape())
      return error() << "input '" << input.name()
                     << "' has no shape (export with its rank known)";
    SmallVector<int64_t> shape;
    for (auto [k, dim] : llvm::enumerate(tensor.shape().dim())) {
      if (dim.has_dim_value() && dim.dim_value() > 0) {
        shape.push_back(dim.dim_value());
        continue;
      }
      if (!dim.has_dim_param() || dim.dim_param().empty())
        return error() << "input '" << input.name() << "' dimension " << k
                       << " has neither a size nor a name";
      const std::string &name = dim.dim_param();
      symbols.insert(name);
      auto it = overrides.find(name);
      if (it == overrides.end())
        return error() << "input '" << input.name() << "' dimension " << k
                       << " is symbolic ('" << name << "'): bind it with -D "
                       << name << "=N";
      usedOverrides.insert(name);
      shape.push_back(it->second);
    }
    types.push_back(RankedTensorType::get(shape, element));
  }
  for (const spec::DimOverride &dim : options.dims) {
    if (usedOverrides.contains(dim.name) ||
        llvm::is_contained(options.otherDims, dim.name))
      continue;
    SmallVector<StringRef> names;
    for (const auto &symbol : symbols)
      names.push_back(symbol.getKey());
    llvm::sort(names);
    return error() << "-D " << dim.name
                   << ": the model has no symbolic dimension of that name"
                   << (names.empty()
                           ? " (its inputs have static shapes)"
                           : " (it has: " + llvm::join(names, ", ") + ")");
  }
  boundDims.clear();
  for (const spec::DimOverride &dim : options.dims)
    if (usedOverrides.contains(dim.name))
      boundDims.push_back(
          builder.getNamedAttr(dim.name, builder.getI64IntegerAttr(dim.value)));
  return types;
}

FailureOr<Value> OnnxImporter::materialize(StringRef name, OnnxValue &known) {
  const HostTensor &tensor = *known.constant;
  Location loc = NameLoc::get(builder.getStringAttr(name));
  if (tensor.size() == 0) {
    error(currentNode) << "'" << name << "' is empty (shape "
                       << nn::formatShape(tensor.shape)
                       << "), which a tensor read at run time cannot be";
    return failure();
  }
  if (known.isParameter) {
    auto type = RankedTensorType::get(tensor.shape, builder.getF32Type());
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(forward);
    nn::ParameterOp::create(builder, loc, name, type,
                            nn::InitAttr::get(context, nn::InitKind::external));
    if (weights)
      weights->push_back(ImportedWeight{
          name.str(),
          std::vector<int64_t>(tensor.shape.begin(), tensor.shape.end()),
          tensor.floats});
    builder.setInsertionPointToStart(&forward.getBody().front());
    known.value = nn::ParamLoadOp::create(
        builder, loc, type, FlatSymbolRefAttr::get(context, name));
    return known.value;
  }
  if (!onnx_import::elementTypeOf(context, tensor.type)) {
    error(currentNode) << "'" << name << "' of type "
                       << onnx_import::dataTypeName(tensor.type)
                       << " is computed at run time, which only FLOAT, "
                          "INT64, INT32 and BOOL tensors can be";
    return failure();
  }
  known.value = arith::ConstantOp::create(
      builder, loc, onnx_import::toAttribute(context, tensor));
  return known.value;
}

LogicalResult OnnxImporter::convertNode(const onnx::NodeProto &node) {
  currentNode = &node;
  if (!isDefaultDomain(node.domain()))
    return error(&node) << "operators of domain '" << node.domain()
                        << "' are not supported";
  auto converter = onnx_import::converters().find(node.op_type());
  if (converter == onnx_import::converters().end())
    return error(&node) << "op type " << node.op_type()
                        << " is not supported (docs/onnx.md lists those "
                           "that are)";
  const onnx_import::ConverterEntry &entry = converter->second;
  int count = node.input_size();
  if (count < entry.minInputs ||
      (entry.maxInputs >= 0 && count > entry.maxInputs))
    return error(&node) << "has " << count << " inputs; " << node.op_type()
                        << " takes "
                        << (entry.maxInputs < 0
                                ? "at least " + std::to_string(entry.minInputs)
                            : entry.minInputs == entry.maxInputs
                                ? std::to_string(entry.minInputs)
                                : std::to_string(entry.minInputs) + " to " +
                                      std::to_string(entry.maxInputs));
  for (int i = 0; i < count; ++i)
    if (node.input(i).empty() && (i < entry.minInputs || entry.maxInputs < 0))
      return error(&node) << "input " << i << " is required";
  Location loc = NameLoc::get(builder.getStringAttr(
      node.name().empty() ? node.op_type() : node.name()));
  NodeImporter importer(node, opset, builder, loc, values, readNames, *this);
  if (failed(entry.convert(importer)))
    return failure();
  for (int k = 0; k < node.output_size(); ++k)
    if (!node.output(k).empty() && !values.contains(node.output(k)) &&
        readNames.contains(node.output(k)))
      return error(&node) << "output " << k << " ('" << node.output(k)
                          << "') is not supported";
  return success();
}

LogicalResult OnnxImporter::convertNodes() {
  // Errors met while a node converts are re-emitted with the model file
  // and the node in front, or collected in --list-unsupported mode.
  bool reemitting = false;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (reemitting || diag.getSeverity() != DiagnosticSeverity::Error)
      return failure();
    std::string message = diag.str();
    if (!isa<FileLineColLoc>(diag.getLocation())) {
      reemitting = true;
      if (unsupported)
        unsupported->push_back(
            currentNode ? describe(*currentNode) + ": " + message : message);
      else
        error(currentNode) << message;
      reemitting = false;
    } else if (unsupported) {
      unsupported->push_back(message);
    } else {
      return failure();
    }
    return success();
  });
  bool failedAny = false;
  for (const onnx::NodeProto &node : model.graph().node()) {
    if (llvm::any_of(node.input(), [&](const std::string &input) {
          return poisoned.contains(input);
        })) {
      poisoned.insert(node.output().begin(), node.output().end());
      continue;
    }
    if (succeeded(convertNode(node)))
      continue;
    if (!unsupported)
      return failure();
    failedAny = true;
    poisoned.insert(node.output().begin(), node.output().end());
  }
  currentNode = nullptr;
  return success(!failedAny);
}

LogicalResult OnnxImporter::checkDeclaredType(const onnx::ValueInfoProto &info,
                                              Type actual) {
  if (!info.type().has_tensor_type())
    return success();
  const onnx::TypeProto::Tensor &declared = info.type().tensor_type();
  auto type = cast<RankedTensorType>(actual);
  Type element = onnx_import::elementTypeOf(context, declared.elem_type());
  if (declared.elem_type() != 0 && element != type.getElementType())
    return error() << "graph output '" << info.name() << "' is declared "
                   << onnx_import::dataTypeName(declared.elem_type())
                   << " but computes " << type.getElementType();
  if (!declared.has_shape())
    return success();
  bool matches = declared.shape().dim_size() == type.getRank();
  for (auto [k, dim] : llvm::enumerate(declared.shape().dim()))
    if (matches && dim.has_dim_value() && dim.dim_value() != type.getDimSize(k))
      matches = false;
  if (!matches)
    return error() << "graph output '" << info.name() << "' computes shape "
                   << type << ", which its declared shape does not allow";
  return success();
}

FailureOr<SmallVector<Value>> OnnxImporter::collectOutputs() {
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : model.graph().output()) {
    OnnxValue &known = values.find(output.name())->second;
    FailureOr<Value> value = known.value ? FailureOr<Value>(known.value)
                                         : materialize(output.name(), known);
    if (failed(value) || failed(checkDeclaredType(output, value->getType())))
      return failure();
    if (!isa<FloatType>(
            cast<RankedTensorType>(value->getType()).getElementType()))
      return error() << "graph output '" << output.name()
                     << "' is not a float tensor, which outputs must be";
    results.push_back(*value);
  }
  return results;
}

FailureOr<OwningOpRef<ModuleOp>> OnnxImporter::run(StringRef bytes) {
  context->loadDialect<nn::NNDialect, func::FuncDialect, arith::ArithDialect>();
  if (failed(parse(bytes)) || failed(checkGraph()) ||
      failed(declareInitializers()))
    return failure();
  FailureOr<SmallVector<Type>> inputTypes = declareInputs();
  if (failed(inputTypes))
    return failure();

  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  module = ModuleOp::create(fileLoc);
  std::string name = model.graph().name();
  if (name.empty() || name == "main_graph" || name == "torch_jit")
    name = llvm::sys::path::stem(path).str();
  (*module)->setAttr("nn.model", builder.getStringAttr(name));
  (*module)->setAttr("nn.dims", builder.getDictionaryAttr(boundDims));
  builder.setInsertionPointToEnd(module->getBody());
  forward = func::FuncOp::create(builder, fileLoc, "forward",
                                 builder.getFunctionType(*inputTypes, {}));
  Block *body = forward.addEntryBlock();
  int argument = 0;
  for (const onnx::ValueInfoProto &input : model.graph().input()) {
    if (values.contains(input.name()))
      continue;
    values[input.name()] =
        OnnxValue{body->getArgument(argument), nullptr, false};
    forward.setArgAttr(argument++, "nn.name",
                       builder.getStringAttr(input.name()));
  }
  builder.setInsertionPointToEnd(body);
  if (failed(convertNodes()))
    return failure();
  FailureOr<SmallVector<Value>> results = collectOutputs();
  if (failed(results))
    return failure();
  func::ReturnOp::create(builder, fileLoc, *results);
  forward.setType(
      builder.getFunctionType(*inputTypes, ValueRange(*results).getTypes()));
  for (auto [k, output] : llvm::enumerate(model.graph().output()))
    forward.setResultAttr(k, "nn.name", builder.getStringAttr(output.name()));
  if (failed(verify(*module)))
    return failure();
  return std::move(module);
}

} // namespace

bool looksLikeOnnx(StringRef path, StringRef bytes) {
  if (llvm::sys::path::extension(path) == ".onnx")
    return true;
  // A ModelProto begins with its ir_version (field 1, varint: 0x08) when
  // written by protobuf's serialiser, which every exporter uses; the spec's
  // binary form begins with a length-delimited field.
  if (bytes.empty() || bytes.front() != 0x08 || bytes.size() > size_t(INT_MAX))
    return false;
  onnx::ModelProto model;
  return model.ParseFromArray(bytes.data(), int(bytes.size())) &&
         model.ir_version() > 0 && model.has_graph();
}

FailureOr<OwningOpRef<ModuleOp>>
importOnnx(MLIRContext *context, StringRef bytes, StringRef path,
           const OnnxImportOptions &options,
           std::vector<ImportedWeight> &weights) {
  return OnnxImporter(context, path, options, &weights, nullptr).run(bytes);
}

FailureOr<std::vector<std::string>>
listUnsupportedOnnxNodes(MLIRContext *context, StringRef bytes, StringRef path,
                         const OnnxImportOptions &options) {
  std::vector<std::string> unsupported;
  OnnxImporter importer(context, path, options, nullptr, &unsupported);
  FailureOr<OwningOpRef<ModuleOp>> module = importer.run(bytes);
  if (failed(module) && unsupported.empty())
    return failure();
  return unsupported;
}

} // namespace transfuse
