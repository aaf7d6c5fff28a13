//===- Manifest.cpp - Describing a model for its artifact -----------------===//
#include "transfuse/Backend/Artifact.h"
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Transforms/Replica.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/JSON.h"

using namespace mlir;

namespace transfuse {

static std::string dtypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (type.isInteger(64))
    return "i64";
  if (type.isInteger(32))
    return "i32";
  if (type.isInteger(1))
    return "bool";
  return "";
}

/// The largest id an integer argument may hold, and the one value beyond
/// it a loss skips: it indexes an embedding table, is a loss's class label
/// or the first row a cache update writes, directly or through shape ops.
static void boundIds(Value argument, TensorInfo &info) {
  std::optional<int64_t> &bound = info.maxValue;
  auto lowerBound = [&](int64_t largest) {
    bound = bound ? std::min(*bound, largest) : largest;
  };
  SmallVector<Value> worklist = {argument};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto embedding = dyn_cast<nn::EmbeddingOp>(user);
          embedding && use.getOperandNumber() == 1) {
        lowerBound(cast<RankedTensorType>(embedding.getTable().getType())
                       .getDimSize(0) -
                   1);
      } else if (isa<nn::CrossEntropyOp, nn::NllLossOp, nn::CrossEntropyGradOp,
                     nn::NllLossGradOp>(user) &&
                 use.getOperandNumber() == 1) {
        // Labels index the classes, the last dim of the logits (operand 0).
        auto logits = cast<RankedTensorType>(user->getOperand(0).getType());
        lowerBound(logits.getShape().back() - 1);
        info.ignoreValue =
            cast<IntegerAttr>(user->getAttr("ignore_index")).getInt();
      } else if (auto update = dyn_cast<nn::CacheUpdateOp>(user);
                 update && use.getOperandNumber() == 2) {
        // The rows written must fit in the cache.
        auto cache = cast<RankedTensorType>(update.getCache().getType());
        auto rows = cast<RankedTensorType>(update.getRows().getType());
        lowerBound(cache.getDimSize(2) - rows.getDimSize(2));
      } else if (isa<nn::ReshapeOp, nn::TransposeOp, nn::SliceOp>(user)) {
        worklist.push_back(user->getResult(0));
      } else if (auto call = dyn_cast<func::CallOp>(user)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (callee && !callee.isExternal())
          worklist.push_back(callee.getArgument(use.getOperandNumber()));
      }
    }
  }
}

static FailureOr<TensorInfo> describeValue(Location loc, StringAttr name,
                                           Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::string dtype = tensor ? dtypeName(tensor.getElementType()) : "";
  if (!name || dtype.empty())
    return emitError(loc) << "entry point value " << type
                          << " has no name or no supported dtype";
  return TensorInfo{name.str(), dtype, llvm::to_vector(tensor.getShape()),
                    std::nullopt};
}

/// An attribute of nn.training as JSON: numbers, strings, booleans and
/// dictionaries of them.
static llvm::json::Value toJson(Attribute attr) {
  if (auto real = dyn_cast<FloatAttr>(attr))
    return real.getValueAsDouble();
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  if (auto text = dyn_cast<StringAttr>(attr))
    return text.str();
  llvm::json::Object object;
  if (auto dictionary = dyn_cast<DictionaryAttr>(attr))
    for (NamedAttribute field : dictionary)
      object[field.getName().str()] = toJson(field.getValue());
  return object;
}

/// The `training` object of a module that has a train_step: its settings,
/// which arguments are data and which labels, and the loss.
static std::optional<llvm::json::Object> describeTraining(ModuleOp module) {
  auto settings = module->getAttrOfType<DictionaryAttr>("nn.training");
  auto forward = module.lookupSymbol<func::FuncOp>("forward");
  auto loss = module.lookupSymbol<func::FuncOp>("loss");
  if (!settings || !forward || !loss ||
      !module.lookupSymbol<func::FuncOp>("train_step"))
    return std::nullopt;
  llvm::json::Object training = *toJson(settings).getAsObject();
  llvm::json::Array inputs, labels;
  for (unsigned i = 0; i < loss.getNumArguments(); ++i) {
    auto name = loss.getArgAttrOfType<StringAttr>(i, "nn.name");
    (i < forward.getNumArguments() ? inputs : labels).push_back(name.str());
  }
  if (auto buckets = module->getAttrOfType<IntegerAttr>(kAllReduceBucketsAttr))
    training["all_reduce_buckets"] = buckets.getInt();
  training["inputs"] = std::move(inputs);
  training["labels"] = std::move(labels);
  loss.walk([&](Operation *op) {
    if (auto ce = dyn_cast<nn::CrossEntropyOp>(op)) {
      training["loss"] = "cross_entropy";
      training["ignore_index"] = static_cast<int64_t>(ce.getIgnoreIndex());
    } else if (auto nll = dyn_cast<nn::NllLossOp>(op)) {
      training["loss"] = "nll_loss";
      training["ignore_index"] = static_cast<int64_t>(nll.getIgnoreIndex());
    }
  });
  return training;
}

/// Whether `func` loads or stores a decoding cache tensor.
static bool usesCache(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  auto isCache = [&](FlatSymbolRefAttr name) {
    return isa_and_present<nn::CacheOp>(
        SymbolTable::lookupSymbolIn(module, name.getAttr()));
  };
  bool found = false;
  func.walk([&](Operation *op) {
    if (auto load = dyn_cast<nn::ParamLoadOp>(op))
      found |= isCache(load.getNameAttr());
    if (auto store = dyn_cast<nn::ParamStoreOp>(op))
      found |= isCache(store.getNameAttr());
  });
  return found;
}

FailureOr<ArtifactInfo> describeArtifact(ModuleOp module) {
  ArtifactInfo info;
  if (auto model = module->getAttrOfType<StringAttr>("nn.model"))
    info.model = model.str();
  for (auto parameter : module.getOps<nn::ParameterOp>()) {
    nn::InitAttr init = parameter.getInit();
    info.parameters.push_back(ParameterInfo{
        parameter.getSymName().str(),
        llvm::to_vector(parameter.getTensorType().getShape()),
        nn::stringifyInitKind(init.getKind()).str(),
        init.getA().convertToDouble(), init.getB().convertToDouble()});
  }
  for (auto state : module.getOps<nn::StateOp>()) {
    auto type = cast<RankedTensorType>(state.getType());
    info.state.push_back(
        TensorInfo{state.getSymName().str(), dtypeName(type.getElementType()),
                   llvm::to_vector(type.getShape()), std::nullopt});
  }
  for (auto cache : module.getOps<nn::CacheOp>()) {
    auto type = cast<RankedTensorType>(cache.getType());
    info.cache.push_back(
        TensorInfo{cache.getSymName().str(), dtypeName(type.getElementType()),
                   llvm::to_vector(type.getShape()), std::nullopt});
  }
  for (StringRef name :
       {"forward", "encode", "prefill", "decode_step", "reorder_cache", "loss",
        "loss_and_grads", "train_step"}) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func)
      continue;
    EntryPointInfo entry{name.str(), {}, {}, {}, {}};
    if (name == "train_step")
      for (const TensorInfo &state : info.state)
        entry.state.push_back(state.name);
    // As nn-externalize-parameters passes them: every cache tensor to a
    // function that touches one.
    if (usesCache(func))
      for (const TensorInfo &cache : info.cache)
        entry.cache.push_back(cache.name);
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      FailureOr<TensorInfo> input = describeValue(
          func.getLoc(), func.getArgAttrOfType<StringAttr>(i, "nn.name"), type);
      if (failed(input))
        return failure();
      if (input->dtype == "i64" || input->dtype == "i32")
        boundIds(func.getArgument(i), *input);
      entry.inputs.push_back(*input);
    }
    for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
      StringAttr resultName =
          func.getResultAttrOfType<StringAttr>(i, "nn.name");
      if (!resultName && name == "loss")
        resultName = StringAttr::get(module.getContext(), "loss");
      FailureOr<TensorInfo> output =
          describeValue(func.getLoc(), resultName, type);
      if (failed(output))
        return failure();
      entry.outputs.push_back(*output);
    }
    info.entryPoints.push_back(std::move(entry));
  }
  if (info.entryPoints.empty())
    return emitError(module.getLoc()) << "the module has no @forward";
  info.training = describeTraining(module);
  return info;
}

static void writeTensor(llvm::json::OStream &json, const TensorInfo &tensor) {
  json.object([&] {
    json.attribute("name", tensor.name);
    json.attribute("dtype", tensor.dtype);
    json.attributeArray("shape", [&] {
      for (int64_t dim : tensor.shape)
        json.value(dim);
    });
    if (tensor.maxValue)
      json.attribute("max_value", *tensor.maxValue);
    if (tensor.ignoreValue)
      json.attribute("ignore_value", *tensor.ignoreValue);
  });
}

static void writeCUDA(llvm::json::OStream &json, const CUDAInfo &cuda) {
  json.attributeObject("cuda", [&] {
    json.attributeArray("archs", [&] {
      for (const std::string &arch : cuda.archs)
        json.value(arch);
    });
    json.attributeArray("images", [&] {
      for (const CUDAImageInfo &image : cuda.images)
        json.object([&] {
          json.attribute("arch", image.arch);
          json.attribute("format", image.ptx ? "ptx" : "cubin");
          json.attribute("symbol", image.symbol);
          json.attribute("bytes", static_cast<int64_t>(image.bytes.size()));
        });
    });
    json.attributeArray("kernels", [&] {
      for (const std::string &kernel : cuda.kernels)
        json.value(kernel);
    });
    json.attribute("workspace_bytes", cuda.workspaceBytes);
    json.attribute("precision", cuda.precision);
  });
}

std::string renderManifest(const ArtifactInfo &info) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/1);
  json.object([&] {
    json.attribute("format_version", 1);
    json.attribute("target", info.target);
    json.attribute("cpu", info.cpu);
    json.attribute("producer", "transfuse 0.1.0");
    json.attribute("model", info.model);
    json.attributeArray("parameters", [&] {
      for (const ParameterInfo &parameter : info.parameters)
        json.object([&] {
          json.attribute("name", parameter.name);
          json.attribute("dtype", "f32");
          json.attributeArray("shape", [&] {
            for (int64_t dim : parameter.shape)
              json.value(dim);
          });
          json.attributeObject("init", [&] {
            json.attribute("kind", parameter.initKind);
            json.attribute("a", parameter.a);
            json.attribute("b", parameter.b);
          });
        });
    });
    if (info.training) {
      json.attribute("training", llvm::json::Object(*info.training));
      json.attributeArray("state", [&] {
        for (const TensorInfo &state : info.state)
          writeTensor(json, state);
      });
    }
    if (!info.cache.empty())
      json.attributeArray("cache", [&] {
        for (const TensorInfo &cache : info.cache)
          writeTensor(json, cache);
      });
    json.attributeArray("entry_points", [&] {
      for (const EntryPointInfo &entry : info.entryPoints)
        json.object([&] {
          json.attribute("name", entry.name);
          json.attribute("symbol", "tf_entry_" + entry.name);
          json.attributeArray("parameters", [&] {
            for (const ParameterInfo &parameter : info.parameters)
              json.value(parameter.name);
          });
          if (!entry.state.empty() || entry.name == "train_step")
            json.attributeArray("state", [&] {
              for (const std::string &name : entry.state)
                json.value(name);
            });
          if (!entry.cache.empty())
            json.attributeArray("cache", [&] {
              for (const std::string &name : entry.cache)
                json.value(name);
            });
          json.attributeArray("inputs", [&] {
            for (const TensorInfo &input : entry.inputs)
              writeTensor(json, input);
          });
          json.attributeArray("outputs", [&] {
            for (const TensorInfo &output : entry.outputs)
              writeTensor(json, output);
          });
          if (entry.arenaBytes)
            json.attribute("arena_bytes", *entry.arenaBytes);
        });
    });
    if (info.cuda)
      writeCUDA(json, *info.cuda);
  });
  return text;
}

} // namespace transfuse
