//===- Decoding.cpp - The layers of the incremental decoding entry points -===//
//
// A model whose output depends position-wise on a [batch, seq] i64 token
// input, the target, through causal self-attention (and cross-attention to
// memory computed without the target) is also built as `prefill` and
// `decode_step`. Both keep each self-attention layer's keys and values,
// after the head split, in an `nn.cache` of the target's length: prefill
// stores those of the whole prompt, and a step appends one position per
// sequence and attends to the cache up to it. Position-wise layers need
// nothing: they run on the step's one position as on all of them;
// positional layers take the rows of their table at the positions.
//
// An encoder-decoder is also built as `encode`, which runs the layers that
// do not depend on the target and stores each cross-attention layer's
// projected keys and values of the memory in caches; prefill and a step
// skip those layers and read the caches instead.
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace transfuse::import {
namespace {

/// Why a layer that reads the target side keeps the model from decoding
/// incrementally, or "". `fromTarget[i]` says whether input i depends on
/// the target tokens.
std::string whyNotTargetSide(const spec::Layer &layer,
                             ArrayRef<bool> fromTarget) {
  std::string name = "layer '" + layer.name() + "'";
  if (layer.has_attention()) {
    const spec::MultiHeadAttention &attention = layer.attention();
    if (attention.cross()) {
      // Query from the target; memory and its padding from the source side,
      // projected once by encode.
      if (!fromTarget[0] ||
          llvm::any_of(fromTarget.drop_front(), [](bool t) { return t; }))
        return "cross-attention " + name +
               " does not attend from the target to memory computed without "
               "it";
      if (attention.causal())
        return "cross-attention " + name + " is causal";
      return "";
    }
    if (!attention.causal())
      return "attention " + name + " is not causal";
    if (llvm::any_of(fromTarget, [](bool t) { return !t; }))
      return "self-attention " + name +
             " masks padding of tokens other than the target's";
    return "";
  }
  if (llvm::any_of(fromTarget, [](bool t) { return !t; }))
    return name + " mixes the target side with a tensor computed without it";
  switch (layer.kind_case()) {
  case spec::Layer::kEmbedding:
  case spec::Layer::kPositionalEncoding:
  case spec::Layer::kPositionEmbedding:
  case spec::Layer::kLayerNorm:
  case spec::Layer::kRmsNorm:
  case spec::Layer::kFeedForward:
  case spec::Layer::kLinear:
  case spec::Layer::kDropout:
  case spec::Layer::kAdd:
  case spec::Layer::kSub:
  case spec::Layer::kMul:
  case spec::Layer::kDiv:
  case spec::Layer::kNeg:
  case spec::Layer::kExp:
  case spec::Layer::kLog:
  case spec::Layer::kSqrt:
  case spec::Layer::kRsqrt:
  case spec::Layer::kTanh:
  case spec::Layer::kRelu:
  case spec::Layer::kGelu:
    return "";
  default:
    return name + " (" + layerKindName(layer) + ") is not position-wise";
  }
}

/// Follows what depends on the target tokens through the layers and block
/// instances of a model, checking each layer that does.
class TargetSideWalk {
public:
  explicit TargetSideWalk(const spec::Model &model) {
    for (const spec::Block &block : model.blocks())
      blocks.try_emplace(block.name(), &block);
  }

  /// Marks the outputs of `layers` that depend on a name in `fromTarget`;
  /// "" or why the model cannot decode.
  template <typename Layers>
  std::string walk(const Layers &layers, llvm::StringSet<> &fromTarget) {
    for (const spec::Layer &layer : layers) {
      SmallVector<bool> inputs;
      for (const std::string &name : layer.inputs())
        inputs.push_back(fromTarget.contains(name));
      SmallVector<bool> outputs;
      if (layer.has_block()) {
        if (std::string why = walkBlock(layer.block(), inputs, outputs);
            !why.empty())
          return why;
      } else if (llvm::any_of(inputs, [](bool t) { return t; })) {
        if (std::string why = whyNotTargetSide(layer, inputs); !why.empty())
          return why;
        const spec::MultiHeadAttention &attention = layer.attention();
        selfAttends |= layer.has_attention() && !attention.cross();
        crossAttends |= layer.has_attention() && attention.cross();
        outputs.assign(layer.outputs_size(), true);
      }
      for (auto [name, dependent] : llvm::zip(layer.outputs(), outputs))
        if (dependent)
          fromTarget.insert(name);
    }
    return "";
  }

  bool selfAttends = false, crossAttends = false;

private:
  /// One instance after the other, the first output feeding the next
  /// instance's first input, as the importer chains them.
  std::string walkBlock(const spec::BlockCall &call, SmallVector<bool> inputs,
                        SmallVector<bool> &outputs) {
    const spec::Block *block = blocks.lookup(call.block());
    if (!block)
      return "block '" + call.block() + "' is not defined";
    for (int64_t i = 0; i < std::max<int64_t>(call.repeat(), 1); ++i) {
      llvm::StringSet<> inner;
      for (auto [name, dependent] : llvm::zip(block->inputs(), inputs))
        if (dependent)
          inner.insert(name);
      if (std::string why = walk(block->layers(), inner); !why.empty())
        return why;
      outputs.clear();
      for (const std::string &name : block->outputs())
        outputs.push_back(inner.contains(name));
      if (!inputs.empty() && !outputs.empty())
        inputs[0] = outputs[0];
    }
    return "";
  }

  llvm::StringMap<const spec::Block *> blocks;
};

/// The plan with input `target` as the tokens decoded one at a time.
DecodingPlan planWithTarget(const spec::Model &model, int target) {
  DecodingPlan plan;
  TargetSideWalk walk(model);
  llvm::StringSet<> fromTarget;
  fromTarget.insert(model.inputs(target).name());
  plan.why = walk.walk(model.layers(), fromTarget);
  if (plan.why.empty() && !fromTarget.contains(model.outputs(0)))
    plan.why = "the output does not depend on input '" +
               model.inputs(target).name() + "'";
  if (plan.why.empty() && !walk.selfAttends)
    plan.why = "no causal self-attention reads input '" +
               model.inputs(target).name() + "'";
  plan.target = target;
  plan.encodes = walk.crossAttends;
  return plan;
}

} // namespace

DecodingPlan planDecoding(const spec::Model &model) {
  if (model.outputs_size() != 1)
    return {-1, false, "the model does not have one output"};
  DecodingPlan plan{-1, false, "the model has no [batch, seq] i64 input"};
  // The target is the tokens input that every path to the output passes
  // through position-wise: for an encoder-decoder, the decoder's.
  for (int i = 0; i < model.inputs_size(); ++i) {
    const spec::Input &input = model.inputs(i);
    if (input.dtype() != spec::I64 || input.shape_size() != 2)
      continue;
    plan = planWithTarget(model, i);
    if (plan.why.empty())
      return plan;
  }
  return plan;
}

LogicalResult useKeyValueCache(GraphBuilder &graph, const LayerSite &site,
                               Value &key, Value &value) {
  const Decoding &decoding = graph.decoding();
  // encode builds the encoder's self-attention, which nothing caches.
  if (decoding.mode == DecodingMode::None ||
      decoding.mode == DecodingMode::Encode)
    return success();
  OpBuilder &b = graph.builder();
  for (auto [tensor, role] :
       {std::pair<Value *, StringRef>{&key, "key"}, {&value, "value"}}) {
    auto type = GraphBuilder::tensorType(*tensor);
    SmallVector<int64_t> shape(type.getShape());
    shape[2] = decoding.capacity;
    FailureOr<FlatSymbolRefAttr> cache =
        graph.cache(site, "cache." + site.path + "." + role.str(),
                    RankedTensorType::get(shape, type.getElementType()));
    if (failed(cache))
      return failure();
    if (decoding.mode == DecodingMode::Step) {
      Value held = nn::ParamLoadOp::create(
          b, site.loc, RankedTensorType::get(shape, type.getElementType()),
          *cache);
      *tensor = nn::CacheUpdateOp::create(b, site.loc, held.getType(), held,
                                          *tensor, decoding.positions);
    }
    nn::ParamStoreOp::create(b, site.loc, *tensor, *cache);
  }
  return success();
}

LogicalResult useCrossAttentionCache(GraphBuilder &graph, const LayerSite &site,
                                     Value &key, Value &value) {
  DecodingMode mode = graph.decoding().mode;
  if (mode == DecodingMode::None)
    return success();
  OpBuilder &b = graph.builder();
  for (auto [tensor, role] :
       {std::pair<Value *, StringRef>{&key, "key"}, {&value, "value"}}) {
    std::string name = "cache." + site.path + "." + role.str();
    if (mode == DecodingMode::Encode) {
      FailureOr<FlatSymbolRefAttr> cache =
          graph.cache(site, name, GraphBuilder::tensorType(*tensor));
      if (failed(cache))
        return failure();
      nn::ParamStoreOp::create(b, site.loc, *tensor, *cache);
      continue;
    }
    // encode, built first, declared it.
    auto declared = graph.getModule().lookupSymbol<nn::CacheOp>(name);
    assert(declared && "encode declares every cross-attention cache");
    *tensor = nn::ParamLoadOp::create(
        b, site.loc, declared.getType(),
        FlatSymbolRefAttr::get(declared.getSymNameAttr()));
  }
  return success();
}

Value futureCacheRows(GraphBuilder &graph, Location loc) {
  const Decoding &decoding = graph.decoding();
  OpBuilder &b = graph.builder();
  SmallVector<int64_t> rows;
  for (int64_t row = 0; row < decoding.capacity; ++row)
    rows.push_back(row);
  auto rowType =
      RankedTensorType::get({1, 1, 1, decoding.capacity}, b.getI64Type());
  Value rowIndex = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(rowType, ArrayRef(rows)));
  int64_t batch = GraphBuilder::shape(decoding.positions)[0];
  Value position = nn::ReshapeOp::create(b, loc, decoding.positions,
                                         ArrayRef<int64_t>{batch, 1, 1, 1});
  return nn::CompareOp::create(b, loc, rowIndex, position,
                               nn::ComparePredicate::gt);
}

Value rowsAtPositions(GraphBuilder &graph, Location loc, Value table) {
  Value positions = graph.decoding().positions;
  int64_t batch = GraphBuilder::shape(positions)[0];
  Value ids = nn::ReshapeOp::create(graph.builder(), loc, positions,
                                    ArrayRef<int64_t>{batch, 1});
  return nn::EmbeddingOp::create(graph.builder(), loc, table, ids);
}

void buildReorderCache(ModuleOp module, int64_t batch) {
  OpBuilder b(module.getBody(), module.getBody()->end());
  Location loc = module.getLoc();
  auto beamsType = RankedTensorType::get({batch}, b.getI64Type());
  auto func = func::FuncOp::create(b, loc, "reorder_cache",
                                   b.getFunctionType({beamsType}, {}));
  func.setArgAttr(0, "nn.name", b.getStringAttr("beams"));
  b.setInsertionPointToStart(func.addEntryBlock());
  Value beams = func.getArgument(0);
  for (auto cache : module.getOps<nn::CacheOp>()) {
    auto type = cast<RankedTensorType>(cache.getType());
    int64_t perSequence = type.getNumElements() / batch;
    auto symbol = FlatSymbolRefAttr::get(cache.getSymNameAttr());
    Value held = nn::ParamLoadOp::create(b, loc, type, symbol);
    // Each sequence's rows as one row of a table, gathered by beam.
    Value rows = nn::ReshapeOp::create(b, loc, held,
                                       ArrayRef<int64_t>{batch, perSequence});
    Value gathered = nn::EmbeddingOp::create(b, loc, rows, beams);
    Value reordered = nn::ReshapeOp::create(b, loc, gathered, type.getShape());
    nn::ParamStoreOp::create(b, loc, reordered, symbol);
  }
  func::ReturnOp::create(b, loc);
}

} // namespace transfuse::import
