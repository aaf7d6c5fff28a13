//===- transfuse-opt.cpp - mlir-opt with the nn dialect and its passes ----===//
#include "transfuse/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  transfuse::registerDialects(registry);
  transfuse::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Transfuse optimizer driver\n", registry));
}
