//===- OnnxImporter.h - ONNX models to the nn dialect -----------*- C++ -*-===//
//
// An ONNX model (a serialised onnx.ModelProto, opsets 13 to 18) becomes the
// same kind of module a spec does: `@forward` over the graph's inputs, and
// an `nn.parameter` per float initializer, named after it. The values of the
// initializers come back beside the module, to be written as the model's
// weights (docs/onnx.md).
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_IMPORT_ONNXIMPORTER_H
#define TRANSFUSE_IMPORT_ONNXIMPORTER_H

#include "transfuse/Spec/Spec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <string>
#include <vector>

namespace transfuse {

/// The value of one parameter an ONNX model carries.
struct ImportedWeight {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// Whether the file at `path` holding `bytes` is an ONNX model rather than a
/// spec: named *.onnx, or a ModelProto with an IR version and a graph.
bool looksLikeOnnx(llvm::StringRef path, llvm::StringRef bytes);

/// What the command line says about an ONNX model.
struct OnnxImportOptions {
  /// `-D name=value`: each binds a symbolic dimension of the inputs and
  /// must name one, unless it is among `otherDims`.
  llvm::ArrayRef<spec::DimOverride> dims;
  /// Names -D may give that are not the model's (a training
  /// configuration's dims).
  llvm::ArrayRef<std::string> otherDims;
  /// Float initializers to keep constant: neither parameters nor weights,
  /// so not trained.
  llvm::ArrayRef<std::string> frozen;
};

/// Imports the ONNX model in `bytes`, read from `path` (external tensor
/// data is found beside it). Errors name the node, its op type and what is
/// wrong. `weights` receives the parameters' values in declaration order.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnx(mlir::MLIRContext *context, llvm::StringRef bytes,
           llvm::StringRef path, const OnnxImportOptions &options,
           std::vector<ImportedWeight> &weights);

/// Every node of the model that the importer cannot convert, one line each
/// ("node 'name' (OpType): why"); empty when every node is supported.
/// Fails, with a diagnostic, only if the file is not a readable model.
mlir::FailureOr<std::vector<std::string>>
listUnsupportedOnnxNodes(mlir::MLIRContext *context, llvm::StringRef bytes,
                         llvm::StringRef path,
                         const OnnxImportOptions &options);

} // namespace transfuse

#endif // TRANSFUSE_IMPORT_ONNXIMPORTER_H
