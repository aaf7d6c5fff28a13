//===- ImporterTest.cpp - importSpec on a small model ---------------------===//
//
// The importer through its C++ API: the parameters it declares (PyTorch
// state_dict names, shapes, and inits resolved to PyTorch's defaults), the
// types of @forward and @loss, the training settings, the layers it reports,
// and the diagnostics of an impossible model.
//===----------------------------------------------------------------------===//
#include "transfuse/Import/Importer.h"
#include "Diagnostics.h"
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include <cmath>
#include <gtest/gtest.h>

using namespace mlir;
using transfuse::ImportedLayer;
using transfuse::importSpec;
using transfuse::spec::DimOverride;
using transfuse::spec::Spec;
using transfuse::test::DiagnosticCapture;
namespace nn = transfuse::nn;

namespace {

// An encoder-only classifier: token embedding, learned positions, two
// post-LN blocks (self-attention with key padding, feed-forward), mean
// pooling and a Linear head; two free parameters and a training section.
constexpr const char *kSmallModel = R"pb(name: "small"
dims { name: "batch" value: 2 }
dims { name: "seq" value: 4 }
inputs { name: "ids" dtype: I64 shape: ["batch", "seq"] }
blocks {
  name: "layer"
  inputs: ["x", "ids"]
  outputs: ["out"]
  layers {
    name: "self_attn"
    inputs: ["x", "ids"]
    outputs: ["a"]
    attention {
      heads: 2
      key_padding: true
      q_bias: false
      weight_init { xavier_uniform {} }
    }
  }
  layers { name: "residual" inputs: ["x", "a"] outputs: ["h"] add {} }
  layers { name: "norm1" inputs: ["h"] outputs: ["n"] layer_norm {} }
  layers { name: "ff" inputs: ["n"] outputs: ["f"] feed_forward { hidden: 32 } }
  layers { name: "ff_residual" inputs: ["n", "f"] outputs: ["h2"] add {} }
  layers { name: "norm2" inputs: ["h2"] outputs: ["out"] layer_norm {} }
}
layers {
  name: "embed"
  inputs: ["ids"]
  outputs: ["tok"]
  embedding { vocab_size: 100 dim: 16 }
}
layers {
  name: "pos"
  inputs: ["tok"]
  outputs: ["x0"]
  position_embedding { max_len: 32 init { normal { std: 0.02 } } }
}
layers {
  name: "encoder"
  inputs: ["x0", "ids"]
  outputs: ["enc"]
  block { block: "layer" repeat: 2 }
}
layers { name: "pool" inputs: ["enc"] outputs: ["pooled"] pool { kind: MEAN } }
layers { name: "head" inputs: ["pooled"] outputs: ["logits"] linear { out_features: 5 } }
layers {
  name: "gain"
  outputs: ["g"]
  parameter { shape: ["5", "3"] init { xavier_normal {} } }
}
layers {
  name: "offset"
  outputs: ["o"]
  parameter { shape: ["5"] init { uniform { low: -0.5 high: 0.25 } } }
}
outputs: ["logits"]
training {
  logits: "logits"
  labels { name: "label" dtype: I64 shape: ["batch"] }
  loss { cross_entropy { label_smoothing: 0.1 } }
  optimizer { adamw { lr: 0.001 } }
  schedule { linear_warmup { warmup_steps: 100 } }
  clip_grad_norm: 1.0
  seed: 7
}
)pb";

struct Parameter {
  SmallVector<int64_t> shape;
  nn::InitAttr init;
};

class Importer : public ::testing::Test {
protected:
  /// Parses and imports `text`; null on failure.
  OwningOpRef<ModuleOp> import(llvm::StringRef text,
                               llvm::ArrayRef<DimOverride> overrides = {}) {
    auto parsed = Spec::parse(&context, text, "small.pbtxt", overrides);
    if (failed(parsed))
      return nullptr;
    spec = std::move(*parsed);
    layers.clear();
    auto module = importSpec(&context, *spec, &layers);
    if (failed(module))
      return nullptr;
    return std::move(*module);
  }

  /// The module's parameters in declaration order.
  static std::vector<std::string> parameterNames(ModuleOp module) {
    std::vector<std::string> names;
    for (auto parameter : module.getOps<nn::ParameterOp>())
      names.push_back(parameter.getSymName().str());
    return names;
  }

  static llvm::StringMap<Parameter> parameters(ModuleOp module) {
    llvm::StringMap<Parameter> result;
    for (auto parameter : module.getOps<nn::ParameterOp>()) {
      ArrayRef<int64_t> shape = parameter.getTensorType().getShape();
      result[parameter.getSymName()] = {
          SmallVector<int64_t>(shape.begin(), shape.end()),
          parameter.getInit()};
    }
    return result;
  }

  static void expectUniform(const Parameter &parameter, double low,
                            double high) {
    ASSERT_EQ(parameter.init.getKind(), nn::InitKind::uniform);
    EXPECT_DOUBLE_EQ(parameter.init.getA().convertToDouble(), low);
    EXPECT_DOUBLE_EQ(parameter.init.getB().convertToDouble(), high);
  }
  static void expectNormal(const Parameter &parameter, double mean,
                           double std) {
    ASSERT_EQ(parameter.init.getKind(), nn::InitKind::normal);
    EXPECT_DOUBLE_EQ(parameter.init.getA().convertToDouble(), mean);
    EXPECT_DOUBLE_EQ(parameter.init.getB().convertToDouble(), std);
  }

  static RankedTensorType tensor(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }

  MLIRContext context;
  std::unique_ptr<Spec> spec;
  std::vector<ImportedLayer> layers;
};

TEST_F(Importer, ImportsWithoutDiagnostics) {
  DiagnosticCapture diagnostics(context);
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  EXPECT_EQ(diagnostics.size(), 0u);
  EXPECT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ((*module)->getAttrOfType<StringAttr>("nn.model").getValue(),
            "small");
  auto dims = (*module)->getAttrOfType<DictionaryAttr>("nn.dims");
  ASSERT_TRUE(dims);
  EXPECT_EQ(cast<IntegerAttr>(dims.get("batch")).getInt(), 2);
  EXPECT_EQ(cast<IntegerAttr>(dims.get("seq")).getInt(), 4);
}

TEST_F(Importer, ParametersHaveStateDictNamesInOrder) {
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  std::vector<std::string> expected = {"embed.weight", "pos.weight"};
  for (const char *block : {"encoder.0", "encoder.1"}) {
    std::string p = block;
    // No w_q.bias: the spec turns it off.
    for (const char *name :
         {".self_attn.w_q.weight", ".self_attn.w_k.weight",
          ".self_attn.w_k.bias", ".self_attn.w_v.weight", ".self_attn.w_v.bias",
          ".self_attn.w_o.weight", ".self_attn.w_o.bias", ".norm1.weight",
          ".norm1.bias", ".ff.w_1.weight", ".ff.w_1.bias", ".ff.w_2.weight",
          ".ff.w_2.bias", ".norm2.weight", ".norm2.bias"})
      expected.push_back(p + name);
  }
  for (const char *name : {"head.weight", "head.bias", "gain", "offset"})
    expected.push_back(name);
  EXPECT_EQ(parameterNames(*module), expected);
}

TEST_F(Importer, ParameterShapesAreTorchLayouts) {
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  llvm::StringMap<Parameter> params = parameters(*module);
  using Shape = SmallVector<int64_t>;
  EXPECT_EQ(params["embed.weight"].shape, (Shape{100, 16}));
  EXPECT_EQ(params["pos.weight"].shape, (Shape{32, 16}));
  // Linear weights are [out, in].
  EXPECT_EQ(params["encoder.0.self_attn.w_q.weight"].shape, (Shape{16, 16}));
  EXPECT_EQ(params["encoder.1.ff.w_1.weight"].shape, (Shape{32, 16}));
  EXPECT_EQ(params["encoder.1.ff.w_1.bias"].shape, (Shape{32}));
  EXPECT_EQ(params["encoder.1.ff.w_2.weight"].shape, (Shape{16, 32}));
  EXPECT_EQ(params["encoder.1.norm2.weight"].shape, (Shape{16}));
  EXPECT_EQ(params["head.weight"].shape, (Shape{5, 16}));
  EXPECT_EQ(params["gain"].shape, (Shape{5, 3}));
}

TEST_F(Importer, DefaultInitsAreTorchDefaults) {
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  llvm::StringMap<Parameter> params = parameters(*module);
  // nn.Embedding: N(0, 1).
  expectNormal(params["embed.weight"], 0.0, 1.0);
  // nn.Linear: weight and bias U(±1/sqrt(in_features)).
  double head = 1.0 / std::sqrt(16.0);
  expectUniform(params["head.weight"], -head, head);
  expectUniform(params["head.bias"], -head, head);
  expectUniform(params["encoder.0.ff.w_1.weight"], -head, head);
  expectUniform(params["encoder.0.ff.w_1.bias"], -head, head);
  double hidden = 1.0 / std::sqrt(32.0);
  expectUniform(params["encoder.0.ff.w_2.weight"], -hidden, hidden);
  expectUniform(params["encoder.0.ff.w_2.bias"], -hidden, hidden);
  // An attention bias keeps the Linear default beside a xavier weight.
  expectUniform(params["encoder.1.self_attn.w_o.bias"], -head, head);
  // nn.LayerNorm: ones and zeros.
  for (const char *name : {"encoder.0.norm1", "encoder.1.norm2"}) {
    EXPECT_EQ(params[std::string(name) + ".weight"].init.getKind(),
              nn::InitKind::ones);
    EXPECT_EQ(params[std::string(name) + ".bias"].init.getKind(),
              nn::InitKind::zeros);
  }
}

TEST_F(Importer, SpecifiedInitsAreResolved) {
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  llvm::StringMap<Parameter> params = parameters(*module);
  expectNormal(params["pos.weight"], 0.0, 0.02);
  // xavier_uniform on [16, 16]: U(±sqrt(6 / (16 + 16))).
  double xavier = std::sqrt(6.0 / 32.0);
  for (const char *proj : {"w_q", "w_k", "w_v", "w_o"})
    expectUniform(
        params[std::string("encoder.0.self_attn.") + proj + ".weight"], -xavier,
        xavier);
  // xavier_normal on [5, 3]: N(0, sqrt(2 / (3 + 5))).
  expectNormal(params["gain"], 0.0, std::sqrt(2.0 / 8.0));
  expectUniform(params["offset"], -0.5, 0.25);
}

TEST_F(Importer, KaimingUniformUsesTheFanIn) {
  // torch.nn.init's fan-in of a [vocab, dim] table is dim, and of a
  // [4, 2, 8] tensor 2 * 8.
  OwningOpRef<ModuleOp> module = import(R"pb(
inputs { name: "ids" dtype: I64 shape: ["2", "3"] }
layers {
  name: "embed"
  inputs: ["ids"]
  outputs: ["y"]
  embedding { vocab_size: 10 dim: 64 init { kaiming_uniform {} } }
}
layers {
  name: "kernel"
  outputs: ["k"]
  parameter { shape: ["4", "2", "8"] init { kaiming_uniform {} } }
}
outputs: ["y"]
)pb");
  ASSERT_TRUE(module);
  llvm::StringMap<Parameter> params = parameters(*module);
  expectUniform(params["embed.weight"], -0.125, 0.125);
  expectUniform(params["kernel"], -0.25, 0.25);
}

TEST_F(Importer, ForwardFunctionTypes) {
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  ASSERT_TRUE(forward);
  Builder b(&context);
  EXPECT_EQ(forward.getFunctionType(),
            b.getFunctionType({tensor({2, 4}, b.getI64Type())},
                              {tensor({2, 5}, b.getF32Type())}));
  EXPECT_EQ(forward.getArgAttrOfType<StringAttr>(0, "nn.name").getValue(),
            "ids");
  EXPECT_EQ(forward.getResultAttrOfType<StringAttr>(0, "nn.name").getValue(),
            "logits");
}

TEST_F(Importer, LossFunctionAndTrainingSettings) {
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  auto loss = module->lookupSymbol<func::FuncOp>("loss");
  ASSERT_TRUE(loss);
  Builder b(&context);
  EXPECT_EQ(loss.getFunctionType(),
            b.getFunctionType(
                {tensor({2, 4}, b.getI64Type()), tensor({2}, b.getI64Type())},
                {tensor({}, b.getF32Type())}));
  EXPECT_EQ(loss.getArgAttrOfType<StringAttr>(1, "nn.name").getValue(),
            "label");
  unsigned crossEntropies = 0;
  loss.walk([&](Operation *op) {
    crossEntropies += op->getName().getStringRef() == "nn.cross_entropy";
  });
  EXPECT_EQ(crossEntropies, 1u);

  auto training = (*module)->getAttrOfType<DictionaryAttr>("nn.training");
  ASSERT_TRUE(training);
  auto optimizer = training.getAs<DictionaryAttr>("optimizer");
  ASSERT_TRUE(optimizer);
  EXPECT_EQ(optimizer.getAs<StringAttr>("kind").getValue(), "adamw");
  auto number = [](DictionaryAttr dict, StringRef name) {
    return dict.getAs<FloatAttr>(name).getValueAsDouble();
  };
  // AdamW's defaults are PyTorch's.
  EXPECT_DOUBLE_EQ(number(optimizer, "lr"), 0.001);
  EXPECT_DOUBLE_EQ(number(optimizer, "beta1"), 0.9);
  EXPECT_DOUBLE_EQ(number(optimizer, "beta2"), 0.999);
  EXPECT_DOUBLE_EQ(number(optimizer, "eps"), 1e-8);
  EXPECT_DOUBLE_EQ(number(optimizer, "weight_decay"), 0.01);
  auto schedule = training.getAs<DictionaryAttr>("schedule");
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule.getAs<StringAttr>("kind").getValue(), "linear_warmup");
  EXPECT_EQ(schedule.getAs<IntegerAttr>("warmup_steps").getInt(), 100);
  EXPECT_DOUBLE_EQ(number(training, "clip_grad_norm"), 1.0);
  EXPECT_EQ(training.getAs<IntegerAttr>("seed").getInt(), 7);
}

TEST_F(Importer, DimOverridesReachEveryType) {
  OwningOpRef<ModuleOp> module =
      import(kSmallModel, {{"batch", 8}, {"seq", 32}});
  ASSERT_TRUE(module);
  Builder b(&context);
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  ASSERT_TRUE(forward);
  EXPECT_EQ(forward.getFunctionType(),
            b.getFunctionType({tensor({8, 32}, b.getI64Type())},
                              {tensor({8, 5}, b.getF32Type())}));
  auto loss = module->lookupSymbol<func::FuncOp>("loss");
  ASSERT_TRUE(loss);
  EXPECT_EQ(loss.getArgumentTypes()[1], tensor({8}, b.getI64Type()));
  auto dims = (*module)->getAttrOfType<DictionaryAttr>("nn.dims");
  EXPECT_EQ(cast<IntegerAttr>(dims.get("batch")).getInt(), 8);
  // The sequence now fills the whole position table: no slice of it.
  unsigned slices = 0;
  forward.walk([&](nn::SliceOp) { ++slices; });
  EXPECT_EQ(slices, 0u);
}

TEST_F(Importer, ReportsEveryInstantiatedLayer) {
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  std::vector<std::pair<std::string, std::string>> got;
  for (const ImportedLayer &layer : layers)
    got.emplace_back(layer.path, layer.kind);
  std::vector<std::pair<std::string, std::string>> expected = {
      {"embed", "embedding"}, {"pos", "position_embedding"}};
  for (const char *block : {"encoder.0", "encoder.1"})
    for (auto [name, kind] :
         {std::pair("self_attn", "attention"), std::pair("residual", "add"),
          std::pair("norm1", "layer_norm"), std::pair("ff", "feed_forward"),
          std::pair("ff_residual", "add"), std::pair("norm2", "layer_norm")})
      expected.emplace_back(std::string(block) + "." + name, kind);
  for (auto [name, kind] :
       {std::pair("pool", "pool"), std::pair("head", "linear"),
        std::pair("gain", "parameter"), std::pair("offset", "parameter")})
    expected.emplace_back(name, kind);
  EXPECT_EQ(got, expected);
}

TEST_F(Importer, OpsAreLocatedAtTheirLayer) {
  OwningOpRef<ModuleOp> module = import(kSmallModel);
  ASSERT_TRUE(module);
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  ASSERT_TRUE(forward);
  // The softmax of the second block's attention: named after the layer, at
  // the line of its `layers {` in the block.
  SmallVector<Location> softmaxes;
  forward.walk([&](nn::SoftmaxOp op) { softmaxes.push_back(op.getLoc()); });
  ASSERT_EQ(softmaxes.size(), 2u);
  auto named = dyn_cast<NameLoc>(softmaxes[1]);
  ASSERT_TRUE(named);
  EXPECT_EQ(named.getName().getValue(), "encoder.1.self_attn");
  auto file = dyn_cast<FileLineColLoc>(named.getChildLoc());
  ASSERT_TRUE(file);
  EXPECT_EQ(file.getFilename().getValue(), "small.pbtxt");
  EXPECT_EQ(file.getLine(), 9u);
  EXPECT_EQ(file.getColumn(), 3u);
}

TEST_F(Importer, ImpossibleModelNamesTheLayer) {
  DiagnosticCapture diagnostics(context);
  OwningOpRef<ModuleOp> module = import(R"pb(name: "bad"
inputs { name: "x" dtype: F32 shape: ["2", "4", "10"] }
layers {
  name: "attn"
  inputs: ["x"]
  outputs: ["y"]
  attention { heads: 3 }
}
outputs: ["y"]
)pb");
  EXPECT_FALSE(module);
  ASSERT_EQ(diagnostics.size(), 1u);
  const auto &error = diagnostics.front();
  EXPECT_EQ(error.severity, DiagnosticSeverity::Error);
  EXPECT_EQ(error.message, "layers[0].attention.heads: layer 'attn': d_model "
                           "10 is not divisible by 3 heads");
  EXPECT_EQ(error.file, "small.pbtxt");
  EXPECT_EQ(error.line, 7u);
  EXPECT_EQ(error.column, 15u);
}

TEST_F(Importer, ShapeMismatchInABlockNamesTheInstance) {
  DiagnosticCapture diagnostics(context);
  OwningOpRef<ModuleOp> module = import(R"pb(name: "bad"
inputs { name: "x" dtype: F32 shape: ["2", "4", "8"] }
inputs { name: "y" dtype: F32 shape: ["2", "4", "6"] }
blocks {
  name: "mix"
  inputs: ["a", "b"]
  outputs: ["out"]
  layers { name: "sum" inputs: ["a", "b"] outputs: ["out"] add {} }
}
layers { name: "stack" inputs: ["x", "y"] outputs: ["z"] block { block: "mix" repeat: 2 } }
outputs: ["z"]
)pb");
  EXPECT_FALSE(module);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics.front().message,
            "blocks[0].layers[0]: layer 'stack.0.sum': shapes [2, 4, 8] and "
            "[2, 4, 6] do not broadcast");
  EXPECT_EQ(diagnostics.front().line, 8u);
  EXPECT_EQ(diagnostics.front().column, 3u);
}

TEST_F(Importer, ImportedLayersAreOnlyFilledOnRequest) {
  auto parsed = Spec::parse(&context, kSmallModel, "small.pbtxt", {});
  ASSERT_TRUE(succeeded(parsed));
  auto module = importSpec(&context, **parsed);
  ASSERT_TRUE(succeeded(module));
  EXPECT_EQ(parameterNames(**module).size(), 36u);
}

} // namespace
