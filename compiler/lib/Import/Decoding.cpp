//===- Decoding.cpp - The layers of the incremental decoding entry points -===//
//
// A decoder-only model (one [batch, seq] i64 token input, causal
// self-attention, every other layer position-wise) is also built as
// `prefill` and `decode_step`. Both keep each self-attention layer's keys
// and values, after the head split, in an `nn.cache` of the spec's sequence
// length: prefill stores those of the whole prompt, and a step appends one
// position per sequence and attends to the cache up to it. Position-wise
// layers need nothing: they run on the step's one position as on all of
// them; positional layers take the rows of their table at the positions.
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace transfuse::import {
namespace {

/// Why `layer` keeps the model from decoding incrementally, or "".
std::string whyNotPositionWise(const spec::Layer &layer) {
  if (layer.has_attention()) {
    const spec::MultiHeadAttention &attention = layer.attention();
    if (!attention.causal() || attention.cross())
      return "attention layer '" + layer.name() +
             "' is not causal self-attention";
    if (attention.key_padding())
      return "attention layer '" + layer.name() +
             "' masks padding keys, which a cache of generated tokens does "
             "not hold";
    return "";
  }
  switch (layer.kind_case()) {
  case spec::Layer::kEmbedding:
  case spec::Layer::kPositionalEncoding:
  case spec::Layer::kPositionEmbedding:
  case spec::Layer::kLayerNorm:
  case spec::Layer::kRmsNorm:
  case spec::Layer::kFeedForward:
  case spec::Layer::kLinear:
  case spec::Layer::kDropout:
  case spec::Layer::kBlock:
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
    return "layer '" + layer.name() + "' (" + layerKindName(layer) +
           ") is not position-wise";
  }
}

} // namespace

std::string whyNoDecoding(const spec::Model &model) {
  if (model.inputs_size() != 1 || model.inputs(0).dtype() != spec::I64 ||
      model.inputs(0).shape_size() != 2)
    return "the model does not take one [batch, seq] i64 input";
  if (model.outputs_size() != 1)
    return "the model does not have one output";
  bool attends = false;
  auto check = [&](const auto &layers) -> std::string {
    for (const spec::Layer &layer : layers) {
      attends |= layer.has_attention();
      if (std::string why = whyNotPositionWise(layer); !why.empty())
        return why;
    }
    return "";
  };
  if (std::string why = check(model.layers()); !why.empty())
    return why;
  for (const spec::Block &block : model.blocks())
    if (std::string why = check(block.layers()); !why.empty())
      return why;
  if (!attends)
    return "the model has no attention layer to cache";
  return "";
}

LogicalResult useKeyValueCache(GraphBuilder &graph, const LayerSite &site,
                               Value &key, Value &value) {
  const Decoding &decoding = graph.decoding();
  if (decoding.mode == DecodingMode::None)
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
