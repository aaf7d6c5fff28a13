//===- Importer.cpp - Model spec to the nn dialect ------------------------===//
#include "transfuse/Import/Importer.h"
#include "GraphBuilder.h"
#include "LayerInstances.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace transfuse {
namespace {

using import::GraphBuilder;
using import::LayerSite;
using spec::SpecCursor;
using Scope = llvm::StringMap<Value>;

class Importer {
public:
  Importer(MLIRContext *context, const spec::Spec &spec,
           std::vector<ImportedLayer> *imported)
      : context(context), spec(spec), model(spec.getModel()), builder(context),
        imported(imported) {}

  FailureOr<OwningOpRef<ModuleOp>> run();

private:
  LogicalResult declareInput(const SpecCursor &cursor, const spec::Input &input,
                             SmallVectorImpl<Type> &types,
                             SmallVectorImpl<std::string> &names);
  LogicalResult indexBlocks();
  /// Builds the layers of `scopeCursor` (the model or a block) reading and
  /// writing `tensors`; `scopePath` prefixes their parameters.
  LogicalResult buildLayers(const SpecCursor &scopeCursor, StringRef scopePath,
                            Scope &tensors);
  LogicalResult buildLayer(const SpecCursor &cursor, StringRef scopePath,
                           Scope &tensors);
  FailureOr<SmallVector<Value>> buildBlockCall(const LayerSite &site,
                                               ArrayRef<Value> inputs);
  /// Builds the model's layers into the function `name` of the given
  /// inputs, returning the spec's outputs.
  FailureOr<func::FuncOp> buildFunction(StringRef name,
                                        ArrayRef<Type> inputTypes,
                                        ArrayRef<std::string> inputNames,
                                        import::Decoding decoding);
  /// `encode` for an encoder-decoder, and `prefill`, `decode_step` and
  /// `reorder_cache`, for a model that decodes incrementally and whose
  /// forward gives an output per target position; nothing for any other.
  LogicalResult buildDecodingEntryPoints(func::FuncOp forward);
  /// Whether the decoding entry point being built leaves out the layer of
  /// `inputs`: encode those that depend on the target (but for keeping the
  /// memory's keys and values in cross-attention), prefill and a step those
  /// that do not.
  bool skipsLayer(const spec::Layer &layer, ArrayRef<Value> inputs);

  Location fileLoc(const SpecCursor &cursor) { return cursor.getLoc(); }
  GraphBuilder &graph() { return *graphBuilder; }

  MLIRContext *context;
  const spec::Spec &spec;
  const spec::Model &model;
  OpBuilder builder;
  std::vector<ImportedLayer> *imported;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<GraphBuilder> graphBuilder;
  llvm::StringMap<int> blocks;
  llvm::StringSet<> orderedBlocks;
  SmallVector<std::string> activeBlocks;
  /// How the decoding entry points are built.
  import::DecodingPlan plan;
  /// prefill and decode_step: the values that depend on the target tokens.
  llvm::DenseSet<Value> fromTarget;
};

bool Importer::skipsLayer(const spec::Layer &layer, ArrayRef<Value> inputs) {
  import::DecodingMode mode = graph().decoding().mode;
  if (mode == import::DecodingMode::None || layer.has_block())
    return false;
  if (mode == import::DecodingMode::Encode) {
    // The target tokens and what depends on them are not built.
    bool needsTarget = llvm::any_of(inputs, [](Value v) { return !v; });
    return needsTarget && !(layer.has_attention() && layer.attention().cross());
  }
  return llvm::none_of(inputs, [&](Value v) { return fromTarget.contains(v); });
}

LogicalResult Importer::declareInput(const SpecCursor &cursor,
                                     const spec::Input &input,
                                     SmallVectorImpl<Type> &types,
                                     SmallVectorImpl<std::string> &names) {
  if (input.name().empty())
    return emitError(cursor.getLoc()) << cursor.getPath() << ": needs a name";
  if (llvm::is_contained(names, input.name()))
    return emitError(cursor.locationOf("name"))
           << cursor.pathOf("name") << ": input '" << input.name()
           << "' is declared twice";
  Type element = import::elementTypeOf(context, input.dtype());
  if (!element)
    return emitError(cursor.getLoc())
           << cursor.getPath() << ": input '" << input.name()
           << "' needs a dtype (F32, I64, I32 or BOOL)";
  FailureOr<SmallVector<int64_t>> shape = spec.resolveShape(cursor, "shape");
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(*shape, element));
  names.push_back(input.name());
  return success();
}

LogicalResult Importer::indexBlocks() {
  SpecCursor root = spec.root();
  for (auto [i, block] : llvm::enumerate(model.blocks())) {
    SpecCursor cursor = root.child("blocks", i);
    if (block.name().empty())
      return emitError(cursor.getLoc()) << cursor.getPath() << ": needs a name";
    if (!blocks.try_emplace(block.name(), i).second)
      return emitError(cursor.locationOf("name"))
             << cursor.pathOf("name") << ": block '" << block.name()
             << "' is defined twice";
  }
  return success();
}

LogicalResult Importer::buildLayers(const SpecCursor &scopeCursor,
                                    StringRef scopePath, Scope &tensors) {
  const auto &message = scopeCursor.getMessage();
  int count = message.GetReflection()->FieldSize(
      message, message.GetDescriptor()->FindFieldByName("layers"));
  for (int i = 0; i < count; ++i)
    if (failed(buildLayer(scopeCursor.child("layers", i), scopePath, tensors)))
      return failure();
  return success();
}

LogicalResult Importer::buildLayer(const SpecCursor &cursor,
                                   StringRef scopePath, Scope &tensors) {
  const auto &layer = static_cast<const spec::Layer &>(cursor.getMessage());
  std::string kind = import::layerKindName(layer);
  std::string path = scopePath.empty() || layer.name().empty()
                         ? layer.name()
                         : (scopePath + "." + layer.name()).str();
  Location loc = fileLoc(cursor);
  if (!path.empty())
    loc = NameLoc::get(StringAttr::get(context, path), loc);
  LayerSite site{layer, cursor, scopePath.str(), path, loc};
  if (kind.empty())
    return site.error() << "has no layer type";
  bool ownsParameters =
      layer.has_embedding() || layer.has_position_embedding() ||
      layer.has_attention() || layer.has_layer_norm() || layer.has_rms_norm() ||
      layer.has_feed_forward() || layer.has_linear() || layer.has_block() ||
      (layer.has_parameter() && layer.parameter().name().empty());
  if (ownsParameters && layer.name().empty())
    return site.error() << "a " << kind
                        << " layer needs a name: its parameters are named "
                           "after it";

  SmallVector<Value> inputs;
  for (const std::string &name : layer.inputs())
    inputs.push_back(tensors.lookup(name));
  if (skipsLayer(layer, inputs)) {
    for (const std::string &name : layer.outputs())
      tensors[name] = Value();
    return success();
  }
  FailureOr<SmallVector<Value>> outputs =
      layer.has_block() ? buildBlockCall(site, inputs)
                        : import::buildCompositeLayer(graph(), site, inputs);
  if (failed(outputs))
    return failure();
  if (outputs->size() != static_cast<size_t>(layer.outputs_size()))
    return site.error() << "produces " << outputs->size() << " output"
                        << (outputs->size() == 1 ? "" : "s") << " but names "
                        << layer.outputs_size();
  for (auto [name, value] : llvm::zip(layer.outputs(), *outputs)) {
    tensors[name] = value;
    if (!layer.has_block() && value)
      fromTarget.insert(value);
  }
  if (imported && !layer.has_block() &&
      graph().decoding().mode == import::DecodingMode::None)
    imported->push_back({path, kind});
  return success();
}

FailureOr<SmallVector<Value>> Importer::buildBlockCall(const LayerSite &site,
                                                       ArrayRef<Value> inputs) {
  const spec::BlockCall &call = site.layer.block();
  auto it = blocks.find(call.block());
  if (it == blocks.end())
    return site.errorAt("block", "block")
           << "no block named '" << call.block() << "'";
  if (llvm::is_contained(activeBlocks, call.block())) {
    InFlightDiagnostic diag = site.errorAt("block", "block")
                              << "block '" << call.block()
                              << "' instantiates itself: ";
    auto chain = llvm::find(activeBlocks, call.block());
    for (; chain != activeBlocks.end(); ++chain)
      diag << *chain << " -> ";
    return diag << call.block();
  }
  if (call.repeat() < 0)
    return site.errorAt("block", "repeat") << "repeat must not be negative";
  const spec::Block &block = model.blocks(it->second);
  SpecCursor blockCursor = spec.root().child("blocks", it->second);
  auto count = [](int64_t n, StringRef noun) {
    return std::to_string(n) + " " + noun.str() + (n == 1 ? "" : "s");
  };
  if (block.inputs_size() != static_cast<int>(inputs.size()) ||
      block.outputs_size() != site.layer.outputs_size())
    return site.error() << "block '" << block.name() << "' takes "
                        << count(block.inputs_size(), "input") << " and gives "
                        << count(block.outputs_size(), "output")
                        << ", but the layer has "
                        << count(inputs.size(), "input") << " and "
                        << count(site.layer.outputs_size(), "output");
  if (call.repeat() > 1 && (block.inputs().empty() || block.outputs().empty()))
    return site.errorAt("block", "repeat")
           << "block '" << block.name()
           << "' cannot be repeated: it needs an input and an output to chain "
              "from one instance to the next";
  if (orderedBlocks.insert(block.name()).second) {
    SmallVector<std::string> formals(block.inputs().begin(),
                                     block.inputs().end());
    if (failed(import::checkLayerOrder(blockCursor, "layers", formals)))
      return failure();
  }

  activeBlocks.push_back(block.name());
  llvm::scope_exit done([&] { activeBlocks.pop_back(); });
  SmallVector<Value> current(inputs);
  SmallVector<Value> outputs;
  int64_t instances = std::max<int64_t>(call.repeat(), 1);
  for (int64_t i = 0; i < instances; ++i) {
    std::string instancePath =
        call.repeat() > 0 ? site.path + "." + std::to_string(i) : site.path;
    Scope tensors;
    for (auto [name, value] : llvm::zip(block.inputs(), current))
      tensors[name] = value;
    if (failed(buildLayers(blockCursor, instancePath, tensors)))
      return failure();
    outputs.clear();
    for (auto [k, name] : llvm::enumerate(block.outputs())) {
      // A decoding entry point leaves the outputs of the layers it skips
      // null.
      if (!tensors.contains(name))
        return emitError(blockCursor.locationOf("outputs", k))
               << blockCursor.pathOf("outputs", k) << ": block '"
               << block.name() << "' output '" << name
               << "' is not produced by its layers";
      outputs.push_back(tensors.lookup(name));
    }
    if (instances > 1 && outputs[0] && current[0] &&
        outputs[0].getType() != current[0].getType())
      return site.error() << "block '" << block.name()
                          << "' cannot be repeated: its first output "
                          << outputs[0].getType()
                          << " differs from its first input "
                          << current[0].getType();
    if (instances > 1)
      current[0] = outputs[0];
  }
  return outputs;
}

FailureOr<func::FuncOp>
Importer::buildFunction(StringRef name, ArrayRef<Type> inputTypes,
                        ArrayRef<std::string> inputNames,
                        import::Decoding decoding) {
  SpecCursor root = spec.root();
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, root.getLoc(), name,
                                   builder.getFunctionType(inputTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  if (decoding.mode == import::DecodingMode::Step)
    decoding.positions = body->getArguments().back();
  fromTarget.clear();
  if (decoding.mode == import::DecodingMode::Prefill ||
      decoding.mode == import::DecodingMode::Step)
    fromTarget.insert(body->getArgument(plan.target));
  graphBuilder =
      std::make_unique<GraphBuilder>(spec, *module, builder, decoding);

  Scope tensors;
  for (auto [i, name] : llvm::enumerate(inputNames)) {
    tensors[name] = body->getArgument(i);
    func.setArgAttr(i, "nn.name", builder.getStringAttr(name));
  }
  if (failed(buildLayers(root, "", tensors)))
    return failure();

  SmallVector<Value> results;
  // encode keeps what it computes in caches.
  for (auto [k, name] : llvm::enumerate(model.outputs())) {
    if (decoding.mode == import::DecodingMode::Encode)
      break;
    Value value = tensors.lookup(name);
    if (!value)
      return emitError(root.locationOf("outputs", k))
             << root.pathOf("outputs", k) << ": output '" << name
             << "' is not produced by any layer";
    results.push_back(value);
  }
  func::ReturnOp::create(builder, root.getLoc(), results);
  func.setType(
      builder.getFunctionType(inputTypes, ValueRange(results).getTypes()));
  for (auto [k, result] : llvm::enumerate(results))
    func.setResultAttr(k, "nn.name", builder.getStringAttr(model.outputs(k)));
  return func;
}

LogicalResult Importer::buildDecodingEntryPoints(func::FuncOp forward) {
  plan = import::planDecoding(model);
  if (!plan.why.empty())
    return success();
  auto tokens = cast<RankedTensorType>(forward.getArgumentTypes()[plan.target]);
  auto logits = dyn_cast<RankedTensorType>(forward.getResultTypes()[0]);
  // Logits per target position, [batch, seq, ...].
  if (!logits || logits.getRank() < 3 ||
      logits.getShape().take_front(2) != tokens.getShape())
    return success();
  int64_t batch = tokens.getDimSize(0), capacity = tokens.getDimSize(1);
  SmallVector<Type> types(forward.getArgumentTypes());
  SmallVector<std::string> names;
  for (const spec::Input &input : model.inputs())
    names.push_back(input.name());

  if (plan.encodes) {
    // The source inputs: every one but the target.
    SmallVector<Type> sourceTypes(types);
    SmallVector<std::string> sourceNames(names);
    sourceTypes.erase(sourceTypes.begin() + plan.target);
    sourceNames.erase(sourceNames.begin() + plan.target);
    import::Decoding encode{import::DecodingMode::Encode, {}, capacity};
    if (failed(buildFunction("encode", sourceTypes, sourceNames, encode)))
      return failure();
  }
  import::Decoding prefill{import::DecodingMode::Prefill, {}, capacity};
  if (failed(buildFunction("prefill", types, names, prefill)))
    return failure();
  types[plan.target] = RankedTensorType::get({batch, 1}, builder.getI64Type());
  types.push_back(RankedTensorType::get({batch}, builder.getI64Type()));
  names.push_back("positions");
  import::Decoding step{import::DecodingMode::Step, {}, capacity};
  if (failed(buildFunction("decode_step", types, names, step)))
    return failure();
  import::buildReorderCache(*module, batch);
  return success();
}

FailureOr<OwningOpRef<ModuleOp>> Importer::run() {
  SpecCursor root = spec.root();
  module = ModuleOp::create(root.getLoc());
  (*module)->setAttr("nn.model", builder.getStringAttr(model.name()));
  SmallVector<NamedAttribute> dims;
  for (const spec::Dim &dim : model.dims())
    dims.push_back(builder.getNamedAttr(
        dim.name(),
        builder.getI64IntegerAttr(spec.getDims().lookup(dim.name()))));
  (*module)->setAttr("nn.dims", builder.getDictionaryAttr(dims));

  SmallVector<Type> inputTypes;
  SmallVector<std::string> inputNames;
  for (auto [i, input] : llvm::enumerate(model.inputs()))
    if (failed(declareInput(root.child("inputs", i), input, inputTypes,
                            inputNames)))
      return failure();
  if (failed(indexBlocks()) ||
      failed(import::checkLayerOrder(root, "layers", inputNames)))
    return failure();
  if (model.outputs().empty())
    return emitError(root.getLoc()) << "the spec names no outputs";

  FailureOr<func::FuncOp> forward =
      buildFunction("forward", inputTypes, inputNames, {});
  if (failed(forward))
    return failure();
  if (model.has_training() &&
      failed(import::buildTrainingSection(spec, *module, *forward)))
    return failure();
  if (failed(buildDecodingEntryPoints(*forward)))
    return failure();
  if (failed(verify(*module)))
    return failure();
  return std::move(module);
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
importSpec(MLIRContext *context, const spec::Spec &spec,
           std::vector<ImportedLayer> *layers) {
  context->loadDialect<nn::NNDialect, func::FuncDialect>();
  if (failed(import::checkLayerInstances(spec)))
    return failure();
  return Importer(context, spec, layers).run();
}

LogicalResult addTrainingSection(const spec::Spec &config, ModuleOp module) {
  const spec::Model &model = config.getModel();
  Location loc = config.root().getLoc();
  if (!model.has_training())
    return emitError(loc) << "the training configuration has no 'training' "
                             "section";
  if (!model.name().empty() || model.inputs_size() || model.outputs_size() ||
      model.layers_size() || model.blocks_size())
    return emitError(loc) << "a training configuration holds only 'training' "
                             "and 'dims': the model comes from the other file";
  auto forward = module.lookupSymbol<func::FuncOp>("forward");
  assert(forward && "an imported module without @forward");
  if (failed(import::buildTrainingSection(config, module, forward)))
    return failure();
  return verify(module);
}

} // namespace transfuse
