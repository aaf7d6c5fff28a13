//===- transfuse-opt.cpp - mlir-opt with the nn dialect and its passes ----===//
//
// mlir-opt's driver, but for the file of -o, which it writes through an
// OutputFile (transfuse/Support/OutputFile.h): refused before any work if it
// is the input or cannot be written, and replaced only by a complete result.
//===----------------------------------------------------------------------===//
#include "transfuse/Registration.h"
#include "transfuse/Support/OutputFile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

static mlir::LogicalResult optimize(llvm::StringRef inputPath,
                                    llvm::StringRef outputPath,
                                    mlir::DialectRegistry &registry,
                                    const mlir::MlirOptMainConfig &config) {
  std::string error;
  auto report = [&] {
    llvm::errs() << "error: " << error << "\n";
    return mlir::failure();
  };
  if (failed(transfuse::checkOutput({"-o", outputPath.str()},
                                    {{"the input", inputPath.str()}}, error)))
    return report();
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputPath, &error);
  if (!input)
    return report();
  std::unique_ptr<transfuse::OutputFile> output =
      transfuse::OutputFile::open(outputPath, error);
  if (!output)
    return report();
  if (failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return mlir::failure();
  if (failed(output->commit(error)))
    return report();
  return mlir::success();
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  transfuse::registerDialects(registry);
  transfuse::registerPasses();
  auto [inputPath, outputPath] = mlir::registerAndParseCLIOptions(
      argc, argv, "Transfuse optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listing dialects or passes, and writing to stdout, are mlir-opt's own.
  if (outputPath == "-" || config.shouldShowDialects() ||
      config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputPath, outputPath, registry));
  llvm::InitLLVM init(argc, argv);
  return mlir::asMainReturnCode(
      optimize(inputPath, outputPath, registry, config));
}
