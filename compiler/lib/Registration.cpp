//===- Registration.cpp - Dialects and passes of Transfuse ----------------===//
#include "transfuse/Registration.h"
#include "transfuse/Dialect/NN/NNDialect.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace transfuse {

void registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<nn::NNDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect>();
}

void registerPasses() {
  mlir::registerTransformsPasses();
  registerTransfusePasses();
}

} // namespace transfuse
