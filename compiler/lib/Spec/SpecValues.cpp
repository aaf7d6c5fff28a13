//===- SpecValues.cpp - Values the schema allows but a model cannot have --===//
//
// Protobuf accepts any integer in an int64 field, any double (NaN, Inf),
// any enum number in an open enum and any bytes in a string once escaped.
// These checks run once, right after parsing and before anything reads the
// spec, so that later code may multiply sizes, compare rates and print names
// without guarding each use. They walk the message by reflection: a field
// added to the schema is covered without being listed here.
//===----------------------------------------------------------------------===//
#include "transfuse/Spec/Spec.h"
#include "transfuse/Spec/SpecLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace mlir;
namespace pb = google::protobuf;

namespace transfuse::spec {

std::string escapeForDisplay(StringRef text) {
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::printEscapedString(text, os);
  return result;
}

std::optional<size_t> findNonText(StringRef text) {
  const auto *bytes = reinterpret_cast<const llvm::UTF8 *>(text.data());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    if (c < 0x80) {
      bool control = c < 0x20 || c == 0x7f;
      if (control && c != '\t' && c != '\n' && c != '\r')
        return i;
      ++i;
      continue;
    }
    unsigned length = llvm::getNumBytesForUTF8(c);
    if (i + length > text.size() ||
        !llvm::isLegalUTF8Sequence(bytes + i, bytes + i + length))
      return i;
    i += length;
  }
  return std::nullopt;
}

namespace {

/// Fields where an infinity is meaningful: a mask of -inf is how PyTorch
/// code writes "never attend here".
bool allowsInfinity(const pb::FieldDescriptor *field) {
  const std::string &name = field->full_name();
  return name == "transfuse.spec.Attention.mask_value" ||
         name == "transfuse.spec.MaskedFill.value" ||
         name == "transfuse.spec.Constant.values";
}

class ValueChecker {
public:
  LogicalResult check(const SpecCursor &cursor) {
    const pb::Message &message = cursor.getMessage();
    const pb::Reflection *reflection = message.GetReflection();
    if (reflection->GetUnknownFields(message).field_count() > 0)
      return emitError(cursor.getLoc())
             << (cursor.getPath().empty() ? "the model" : cursor.getPath())
             << ": field number "
             << reflection->GetUnknownFields(message).field(0).number()
             << " is not in the schema of " << message.GetDescriptor()->name();
    std::vector<const pb::FieldDescriptor *> fields;
    reflection->ListFields(message, &fields);
    for (const pb::FieldDescriptor *field : fields) {
      int count =
          field->is_repeated() ? reflection->FieldSize(message, field) : 1;
      for (int i = 0; i < count; ++i)
        if (failed(checkElement(cursor, field, field->is_repeated() ? i : -1)))
          return failure();
    }
    return success();
  }

private:
  LogicalResult checkElement(const SpecCursor &cursor,
                             const pb::FieldDescriptor *field, int index) {
    const pb::Message &message = cursor.getMessage();
    const pb::Reflection *reflection = message.GetReflection();
    bool repeated = index >= 0;
    auto error = [&]() {
      return emitError(cursor.locationOf(field->name(), index))
             << cursor.pathOf(field->name(), index) << ": ";
    };
    switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      return check(cursor.child(field->name(), index));
    case pb::FieldDescriptor::CPPTYPE_INT32:
    case pb::FieldDescriptor::CPPTYPE_INT64: {
      int64_t value =
          field->cpp_type() == pb::FieldDescriptor::CPPTYPE_INT32
              ? (repeated ? reflection->GetRepeatedInt32(message, field, index)
                          : reflection->GetInt32(message, field))
              : (repeated ? reflection->GetRepeatedInt64(message, field, index)
                          : reflection->GetInt64(message, field));
      if (value > kMaxSpecInteger || value < -kMaxSpecInteger)
        return error() << value
                       << " is out of range: sizes, counts, axes and ids lie "
                          "within ±"
                       << kMaxSpecInteger;
      return success();
    }
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: {
      double value =
          field->cpp_type() == pb::FieldDescriptor::CPPTYPE_FLOAT
              ? (repeated ? reflection->GetRepeatedFloat(message, field, index)
                          : reflection->GetFloat(message, field))
              : (repeated ? reflection->GetRepeatedDouble(message, field, index)
                          : reflection->GetDouble(message, field));
      if (std::isnan(value))
        return error() << "NaN is not a value";
      if (std::isinf(value) && !allowsInfinity(field))
        return error() << "the value must be finite, got "
                       << (value > 0 ? "inf" : "-inf");
      return success();
    }
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      int number = repeated
                       ? reflection->GetRepeatedEnumValue(message, field, index)
                       : reflection->GetEnumValue(message, field);
      const pb::EnumDescriptor *type = field->enum_type();
      if (type->FindValueByNumber(number))
        return success();
      SmallVector<std::string> known;
      for (int k = 0; k < type->value_count(); ++k)
        known.push_back(type->value(k)->name());
      return error() << number << " is not a value of " << type->name()
                     << " (" << llvm::join(known, ", ") << ")";
    }
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      std::string value =
          repeated ? reflection->GetRepeatedString(message, field, index)
                   : reflection->GetString(message, field);
      if (findNonText(value) || value.find('\n') != std::string::npos ||
          value.find('\t') != std::string::npos ||
          value.find('\r') != std::string::npos)
        return error() << "\"" << escapeForDisplay(value)
                       << "\" is not printable UTF-8 text";
      return success();
    }
    default:
      // Booleans and unsigned integers (the seed) take any value.
      return success();
    }
  }
};

} // namespace

LogicalResult checkSpecValues(const SpecCursor &root) {
  return ValueChecker().check(root);
}

} // namespace transfuse::spec
