//===- Pipeline.cpp - The compilation phases ------------------------------===//
#include "transfuse/Pipeline/Pipeline.h"

#include "transfuse/Transforms/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace transfuse {

static constexpr Phase kPhases[] = {
    Phase::Import,    Phase::Graph, Phase::Fuse,   Phase::Autodiff,
    Phase::Optimizer, Phase::Plan,  Phase::Codegen};

ArrayRef<Phase> allPhases() { return kPhases; }

StringRef phaseName(Phase phase) {
  switch (phase) {
  case Phase::Import:
    return "import";
  case Phase::Graph:
    return "graph";
  case Phase::Fuse:
    return "fuse";
  case Phase::Autodiff:
    return "autodiff";
  case Phase::Optimizer:
    return "optimizer";
  case Phase::Plan:
    return "plan";
  case Phase::Codegen:
    return "codegen";
  }
  llvm_unreachable("unknown phase");
}

std::optional<Phase> parsePhase(StringRef name) {
  for (Phase phase : kPhases)
    if (phaseName(phase) == name)
      return phase;
  return std::nullopt;
}

/// How many rounds of the fusion passes the fuse phase runs at most; the
/// seed models reach their fixed point in two.
static constexpr int kMaxFuseRounds = 4;

/// From the fused nn graph to bufferized linalg whose matmuls call the
/// runtime's GEMM.
static constexpr llvm::StringLiteral kPlanPipeline =
    "nn-externalize-parameters, convert-nn-to-linalg, canonicalize, "
    "nn-fuse-elementwise-loops, canonicalize, cse, eliminate-empty-tensors, "
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}, "
    "buffer-results-to-out-params{hoist-static-allocs "
    "modify-public-functions}, canonicalize, nn-attention-to-runtime-call, "
    "nn-matmul-to-runtime-call, nn-parallelize-loops, canonicalize, "
    "buffer-deallocation-pipeline, nn-dealloc-after-last-use";

/// From bufferized linalg to the LLVM dialect. Parallel tiles become OpenMP
/// worksharing loops (the canonicalizer then drops the alloca scopes that
/// lowering wraps their bodies in). Each top-level loop nest then gets a
/// function of its own, which keeps LLVM's loop analyses linear in the
/// number of loops. Subview offsets are affine maps of the tile indices, so
/// affine lowers after strided metadata is expanded. f32
/// exp, log, tanh and erf become polynomials that vectorise; other math ops
/// go to LLVM intrinsics, and what has none becomes a libm call.
static constexpr llvm::StringLiteral kCodegenPipeline =
    "nn-approximate-math, convert-linalg-to-loops, convert-scf-to-openmp, "
    "canonicalize, nn-outline-loops, expand-strided-metadata, lower-affine, "
    "convert-scf-to-cf, "
    "canonicalize, finalize-memref-to-llvm{use-generic-functions}, "
    "convert-math-to-llvm, convert-math-to-libm, convert-arith-to-llvm, "
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}, "
    "convert-cf-to-llvm, convert-index-to-llvm, convert-openmp-to-llvm, "
    "reconcile-unrealized-casts";

static void addPipeline(PassManager &pm, llvm::StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("the built-in pass pipeline does not parse");
}

/// The fusion passes. Each sees the canonical form the previous one
/// leaves: fused ops expose new shape-op chains for the canonicalizer to
/// fold.
static void addFusionPasses(PassManager &pm) {
  pm.addPass(createFuseAttention());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFuseLayerNorm());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFuseQKVProjections());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFuseMatmulEpilogue());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// The passes of one phase after import, run once (or, for fuse, per
/// round). The training phases do nothing for a model without a loss.
static void addPhasePasses(Phase phase, ModuleOp module, PassManager &pm) {
  bool trains = module.lookupSymbol("loss") && module->hasAttr("nn.training");
  switch (phase) {
  case Phase::Import:
    break;
  case Phase::Graph:
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    break;
  case Phase::Fuse:
    addFusionPasses(pm);
    break;
  case Phase::Autodiff:
    if (!trains)
      break;
    pm.addPass(createAutodiff());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    addFusionPasses(pm);
    break;
  case Phase::Optimizer:
    if (!trains)
      break;
    pm.addPass(createOptimizer());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    break;
  case Phase::Plan:
    addPipeline(pm, kPlanPipeline);
    break;
  case Phase::Codegen:
    addPipeline(pm, kCodegenPipeline);
    break;
  }
}

/// Runs `phase`'s passes, repeating the fuse phase until the IR stops
/// changing.
static LogicalResult runPhase(Phase phase, ModuleOp module,
                              TimingScope &timing) {
  int rounds = phase == Phase::Fuse ? kMaxFuseRounds : 1;
  for (int round = 0; round < rounds; ++round) {
    PassManager pm(module->getName());
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(timing);
    addPhasePasses(phase, module, pm);
    OperationFingerPrint before(module);
    if (failed(pm.run(module)))
      return failure();
    if (OperationFingerPrint(module) == before)
      break;
  }
  return success();
}

LogicalResult
runPipeline(ModuleOp module, Phase last,
            function_ref<LogicalResult(Phase, ModuleOp)> afterPhase) {
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();
  for (Phase phase : kPhases) {
    if (phase != Phase::Import) {
      TimingScope phaseTiming = rootTiming.nest(phaseName(phase));
      if (failed(runPhase(phase, module, phaseTiming)))
        return failure();
    }
    if (failed(afterPhase(phase, module)))
      return failure();
    if (phase == last)
      break;
  }
  return success();
}

} // namespace transfuse
