//===- LowerKernelLaunches.cpp - gpu.launch_func to the CUDA runtime ------===//
//
// Upstream lowers a launch to calls of its own runtime wrappers, which load
// the module from a global constructor and create and synchronise a stream
// per launch. Transfuse's runtime owns the module (loaded once per session
// from the artifact's images) and the stream: each launch becomes
//
//   tfrt_cuda_launch(kernel, gridX, gridY, gridZ, blockX, blockY, blockZ,
//                    sharedBytes, args)
//
// where `kernel` indexes the module attribute `nn.cuda_kernels` (the names
// of the launched kernels, in order of first launch) and `args` is
// cuLaunchKernel's array of pointers to each argument's value. Buffers are
// passed as their address (the kernels use bare pointers), indices as i64.
// Two stack slots per function, sized for the widest launch, hold the
// arguments; the driver copies them when the launch is queued.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace transfuse {
#define GEN_PASS_DEF_LOWERKERNELLAUNCHES
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using transfuse::buffers::declareRuntimeFunction;
using transfuse::buffers::pointerOf;

namespace {

constexpr llvm::StringLiteral kLaunch = "tfrt_cuda_launch";
constexpr llvm::StringLiteral kKernelsAttr = "nn.cuda_kernels";

/// A launch argument as the kernel's parameter: a buffer's address, an
/// index as i64, any other scalar as it is.
Value argumentValue(OpBuilder &b, Location loc, Value operand) {
  if (isa<MemRefType>(operand.getType()))
    return pointerOf(b, loc, operand);
  if (operand.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), operand);
  return operand;
}

Value i64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

LogicalResult lowerFunction(func::FuncOp function, func::FuncOp launchFn,
                            StringAttr kernelModule,
                            llvm::MapVector<StringAttr, int32_t> &kernels) {
  SmallVector<gpu::LaunchFuncOp> launches;
  function.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
  if (launches.empty())
    return success();
  size_t widest = 1;
  for (gpu::LaunchFuncOp launch : launches) {
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
        launch.hasClusterSize())
      return launch.emitOpError(
          "asynchronous and clustered launches are not supported");
    widest = std::max<size_t>(widest, launch.getNumKernelOperands());
  }
  MLIRContext *context = function.getContext();
  Location loc = function.getLoc();
  OpBuilder entry = OpBuilder::atBlockBegin(&function.getBody().front());
  Type ptr = LLVM::LLVMPointerType::get(context);
  Type i64Type = IntegerType::get(context, 64);
  Value count = arith::ConstantOp::create(
      entry, loc, entry.getI64IntegerAttr(static_cast<int64_t>(widest)));
  // Each value in an 8-byte slot; the array of their addresses.
  Value slots = LLVM::AllocaOp::create(entry, loc, ptr, i64Type, count, 8);
  Value addresses = LLVM::AllocaOp::create(entry, loc, ptr, ptr, count, 8);

  for (gpu::LaunchFuncOp launch : launches) {
    OpBuilder b(launch);
    Location at = launch.getLoc();
    StringAttr name = launch.getKernelName();
    auto [it, fresh] =
        kernels.try_emplace(name, static_cast<int32_t>(kernels.size()));
    (void)fresh;
    for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
      Value slot =
          LLVM::GEPOp::create(b, at, ptr, i64Type, slots,
                              ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, at, argumentValue(b, at, operand), slot);
      Value address =
          LLVM::GEPOp::create(b, at, ptr, ptr, addresses,
                              ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
      LLVM::StoreOp::create(b, at, slot, address);
    }
    if (launch.getKernelModuleName() != kernelModule)
      return launch.emitOpError("launches a kernel of module @")
             << launch.getKernelModuleName() << ", not @" << kernelModule
             << ": the runtime loads one module (nn-merge-gpu-modules)";
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value shared =
        launch.getDynamicSharedMemorySize()
            ? launch.getDynamicSharedMemorySize()
            : arith::ConstantOp::create(b, at, b.getI32IntegerAttr(0))
                  .getResult();
    Value kernel =
        arith::ConstantOp::create(b, at, b.getI32IntegerAttr(it->second));
    func::CallOp::create(b, at, launchFn,
                         ValueRange{kernel, i64(b, at, grid.x),
                                    i64(b, at, grid.y), i64(b, at, grid.z),
                                    i64(b, at, block.x), i64(b, at, block.y),
                                    i64(b, at, block.z), shared, addresses});
    launch.erase();
  }
  return success();
}

struct LowerKernelLaunchesPass
    : transfuse::impl::LowerKernelLaunchesBase<LowerKernelLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    Type i32 = IntegerType::get(context, 32),
         i64 = IntegerType::get(context, 64);
    Type ptr = LLVM::LLVMPointerType::get(context);
    // The module of the first launch is the one every launch must use.
    StringAttr kernelModule;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (!kernelModule)
        kernelModule = launch.getKernelModuleName();
    });
    if (!kernelModule)
      return;
    func::FuncOp launchFn = declareRuntimeFunction(
        module, kLaunch,
        FunctionType::get(context,
                          {i32, i64, i64, i64, i64, i64, i64, i32, ptr}, {}));
    llvm::MapVector<StringAttr, int32_t> kernels;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isExternal() &&
          failed(lowerFunction(function, launchFn, kernelModule, kernels)))
        return signalPassFailure();
    SmallVector<Attribute> names;
    for (auto &[name, index] : kernels)
      names.push_back(name);
    module->setAttr(kKernelsAttr, ArrayAttr::get(context, names));
  }
};

} // namespace
