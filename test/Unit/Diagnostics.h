//===- Diagnostics.h - Capturing diagnostics in unit tests ------*- C++ -*-===//
//
// Records every diagnostic emitted on a context while in scope, with the
// file:line:col it points at, so that tests can check both the message and
// the location of an error.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_UNIT_DIAGNOSTICS_H
#define TRANSFUSE_TEST_UNIT_DIAGNOSTICS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include <string>
#include <vector>

namespace transfuse::test {

struct CapturedDiagnostic {
  mlir::DiagnosticSeverity severity;
  std::string message;
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  /// The name of a NameLoc around the position (the layer path), if any.
  std::string name;
};

class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          record(diag);
          return mlir::success();
        }) {}

  const std::vector<CapturedDiagnostic> &all() const { return diagnostics; }
  size_t size() const { return diagnostics.size(); }
  const CapturedDiagnostic &front() const { return diagnostics.front(); }

private:
  void record(mlir::Diagnostic &diag) {
    CapturedDiagnostic captured;
    captured.severity = diag.getSeverity();
    captured.message = diag.str();
    mlir::Location loc = diag.getLocation();
    if (auto named = mlir::dyn_cast<mlir::NameLoc>(loc)) {
      captured.name = named.getName().str();
      loc = named.getChildLoc();
    }
    if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc)) {
      captured.file = file.getFilename().str();
      captured.line = file.getLine();
      captured.column = file.getColumn();
    }
    diagnostics.push_back(std::move(captured));
  }

  std::vector<CapturedDiagnostic> diagnostics;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace transfuse::test

#endif // TRANSFUSE_TEST_UNIT_DIAGNOSTICS_H
