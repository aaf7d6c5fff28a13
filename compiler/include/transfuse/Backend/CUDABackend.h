//===- CUDABackend.h - Kernels and host code of a CUDA artifact -*- C++ -*-===//
//
// After the CUDA codegen phase a module holds the host functions in the
// LLVM dialect and one `gpu.binary` with the kernels' PTX for every
// architecture. The backend assembles the PTX into cubins with the
// toolkit's ptxas, and links the host code into a shared object that
// exports the images (docs/artifact.md, target "cuda").
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_BACKEND_CUDABACKEND_H
#define TRANSFUSE_BACKEND_CUDABACKEND_H

#include "transfuse/Backend/Artifact.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace transfuse {

/// The CUDA toolkit to compile with: `explicitPath` (--cuda-path) if not
/// empty, else $CUDA_HOME, else $CUDA_PATH, else /usr/local/cuda. It must
/// hold bin/ptxas and nvvm/libdevice/libdevice.10.bc; the error names every
/// place looked at and what was missing.
mlir::FailureOr<std::string> findCUDAToolkit(llvm::StringRef explicitPath,
                                             std::string &error);

/// "sm_80,sm_90" as a list; each must be sm_ and two or three digits, at
/// least sm_70 (the oldest architecture the kernels' PTX version targets).
mlir::FailureOr<std::vector<std::string>> parseCUDAArchs(llvm::StringRef list,
                                                         std::string &error);

/// The shared object of a CUDA artifact: `module` after the codegen phase.
/// Fills `info.cuda` (images, kernels, workspace) and each entry point's
/// arena. When given, `ptx` receives the PTX of every architecture,
/// `llvmIR` the host code's LLVM IR, and `ptxasReport` what ptxas -v says
/// of every kernel for every architecture (registers, spills).
mlir::FailureOr<std::string>
compileCUDASharedObject(mlir::ModuleOp module, ArtifactInfo &info,
                        const std::vector<std::string> &archs,
                        const std::string &toolkit, std::string &error,
                        llvm::raw_ostream *llvmIR = nullptr,
                        llvm::raw_ostream *ptx = nullptr,
                        llvm::raw_ostream *ptxasReport = nullptr);

} // namespace transfuse

#endif // TRANSFUSE_BACKEND_CUDABACKEND_H
