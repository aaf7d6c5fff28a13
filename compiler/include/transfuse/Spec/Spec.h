//===- Spec.h - A parsed model spec with its source locations -------------===//
//
// A model spec (`models/model.proto`) read from protobuf text format, with
// the position of every field kept so that any later error can point at the
// exact line and column and name the field path (`layers[3].attention.heads`).
// All errors are reported as MLIR diagnostics on FileLineColLoc locations.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_SPEC_SPEC_H
#define TRANSFUSE_SPEC_SPEC_H

#include "model.pb.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include <google/protobuf/text_format.h>
#include <memory>
#include <string>

namespace transfuse::spec {

/// `-D name=value` on the command line.
struct DimOverride {
  std::string name;
  int64_t value;
};

/// Parses "name=value"; fails with a message naming the argument.
mlir::FailureOr<DimOverride> parseDimOverride(llvm::StringRef argument,
                                              std::string &why);

/// Whether `filename` names a binary-encoded spec (`*.pb`, `*.binpb`).
bool isBinarySpec(llvm::StringRef filename);

/// A position in the spec: a message, where its fields were written, and the
/// field path that leads to it from the model.
class SpecCursor {
public:
  SpecCursor(const google::protobuf::Message &message,
             const google::protobuf::TextFormat::ParseInfoTree *tree,
             mlir::Location loc, std::string path)
      : message(&message), tree(tree), loc(loc), path(std::move(path)) {}

  /// The nested message in `field` (element `index` if repeated).
  SpecCursor child(llvm::StringRef field, int index = -1) const;
  /// Where `field` (element `index` if repeated) was written; this message's
  /// own location when it was not written. A repeated field written as a
  /// list (`shape: ["a", "b"]`) has one location for all its elements, and
  /// a repeated field without `index` is its first element.
  mlir::Location locationOf(llvm::StringRef field, int index = -1) const;
  /// `path.field` or `path.field[index]`.
  std::string pathOf(llvm::StringRef field, int index = -1) const;

  const google::protobuf::Message &getMessage() const { return *message; }
  mlir::Location getLoc() const { return loc; }
  const std::string &getPath() const { return path; }

private:
  const google::protobuf::FieldDescriptor *field(llvm::StringRef name) const;

  const google::protobuf::Message *message;
  const google::protobuf::TextFormat::ParseInfoTree *tree;
  mlir::Location loc;
  std::string path;
};

/// A loaded, structurally checked spec.
class Spec {
public:
  const Model &getModel() const { return model; }
  /// The cursor at the root message.
  SpecCursor root() const;
  /// Named sizes after `-D` overrides.
  const llvm::StringMap<int64_t> &getDims() const { return dims; }
  llvm::StringRef getFilename() const { return filename; }

  /// Resolves one entry of a shape: a positive integer, `-1` where
  /// `allowInferred`, or a dim name. Reports at `cursor.field[index]`.
  mlir::FailureOr<int64_t> resolveSize(const SpecCursor &cursor,
                                       llvm::StringRef field, int index,
                                       bool allowInferred = false) const;
  /// Resolves every entry of the repeated string `field`.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  resolveShape(const SpecCursor &cursor, llvm::StringRef field,
               bool allowInferred = false) const;

  /// Parses `text` (the contents of `filename`: protobuf text format, or
  /// binary protobuf where isBinarySpec(filename)), checks its values
  /// (SpecLimits.h) and applies `overrides`.
  static mlir::FailureOr<std::unique_ptr<Spec>>
  parse(mlir::MLIRContext *context, llvm::StringRef text,
        llvm::StringRef filename, llvm::ArrayRef<DimOverride> overrides);

private:
  Spec(mlir::MLIRContext *context, std::string filename)
      : context(context), filename(std::move(filename)),
        binary(isBinarySpec(this->filename)) {}
  mlir::LogicalResult applyDims(llvm::ArrayRef<DimOverride> overrides);

  mlir::MLIRContext *context;
  std::string filename;
  bool binary;
  Model model;
  google::protobuf::TextFormat::ParseInfoTree locations;
  llvm::StringMap<int64_t> dims;
};

} // namespace transfuse::spec

#endif // TRANSFUSE_SPEC_SPEC_H
