//===- Registration.cpp - Dialects and passes of Transfuse ----------------===//
#include "transfuse/Registration.h"
#include "transfuse/Dialect/NN/BufferizableOpInterfaceImpl.h"
#include "transfuse/Dialect/NN/DifferentiableOpInterface.h"
#include "transfuse/Dialect/NN/NNDialect.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace transfuse {

void registerDialects(mlir::DialectRegistry &registry) {
  // The code generation phases go through linalg, bufferization, scf and
  // the LLVM dialect: every upstream dialect, with its interface models.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // LLVM IR of the host code, and of the kernels (NVVM) that
  // gpu-module-to-binary compiles to PTX for the CUDA target.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registry.insert<nn::NNDialect>();
  nn::registerBufferizableOpInterfaceExternalModels(registry);
  nn::registerDifferentiableOpInterfaceExternalModels(registry);
}

void registerPasses() {
  mlir::registerAllPasses();
  registerTransfusePasses();
}

} // namespace transfuse
