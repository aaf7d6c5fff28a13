//===- CPUBackend.h - LLVM dialect to a loadable shared object ------------===//
#ifndef TRANSFUSE_BACKEND_CPUBACKEND_H
#define TRANSFUSE_BACKEND_CPUBACKEND_H

#include "transfuse/Backend/Artifact.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <utility>
#include <vector>

namespace transfuse {

struct CPUTarget {
  /// An LLVM CPU name (znver4, skylake-avx512, ...); "" for this host.
  std::string cpu;
};

/// What a shared object holds besides the entry points' code.
struct HostExports {
  /// Buffers each entry point takes after its outputs (the CUDA arena).
  size_t trailingBuffers = 0;
  /// Read-only data exported under their names (a CUDA artifact's kernel
  /// images), 64-byte aligned.
  std::vector<std::pair<std::string, std::string>> data;
};

/// Translates a module in the LLVM dialect to LLVM IR with one
/// `tf_entry_<name>(void **)` wrapper per entry point (docs/artifact.md),
/// optimised at O2 for `target`, and links it into a shared object with
/// `exports`. Writes the LLVM IR to `llvmIR` when given.
mlir::FailureOr<std::string> compileToSharedObject(
    mlir::ModuleOp module, llvm::ArrayRef<EntryPointInfo> entryPoints,
    size_t parameterCount, const CPUTarget &target, std::string &error,
    llvm::raw_ostream *llvmIR = nullptr, const HostExports &exports = {});

/// The CPU name compileToSharedObject uses for `target`.
std::string resolveCPUName(const CPUTarget &target);

} // namespace transfuse

#endif // TRANSFUSE_BACKEND_CPUBACKEND_H
