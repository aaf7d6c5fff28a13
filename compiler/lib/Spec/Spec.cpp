//===- Spec.cpp - Parsing model specs with their locations ----------------===//
#include "transfuse/Spec/Spec.h"
#include "transfuse/Spec/SpecLimits.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include <google/protobuf/io/tokenizer.h>

using namespace mlir;
namespace pb = google::protobuf;

namespace transfuse::spec {

FailureOr<DimOverride> parseDimOverride(StringRef argument, std::string &why) {
  auto [name, value] = argument.split('=');
  DimOverride result;
  result.name = name.trim().str();
  if (result.name.empty() || value.trim().getAsInteger(10, result.value) ||
      result.value <= 0 || result.value > kMaxSpecInteger) {
    why = "-D " + escapeForDisplay(argument) +
          ": expected name=positive integer up to " +
          std::to_string(kMaxSpecInteger);
    return failure();
  }
  return result;
}

//===----------------------------------------------------------------------===//
// SpecCursor
//===----------------------------------------------------------------------===//

const pb::FieldDescriptor *SpecCursor::field(StringRef name) const {
  const pb::FieldDescriptor *descriptor =
      message->GetDescriptor()->FindFieldByName(name.str());
  assert(descriptor && "cursor asked for a field the schema does not have");
  return descriptor;
}

Location SpecCursor::locationOf(StringRef name, int index) const {
  if (!tree)
    return loc;
  const pb::FieldDescriptor *descriptor = field(name);
  // A repeated field as a whole is where its first element was written;
  // protobuf aborts on an index that does not fit the field's kind.
  if (!descriptor->is_repeated())
    index = -1;
  else if (index < 0)
    index = 0;
  pb::TextFormat::ParseLocation where = tree->GetLocation(descriptor, index);
  // The list syntax (`shape: ["a", "b"]`) records one location, that of the
  // field, for all of its elements.
  if (where.line < 0 && index > 0)
    where = tree->GetLocation(descriptor, 0);
  if (where.line < 0)
    return loc;
  auto file = cast<FileLineColLoc>(loc).getFilename();
  return FileLineColLoc::get(file, where.line + 1, where.column + 1);
}

std::string SpecCursor::pathOf(StringRef name, int index) const {
  std::string result = path.empty() ? name.str() : path + "." + name.str();
  if (index >= 0)
    result += "[" + std::to_string(index) + "]";
  return result;
}

SpecCursor SpecCursor::child(StringRef name, int index) const {
  const pb::FieldDescriptor *descriptor = field(name);
  const pb::Reflection *reflection = message->GetReflection();
  const pb::Message &nested =
      index >= 0 ? reflection->GetRepeatedMessage(*message, descriptor, index)
                 : reflection->GetMessage(*message, descriptor);
  const pb::TextFormat::ParseInfoTree *nestedTree =
      tree ? tree->GetTreeForNested(descriptor, index) : nullptr;
  return SpecCursor(nested, nestedTree, locationOf(name, index),
                    pathOf(name, index));
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {
/// Turns protobuf's parse errors into diagnostics at file:line:col.
class DiagnosticCollector : public pb::io::ErrorCollector {
public:
  DiagnosticCollector(MLIRContext *context, StringRef filename)
      : context(context), filename(filename) {}

  void AddError(int line, pb::io::ColumnNumber column,
                const std::string &message) override {
    // Only the first error: the parser's later ones follow from it.
    if (failed)
      return;
    failed = true;
    emitError(FileLineColLoc::get(context, filename, line + 1, column + 1))
        << rephrase(message);
  }
  void AddWarning(int, pb::io::ColumnNumber, const std::string &) override {}

  bool failed = false;

private:
  /// Protobuf says "Message type "transfuse.spec.Layer" has no field named
  /// "conv"": in a layer that is an unknown layer type.
  static std::string rephrase(const std::string &message) {
    StringRef text(message);
    if (text.consume_front("Message type \"transfuse.spec.Layer\" has no field "
                           "named \"")) {
      StringRef name = text.take_until([](char c) { return c == '"'; });
      return ("unknown layer type or layer field '" + name + "'").str();
    }
    if (text.consume_front("Message type \"transfuse.spec.")) {
      auto [type, rest] = text.split('"');
      return (type + " " + rest.trim().rtrim('.')).str();
    }
    // At the end of the text the tokenizer's current token is empty.
    if (text.consume_back(", got: "))
      return (text + ", got the end of the file" +
              (text == "Expected identifier" ? " (a '}' is missing)" : ""))
          .str();
    return message;
  }

  MLIRContext *context;
  std::string filename;
};
} // namespace

bool isBinarySpec(StringRef filename) {
  return filename.ends_with(".pb") || filename.ends_with(".binpb");
}

/// Text format must be text: a control byte or malformed UTF-8 would reach
/// the terminal raw in the parser's message and the echoed source line.
/// Reported at line 0 (the file) so that the line is not echoed.
static LogicalResult checkIsText(MLIRContext *context, StringRef text,
                                 StringRef filename) {
  std::optional<size_t> offset = findNonText(text);
  if (!offset)
    return success();
  StringRef before = text.take_front(*offset);
  size_t line = before.count('\n') + 1;
  size_t column = *offset - (before.rfind('\n') + 1) + 1;
  return emitError(FileLineColLoc::get(context, filename, 0, 0))
         << "line " << line << ", column " << column << ": byte 0x"
         << llvm::utohexstr(static_cast<unsigned char>(text[*offset]),
                            /*LowerCase=*/true, /*Width=*/2)
         << " is not text; a spec is UTF-8 protobuf text format, or binary "
            "protobuf in a file named *.pb or *.binpb";
}

FailureOr<std::unique_ptr<Spec>> Spec::parse(MLIRContext *context,
                                             StringRef text, StringRef filename,
                                             ArrayRef<DimOverride> overrides) {
  std::unique_ptr<Spec> spec(new Spec(context, filename.str()));
  if (spec->binary) {
    if (!spec->model.ParseFromArray(text.data(), static_cast<int>(text.size())))
      return emitError(spec->root().getLoc())
             << "cannot parse the binary model spec (a serialized "
                "transfuse.spec.Model)";
  } else {
    if (failed(checkIsText(context, text, filename)))
      return failure();
    DiagnosticCollector collector(context, filename);
    pb::TextFormat::Parser parser;
    parser.RecordErrorsTo(&collector);
    parser.WriteLocationsTo(&spec->locations);
    if (!parser.ParseFromString(text.str(), &spec->model) || collector.failed) {
      if (!collector.failed)
        emitError(FileLineColLoc::get(context, filename, 1, 1))
            << "cannot parse the model spec";
      return failure();
    }
  }
  if (failed(checkSpecValues(spec->root())) ||
      failed(spec->applyDims(overrides)))
    return failure();
  return spec;
}

SpecCursor Spec::root() const {
  // A binary spec has no lines: its errors are about the file (line 0).
  unsigned line = binary ? 0 : 1;
  return SpecCursor(model, &locations,
                    FileLineColLoc::get(context, filename, line, line), "");
}

LogicalResult Spec::applyDims(ArrayRef<DimOverride> overrides) {
  SpecCursor cursor = root();
  for (int i = 0; i < model.dims_size(); ++i) {
    const Dim &dim = model.dims(i);
    Location loc = cursor.locationOf("dims", i);
    if (dim.name().empty() || dim.value() <= 0)
      return emitError(loc) << cursor.pathOf("dims", i)
                            << ": a dim needs a name and a positive value";
    if (!dims.try_emplace(dim.name(), dim.value()).second)
      return emitError(loc) << cursor.pathOf("dims", i) << ": dim '"
                            << dim.name() << "' is defined twice";
  }
  for (const DimOverride &override : overrides) {
    auto it = dims.find(override.name);
    if (it == dims.end()) {
      SmallVector<StringRef> known;
      for (const Dim &dim : model.dims())
        known.push_back(dim.name());
      // Line 0: the error is about the file, not one of its lines.
      return emitError(FileLineColLoc::get(context, filename, 0, 0))
             << "-D " << escapeForDisplay(override.name) << "="
             << override.value << ": the spec has no dim named '"
             << escapeForDisplay(override.name) << "' (dims: "
             << (known.empty() ? "none" : llvm::join(known, ", ")) << ")";
    }
    it->second = override.value;
  }
  return success();
}

FailureOr<int64_t> Spec::resolveSize(const SpecCursor &cursor, StringRef field,
                                     int index, bool allowInferred) const {
  const pb::Message &message = cursor.getMessage();
  const pb::FieldDescriptor *descriptor =
      message.GetDescriptor()->FindFieldByName(field.str());
  std::string entry =
      message.GetReflection()->GetRepeatedString(message, descriptor, index);
  int64_t value;
  if (!StringRef(entry).getAsInteger(10, value)) {
    if ((value > 0 && value <= kMaxSpecInteger) ||
        (allowInferred && value == -1))
      return value;
  } else if (auto it = dims.find(entry); it != dims.end()) {
    return it->second;
  }
  InFlightDiagnostic diag = emitError(cursor.locationOf(field, index))
                            << cursor.pathOf(field, index) << ": '" << entry
                            << "' is neither a positive size (up to "
                            << kMaxSpecInteger << ")";
  if (allowInferred)
    diag << ", -1,";
  diag << " nor a dim of the spec";
  return failure();
}

FailureOr<SmallVector<int64_t>> Spec::resolveShape(const SpecCursor &cursor,
                                                   StringRef field,
                                                   bool allowInferred) const {
  const pb::Message &message = cursor.getMessage();
  const pb::FieldDescriptor *descriptor =
      message.GetDescriptor()->FindFieldByName(field.str());
  SmallVector<int64_t> shape;
  int size = message.GetReflection()->FieldSize(message, descriptor);
  for (int i = 0; i < size; ++i) {
    FailureOr<int64_t> dim = resolveSize(cursor, field, i, allowInferred);
    if (failed(dim))
      return failure();
    shape.push_back(*dim);
  }
  return shape;
}

} // namespace transfuse::spec
