//===- Registration.cpp - Dialects and passes of Transfuse ----------------===//
#include "transfuse/Registration.h"
#include "transfuse/Dialect/NN/BufferizableOpInterfaceImpl.h"
#include "transfuse/Dialect/NN/DifferentiableOpInterface.h"
#include "transfuse/Dialect/NN/NNDialect.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

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

/// Upstream's buffer-deallocation-pipeline with one more step: before the
/// simplification, whose alias checks are quadratic in the operands of one
/// dealloc, the deallocs of distinct allocations become memref.dealloc ops.
static void buildBufferDeallocationPipeline(mlir::OpPassManager &pm) {
  namespace bufferization = mlir::bufferization;
  mlir::OpPassManager &function = pm.nest<mlir::func::FuncOp>();
  function.addPass(mlir::memref::createExpandReallocPass(
      mlir::memref::ExpandReallocPassOptions{/*emitDeallocs=*/false}));
  function.addPass(mlir::createCanonicalizerPass());
  function.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  function.addPass(mlir::createCanonicalizerPass());
  function.addPass(createLowerOwnedDeallocs());
  function.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  mlir::OpPassManager &cleanup = pm.nest<mlir::func::FuncOp>();
  cleanup.addPass(mlir::createCSEPass());
  cleanup.addPass(mlir::createCanonicalizerPass());
}

void registerPasses() {
  mlir::registerAllPasses();
  registerTransfusePasses();
  mlir::PassPipelineRegistration<>(
      "nn-buffer-deallocation",
      "buffer-deallocation-pipeline, with the deallocs of distinct "
      "allocations lowered before the quadratic simplification",
      buildBufferDeallocationPipeline);
}

} // namespace transfuse
