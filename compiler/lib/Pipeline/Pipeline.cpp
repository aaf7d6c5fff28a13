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

static constexpr Phase kCPUPhases[] = {
    Phase::Import,    Phase::Graph, Phase::Fuse,   Phase::Autodiff,
    Phase::Optimizer, Phase::Plan,  Phase::Codegen};
static constexpr Phase kCUDAPhases[] = {
    Phase::Import,    Phase::Graph, Phase::Fuse,    Phase::Autodiff,
    Phase::Optimizer, Phase::Plan,  Phase::Kernels, Phase::Codegen};

ArrayRef<Phase> allPhases(Target::Kind target) {
  if (target == Target::Kind::CUDA)
    return kCUDAPhases;
  return kCPUPhases;
}

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
  case Phase::Kernels:
    return "kernels";
  case Phase::Codegen:
    return "codegen";
  }
  llvm_unreachable("unknown phase");
}

std::optional<Phase> parsePhase(StringRef name, Target::Kind target) {
  for (Phase phase : allPhases(target))
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
    "nn-externalize-parameters, convert-nn-to-linalg{keep-cross-entropy}, "
    "canonicalize, "
    "nn-fuse-elementwise-loops, canonicalize, cse, nn-unshare-init-tensors, "
    "eliminate-empty-tensors, "
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}, "
    "buffer-results-to-out-params{hoist-static-allocs "
    "modify-public-functions}, canonicalize, nn-attention-to-runtime-call, "
    "nn-matmul-to-runtime-call, nn-kernel-ops-to-runtime-call, "
    "nn-parallelize-loops, canonicalize, "
    "nn-buffer-deallocation, nn-dealloc-after-last-use, "
    "nn-collectives-to-runtime-call";

/// From bufferized linalg to the LLVM dialect. Dropout computes each Philox
/// block once for the four elements that share it; a reduction's running
/// element stays in a register through its loop, so that it vectorises.
/// Parallel
/// tiles become OpenMP
/// worksharing loops (the canonicalizer then drops the alloca scopes that
/// lowering wraps their bodies in). Each top-level loop nest then gets a
/// function of its own, which keeps LLVM's loop analyses linear in the
/// number of loops. Subview offsets are affine maps of the tile indices, so
/// affine lowers after strided metadata is expanded. f32
/// exp, log, tanh and erf become polynomials that vectorise; other math ops
/// go to LLVM intrinsics, and what has none becomes a libm call.
static constexpr llvm::StringLiteral kCodegenPipeline =
    "nn-approximate-math, convert-linalg-to-loops, nn-share-dropout-blocks, "
    "nn-promote-accumulators, "
    "convert-scf-to-openmp, "
    "canonicalize, nn-outline-loops, expand-strided-metadata, lower-affine, "
    "convert-scf-to-cf, "
    "canonicalize, finalize-memref-to-llvm{use-generic-functions}, "
    "convert-math-to-llvm, convert-math-to-libm, convert-arith-to-llvm, "
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}, "
    "convert-cf-to-llvm, convert-index-to-llvm, convert-openmp-to-llvm, "
    "reconcile-unrealized-casts";

/// The CUDA target's plan: everything the GPU runs is one entry point's own
/// code (calls are inlined first), layer norm, the losses and the embedding
/// gradient stay whole for the runtime's kernels, sizeable reductions are
/// split in two so that they run on many threads, and the temporaries
/// become views of one arena planned from their lifetimes.
static constexpr llvm::StringLiteral kCUDAPlanPipeline =
    "inline, nn-externalize-parameters, "
    "convert-nn-to-linalg{keep-kernel-ops whole-cache-updates}, "
    "nn-scalars-to-tensors, "
    "canonicalize, nn-fuse-elementwise-loops, canonicalize, cse, "
    "nn-split-reductions, "
    "canonicalize, nn-unshare-init-tensors, eliminate-empty-tensors, "
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}, "
    "buffer-results-to-out-params{hoist-static-allocs "
    "modify-public-functions}, canonicalize, "
    "nn-attention-to-runtime-call{target=cuda}, "
    "nn-matmul-to-runtime-call{target=cuda}, "
    "nn-kernel-ops-to-runtime-call{target=cuda}, "
    "canonicalize, nn-buffer-deallocation, nn-dealloc-after-last-use, "
    "nn-collectives-to-runtime-call{target=cuda}, nn-plan-device-memory";

/// Every loop nest becomes a GPU kernel: one thread per iteration of its
/// parallel loops, a reduction's running element in a register,
/// upstream's mapping to blocks and threads, outlining, then one module of
/// distinct kernels.
static constexpr llvm::StringLiteral kCUDAKernelsPipeline =
    "nn-map-loops-to-gpu, nn-promote-accumulators, "
    "func.func(gpu-map-parallel-loops, "
    "convert-parallel-loops-to-gpu), canonicalize, nn-sink-into-launches, "
    "gpu-kernel-outlining, nn-merge-gpu-modules, canonicalize";

/// The kernels to NVVM and PTX for every architecture (libdevice linked
/// from the toolkit), then the host code to the LLVM dialect with each
/// launch a call of the runtime.
static std::string cudaCodegenPipeline(const Target &target) {
  std::string pipeline;
  for (const std::string &arch : target.cudaArchs)
    pipeline += "nvvm-attach-target{chip=" + arch + " features=+ptx80 O=3}, ";
  pipeline +=
      "gpu.module(expand-strided-metadata, lower-affine, convert-scf-to-cf, "
      "convert-vector-to-llvm, "
      "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}, canonicalize, "
      "cse, reconcile-unrealized-casts), "
      "gpu-module-to-binary{format=isa toolkit=" +
      target.cudaToolkit +
      "}, nn-lower-kernel-launches, expand-strided-metadata, lower-affine, "
      "convert-scf-to-cf, canonicalize, finalize-memref-to-llvm, "
      "convert-arith-to-llvm, "
      "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}, "
      "convert-cf-to-llvm, convert-index-to-llvm, reconcile-unrealized-casts";
  return pipeline;
}

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
  pm.addPass(createFuseGelu());
  pm.addPass(createFuseMatmulEpilogue());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// The passes of one phase after import, run once (or, for fuse, per
/// round). The training phases do nothing for a model without a loss.
static void addPhasePasses(Phase phase, ModuleOp module, const Target &target,
                           PassManager &pm) {
  bool cuda = target.kind == Target::Kind::CUDA;
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
    // Before the phases whose time grows with the model: a model too large
    // to run is refused here, with its estimate.
    pm.addPass(createCheckMemory(CheckMemoryOptions{target.memoryLimit}));
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
    // Before the !trains exit: asked of a model that does not train, it
    // says so.
    if (target.allReduceBucketBytes > 0)
      pm.addPass(
          createDataParallel(DataParallelOptions{target.allReduceBucketBytes}));
    if (!trains)
      break;
    pm.addPass(createOptimizer(OptimizerOptions{/*runtimeUpdate=*/cuda}));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    break;
  case Phase::Plan:
    addPipeline(pm, cuda ? kCUDAPlanPipeline : kPlanPipeline);
    break;
  case Phase::Kernels:
    addPipeline(pm, kCUDAKernelsPipeline);
    break;
  case Phase::Codegen:
    addPipeline(pm, cuda ? cudaCodegenPipeline(target)
                         : std::string(kCodegenPipeline));
    break;
  }
}

/// Runs `phase`'s passes, repeating the fuse phase until the IR stops
/// changing.
static LogicalResult runPhase(Phase phase, ModuleOp module,
                              const Target &target, TimingScope &timing) {
  int rounds = phase == Phase::Fuse ? kMaxFuseRounds : 1;
  for (int round = 0; round < rounds; ++round) {
    PassManager pm(module->getName());
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(timing);
    addPhasePasses(phase, module, target, pm);
    OperationFingerPrint before(module);
    if (failed(pm.run(module)))
      return failure();
    if (OperationFingerPrint(module) == before)
      break;
  }
  return success();
}

LogicalResult
runPipeline(ModuleOp module, Phase last, const Target &target,
            function_ref<LogicalResult(Phase, ModuleOp)> afterPhase) {
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();
  for (Phase phase : allPhases(target.kind)) {
    if (phase != Phase::Import) {
      TimingScope phaseTiming = rootTiming.nest(phaseName(phase));
      if (failed(runPhase(phase, module, target, phaseTiming)))
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
