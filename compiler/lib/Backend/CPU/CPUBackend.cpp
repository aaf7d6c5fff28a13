//===- CPUBackend.cpp - LLVM dialect to a loadable shared object ----------===//
#include "transfuse/Backend/CPUBackend.h"
#include "ObjectEmitter.h"

using namespace mlir;

namespace transfuse {

std::string resolveCPUName(const CPUTarget &target) {
  return cpu::resolveCPU(target);
}

FailureOr<std::string>
compileToSharedObject(ModuleOp module, ArrayRef<EntryPointInfo> entryPoints,
                      size_t parameterCount, const CPUTarget &target,
                      std::string &error, llvm::raw_ostream *llvmIR,
                      const HostExports &exports) {
  FailureOr<SmallVector<char>> object = cpu::emitObject(
      module, entryPoints, parameterCount, target, error, llvmIR, exports);
  if (failed(object))
    return failure();
  return cpu::linkSharedObject(*object, error);
}

} // namespace transfuse
