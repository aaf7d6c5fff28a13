//===- CPUBackend.h - LLVM dialect to a loadable shared object ------------===//
#ifndef TRANSFUSE_BACKEND_CPUBACKEND_H
#define TRANSFUSE_BACKEND_CPUBACKEND_H

#include "transfuse/Backend/Artifact.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace transfuse {

struct CPUTarget {
  /// An LLVM CPU name (znver4, skylake-avx512, ...); "" for this host.
  std::string cpu;
};

/// Translates a module in the LLVM dialect to LLVM IR with one
/// `tf_entry_<name>(void **)` wrapper per entry point (docs/artifact.md),
/// optimised at O3 for `target`. Writes it to `os` when given.
mlir::FailureOr<std::string>
compileToSharedObject(mlir::ModuleOp module,
                      llvm::ArrayRef<EntryPointInfo> entryPoints,
                      size_t parameterCount, const CPUTarget &target,
                      std::string &error, llvm::raw_ostream *llvmIR = nullptr);

/// The CPU name compileToSharedObject uses for `target`.
std::string resolveCPUName(const CPUTarget &target);

} // namespace transfuse

#endif // TRANSFUSE_BACKEND_CPUBACKEND_H
