//===- BufferUtils.h - Buffer queries of the runtime-call passes -*- C++
//-*-===//
#ifndef TRANSFUSE_LIB_TRANSFORMS_BUFFERUTILS_H
#define TRANSFUSE_LIB_TRANSFORMS_BUFFERUTILS_H

#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace transfuse::buffers {

using Aliases = llvm::SmallPtrSet<mlir::Value, 8>;

/// Whether `op` makes a view of a buffer: an op of ViewLikeOpInterface, or
/// memref.transpose, which MLIR does not mark as one.
bool isView(mlir::Operation *op);

/// The buffer the view `op` views (isView(op) must hold).
mlir::Value viewSource(mlir::Operation *op);

/// Every value viewing the memory of `buffer`: the view sources up to its
/// allocation, and every view of those, transitively.
Aliases aliasesOf(mlir::Value buffer);

/// Whether the memory of memrefs `a` and `b` certainly does not overlap:
/// they view distinct buffers (function arguments, allocations, globals;
/// the entry point's arguments are distinct allocations), or memref.view
/// slices of one buffer whose static byte ranges do not intersect.
bool certainlyDisjoint(mlir::Value a, mlir::Value b);

/// Whether `op` or an op nested in it has an operand in `aliases`.
bool touches(mlir::Operation *op, const Aliases &aliases);

/// Whether `op` may write memory in `aliases`: it declares a write to one of
/// them, or touches one without declaring its effects.
bool mayWrite(mlir::Operation *op, const Aliases &aliases);

/// Whether any op strictly between `from` and `to` (same block, `from`
/// first) touches `aliases` (with `writesOnly`, may write them).
bool touchedBetween(mlir::Operation *from, mlir::Operation *to,
                    const Aliases &aliases, bool writesOnly);

/// `index` seen through identity affine maps, which the loop lowering of
/// linalg ops puts around each induction variable it indexes with.
mlir::Value throughIdentity(mlir::Value index);

/// Whether `type` lays its elements out densely in row-major order (unit
/// dims aside), so that one address and a count describe it.
bool isDenseRowMajor(mlir::MemRefType type);

/// The address of `memref`'s first element (its offset included) as an i64,
/// for an array of addresses a runtime function reads.
mlir::Value addressOf(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value memref);

/// addressOf as an LLVM pointer, for a runtime function's argument.
mlir::Value pointerOf(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value memref);

/// The name of runtime function `kernel` for `target`: tfrt_KERNEL on the
/// CPU, tfrt_cuda_KERNEL for CUDA.
std::string runtimeName(llvm::StringRef kernel, RuntimeTarget target);

/// The private declaration of runtime function `name`, created with `type`
/// at the top of `module` if it is not there yet.
mlir::func::FuncOp declareRuntimeFunction(mlir::ModuleOp module,
                                          llvm::StringRef name,
                                          mlir::FunctionType type);

} // namespace transfuse::buffers

#endif // TRANSFUSE_LIB_TRANSFORMS_BUFFERUTILS_H
