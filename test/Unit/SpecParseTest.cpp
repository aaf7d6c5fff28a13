//===- SpecParseTest.cpp - Spec::parse, dims, shapes and cursors ----------===//
//
// The spec loader through its C++ API: parsing good and bad text (with the
// diagnostics and where they point), `-D` overrides, shape resolution, and
// the field locations and paths that every later error is reported with.
//===----------------------------------------------------------------------===//
#include "Diagnostics.h"
#include "transfuse/Spec/Spec.h"

#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace transfuse::spec;
using mlir::FileLineColLoc;
using transfuse::test::DiagnosticCapture;

namespace {

// Line numbers below are those of this text; the fields start where the
// comments say.
constexpr const char *kSpec = R"pb(name: "cursor"
dims { name: "batch" value: 2 }
dims { name: "seq" value: 16 }
inputs { name: "x" dtype: F32 shape: ["batch", "seq", "8"] }
inputs {
  name: "ids"
  dtype: I64
  shape: "batch"
  shape: "seq"
}
layers { name: "act" inputs: ["x"] outputs: ["h"] relu {} }
layers {
  name: "attn"
  inputs: ["h"]
  outputs: ["a"]
  attention { heads: 2 causal: true }
}
layers { name: "flat" inputs: ["a"] outputs: ["y"] reshape { shape: ["batch", "-1"] } }
outputs: ["y"]
)pb";

class SpecTestBase : public ::testing::Test {
protected:
  std::unique_ptr<Spec> parse(llvm::StringRef text,
                              llvm::ArrayRef<DimOverride> overrides = {}) {
    auto spec = Spec::parse(&context, text, "test.pbtxt", overrides);
    if (mlir::failed(spec))
      return nullptr;
    return std::move(*spec);
  }

  /// Parses `text`, which must fail with exactly one error; returns it.
  transfuse::test::CapturedDiagnostic
  parseError(llvm::StringRef text, llvm::ArrayRef<DimOverride> overrides = {}) {
    DiagnosticCapture diagnostics(context);
    EXPECT_EQ(parse(text, overrides), nullptr);
    EXPECT_EQ(diagnostics.size(), 1u);
    if (diagnostics.size() == 0)
      return {};
    EXPECT_EQ(diagnostics.front().severity, mlir::DiagnosticSeverity::Error);
    return diagnostics.front();
  }

  static std::pair<unsigned, unsigned> lineCol(mlir::Location loc) {
    auto file = mlir::dyn_cast<FileLineColLoc>(loc);
    if (!file)
      return {0, 0};
    return {file.getLine(), file.getColumn()};
  }

  mlir::MLIRContext context;
};

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

using SpecParse = SpecTestBase;

TEST_F(SpecParse, ReadsAGoodSpecWithoutDiagnostics) {
  DiagnosticCapture diagnostics(context);
  std::unique_ptr<Spec> spec = parse(kSpec);
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(diagnostics.size(), 0u);
  EXPECT_EQ(spec->getFilename(), "test.pbtxt");
  const Model &model = spec->getModel();
  EXPECT_EQ(model.name(), "cursor");
  ASSERT_EQ(model.inputs_size(), 2);
  EXPECT_EQ(model.inputs(1).shape_size(), 2);
  ASSERT_EQ(model.layers_size(), 3);
  EXPECT_TRUE(model.layers(1).has_attention());
  EXPECT_EQ(model.layers(1).attention().heads(), 2);
  EXPECT_EQ(spec->getDims().size(), 2u);
  EXPECT_EQ(spec->getDims().lookup("batch"), 2);
  EXPECT_EQ(spec->getDims().lookup("seq"), 16);
}

TEST_F(SpecParse, SyntaxErrorPointsAtTheToken) {
  auto error = parseError("name: \"m\"\nlayers { name: \"a\" inputs: x }\n");
  EXPECT_EQ(error.message, "Expected string, got: x");
  EXPECT_EQ(error.file, "test.pbtxt");
  EXPECT_EQ(error.line, 2u);
  EXPECT_EQ(error.column, 28u);
}

TEST_F(SpecParse, UnclosedBraceSaysTheFileEnded) {
  auto error = parseError("name: \"m\"\nlayers { name: \"a\" relu {}\n");
  EXPECT_EQ(error.message,
            "Expected identifier, got the end of the file (a '}' is missing)");
  EXPECT_EQ(error.line, 3u);
  EXPECT_EQ(error.column, 1u);
}

TEST_F(SpecParse, UnknownFieldNamesTheMessageType) {
  auto error = parseError(
      "layers {\n  name: \"a\"\n  attention { heads: 2 num_heads: 2 }\n}\n");
  EXPECT_EQ(error.message,
            "MultiHeadAttention has no field named \"num_heads\"");
  EXPECT_EQ(error.line, 3u);
}

TEST_F(SpecParse, UnknownLayerFieldIsAnUnknownLayerType) {
  auto error = parseError("layers { name: \"c\" conv2d { } }\n");
  EXPECT_EQ(error.message, "unknown layer type or layer field 'conv2d'");
  EXPECT_EQ(error.line, 1u);
}

TEST_F(SpecParse, UnknownEnumValue) {
  auto error = parseError("inputs { name: \"x\" dtype: F16 }\n");
  EXPECT_EQ(error.message,
            "Unknown enumeration value of \"F16\" for field \"dtype\".");
  EXPECT_EQ(error.line, 1u);
}

TEST_F(SpecParse, OnlyTheFirstTokenizerErrorIsReported) {
  // Protobuf reports each byte of a non-ASCII character.
  auto error = parseError("name: \"m\"\n\xc3\xa9\n");
  EXPECT_EQ(error.message, "Interpreting non ascii codepoint 195.");
  EXPECT_EQ(error.line, 2u);
  EXPECT_EQ(error.column, 1u);
}

TEST_F(SpecParse, DimWithoutPositiveValue) {
  auto error = parseError("name: \"m\"\ndims { name: \"batch\" }\n");
  EXPECT_EQ(error.message, "dims[0]: a dim needs a name and a positive value");
  EXPECT_EQ(error.line, 2u);
  EXPECT_EQ(error.column, 1u);
}

TEST_F(SpecParse, DimDefinedTwice) {
  auto error = parseError("dims { name: \"batch\" value: 2 }\n"
                          "dims { name: \"seq\" value: 4 }\n"
                          "dims { name: \"batch\" value: 8 }\n");
  EXPECT_EQ(error.message, "dims[2]: dim 'batch' is defined twice");
  EXPECT_EQ(error.line, 3u);
}

TEST_F(SpecParse, EmptyTextIsAnEmptyModel) {
  // Whether a model without layers or outputs is usable is the importer's
  // call; the loader accepts it.
  DiagnosticCapture diagnostics(context);
  std::unique_ptr<Spec> spec = parse("");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(diagnostics.size(), 0u);
  EXPECT_EQ(spec->getModel().layers_size(), 0);
}

//===----------------------------------------------------------------------===//
// -D overrides
//===----------------------------------------------------------------------===//

using DimOverrides = SpecTestBase;

TEST_F(DimOverrides, ReplaceTheSpecValue) {
  std::unique_ptr<Spec> spec = parse(kSpec, {{"batch", 32}});
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->getDims().lookup("batch"), 32);
  EXPECT_EQ(spec->getDims().lookup("seq"), 16);
  // The model message itself keeps what the file says.
  EXPECT_EQ(spec->getModel().dims(0).value(), 2);
}

TEST_F(DimOverrides, SeveralApplyInOrder) {
  std::unique_ptr<Spec> spec =
      parse(kSpec, {{"seq", 64}, {"batch", 8}, {"batch", 4}});
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->getDims().lookup("batch"), 4);
  EXPECT_EQ(spec->getDims().lookup("seq"), 64);
}

TEST_F(DimOverrides, UnknownNameListsTheDims) {
  auto error = parseError(kSpec, {{"heads", 4}});
  EXPECT_EQ(error.message, "-D heads=4: the spec has no dim named 'heads' "
                           "(dims: batch, seq)");
  EXPECT_EQ(error.file, "test.pbtxt");
  // About the file, not one of its lines.
  EXPECT_EQ(error.line, 0u);
  EXPECT_EQ(error.column, 0u);
}

TEST_F(DimOverrides, UnknownNameInASpecWithoutDims) {
  auto error = parseError("name: \"m\"\n", {{"batch", 4}});
  EXPECT_EQ(error.message,
            "-D batch=4: the spec has no dim named 'batch' (dims: none)");
}

TEST_F(DimOverrides, NamesAreCaseSensitive) {
  auto error = parseError(kSpec, {{"Batch", 4}});
  EXPECT_EQ(error.message, "-D Batch=4: the spec has no dim named 'Batch' "
                           "(dims: batch, seq)");
}

TEST(ParseDimOverride, TrimsSpaces) {
  std::string why;
  auto override = parseDimOverride(" seq = 128 ", why);
  ASSERT_TRUE(mlir::succeeded(override));
  EXPECT_EQ(override->name, "seq");
  EXPECT_EQ(override->value, 128);
}

TEST(ParseDimOverride, RejectsMalformedArguments) {
  for (const char *argument : {"batch", "=8", "batch=", "batch=0", "batch=-3",
                               "batch=8x", "batch=eight", "batch=1.5",
                               "batch=99999999999999999999", "batch=8=9"}) {
    std::string why;
    EXPECT_TRUE(mlir::failed(parseDimOverride(argument, why))) << argument;
    EXPECT_EQ(why, "-D " + std::string(argument) +
                       ": expected name=positive integer up to "
                       "2147483647");
  }
  std::string why;
  EXPECT_TRUE(mlir::failed(parseDimOverride("batch=2147483648", why)));
  EXPECT_TRUE(mlir::succeeded(parseDimOverride("batch=2147483647", why)));
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

class ResolveShape : public SpecTestBase {
protected:
  void SetUp() override {
    spec = parse(kSpec);
    ASSERT_NE(spec, nullptr);
  }
  SpecCursor input(int i) const { return spec->root().child("inputs", i); }
  SpecCursor reshape() const {
    return spec->root().child("layers", 2).child("reshape");
  }

  std::unique_ptr<Spec> spec;
};

TEST_F(ResolveShape, DimNamesAndIntegers) {
  auto shape = spec->resolveShape(input(0), "shape");
  ASSERT_TRUE(mlir::succeeded(shape));
  EXPECT_EQ(*shape, (llvm::SmallVector<int64_t>{2, 16, 8}));
  auto ids = spec->resolveShape(input(1), "shape");
  ASSERT_TRUE(mlir::succeeded(ids));
  EXPECT_EQ(*ids, (llvm::SmallVector<int64_t>{2, 16}));
}

TEST_F(ResolveShape, InferredSizeWhereAllowed) {
  auto shape = spec->resolveShape(reshape(), "shape", /*allowInferred=*/true);
  ASSERT_TRUE(mlir::succeeded(shape));
  EXPECT_EQ(*shape, (llvm::SmallVector<int64_t>{2, -1}));
  auto size = spec->resolveSize(reshape(), "shape", 1, /*allowInferred=*/true);
  ASSERT_TRUE(mlir::succeeded(size));
  EXPECT_EQ(*size, -1);
}

TEST_F(ResolveShape, InferredSizeRejectedElsewhere) {
  DiagnosticCapture diagnostics(context);
  EXPECT_TRUE(mlir::failed(spec->resolveShape(reshape(), "shape")));
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(
      diagnostics.front().message,
      "layers[2].reshape.shape[1]: '-1' is neither a positive size (up to "
      "2147483647) nor a dim of the spec");
  // The list syntax records one position, that of the field.
  EXPECT_EQ(diagnostics.front().line, 18u);
  EXPECT_EQ(diagnostics.front().column, 62u);
}

TEST_F(ResolveShape, FollowsOverrides) {
  std::unique_ptr<Spec> overridden = parse(kSpec, {{"seq", 3}});
  ASSERT_NE(overridden, nullptr);
  auto shape =
      overridden->resolveShape(overridden->root().child("inputs", 0), "shape");
  ASSERT_TRUE(mlir::succeeded(shape));
  EXPECT_EQ(*shape, (llvm::SmallVector<int64_t>{2, 3, 8}));
}

TEST_F(ResolveShape, EmptyShapeIsAScalar) {
  std::unique_ptr<Spec> scalar = parse("inputs { name: \"t\" dtype: F32 }\n");
  ASSERT_NE(scalar, nullptr);
  auto shape = scalar->resolveShape(scalar->root().child("inputs", 0), "shape");
  ASSERT_TRUE(mlir::succeeded(shape));
  EXPECT_TRUE(shape->empty());
}

/// Resolves the one-entry shape `entry` of an input; returns the error.
static std::string resolveError(mlir::MLIRContext &context,
                                const std::string &entry, bool allowInferred) {
  DiagnosticCapture diagnostics(context);
  auto spec = Spec::parse(&context,
                          "dims { name: \"batch\" value: 2 }\n"
                          "inputs { name: \"x\" shape: \"" +
                              entry + "\" }\n",
                          "shape.pbtxt", {});
  if (mlir::failed(spec))
    return "parse failed";
  auto shape = (*spec)->resolveShape((*spec)->root().child("inputs", 0),
                                     "shape", allowInferred);
  if (mlir::succeeded(shape) || diagnostics.size() != 1)
    return "no single error";
  const auto &error = diagnostics.front();
  return std::to_string(error.line) + ":" + std::to_string(error.column) +
         ": " + error.message;
}

TEST_F(ResolveShape, RejectsBadEntries) {
  EXPECT_EQ(resolveError(context, "0", false),
            "2:20: inputs[0].shape[0]: '0' is neither a positive size (up to "
            "2147483647) nor a dim of the spec");
  EXPECT_EQ(resolveError(context, "-3", true),
            "2:20: inputs[0].shape[0]: '-3' is neither a positive size (up to "
            "2147483647), -1, nor a dim of the spec");
  EXPECT_EQ(resolveError(context, "seq", false),
            "2:20: inputs[0].shape[0]: 'seq' is neither a positive size (up to "
            "2147483647) nor a dim of the spec");
  EXPECT_EQ(resolveError(context, "Batch", false),
            "2:20: inputs[0].shape[0]: 'Batch' is neither a positive size "
            "(up to 2147483647) nor a dim of the spec");
  EXPECT_EQ(resolveError(context, "2147483648", false),
            "2:20: inputs[0].shape[0]: '2147483648' is neither a positive "
            "size (up to 2147483647) nor a dim of the spec");
  EXPECT_EQ(resolveError(context, "", false),
            "2:20: inputs[0].shape[0]: '' is neither a positive size (up to "
            "2147483647) nor a dim of the spec");
}

//===----------------------------------------------------------------------===//
// SpecCursor
//===----------------------------------------------------------------------===//

using Cursor = SpecTestBase;

TEST_F(Cursor, PathsOfNestedFields) {
  std::unique_ptr<Spec> spec = parse(kSpec);
  ASSERT_NE(spec, nullptr);
  SpecCursor root = spec->root();
  EXPECT_EQ(root.getPath(), "");
  EXPECT_EQ(root.pathOf("outputs"), "outputs");
  EXPECT_EQ(root.pathOf("layers", 1), "layers[1]");
  SpecCursor attention = root.child("layers", 1).child("attention");
  EXPECT_EQ(attention.getPath(), "layers[1].attention");
  EXPECT_EQ(attention.pathOf("heads"), "layers[1].attention.heads");
  EXPECT_EQ(root.child("inputs", 1).pathOf("shape", 1), "inputs[1].shape[1]");
  EXPECT_EQ(root.child("training").child("labels").pathOf("dtype"),
            "training.labels.dtype");
}

TEST_F(Cursor, LocationsOfNestedFields) {
  std::unique_ptr<Spec> spec = parse(kSpec);
  ASSERT_NE(spec, nullptr);
  SpecCursor root = spec->root();
  using LineCol = std::pair<unsigned, unsigned>;
  // The root is the start of the file.
  EXPECT_EQ(lineCol(root.getLoc()), LineCol(1, 1));
  // A message is where its field name is written.
  SpecCursor attnLayer = root.child("layers", 1);
  EXPECT_EQ(lineCol(attnLayer.getLoc()), LineCol(12, 1));
  EXPECT_EQ(lineCol(attnLayer.locationOf("name")), LineCol(13, 3));
  SpecCursor attention = attnLayer.child("attention");
  EXPECT_EQ(lineCol(attention.getLoc()), LineCol(16, 3));
  EXPECT_EQ(lineCol(attention.locationOf("heads")), LineCol(16, 15));
  EXPECT_EQ(lineCol(attention.locationOf("causal")), LineCol(16, 24));
  // Fields on one line.
  SpecCursor x = root.child("inputs", 0);
  EXPECT_EQ(lineCol(x.locationOf("name")), LineCol(4, 10));
  EXPECT_EQ(lineCol(x.locationOf("dtype")), LineCol(4, 20));
  SpecCursor reshape = root.child("layers", 2).child("reshape");
  EXPECT_EQ(lineCol(reshape.getLoc()), LineCol(18, 52));
  EXPECT_EQ(lineCol(reshape.locationOf("shape", 0)), LineCol(18, 62));
  // An index on a singular field is ignored.
  EXPECT_EQ(lineCol(attention.locationOf("heads", 3)), LineCol(16, 15));
  // The location carries the spec's file name.
  auto file = mlir::dyn_cast<FileLineColLoc>(attention.locationOf("heads"));
  ASSERT_TRUE(file);
  EXPECT_EQ(file.getFilename().str(), "test.pbtxt");
}

TEST_F(Cursor, LocationsOfRepeatedFields) {
  std::unique_ptr<Spec> spec = parse(kSpec);
  ASSERT_NE(spec, nullptr);
  SpecCursor root = spec->root();
  using LineCol = std::pair<unsigned, unsigned>;
  // Repeated entries written one by one each have their own position.
  SpecCursor ids = root.child("inputs", 1);
  EXPECT_EQ(lineCol(ids.locationOf("shape", 0)), LineCol(8, 3));
  EXPECT_EQ(lineCol(ids.locationOf("shape", 1)), LineCol(9, 3));
  // A list is one position, that of the field, for all its elements.
  SpecCursor x = root.child("inputs", 0);
  EXPECT_EQ(lineCol(x.locationOf("shape", 0)), LineCol(4, 31));
  EXPECT_EQ(lineCol(x.locationOf("shape", 2)), LineCol(4, 31));
  EXPECT_EQ(lineCol(root.locationOf("outputs", 0)), LineCol(19, 1));
  // A repeated field as a whole is its first entry.
  EXPECT_EQ(lineCol(ids.locationOf("shape")), LineCol(8, 3));
  EXPECT_EQ(lineCol(root.locationOf("layers")), LineCol(11, 1));
  EXPECT_EQ(lineCol(root.locationOf("dims", 1)), LineCol(3, 1));
}

TEST_F(Cursor, UnwrittenFieldsAreTheirMessage) {
  std::unique_ptr<Spec> spec = parse(kSpec);
  ASSERT_NE(spec, nullptr);
  using LineCol = std::pair<unsigned, unsigned>;
  SpecCursor attention = spec->root().child("layers", 1).child("attention");
  EXPECT_EQ(lineCol(attention.locationOf("dropout")), LineCol(16, 3));
  // An empty message is where its field name is.
  SpecCursor relu = spec->root().child("layers", 0);
  EXPECT_EQ(lineCol(relu.child("relu").getLoc()), LineCol(11, 51));
  // A repeated field without entries is its message.
  EXPECT_EQ(lineCol(spec->root().locationOf("blocks")), LineCol(1, 1));
  // A message that is not written at all is where its parent is.
  SpecCursor training = spec->root().child("training");
  EXPECT_EQ(lineCol(training.getLoc()), LineCol(1, 1));
  EXPECT_EQ(lineCol(training.child("optimizer").locationOf("adam")),
            LineCol(1, 1));
  EXPECT_EQ(lineCol(spec->root().child("inputs", 0).locationOf("name", -1)),
            LineCol(4, 10));
}

TEST_F(Cursor, WithoutLocationsEveryFieldIsTheCursor) {
  Model model;
  model.add_layers()->set_name("a");
  auto loc = FileLineColLoc::get(&context, "built.pbtxt", 7, 3);
  SpecCursor root(model, /*tree=*/nullptr, loc, "");
  EXPECT_EQ(root.locationOf("layers", 0), mlir::Location(loc));
  SpecCursor layer = root.child("layers", 0);
  EXPECT_EQ(layer.getLoc(), mlir::Location(loc));
  EXPECT_EQ(layer.locationOf("name"), mlir::Location(loc));
  EXPECT_EQ(layer.getPath(), "layers[0]");
}

} // namespace
