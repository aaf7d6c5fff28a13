//===- SpecImport.cpp - The spec targets' import --------------------------===//
#include "SpecImport.h"
#include "FuzzSupport.h"
#include "transfuse/Import/Importer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

// LLVM's BumpPtrAllocator poisons the memory it has not handed out when it
// is compiled for ASan, as the targets are, but not in libMLIR, which also
// allocates from it: ASan would see libMLIR's own allocations as poisoned.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

namespace transfuse::fuzz {

void importSpecText(llvm::StringRef text) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  bool reported = false;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    reported |= diag.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::success();
  });
  auto spec = spec::Spec::parse(&context, text, "fuzz.pbtxt", {});
  bool imported = succeeded(spec) && succeeded(importSpec(&context, **spec));
  expect(imported || reported, "a failed import to report an error");
}

} // namespace transfuse::fuzz
