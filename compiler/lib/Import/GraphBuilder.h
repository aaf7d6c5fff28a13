//===- GraphBuilder.h - Building nn ops for spec layers ---------*- C++ -*-===//
//
// Private to the importer. A LayerSite is one instantiated layer: where it
// is written and what its parameters are called. A GraphBuilder creates the
// module's parameters and the ops of @forward, checking every shape with the
// dialect's shape rules first so that a bad spec gets an error naming the
// layer rather than a failed op construction.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_LIB_IMPORT_GRAPHBUILDER_H
#define TRANSFUSE_LIB_IMPORT_GRAPHBUILDER_H

#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"
#include "transfuse/Spec/Spec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

namespace transfuse::import {

using mlir::FailureOr;
using mlir::Location;
using mlir::Value;

/// One instantiated layer of the spec.
struct LayerSite {
  const spec::Layer &layer;
  spec::SpecCursor cursor;
  /// The block instance the layer is in (`encoder.layers.0`), "" at the top.
  std::string scope;
  /// Parameter prefix and display name: `encoder.layers.0.self_attn`.
  std::string path;
  /// The location of the ops this layer expands into.
  Location loc;

  /// An error at the layer, naming it.
  mlir::InFlightDiagnostic error() const;
  /// An error at `kind.field` of the layer (`attention.heads`), naming it.
  mlir::InFlightDiagnostic errorAt(llvm::StringRef kind,
                                   llvm::StringRef field) const;
  /// `path.name`: the name of a parameter the layer owns.
  std::string paramName(llvm::StringRef name) const;
  /// `scope.name`: a name beside the layer's own.
  std::string scopedName(llvm::StringRef name) const;
};

/// Which function the layers are built into: the whole sequence at once
/// (`forward`), or one of the incremental decoding entry points, which keep
/// each attention layer's keys and values in an `nn.cache`.
enum class DecodingMode {
  /// `forward`: no cache.
  None,
  /// `encode`: the layers that do not depend on the target, storing each
  /// cross-attention layer's keys and values of the memory.
  Encode,
  /// `prefill`: as forward, storing the keys and values of every position.
  Prefill,
  /// `decode_step`: one new token per sequence at `positions`, appended to
  /// the cache and attending to it.
  Step,
};

struct Decoding {
  DecodingMode mode = DecodingMode::None;
  /// Step: i64 [batch], the position of each sequence's new token.
  Value positions;
  /// The positions a self-attention cache holds: the target's length.
  int64_t capacity = 0;
};

/// How a model decodes incrementally.
struct DecodingPlan {
  /// The index of the target tokens input, decoded one position at a time.
  int target = -1;
  /// Whether cross-attention reads memory computed without the target, so
  /// that `encode` computes it.
  bool encodes = false;
  /// Why the model cannot decode incrementally; "" when it can.
  std::string why;
};

/// PyTorch's default initialisation of a parameter, used when the spec does
/// not set one.
enum class DefaultInit { LinearWeight, LinearBias, Normal, Ones, Zeros, None };

class GraphBuilder {
public:
  GraphBuilder(const spec::Spec &spec, mlir::ModuleOp module,
               mlir::OpBuilder &builder, Decoding decoding = {})
      : spec(spec), module(module), b(builder), decoding_(decoding) {}

  const spec::Spec &getSpec() const { return spec; }
  mlir::ModuleOp getModule() const { return module; }
  mlir::OpBuilder &builder() { return b; }
  const Decoding &decoding() const { return decoding_; }

  /// Declares the parameter `fullName` and loads it. `initField`
  /// names the layer's Init field (under `kind`) that may override
  /// `fallback`; `fanIn` is torch.nn.init's fan-in of the parameter (that
  /// of the weight for a Linear's bias), 0 where it has none. A decoding
  /// entry point loads the parameter `forward` declared.
  FailureOr<Value> parameter(const LayerSite &site, llvm::StringRef fullName,
                             llvm::ArrayRef<int64_t> shape,
                             llvm::StringRef kind, llvm::StringRef initField,
                             DefaultInit fallback, int64_t fanIn);

  /// The symbol of the decoding cache `name` of `type`, declared by the
  /// first entry point that asks for it.
  FailureOr<mlir::FlatSymbolRefAttr> cache(const LayerSite &site,
                                           llvm::StringRef name,
                                           mlir::RankedTensorType type);

  /// `y = x Wᵀ + b` with parameters `<name>.weight` [out, in] and
  /// `<name>.bias` [out] initialised as torch.nn.Linear unless the layer's
  /// `weight_init` / `bias_init` say otherwise.
  FailureOr<Value> linear(const LayerSite &site, Value x, llvm::StringRef name,
                          int64_t outFeatures, bool bias);

  /// A rank-0 constant of `elementType`.
  Value scalar(Location loc, double value, mlir::Type elementType);
  /// `x op scalar`, in x's element type.
  template <typename OpTy> Value withScalar(Location loc, Value x, double s) {
    return OpTy::create(b, loc, x, scalar(loc, s, elementType(x)));
  }

  static mlir::RankedTensorType tensorType(Value value) {
    return mlir::cast<mlir::RankedTensorType>(value.getType());
  }
  static llvm::ArrayRef<int64_t> shape(Value value) {
    return tensorType(value).getShape();
  }
  static mlir::Type elementType(Value value) {
    return tensorType(value).getElementType();
  }

private:
  FailureOr<nn::InitAttr>
  resolveInit(const LayerSite &site, llvm::StringRef kind,
              llvm::StringRef initField, DefaultInit fallback,
              llvm::ArrayRef<int64_t> shape, int64_t fanIn);

  const spec::Spec &spec;
  mlir::ModuleOp module;
  mlir::OpBuilder &b;
  Decoding decoding_;
  /// Parameter name to the layer that declared it, for duplicate errors.
  llvm::StringMap<std::string> declaredBy;
  mlir::Operation *lastParameter = nullptr;
};

/// Expands a composite layer or builds a primitive one. `inputs` are the
/// layer's input tensors in order; returns its outputs.
FailureOr<llvm::SmallVector<Value>>
buildCompositeLayer(GraphBuilder &graph, const LayerSite &site,
                    llvm::ArrayRef<Value> inputs);
FailureOr<llvm::SmallVector<Value>>
buildPrimitiveLayer(GraphBuilder &graph, const LayerSite &site,
                    llvm::ArrayRef<Value> inputs);

/// Whether and how the model can be built as `prefill` and `decode_step`:
/// one output, depending on a [batch, seq] i64 input (the target) through
/// causal self-attention, cross-attention to memory computed without the
/// target, and position-wise layers.
DecodingPlan planDecoding(const spec::Model &model);
/// In prefill or a step, keeps the keys and values of a self-attention
/// layer (`[b, h, s, d]`, as the scores use them) in its caches: prefill
/// stores them, a step appends them at the positions and replaces them by
/// the whole caches. Does nothing in forward and encode.
mlir::LogicalResult useKeyValueCache(GraphBuilder &graph, const LayerSite &site,
                                     Value &key, Value &value);
/// The keys and values of a cross-attention layer in a decoding entry
/// point: encode stores them (`key` and `value` computed from the memory),
/// prefill and a step set `key` and `value` to the stored ones.
mlir::LogicalResult useCrossAttentionCache(GraphBuilder &graph,
                                           const LayerSite &site, Value &key,
                                           Value &value);
/// Step: the i1 `[b, 1, 1, capacity]` mask, true on the cache rows after
/// each sequence's position (the causal mask of one query per sequence).
Value futureCacheRows(GraphBuilder &graph, Location loc);
/// Step: `[b, 1, d]`, the rows of a `[positions, d]` table at each
/// sequence's position.
Value rowsAtPositions(GraphBuilder &graph, Location loc, Value table);

/// `reorder_cache(beams: i64 [batch])`: afterwards, sequence b of every
/// `nn.cache` of `module` holds what sequence beams[b] held, as beam search
/// needs when it keeps, drops and duplicates hypotheses.
void buildReorderCache(mlir::ModuleOp module, int64_t batch);

/// The element type of a spec dtype; null for DTYPE_UNSPECIFIED.
mlir::Type elementTypeOf(mlir::MLIRContext *context, spec::DType dtype);

/// The layer kind's field name ("attention"), or "" when none is set.
std::string layerKindName(const spec::Layer &layer);

/// Checks that every layer of `layers` (a field of `scope`) reads only
/// tensors from `available` or from an earlier layer, naming the cycle when
/// a later layer's output depends on the reader.
mlir::LogicalResult checkLayerOrder(const spec::SpecCursor &scope,
                                    llvm::StringRef layersField,
                                    llvm::ArrayRef<std::string> available);

/// With a training section: adds `@loss(inputs..., labels) -> tensor<f32>`,
/// which calls `forward` and applies the loss to the output the section
/// names, and the `nn.training` module attribute (optimizer, schedule,
/// clipping, seed) that the optimizer phase reads.
mlir::LogicalResult buildTrainingSection(const spec::Spec &spec,
                                         mlir::ModuleOp module,
                                         mlir::func::FuncOp forward);

} // namespace transfuse::import

#endif // TRANSFUSE_LIB_IMPORT_GRAPHBUILDER_H
