//===- onnx.cpp - Fuzz the ONNX importer ----------------------------------===//
//
// Any bytes as an ONNX model, imported as transfuse-compile imports one:
// in a context of its own for every input, with external data looked up in
// a directory that does not exist, so that no input reads the disk. An
// import either succeeds or fails with at least one error diagnostic.
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "transfuse/Import/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <google/protobuf/stubs/logging.h>

// As in SpecImport.cpp: libMLIR's BumpPtrAllocator is not instrumented.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // protobuf logs every string that is not UTF-8 as an error on stderr.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  bool reported = false;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    reported |= diag.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::success();
  });
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  std::vector<transfuse::ImportedWeight> weights;
  const transfuse::spec::DimOverride batch{"batch", 2};
  transfuse::OnnxImportOptions options;
  options.dims = batch;
  bool imported = succeeded(transfuse::importOnnx(
      &context, bytes, "/nonexistent-fuzz-dir/fuzz.onnx", options, weights));
  transfuse::fuzz::expect(imported || reported,
                          "a failed import to report an error");
  return 0;
}
