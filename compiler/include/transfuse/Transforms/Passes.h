//===- Passes.h - Transfuse's passes on the nn dialect --------------------===//
#ifndef TRANSFUSE_TRANSFORMS_PASSES_H
#define TRANSFUSE_TRANSFORMS_PASSES_H

#include "transfuse/Dialect/NN/NNDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace transfuse {

/// Whose kernels the runtime-call passes call: the CPU runtime's (tfrt_*)
/// or the CUDA runtime's (tfrt_cuda_*).
enum class RuntimeTarget { CPU, CUDA };

#define GEN_PASS_DECL
#include "transfuse/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "transfuse/Transforms/Passes.h.inc"

} // namespace transfuse

#endif // TRANSFUSE_TRANSFORMS_PASSES_H
