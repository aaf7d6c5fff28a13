//===- ObjectEmitter.h - LLVM dialect to an object file ---------*- C++ -*-===//
#ifndef TRANSFUSE_LIB_BACKEND_CPU_OBJECTEMITTER_H
#define TRANSFUSE_LIB_BACKEND_CPU_OBJECTEMITTER_H

#include "transfuse/Backend/CPUBackend.h"

namespace transfuse::cpu {

std::string resolveCPU(const CPUTarget &target);

/// An O2-optimised ELF relocatable object of `module` with the entry
/// wrappers and `exports`; the optimised LLVM IR goes to `llvmIR` when
/// given.
mlir::FailureOr<llvm::SmallVector<char>>
emitObject(mlir::ModuleOp module, llvm::ArrayRef<EntryPointInfo> entryPoints,
           size_t parameterCount, const CPUTarget &target, std::string &error,
           llvm::raw_ostream *llvmIR, const HostExports &exports);

/// Links an object into a shared object with lld, in this process.
mlir::FailureOr<std::string> linkSharedObject(llvm::ArrayRef<char> object,
                                              std::string &error);

} // namespace transfuse::cpu

#endif // TRANSFUSE_LIB_BACKEND_CPU_OBJECTEMITTER_H
