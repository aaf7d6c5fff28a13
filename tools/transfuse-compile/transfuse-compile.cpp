//===- transfuse-compile.cpp - Model spec to compiled IR ------------------===//
//
//   transfuse-compile model.pbtxt|model.onnx [-D batch=32] [--compile-to=PHASE]
//                     [--emit=mlir|summary|llvm|ptx|artifact] [-o FILE]
//                     [--target=cpu|cuda] [--cpu=NAME]
//                     [--cuda-arch=sm_80,sm_90] [--cuda-path=DIR]
//                     [--precision=f32|tf32]
//                     [--dump-phases-to=DIR]
//                     [--input-format=auto|spec|onnx] [--weights-out=FILE]
//                     [--list-unsupported] [--train-config=FILE]
//                     [--freeze=INITIALIZER,...]
//
// plus MLIR's own flags (--mlir-print-ir-after-all, --mlir-timing, ...).
// Errors in the spec are printed as file:line:col with the offending line.
//===----------------------------------------------------------------------===//
#include "transfuse/Backend/Artifact.h"
#include "transfuse/Backend/CPUBackend.h"
#include "transfuse/Backend/CUDABackend.h"
#include "transfuse/Import/Importer.h"
#include "transfuse/Import/OnnxImporter.h"
#include "transfuse/Pipeline/Pipeline.h"
#include "transfuse/Registration.h"
#include "transfuse/Support/OutputFile.h"
#include "transfuse/transfuse.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
namespace cl = llvm::cl;

/// transfuse-compile's own options, which --help lists with MLIR's.
static cl::OptionCategory compileCategory("transfuse-compile options");

static cl::opt<std::string> specPath(cl::cat(compileCategory), cl::Positional,
                                     cl::Required,
                                     cl::desc("<model.pbtxt|model.onnx>"));
enum class InputFormat { Auto, Spec, Onnx };
static cl::opt<InputFormat> inputFormat(
    cl::cat(compileCategory), "input-format", cl::init(InputFormat::Auto),
    cl::desc("What the input is (default: told by its content)"),
    cl::values(clEnumValN(InputFormat::Auto, "auto",
                          "an ONNX model if named *.onnx or if it parses as "
                          "one, else a spec"),
               clEnumValN(InputFormat::Spec, "spec",
                          "a model spec (text, or binary *.pb)"),
               clEnumValN(InputFormat::Onnx, "onnx", "an ONNX model")));
static cl::opt<std::string> weightsOut(
    cl::cat(compileCategory), "weights-out", cl::value_desc("file"),
    cl::desc("ONNX input: write the initializers' values, the model's "
             "weights, to this safetensors file (default: beside the "
             "artifact, as NAME.safetensors)"));
static cl::list<std::string> frozen(
    cl::cat(compileCategory), "freeze", cl::CommaSeparated,
    cl::value_desc("initializer,..."),
    cl::desc("ONNX input: keep these float initializers constant, out of "
             "the parameters and the weights file (not trained)"));
static cl::opt<std::string> trainConfig(
    cl::cat(compileCategory), "train-config", cl::value_desc("file"),
    cl::desc("ONNX input: the training settings (a spec holding only "
             "'training' and the 'dims' it names; docs/onnx.md)"));
static cl::opt<bool> listUnsupported(
    cl::cat(compileCategory), "list-unsupported",
    cl::desc("ONNX input: print every node the importer cannot convert, "
             "one per line, and exit (0 when there is none)"));
static cl::list<std::string>
    dimOverrides(cl::cat(compileCategory), "D", cl::Prefix,
                 cl::value_desc("name=value"),
                 cl::desc("Override a named size of the spec (batch, ...)"));
static cl::opt<std::string>
    compileTo(cl::cat(compileCategory), "compile-to", cl::value_desc("phase"),
              cl::desc("Stop after this phase (import, graph, fuse, autodiff, "
                       "optimizer, plan, [kernels with --target=cuda,] "
                       "codegen; default fuse, or codegen with --target)"));
enum class Emit { Mlir, Summary, LLVM, PTX, Artifact };
static cl::opt<Emit> emit(
    cl::cat(compileCategory), "emit",
    cl::desc("What to write (default: mlir, or artifact with "
             "--target)"),
    cl::values(clEnumValN(Emit::Mlir, "mlir", "the IR after the last phase"),
               clEnumValN(Emit::Summary, "summary",
                          "inputs, outputs, layers, parameters, op counts"),
               clEnumValN(Emit::LLVM, "llvm",
                          "the optimised LLVM IR (of the host code for cuda)"),
               clEnumValN(Emit::PTX, "ptx",
                          "the kernels' PTX for every architecture (cuda)"),
               clEnumValN(Emit::Artifact, "artifact",
                          "the .tfm artifact (code and manifest)")));
static cl::opt<std::string>
    target(cl::cat(compileCategory), "target", cl::value_desc("cpu|cuda"),
           cl::desc("Compile to an artifact for this target"));
static cl::opt<std::string> cudaArchs(
    cl::cat(compileCategory), "cuda-arch", cl::init("sm_80,sm_90"),
    cl::value_desc("sm_XY,..."),
    cl::desc("GPU architectures of the kernels (--target=cuda): a cubin "
             "each, and PTX of the last for newer GPUs"));
enum class Precision { F32, TF32 };
static cl::opt<Precision> precision(
    cl::cat(compileCategory), "precision", cl::init(Precision::F32),
    cl::desc("The GEMMs' arithmetic (--target=cuda)"),
    cl::values(clEnumValN(Precision::F32, "f32", "IEEE fp32 throughout"),
               clEnumValN(Precision::TF32, "tf32",
                          "inputs rounded to TF32 on tensor cores, fp32 "
                          "accumulation")));
static cl::opt<std::string>
    cudaPath(cl::cat(compileCategory), "cuda-path", cl::value_desc("dir"),
             cl::desc("The CUDA toolkit (default: $CUDA_HOME, $CUDA_PATH, "
                      "/usr/local/cuda)"));
static cl::opt<std::string> ptxasReport(
    cl::cat(compileCategory), "ptxas-report", cl::value_desc("file"),
    cl::desc("Write ptxas's report of every kernel (registers, spills) for "
             "every architecture to FILE (--target=cuda)"));
static cl::opt<std::string>
    cpuName(cl::cat(compileCategory), "cpu", cl::value_desc("name"),
            cl::desc("The LLVM CPU to generate code for (default: this host)"));
static cl::opt<std::string>
    outputPath(cl::cat(compileCategory), "o", cl::init("-"),
               cl::value_desc("file"),
               cl::desc("Output file (default stdout)"));
static cl::opt<bool> inferenceOnly(
    cl::cat(compileCategory), "inference-only",
    cl::desc("Leave out the training entry points (loss_and_grads, "
             "train_step): a smaller artifact, compiled faster"));
static cl::opt<uint64_t> memoryLimitGiB(
    cl::cat(compileCategory), "memory-limit", cl::init(64),
    cl::value_desc("GiB"),
    cl::desc("Refuse, after fusion, a model whose estimated memory "
             "(parameters, optimizer state, activations) exceeds this"));
static cl::opt<bool> dataParallel(
    cl::cat(compileCategory), "data-parallel",
    cl::desc("Average the gradients over the processes of an MPI run "
             "(mpirun -np N transfuse-train): each trains on its shard of "
             "every batch; over MPI on the CPU, NCCL on GPUs"));
static cl::opt<double> bucketMiB(
    cl::cat(compileCategory), "bucket-mib", cl::init(4), cl::value_desc("MiB"),
    cl::desc("With --data-parallel: the gradient bytes per all-reduce; "
             "smaller buckets start exchanging earlier in backward"));
static cl::opt<std::string> dumpPhasesTo(
    cl::cat(compileCategory), "dump-phases-to", cl::value_desc("dir"),
    cl::desc("Write the IR after every phase to DIR/NN-PHASE.mlir"));

static LogicalResult writeFile(StringRef path,
                               llvm::function_ref<void(raw_ostream &)> write) {
  std::string error;
  if (succeeded(transfuse::writeOutputFile(path, write, error)))
    return success();
  llvm::errs() << "error: " << error << "\n";
  return failure();
}

/// Where --dump-phases-to writes the IR after `phase`: DIR/NN-PHASE.mlir.
static std::string dumpPath(ArrayRef<transfuse::Phase> phases,
                            transfuse::Phase phase) {
  unsigned index = llvm::find(phases, phase) - phases.begin();
  SmallString<128> path(dumpPhasesTo);
  llvm::sys::path::append(path, llvm::formatv("{0:d2}-{1}.mlir", index + 1,
                                              transfuse::phaseName(phase))
                                    .str());
  return path.str().str();
}

/// Refuses, before any work, an output that cannot be written or would
/// overwrite the spec or another output. Creates the directory of
/// --dump-phases-to first, as -o may name a file in it. `weightsPath` is
/// where an ONNX model's weights go, "" for none.
static LogicalResult checkOutputs(ArrayRef<transfuse::Phase> phases,
                                  transfuse::Phase last,
                                  StringRef weightsPath) {
  if (!dumpPhasesTo.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpPhasesTo)) {
      llvm::errs() << "error: cannot create '" << dumpPhasesTo
                   << "': " << ec.message() << "\n";
      return failure();
    }
  SmallVector<transfuse::FileArgument> files = {{"the spec", specPath}};
  if (!trainConfig.empty())
    files.push_back({"--train-config", trainConfig});
  auto check = [&](transfuse::FileArgument output) {
    std::string error;
    if (failed(transfuse::checkOutput(output, files, error))) {
      llvm::errs() << "error: " << error << "\n";
      return failure();
    }
    files.push_back(std::move(output));
    return success();
  };
  if (!dumpPhasesTo.empty())
    for (transfuse::Phase phase : phases) {
      if (failed(check({"--dump-phases-to", dumpPath(phases, phase)})))
        return failure();
      if (phase == last)
        break;
    }
  if (failed(check({"-o", outputPath})))
    return failure();
  if (!ptxasReport.empty() && failed(check({"--ptxas-report", ptxasReport})))
    return failure();
  if (!weightsPath.empty() &&
      failed(check({"--weights-out", weightsPath.str()})))
    return failure();
  return success();
}

/// Where an ONNX model's weights go: --weights-out, or beside an artifact
/// as NAME.safetensors; "" when nothing asks for them.
static std::string weightsPathFor(bool writesArtifact) {
  if (!weightsOut.empty())
    return weightsOut;
  if (!writesArtifact)
    return "";
  SmallString<128> path(outputPath);
  llvm::sys::path::replace_extension(path, "safetensors");
  return path.str().str();
}

/// Writes the imported weights as a safetensors file (atomically).
static LogicalResult writeWeights(StringRef path,
                                  ArrayRef<transfuse::ImportedWeight> weights) {
  std::vector<tf_named_tensor> tensors;
  for (const transfuse::ImportedWeight &weight : weights) {
    tf_named_tensor named{};
    named.name = weight.name.c_str();
    named.tensor.dtype = TF_F32;
    named.tensor.rank = int32_t(weight.shape.size());
    if (weight.shape.size() > TF_MAX_RANK) {
      llvm::errs() << "error: weight '" << weight.name << "' has rank "
                   << weight.shape.size() << ", more than the " << TF_MAX_RANK
                   << " a weights file holds\n";
      return failure();
    }
    llvm::copy(weight.shape, named.tensor.shape);
    named.tensor.data = const_cast<float *>(weight.values.data());
    tensors.push_back(named);
  }
  tf_status status = tf_tensor_file_write(path.str().c_str(), tensors.data(),
                                          int32_t(tensors.size()));
  if (status != TF_OK) {
    llvm::errs() << "error: " << tf_last_error() << "\n";
    return failure();
  }
  return success();
}

/// The spec of --train-config. The -D overrides that name its own dims
/// apply to it; the others bind the ONNX model's symbolic dimensions.
static FailureOr<std::unique_ptr<transfuse::spec::Spec>>
parseTrainConfig(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                 ArrayRef<transfuse::spec::DimOverride> overrides) {
  auto buffer = llvm::MemoryBuffer::getFile(trainConfig, /*IsText=*/true);
  if (std::error_code ec = buffer.getError()) {
    llvm::errs() << "error: cannot read '" << trainConfig
                 << "': " << ec.message() << "\n";
    return failure();
  }
  StringRef text = (*buffer)->getBuffer();
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  auto declared = transfuse::spec::Spec::parse(&context, text, trainConfig, {});
  if (failed(declared))
    return failure();
  SmallVector<transfuse::spec::DimOverride> own;
  for (const transfuse::spec::DimOverride &dim : overrides)
    if ((*declared)->getDims().contains(dim.name))
      own.push_back(dim);
  return transfuse::spec::Spec::parse(&context, text, trainConfig, own);
}

/// --list-unsupported: one line per node the importer cannot convert.
static LogicalResult
printUnsupported(MLIRContext &context, StringRef bytes,
                 const transfuse::OnnxImportOptions &options) {
  FailureOr<std::vector<std::string>> nodes =
      transfuse::listUnsupportedOnnxNodes(&context, bytes, specPath, options);
  if (failed(nodes))
    return failure();
  for (const std::string &line : *nodes)
    llvm::outs() << line << "\n";
  if (nodes->empty())
    llvm::errs() << "every node of '" << specPath << "' is supported\n";
  return success(nodes->empty());
}

/// Code generation for `module` (after the codegen phase) as the artifact,
/// the LLVM IR or, for CUDA, the PTX.
static LogicalResult emitCode(ModuleOp module, const transfuse::Target &tgt,
                              transfuse::ArtifactInfo &artifact) {
  // Read the options first: the in-process linker resets every command-line
  // option of the process when it finishes.
  const Emit what = emit;
  const std::string output = outputPath;
  const std::string reportPath = ptxasReport;
  std::string error, text;
  llvm::raw_string_ostream textStream(text);
  FailureOr<std::string> code;
  std::string report;
  llvm::raw_string_ostream reportStream(report);
  if (tgt.kind == transfuse::Target::Kind::CUDA) {
    code = transfuse::compileCUDASharedObject(
        module, artifact, tgt.cudaArchs, tgt.cudaToolkit, error,
        what == Emit::LLVM ? &textStream : nullptr,
        what == Emit::PTX ? &textStream : nullptr,
        reportPath.empty() ? nullptr : &reportStream);
  } else {
    transfuse::CPUTarget cpu{cpuName};
    artifact.target = "cpu";
    artifact.cpu = transfuse::resolveCPUName(cpu);
    code = transfuse::compileToSharedObject(
        module, artifact.entryPoints, artifact.parameters.size(), cpu, error,
        what == Emit::LLVM ? &textStream : nullptr);
  }
  if (failed(code)) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  if (artifact.cuda)
    artifact.cuda->precision = tgt.cudaPrecision;
  if (!reportPath.empty() &&
      failed(writeFile(reportPath, [&](raw_ostream &os) { os << report; })))
    return failure();
  if (what != Emit::Artifact)
    return writeFile(output, [&](raw_ostream &os) { os << text; });
  if (failed(transfuse::writeArtifact(output, artifact, *code, error))) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  return success();
}

/// The target of --target and its options, checked before anything runs.
static FailureOr<transfuse::Target> parseTarget() {
  transfuse::Target result;
  // Up to 1 EiB: beyond it the limit in bytes would not fit 64 bits.
  if (memoryLimitGiB == 0 || memoryLimitGiB > (uint64_t(1) << 30)) {
    llvm::errs() << "error: --memory-limit=" << memoryLimitGiB
                 << ": expected a number of GiB from 1 to " << (1 << 30)
                 << "\n";
    return failure();
  }
  result.memoryLimit = memoryLimitGiB << 30;
  if (bucketMiB.getNumOccurrences() && !dataParallel) {
    llvm::errs() << "error: --bucket-mib needs --data-parallel\n";
    return failure();
  }
  // From 1 KiB to 64 GiB; NaN fails both comparisons.
  if (!(bucketMiB >= 1.0 / 1024 && bucketMiB <= 65536)) {
    llvm::errs() << "error: --bucket-mib="
                 << llvm::format("%g", bucketMiB.getValue())
                 << ": expected from 0.0009765625 (1 KiB) to 65536\n";
    return failure();
  }
  if (dataParallel) {
    if (inferenceOnly) {
      llvm::errs() << "error: --data-parallel trains; it cannot go with "
                      "--inference-only\n";
      return failure();
    }
    result.allReduceBucketBytes = static_cast<int64_t>(bucketMiB * 1048576);
  }
  if (precision == Precision::TF32 && target != "cuda") {
    llvm::errs() << "error: --precision=tf32 needs --target=cuda: the CPU "
                    "target computes in f32\n";
    return failure();
  }
  result.cudaPrecision = precision == Precision::TF32 ? "tf32" : "f32";
  if (target.empty() || target == "cpu")
    return result;
  if (target != "cuda") {
    llvm::errs() << "error: --target=" << target
                 << ": unknown target (targets: cpu, cuda)\n";
    return failure();
  }
  result.kind = transfuse::Target::Kind::CUDA;
  std::string error;
  FailureOr<std::vector<std::string>> archs =
      transfuse::parseCUDAArchs(cudaArchs, error);
  FailureOr<std::string> toolkit =
      failed(archs) ? FailureOr<std::string>(failure())
                    : transfuse::findCUDAToolkit(cudaPath, error);
  if (failed(toolkit)) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  result.cudaArchs = *archs;
  result.cudaToolkit = *toolkit;
  return result;
}

static LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  FailureOr<transfuse::Target> tgt = parseTarget();
  if (failed(tgt))
    return failure();
  bool cuda = tgt->kind == transfuse::Target::Kind::CUDA;
  bool generatesCode = !target.empty() || emit == Emit::LLVM ||
                       emit == Emit::PTX || emit == Emit::Artifact;
  if (compileTo.getNumOccurrences() == 0)
    compileTo = generatesCode ? "codegen" : "fuse";
  // An artifact by default with --target, unless an earlier phase is asked
  // for: then its IR.
  if (emit.getNumOccurrences() == 0)
    emit =
        target.empty() || compileTo != "codegen" ? Emit::Mlir : Emit::Artifact;
  if ((emit == Emit::PTX || ptxasReport.getNumOccurrences()) && !cuda) {
    llvm::errs() << "error: --"
                 << (emit == Emit::PTX ? "emit=ptx" : "ptxas-report")
                 << " needs --target=cuda\n";
    return failure();
  }
  if ((emit == Emit::LLVM || emit == Emit::PTX || emit == Emit::Artifact) &&
      compileTo != "codegen") {
    llvm::errs() << "error: --emit="
                 << (emit == Emit::LLVM  ? "llvm"
                     : emit == Emit::PTX ? "ptx"
                                         : "artifact")
                 << " needs the codegen phase, not --compile-to=" << compileTo
                 << "\n";
    return failure();
  }
  std::optional<transfuse::Phase> last =
      transfuse::parsePhase(compileTo, tgt->kind);
  if (!last) {
    SmallVector<std::string> names;
    for (transfuse::Phase phase : transfuse::allPhases(tgt->kind))
      names.push_back(transfuse::phaseName(phase).str());
    llvm::errs() << "error: --compile-to=" << compileTo
                 << ": unknown phase (phases"
                 << (cuda ? " of --target=cuda" : "") << ": "
                 << llvm::join(names, ", ") << ")\n";
    return failure();
  }
  bool trainingPhase = *last == transfuse::Phase::Autodiff ||
                       *last == transfuse::Phase::Optimizer;
  if (trainingPhase && inferenceOnly) {
    llvm::errs() << "error: --compile-to=" << compileTo
                 << " builds a training entry point, which --inference-only "
                    "leaves out\n";
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
  if (emit == Emit::Artifact && outputPath == "-") {
    llvm::errs() << "error: an artifact needs an output file (-o model.tfm)\n";
    return failure();
  }
  auto buffer = llvm::MemoryBuffer::getFile(specPath, /*IsText=*/false);
  if (std::error_code ec = buffer.getError()) {
    llvm::errs() << "error: cannot read '" << specPath << "': " << ec.message()
                 << "\n";
    return failure();
  }
  StringRef text = (*buffer)->getBuffer();
  bool onnx = inputFormat == InputFormat::Onnx ||
              (inputFormat == InputFormat::Auto &&
               transfuse::looksLikeOnnx(specPath, text));
  if ((listUnsupported || weightsOut.getNumOccurrences() ||
       trainConfig.getNumOccurrences() || frozen.getNumOccurrences()) &&
      !onnx) {
    llvm::errs() << "error: --"
                 << (listUnsupported                   ? "list-unsupported"
                     : weightsOut.getNumOccurrences()  ? "weights-out"
                     : trainConfig.getNumOccurrences() ? "train-config"
                                                       : "freeze")
                 << " applies to ONNX models, and '" << specPath
                 << "' is a spec\n";
    return failure();
  }
  if (listUnsupported) {
    transfuse::OnnxImportOptions options;
    options.dims = overrides;
    return printUnsupported(context, text, options);
  }
  // Read now: code generation resets the command-line options.
  const std::string weightsPath =
      onnx ? weightsPathFor(emit == Emit::Artifact) : "";
  ArrayRef<transfuse::Phase> phases = transfuse::allPhases(tgt->kind);
  if (failed(checkOutputs(phases, *last, weightsPath)))
    return failure();

  std::vector<transfuse::ImportedLayer> layers;
  std::vector<transfuse::ImportedWeight> weights;
  FailureOr<OwningOpRef<ModuleOp>> module = failure();
  if (onnx) {
    FailureOr<std::unique_ptr<transfuse::spec::Spec>> config =
        std::unique_ptr<transfuse::spec::Spec>();
    if (!trainConfig.empty())
      config = parseTrainConfig(context, sourceMgr, overrides);
    if (failed(config))
      return failure();
    std::vector<std::string> configDims;
    if (*config)
      for (const auto &dim : (*config)->getDims())
        configDims.push_back(dim.getKey().str());
    transfuse::OnnxImportOptions options;
    options.dims = overrides;
    options.otherDims = configDims;
    options.frozen = frozen;
    module = transfuse::importOnnx(&context, text, specPath, options, weights);
    if (succeeded(module) && *config &&
        failed(transfuse::addTrainingSection(**config, **module)))
      return failure();
  } else {
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    auto spec =
        transfuse::spec::Spec::parse(&context, text, specPath, overrides);
    if (failed(spec))
      return failure();
    module = transfuse::importSpec(&context, **spec, &layers);
  }
  if (failed(module))
    return failure();
  // Asked for by name, a training phase must build something: it
  // differentiates the loss and updates by the settings of the training
  // section, which a model for inference does without.
  if (trainingPhase && !(**module)->hasAttr("nn.training")) {
    emitError((**module).getLoc())
        << "--compile-to=" << compileTo
        << ": the model has no training settings (a spec's 'training' "
           "section), which the "
        << compileTo << " phase builds from";
    return failure();
  }
  // Without its training settings the model has nothing to differentiate.
  if (inferenceOnly)
    (**module)->removeAttr("nn.training");

  transfuse::ArtifactInfo artifact;
  auto afterPhase = [&](transfuse::Phase phase, ModuleOp op) -> LogicalResult {
    // The artifact describes the model as the last nn phase leaves it.
    if (phase == transfuse::Phase::Optimizer && generatesCode) {
      FailureOr<transfuse::ArtifactInfo> info = transfuse::describeArtifact(op);
      if (failed(info))
        return failure();
      artifact = std::move(*info);
    }
    if (dumpPhasesTo.empty())
      return success();
    return writeFile(dumpPath(phases, phase),
                     [&](raw_ostream &os) { op.print(os); });
  };
  if (failed(transfuse::runPipeline(**module, *last, *tgt, afterPhase)))
    return failure();
  if (emit == Emit::LLVM || emit == Emit::PTX || emit == Emit::Artifact) {
    if (failed(emitCode(**module, *tgt, artifact)))
      return failure();
    return success(weightsPath.empty() ||
                   succeeded(writeWeights(weightsPath, weights)));
  }
  if (!weightsPath.empty() && failed(writeWeights(weightsPath, weights)))
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
  // LLVM's own options (code generation, ...) still work but stay out of
  // --help, which lists ours and MLIR's (registered below); --help-hidden
  // lists them all.
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (!llvm::is_contained(option->Categories, &compileCategory) &&
        !name.starts_with("help") && name != "version")
      option->setHiddenFlag(cl::Hidden);
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
