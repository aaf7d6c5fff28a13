//===- MergeGPUModules.cpp - One module of distinct kernels ---------------===//
//
// Outlining makes one gpu.module per launch. Many are the same code (the
// same layer's glue in every layer): the kernels are compared by their
// text, the first of each kind is kept, and all go into one gpu.module,
// `@kernels`, with the constant tables they read. One module is one PTX
// file and one ptxas run per architecture, instead of thousands.
//===----------------------------------------------------------------------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace transfuse {
#define GEN_PASS_DEF_MERGEGPUMODULES
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kModuleName = "kernels";

/// The text of `function` under a fixed name: equal for equal code.
std::string fingerprint(gpu::GPUFuncOp function) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.printGenericOpForm().useLocalScope();
  StringAttr name = function.getNameAttr();
  function.setName("kernel");
  function->print(os, flags);
  function.setName(name);
  return text;
}

struct MergeGPUModulesPass
    : transfuse::impl::MergeGPUModulesBase<MergeGPUModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> modules(module.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return;
    if (module.lookupSymbol(kModuleName)) {
      module.emitError("a symbol is already named '") << kModuleName << "'";
      return signalPassFailure();
    }
    OpBuilder b(modules.front());
    auto merged =
        gpu::GPUModuleOp::create(b, modules.front().getLoc(), kModuleName);
    SymbolTable symbols(merged);
    llvm::StringMap<StringAttr> canonical; // fingerprint -> kept name
    DenseMap<SymbolRefAttr, SymbolRefAttr> renamed;
    for (gpu::GPUModuleOp old : modules) {
      for (Operation &op : llvm::make_early_inc_range(*old.getBody())) {
        auto function = dyn_cast<gpu::GPUFuncOp>(op);
        if (!function) {
          // A constant table: the same symbol in every module that reads it.
          auto symbol = dyn_cast<SymbolOpInterface>(op);
          if (symbol && !symbols.lookup(symbol.getName()))
            symbols.insert(op.clone());
          continue;
        }
        std::string key = fingerprint(function);
        auto [it, fresh] = canonical.try_emplace(key, StringAttr());
        if (fresh) {
          Operation *copy = function->clone();
          it->second = symbols.insert(copy);
        }
        renamed[SymbolRefAttr::get(
            old.getSymNameAttr(),
            {FlatSymbolRefAttr::get(function.getNameAttr())})] =
            SymbolRefAttr::get(merged.getSymNameAttr(),
                               {FlatSymbolRefAttr::get(it->second)});
      }
    }
    // Launches of kernels elsewhere (a gpu.binary) stay as they are.
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr kernel = renamed.lookup(launch.getKernel()))
        launch.setKernelAttr(kernel);
    });
    for (gpu::GPUModuleOp old : modules)
      old.erase();
  }
};

} // namespace
