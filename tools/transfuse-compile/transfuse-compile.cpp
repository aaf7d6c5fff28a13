//===- transfuse-compile.cpp - Model spec to compiled IR ------------------===//
//
//   transfuse-compile model.pbtxt [-D batch=32] [--compile-to=PHASE]
//                     [--emit=mlir|summary] [-o FILE] [--dump-phases-to=DIR]
//
// plus MLIR's own flags (--mlir-print-ir-after-all, --mlir-timing, ...).
// Errors in the spec are printed as file:line:col with the offending line.
//===----------------------------------------------------------------------===//
#include "transfuse/Import/Importer.h"
#include "transfuse/Pipeline/Pipeline.h"
#include "transfuse/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> specPath(cl::Positional, cl::Required,
                                     cl::desc("<model.pbtxt>"));
static cl::list<std::string>
    dimOverrides("D", cl::Prefix, cl::value_desc("name=value"),
                 cl::desc("Override a named size of the spec (batch, ...)"));
static cl::opt<std::string>
    compileTo("compile-to", cl::init("fuse"), cl::value_desc("phase"),
              cl::desc("Stop after this phase (import, graph, fuse)"));
enum class Emit { Mlir, Summary };
static cl::opt<Emit> emit(
    "emit", cl::init(Emit::Mlir), cl::desc("What to write"),
    cl::values(clEnumValN(Emit::Mlir, "mlir", "the IR after the last phase"),
               clEnumValN(Emit::Summary, "summary",
                          "inputs, outputs, layers, parameters, op counts")));
static cl::opt<std::string>
    outputPath("o", cl::init("-"), cl::value_desc("file"),
               cl::desc("Output file (default stdout)"));
static cl::opt<std::string> dumpPhasesTo(
    "dump-phases-to", cl::value_desc("dir"),
    cl::desc("Write the IR after every phase to DIR/NN-PHASE.mlir"));

static LogicalResult writeFile(StringRef path,
                               llvm::function_ref<void(raw_ostream &)> write) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  write(file->os());
  file->keep();
  return success();
}

static LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  std::optional<transfuse::Phase> last = transfuse::parsePhase(compileTo);
  if (!last) {
    SmallVector<std::string> names;
    for (transfuse::Phase phase : transfuse::allPhases())
      names.push_back(transfuse::phaseName(phase).str());
    llvm::errs() << "error: --compile-to=" << compileTo
                 << ": unknown phase (phases: " << llvm::join(names, ", ")
                 << ")\n";
    return failure();
  }
  SmallVector<transfuse::spec::DimOverride> overrides;
  for (const std::string &argument : dimOverrides) {
    std::string why;
    auto override = transfuse::spec::parseDimOverride(argument, why);
    if (failed(override)) {
      llvm::errs() << "error: " << why << "\n";
      return failure();
    }
    overrides.push_back(*override);
  }

  auto buffer = llvm::MemoryBuffer::getFile(specPath, /*IsText=*/true);
  if (std::error_code ec = buffer.getError()) {
    llvm::errs() << "error: cannot read '" << specPath << "': " << ec.message()
                 << "\n";
    return failure();
  }
  StringRef text = (*buffer)->getBuffer();
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  auto spec = transfuse::spec::Spec::parse(&context, text, specPath, overrides);
  if (failed(spec))
    return failure();
  std::vector<transfuse::ImportedLayer> layers;
  auto module = transfuse::importSpec(&context, **spec, &layers);
  if (failed(module))
    return failure();

  if (!dumpPhasesTo.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpPhasesTo)) {
      llvm::errs() << "error: cannot create '" << dumpPhasesTo
                   << "': " << ec.message() << "\n";
      return failure();
    }
  auto afterPhase = [&](transfuse::Phase phase, ModuleOp op) -> LogicalResult {
    if (dumpPhasesTo.empty())
      return success();
    unsigned index = llvm::find(transfuse::allPhases(), phase) -
                     transfuse::allPhases().begin();
    SmallString<128> path(dumpPhasesTo);
    llvm::sys::path::append(path, llvm::formatv("{0:d2}-{1}.mlir", index + 1,
                                                transfuse::phaseName(phase))
                                      .str());
    return writeFile(path, [&](raw_ostream &os) { op.print(os); });
  };
  if (failed(transfuse::runPipeline(**module, *last, afterPhase)))
    return failure();
  return writeFile(outputPath, [&](raw_ostream &os) {
    if (emit == Emit::Summary)
      transfuse::printSummary(**module, layers, os);
    else
      (*module)->print(os);
  });
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  transfuse::registerPasses();
  cl::ParseCommandLineOptions(argc, argv, "Transfuse: compile a model spec\n");

  DialectRegistry registry;
  transfuse::registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  return succeeded(compile(context, sourceMgr)) ? 0 : 1;
}
