//===- CUDABackend.cpp - Cubins, PTX and the host shared object -----------===//
#include "transfuse/Backend/CUDABackend.h"
#include "transfuse/Backend/CPUBackend.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;

namespace transfuse {
namespace {

/// cuBLASLt's workspace, what NVIDIA recommends for Hopper.
constexpr int64_t kGemmWorkspaceBytes = 32 << 20;
constexpr llvm::StringLiteral kGemm = "tfrt_cuda_matmul_f32";
constexpr llvm::StringLiteral kKernelsAttr = "nn.cuda_kernels";
/// Host code calls runtime functions and computes addresses: any x86-64
/// host runs it, whatever the machine that compiled it.
constexpr llvm::StringLiteral kHostCPU = "x86-64";

/// A temporary file removed when this goes out of scope.
struct TemporaryFile {
  SmallString<128> path;
  ~TemporaryFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

LogicalResult createTemporary(TemporaryFile &file, StringRef suffix,
                              std::string &error) {
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "transfuse-cuda", suffix, file.path)) {
    error = "cannot create a temporary file: " + ec.message();
    return failure();
  }
  return success();
}

/// The cubin ptxas makes of `ptx` for `arch`; its report of every kernel
/// (registers, spills) goes to `report` when given.
FailureOr<std::string> assemble(StringRef ptx, StringRef arch,
                                const std::string &toolkit, std::string &error,
                                llvm::raw_ostream *report) {
  TemporaryFile input, output, log;
  if (failed(createTemporary(input, "ptx", error)) ||
      failed(createTemporary(output, "cubin", error)) ||
      failed(createTemporary(log, "log", error)))
    return failure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(input.path, ec);
    if (ec) {
      error = "cannot write '" + input.path.str().str() + "': " + ec.message();
      return failure();
    }
    file << ptx;
  }
  SmallString<256> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  std::string archFlag = ("-arch=" + arch).str();
  SmallVector<StringRef> args = {ptxas, archFlag,    "-O3",     "-v",
                                 "-o",  output.path, input.path};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log.path),
                                          StringRef(log.path)};
  std::string executionError;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         0, 0, &executionError);
  if (status != 0) {
    auto report = llvm::MemoryBuffer::getFile(log.path);
    error =
        "ptxas failed for " + arch.str() + ": " +
        (executionError.empty() && report ? (*report)->getBuffer().trim().str()
                                          : executionError);
    return failure();
  }
  if (report)
    if (auto text = llvm::MemoryBuffer::getFile(log.path))
      *report << (*text)->getBuffer();
  auto cubin = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!cubin) {
    error = "cannot read the cubin ptxas wrote for " + arch.str();
    return failure();
  }
  return (*cubin)->getBuffer().str();
}

/// The PTX of every architecture in the module's gpu.binary, which goes.
FailureOr<std::vector<std::pair<std::string, std::string>>>
takePTX(ModuleOp module, std::string &error) {
  std::vector<std::pair<std::string, std::string>> ptx;
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  if (binaries.size() > 1) {
    error = "expected the kernels in one gpu.binary, found " +
            std::to_string(binaries.size());
    return failure();
  }
  for (gpu::BinaryOp binary : binaries) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target || object.getFormat() != gpu::CompilationTarget::Assembly) {
        error = "expected the kernels as PTX for NVVM targets";
        return failure();
      }
      ptx.push_back({target.getChip().str(), object.getObject().str()});
    }
    binary.erase();
  }
  return ptx;
}

/// The arena of each entry point, as the memory plan recorded it on its
/// function.
LogicalResult readArenas(ModuleOp module, ArtifactInfo &info,
                         std::string &error) {
  for (EntryPointInfo &entry : info.entryPoints) {
    auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(entry.name);
    auto bytes = function
                     ? function->getAttrOfType<IntegerAttr>("nn.arena_bytes")
                     : IntegerAttr();
    if (!bytes) {
      error = "entry point '" + entry.name + "' has no device memory plan";
      return failure();
    }
    entry.arenaBytes = bytes.getInt();
  }
  return success();
}

} // namespace

FailureOr<std::string>
compileCUDASharedObject(ModuleOp module, ArtifactInfo &info,
                        const std::vector<std::string> &archs,
                        const std::string &toolkit, std::string &error,
                        llvm::raw_ostream *llvmIR, llvm::raw_ostream *ptxOut,
                        llvm::raw_ostream *ptxasReport) {
  FailureOr<std::vector<std::pair<std::string, std::string>>> ptx =
      takePTX(module, error);
  if (failed(ptx) || failed(readArenas(module, info, error)))
    return failure();
  CUDAInfo cuda;
  cuda.archs = archs;
  if (auto kernels = module->getAttrOfType<ArrayAttr>(kKernelsAttr))
    for (Attribute name : kernels)
      cuda.kernels.push_back(cast<StringAttr>(name).str());
  if (auto gemm = module.lookupSymbol(kGemm))
    cuda.workspaceBytes = kGemmWorkspaceBytes;
  HostExports exports;
  exports.trailingBuffers = 1; // the arena
  for (const auto &[arch, assembly] : *ptx) {
    if (ptxOut)
      *ptxOut << "// ---- " << arch << "\n" << assembly << "\n";
    FailureOr<std::string> cubin =
        assemble(assembly, arch, toolkit, error, ptxasReport);
    if (failed(cubin))
      return failure();
    cuda.images.push_back({arch, false, "", *cubin});
  }
  // The last architecture's PTX, for the driver to compile on later GPUs;
  // it must end with a NUL.
  if (!ptx->empty())
    cuda.images.push_back({"compute_" + ptx->back().first.substr(3), true, "",
                           ptx->back().second + '\0'});
  for (auto [index, image] : llvm::enumerate(cuda.images)) {
    image.symbol = "tf_cuda_image_" + std::to_string(index);
    exports.data.push_back({image.symbol, image.bytes});
  }
  info.target = "cuda";
  info.cpu = kHostCPU.str();
  info.cuda = std::move(cuda);
  return compileToSharedObject(module, info.entryPoints, info.parameters.size(),
                               CPUTarget{info.cpu}, error, llvmIR, exports);
}

} // namespace transfuse
