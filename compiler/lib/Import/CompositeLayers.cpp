//===- CompositeLayers.cpp - Expanding composite layers into nn ops -------===//
//
// Each composite layer becomes the primitive ops its reference notebook
// computes, so the fusion passes find the same structure in an imported
// model as in a graph written by hand. Inputs are checked up front; the ops
// built afterwards are valid by construction.
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <cmath>

using namespace mlir;

namespace transfuse::import {
namespace {

using nn::formatShape;

/// Checks the number of inputs; `roles` describes them for the message.
LogicalResult checkArity(const LayerSite &site, ArrayRef<Value> inputs,
                         size_t count, StringRef roles) {
  if (inputs.size() == count)
    return success();
  return site.error() << "takes " << count << " input"
                      << (count == 1 ? "" : "s") << " (" << roles << "), got "
                      << inputs.size();
}

/// Checks that `value` is a float [batch, seq, d] sequence of activations.
LogicalResult checkSequence(const LayerSite &site, Value value,
                            StringRef role) {
  auto type = GraphBuilder::tensorType(value);
  if (type.getRank() == 3 && isa<FloatType>(type.getElementType()))
    return success();
  return site.error() << role << " must be float [batch, seq, d], got " << type;
}

LogicalResult checkTokens(const LayerSite &site, Value value, StringRef role) {
  if (isa<IntegerType>(GraphBuilder::elementType(value)) &&
      !GraphBuilder::elementType(value).isInteger(1))
    return success();
  return site.error() << role << " must be integer token ids, got "
                      << value.getType();
}

LogicalResult checkRate(const LayerSite &site, StringRef kind, double rate) {
  if (rate >= 0.0 && rate < 1.0)
    return success();
  return site.errorAt(kind, kind == "dropout" ? "rate" : "dropout")
         << "dropout rate must be in [0, 1), got " << rate;
}

/// Dropout is kept in the graph with its rate; autodiff makes it active in
/// training, and it is the identity in @forward. A rate of 0 adds nothing.
Value dropout(OpBuilder &b, Location loc, Value x, double rate) {
  if (rate == 0.0)
    return x;
  return nn::DropoutOp::create(b, loc, x, /*seed=*/Value(),
                               b.getF64FloatAttr(rate));
}

FailureOr<SmallVector<Value>> single(FailureOr<Value> value) {
  if (failed(value))
    return failure();
  return SmallVector<Value>{*value};
}

//===----------------------------------------------------------------------===//
// Embeddings and positions
//===----------------------------------------------------------------------===//

FailureOr<Value> buildEmbedding(GraphBuilder &graph, const LayerSite &site,
                                ArrayRef<Value> inputs) {
  const spec::Embedding &spec = site.layer.embedding();
  if (failed(checkArity(site, inputs, 1, "token ids")) ||
      failed(checkTokens(site, inputs[0], "the input")))
    return failure();
  if (spec.vocab_size() <= 0 || spec.dim() <= 0)
    return site.errorAt("embedding",
                        spec.vocab_size() <= 0 ? "vocab_size" : "dim")
           << "vocab_size and dim must be positive";
  FailureOr<Value> table = graph.parameter(
      site, site.paramName("weight"), {spec.vocab_size(), spec.dim()},
      "embedding", "init", DefaultInit::Normal, /*fanIn=*/spec.dim());
  if (failed(table))
    return failure();
  OpBuilder &b = graph.builder();
  Value embedded = nn::EmbeddingOp::create(b, site.loc, *table, inputs[0]);
  if (!spec.scale_by_sqrt_dim())
    return embedded;
  return graph.withScalar<nn::MulOp>(site.loc, embedded,
                                     std::sqrt(double(spec.dim())));
}

FailureOr<Value> buildPositionalEncoding(GraphBuilder &graph,
                                         const LayerSite &site,
                                         ArrayRef<Value> inputs) {
  if (failed(checkArity(site, inputs, 1, "x")) ||
      failed(checkSequence(site, inputs[0], "the input")))
    return failure();
  ArrayRef<int64_t> shape = GraphBuilder::shape(inputs[0]);
  bool step = graph.decoding().mode == DecodingMode::Step;
  // A step's one position is any of the cache's.
  int64_t length = step ? graph.decoding().capacity : shape[1];
  int64_t maxLen = site.layer.positional_encoding().max_len();
  if (maxLen > 0 && length > maxLen)
    return site.errorAt("positional_encoding", "max_len")
           << "sequence length " << length << " exceeds max_len " << maxLen;
  if (shape[2] % 2 != 0)
    return site.error() << "sinusoidal encoding needs an even width, got "
                        << shape[2];
  OpBuilder &b = graph.builder();
  auto tableType = RankedTensorType::get({length, shape[2]},
                                         GraphBuilder::elementType(inputs[0]));
  Value table = nn::SinusoidalEncodingOp::create(b, site.loc, tableType);
  if (step)
    table = rowsAtPositions(graph, site.loc, table);
  return nn::AddOp::create(b, site.loc, inputs[0], table).getResult();
}

FailureOr<Value> buildPositionEmbedding(GraphBuilder &graph,
                                        const LayerSite &site,
                                        ArrayRef<Value> inputs) {
  if (failed(checkArity(site, inputs, 1, "x")) ||
      failed(checkSequence(site, inputs[0], "the input")))
    return failure();
  ArrayRef<int64_t> shape = GraphBuilder::shape(inputs[0]);
  int64_t maxLen = site.layer.position_embedding().max_len();
  if (maxLen < shape[1])
    return site.errorAt("position_embedding", "max_len")
           << "sequence length " << shape[1] << " exceeds max_len " << maxLen;
  FailureOr<Value> table =
      graph.parameter(site, site.paramName("weight"), {maxLen, shape[2]},
                      "position_embedding", "init", DefaultInit::Normal,
                      /*fanIn=*/shape[2]);
  if (failed(table))
    return failure();
  OpBuilder &b = graph.builder();
  Value positions = *table;
  if (graph.decoding().mode == DecodingMode::Step)
    positions = rowsAtPositions(graph, site.loc, *table);
  else if (maxLen > shape[1])
    positions =
        nn::SliceOp::create(b, site.loc, *table, ArrayRef<int64_t>{0, 0},
                            ArrayRef<int64_t>{shape[1], shape[2]});
  return nn::AddOp::create(b, site.loc, inputs[0], positions).getResult();
}

//===----------------------------------------------------------------------===//
// Multi-head attention
//===----------------------------------------------------------------------===//

/// [b, s, h * d] -> [b, h, s, d].
Value splitHeads(OpBuilder &b, Location loc, Value x, int64_t heads) {
  ArrayRef<int64_t> shape = GraphBuilder::shape(x);
  Value split = nn::ReshapeOp::create(
      b, loc, x,
      ArrayRef<int64_t>{shape[0], shape[1], heads, shape[2] / heads});
  return nn::TransposeOp::create(b, loc, split, ArrayRef<int64_t>{0, 2, 1, 3});
}

/// [b, h, s, d] -> [b, s, h * d].
Value mergeHeads(OpBuilder &b, Location loc, Value x) {
  ArrayRef<int64_t> shape = GraphBuilder::shape(x);
  Value merged =
      nn::TransposeOp::create(b, loc, x, ArrayRef<int64_t>{0, 2, 1, 3});
  return nn::ReshapeOp::create(
      b, loc, merged,
      ArrayRef<int64_t>{shape[0], shape[2], shape[1] * shape[3]});
}

StringRef orDefault(const std::string &name, StringRef fallback) {
  return name.empty() ? fallback : StringRef(name);
}

FailureOr<Value> buildAttention(GraphBuilder &graph, const LayerSite &site,
                                ArrayRef<Value> inputs) {
  const spec::MultiHeadAttention &spec = site.layer.attention();
  std::string roles = spec.cross() ? "x, memory" : "x";
  if (spec.key_padding())
    roles += spec.cross() ? ", memory token ids" : ", token ids";
  size_t arity = 1 + spec.cross() + spec.key_padding();
  if (failed(checkArity(site, inputs, arity, roles)))
    return failure();
  // In the decoding entry points of an encoder-decoder, one side of a
  // cross-attention layer is not built: encode has no query, prefill and a
  // step no memory.
  Value x = inputs[0];
  Value memory = spec.cross() ? inputs[1] : x;
  if (x && failed(checkSequence(site, x, "the query input")))
    return failure();
  if (spec.cross() && memory &&
      failed(checkSequence(site, memory, "the memory")))
    return failure();
  ArrayRef<int64_t> xShape = GraphBuilder::shape(x ? x : memory);
  int64_t batch = xShape[0], dModel = xShape[2];
  if (x && memory) {
    ArrayRef<int64_t> memShape = GraphBuilder::shape(memory);
    if (memShape[0] != batch || memShape[2] != dModel)
      return site.error() << "memory " << formatShape(memShape)
                          << " does not match the query input "
                          << formatShape(xShape) << " in batch and width";
  }

  if (spec.heads() <= 0)
    return site.errorAt("attention", "heads") << "heads must be positive";
  int64_t keyDim = spec.key_dim();
  if (keyDim < 0)
    return site.errorAt("attention", "key_dim") << "key_dim must be positive";
  if (keyDim == 0) {
    if (dModel % spec.heads() != 0)
      return site.errorAt("attention", "heads")
             << "d_model " << dModel << " is not divisible by " << spec.heads()
             << " heads";
    keyDim = dModel / spec.heads();
  }
  double scaleDim = spec.scale_dim() == 0 ? double(keyDim) : spec.scale_dim();
  if (!(scaleDim > 0))
    return site.errorAt("attention", "scale_dim")
           << "scale_dim must be positive, got " << scaleDim;
  if (failed(checkRate(site, "attention", spec.dropout())))
    return failure();
  Value tokens;
  if (spec.key_padding()) {
    tokens = inputs.back();
    if (failed(checkTokens(site, tokens, "the key padding input")))
      return failure();
    int64_t keys = memory ? GraphBuilder::shape(memory)[1]
                          : GraphBuilder::shape(tokens)[1];
    ArrayRef<int64_t> tokenShape = GraphBuilder::shape(tokens);
    if (tokenShape != ArrayRef<int64_t>{batch, keys})
      return site.error() << "key padding token ids must be "
                          << formatShape({batch, keys}) << ", got "
                          << formatShape(tokenShape);
  }

  OpBuilder &b = graph.builder();
  Location loc = site.loc;
  int64_t heads = spec.heads(), width = heads * keyDim;
  // The projections in the order parameters are declared: query, key,
  // value.
  FailureOr<Value> q, k, v;
  if (x && failed(q = graph.linear(site, x, orDefault(spec.q_name(), "w_q"),
                                   width, spec.q_bias() || !spec.has_q_bias())))
    return failure();
  if (memory &&
      (failed(k = graph.linear(site, memory, orDefault(spec.k_name(), "w_k"),
                               width, spec.k_bias() || !spec.has_k_bias())) ||
       failed(v = graph.linear(site, memory, orDefault(spec.v_name(), "w_v"),
                               width, spec.v_bias() || !spec.has_v_bias()))))
    return failure();
  Value query = x ? splitHeads(b, loc, *q, heads) : Value();
  Value key = memory ? splitHeads(b, loc, *k, heads) : Value();
  Value value = memory ? splitHeads(b, loc, *v, heads) : Value();
  if (spec.scaling() == spec::SCALE_QUERY_KEY) {
    double root = std::pow(scaleDim, 0.25);
    if (query)
      query = graph.withScalar<nn::DivOp>(loc, query, root);
    if (key)
      key = graph.withScalar<nn::DivOp>(loc, key, root);
  }
  LogicalResult cached = spec.cross()
                             ? useCrossAttentionCache(graph, site, key, value)
                             : useKeyValueCache(graph, site, key, value);
  if (failed(cached))
    return failure();
  // encode keeps only the keys and values.
  if (!query)
    return Value();
  Value keyT =
      nn::TransposeOp::create(b, loc, key, ArrayRef<int64_t>{0, 1, 3, 2});
  Value scores = nn::MatmulOp::create(b, loc, query, keyT);
  if (spec.scaling() == spec::SCALE_SCORES)
    scores = graph.withScalar<nn::DivOp>(loc, scores, std::sqrt(scaleDim));

  double maskValue = spec.has_mask_value() ? spec.mask_value() : -1e9;
  FloatAttr fill = b.getF64FloatAttr(maskValue);
  bool step = graph.decoding().mode == DecodingMode::Step;
  int64_t keys = GraphBuilder::shape(key)[2];
  if (spec.causal() && step) {
    scores = nn::MaskedFillOp::create(b, loc, scores,
                                      futureCacheRows(graph, loc), fill);
  } else if (spec.causal()) {
    auto maskType = RankedTensorType::get({xShape[1], keys}, b.getI1Type());
    Value future =
        nn::TriangularMaskOp::create(b, loc, maskType, b.getI64IntegerAttr(1));
    scores = nn::MaskedFillOp::create(b, loc, scores, future, fill);
  }
  // A step's own token is not padding (docs/generation.md), and the keys
  // before it were masked or not as prefill and the steps before saw them.
  if (tokens && !(step && !spec.cross())) {
    Value pad = graph.scalar(loc, double(spec.pad_id()),
                             GraphBuilder::elementType(tokens));
    Value isPad =
        nn::CompareOp::create(b, loc, tokens, pad, nn::ComparePredicate::eq);
    Value keyMask = nn::ReshapeOp::create(b, loc, isPad,
                                          ArrayRef<int64_t>{batch, 1, 1, keys});
    scores = nn::MaskedFillOp::create(b, loc, scores, keyMask, fill);
  }
  Value probs = nn::SoftmaxOp::create(b, loc, scores, b.getI64IntegerAttr(3));
  probs = dropout(b, loc, probs, spec.dropout());
  Value context =
      mergeHeads(b, loc, nn::MatmulOp::create(b, loc, probs, value));
  return graph.linear(site, context, orDefault(spec.out_name(), "w_o"), dModel,
                      spec.out_bias() || !spec.has_out_bias());
}

//===----------------------------------------------------------------------===//
// Layer norm, feed-forward, Linear, dropout, pooling
//===----------------------------------------------------------------------===//

/// How a normalisation layer is written out: its statistic, where ε goes,
/// and whether it has a bias (kind and the epsilon field name the spec's
/// layer in diagnostics).
struct NormSpec {
  StringRef kind;
  nn::NormStatistic statistic;
  bool epsilonOnStd;
  bool bias;
  double epsilon;
};

/// layer_norm and rms_norm over the last axis, expanded into the primitive
/// ops the reference modules compute, in their order of operations:
///   torch.nn.LayerNorm   (x - mean) * rsqrt(var + ε) * weight + bias
///   x.std() + ε          weight * (x - mean) / (sqrt(var) + ε) + bias
///   torch.nn.RMSNorm     x * rsqrt(mean(x²) + ε) * weight (+ bias)
/// var is mean((x - mean)²), or sum((x - mean)²) / (N - 1) unbiased.
FailureOr<Value> buildNorm(GraphBuilder &graph, const LayerSite &site,
                           ArrayRef<Value> inputs, const NormSpec &norm) {
  if (failed(checkArity(site, inputs, 1, "x")))
    return failure();
  Value x = inputs[0];
  auto type = GraphBuilder::tensorType(x);
  if (type.getRank() < 1 || !isa<FloatType>(type.getElementType()))
    return site.error()
           << "the input must be a float tensor of rank 1 or more, got "
           << type;
  if (!(norm.epsilon > 0))
    return site.errorAt(norm.kind, "epsilon") << "epsilon must be positive";
  int64_t width = type.getShape().back();
  if (norm.statistic == nn::NormStatistic::unbiased_variance && width < 2)
    return site.errorAt(norm.kind, "variance")
           << "an unbiased variance needs at least 2 features, got " << width;
  FailureOr<Value> gamma =
      graph.parameter(site, site.paramName("weight"), {width}, norm.kind, "",
                      DefaultInit::Ones, 0);
  if (failed(gamma))
    return failure();
  Value beta;
  if (norm.bias) {
    FailureOr<Value> bias =
        graph.parameter(site, site.paramName("bias"), {width}, norm.kind, "",
                        DefaultInit::Zeros, 0);
    if (failed(bias))
      return failure();
    beta = *bias;
  }

  OpBuilder &b = graph.builder();
  Location loc = site.loc;
  SmallVector<int64_t> lastAxis = {type.getRank() - 1};
  auto mean = [&](Value v) -> Value {
    return nn::ReduceMeanOp::create(b, loc, v, ArrayRef<int64_t>(lastAxis),
                                    /*keep_dims=*/true);
  };
  Value centred = x;
  Value variance;
  switch (norm.statistic) {
  case nn::NormStatistic::mean_square:
    variance = mean(nn::MulOp::create(b, loc, x, x));
    break;
  case nn::NormStatistic::variance:
    centred = nn::SubOp::create(b, loc, x, mean(x));
    variance = mean(nn::MulOp::create(b, loc, centred, centred));
    break;
  case nn::NormStatistic::unbiased_variance: {
    centred = nn::SubOp::create(b, loc, x, mean(x));
    Value squares = nn::ReduceSumOp::create(
        b, loc, nn::MulOp::create(b, loc, centred, centred),
        ArrayRef<int64_t>(lastAxis), /*keep_dims=*/true);
    variance = graph.withScalar<nn::DivOp>(loc, squares, double(width - 1));
    break;
  }
  }
  Value scaled;
  if (norm.epsilonOnStd) {
    Value denominator = graph.withScalar<nn::AddOp>(
        loc, nn::SqrtOp::create(b, loc, variance), norm.epsilon);
    scaled = nn::DivOp::create(
        b, loc, nn::MulOp::create(b, loc, *gamma, centred), denominator);
  } else {
    Value inverse = nn::RsqrtOp::create(
        b, loc, graph.withScalar<nn::AddOp>(loc, variance, norm.epsilon));
    scaled = nn::MulOp::create(
        b, loc, nn::MulOp::create(b, loc, centred, inverse), *gamma);
  }
  if (!beta)
    return scaled;
  return nn::AddOp::create(b, loc, scaled, beta).getResult();
}

FailureOr<Value> buildLayerNorm(GraphBuilder &graph, const LayerSite &site,
                                ArrayRef<Value> inputs) {
  const spec::LayerNorm &spec = site.layer.layer_norm();
  NormSpec norm{"layer_norm",
                spec.variance() == spec::LayerNorm::UNBIASED
                    ? nn::NormStatistic::unbiased_variance
                    : nn::NormStatistic::variance,
                spec.epsilon_on() == spec::LayerNorm::STD,
                !spec.has_bias() || spec.bias(),
                spec.has_epsilon() ? spec.epsilon() : 1e-5};
  return buildNorm(graph, site, inputs, norm);
}

FailureOr<Value> buildRmsNorm(GraphBuilder &graph, const LayerSite &site,
                              ArrayRef<Value> inputs) {
  const spec::RmsNorm &spec = site.layer.rms_norm();
  // torch.nn.RMSNorm(eps=None) uses torch.finfo(torch.float32).eps.
  constexpr double kFloat32Epsilon = 1.1920928955078125e-07;
  NormSpec norm{"rms_norm", nn::NormStatistic::mean_square,
                /*epsilonOnStd=*/false, spec.bias(),
                spec.has_epsilon() ? spec.epsilon() : kFloat32Epsilon};
  return buildNorm(graph, site, inputs, norm);
}

FailureOr<Value> buildFeedForward(GraphBuilder &graph, const LayerSite &site,
                                  ArrayRef<Value> inputs) {
  const spec::FeedForward &spec = site.layer.feed_forward();
  if (failed(checkArity(site, inputs, 1, "x")) ||
      failed(checkSequence(site, inputs[0], "the input")))
    return failure();
  if (spec.hidden() <= 0)
    return site.errorAt("feed_forward", "hidden") << "hidden must be positive";
  if (failed(checkRate(site, "feed_forward", spec.dropout())))
    return failure();
  OpBuilder &b = graph.builder();
  FailureOr<Value> hidden =
      graph.linear(site, inputs[0], orDefault(spec.hidden_name(), "w_1"),
                   spec.hidden(), true);
  if (failed(hidden))
    return failure();
  Value activated;
  switch (spec.activation()) {
  case spec::GELU:
    activated = nn::GeluOp::create(b, site.loc, *hidden);
    break;
  case spec::GELU_TANH:
    activated = nn::GeluOp::create(b, site.loc, *hidden, b.getUnitAttr());
    break;
  default:
    activated = nn::ReluOp::create(b, site.loc, *hidden);
    break;
  }
  activated = dropout(b, site.loc, activated, spec.dropout());
  int64_t width = GraphBuilder::shape(inputs[0]).back();
  return graph.linear(site, activated, orDefault(spec.output_name(), "w_2"),
                      width, true);
}

FailureOr<Value> buildLinear(GraphBuilder &graph, const LayerSite &site,
                             ArrayRef<Value> inputs) {
  const spec::Linear &spec = site.layer.linear();
  if (failed(checkArity(site, inputs, 1, "x")))
    return failure();
  auto type = GraphBuilder::tensorType(inputs[0]);
  if (type.getRank() < 1 || !isa<FloatType>(type.getElementType()))
    return site.error()
           << "the input must be a float tensor of rank 1 or more, got "
           << type;
  if (spec.out_features() <= 0)
    return site.errorAt("linear", "out_features")
           << "out_features must be positive";
  return graph.linear(site, inputs[0], "", spec.out_features(),
                      spec.bias() || !spec.has_bias());
}

FailureOr<Value> buildDropout(GraphBuilder &graph, const LayerSite &site,
                              ArrayRef<Value> inputs) {
  if (failed(checkArity(site, inputs, 1, "x")) ||
      failed(checkRate(site, "dropout", site.layer.dropout().rate())))
    return failure();
  if (!isa<FloatType>(GraphBuilder::elementType(inputs[0])))
    return site.error() << "the input must be a float tensor, got "
                        << inputs[0].getType();
  return dropout(graph.builder(), site.loc, inputs[0],
                 site.layer.dropout().rate());
}

FailureOr<Value> buildPool(GraphBuilder &graph, const LayerSite &site,
                           ArrayRef<Value> inputs) {
  const spec::Pool &spec = site.layer.pool();
  if (failed(checkArity(site, inputs, 1, "x")))
    return failure();
  auto type = GraphBuilder::tensorType(inputs[0]);
  int64_t axis = spec.has_axis() ? spec.axis() : 1;
  if (axis < 0)
    axis += type.getRank();
  if (!isa<FloatType>(type.getElementType()) || axis < 0 ||
      axis >= type.getRank())
    return site.errorAt("pool", "axis")
           << "cannot pool " << type << " over axis "
           << (spec.has_axis() ? spec.axis() : 1);
  OpBuilder &b = graph.builder();
  SmallVector<int64_t> axes = {axis};
  if (spec.kind() == spec::MEAN)
    return nn::ReduceMeanOp::create(b, site.loc, inputs[0],
                                    ArrayRef<int64_t>(axes),
                                    /*keep_dims=*/false)
        .getResult();
  return nn::ReduceMaxOp::create(b, site.loc, inputs[0],
                                 ArrayRef<int64_t>(axes),
                                 /*keep_dims=*/false)
      .getResult();
}

} // namespace

FailureOr<SmallVector<Value>> buildCompositeLayer(GraphBuilder &graph,
                                                  const LayerSite &site,
                                                  ArrayRef<Value> inputs) {
  switch (site.layer.kind_case()) {
  case spec::Layer::kEmbedding:
    return single(buildEmbedding(graph, site, inputs));
  case spec::Layer::kPositionalEncoding:
    return single(buildPositionalEncoding(graph, site, inputs));
  case spec::Layer::kPositionEmbedding:
    return single(buildPositionEmbedding(graph, site, inputs));
  case spec::Layer::kAttention:
    return single(buildAttention(graph, site, inputs));
  case spec::Layer::kLayerNorm:
    return single(buildLayerNorm(graph, site, inputs));
  case spec::Layer::kRmsNorm:
    return single(buildRmsNorm(graph, site, inputs));
  case spec::Layer::kFeedForward:
    return single(buildFeedForward(graph, site, inputs));
  case spec::Layer::kLinear:
    return single(buildLinear(graph, site, inputs));
  case spec::Layer::kDropout:
    return single(buildDropout(graph, site, inputs));
  case spec::Layer::kPool:
    return single(buildPool(graph, site, inputs));
  default:
    return buildPrimitiveLayer(graph, site, inputs);
  }
}

} // namespace transfuse::import
