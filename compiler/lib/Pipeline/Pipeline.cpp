//===- Pipeline.cpp - The compilation phases ------------------------------===//
#include "transfuse/Pipeline/Pipeline.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace transfuse {

static constexpr Phase kPhases[] = {Phase::Import, Phase::Graph};

ArrayRef<Phase> allPhases() { return kPhases; }

StringRef phaseName(Phase phase) {
  switch (phase) {
  case Phase::Import:
    return "import";
  case Phase::Graph:
    return "graph";
  }
  llvm_unreachable("unknown phase");
}

std::optional<Phase> parsePhase(StringRef name) {
  for (Phase phase : kPhases)
    if (phaseName(phase) == name)
      return phase;
  return std::nullopt;
}

/// The passes of one phase after import.
static void addPhasePasses(Phase phase, PassManager &pm) {
  switch (phase) {
  case Phase::Import:
    break;
  case Phase::Graph:
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    break;
  }
}

LogicalResult
runPipeline(ModuleOp module, Phase last,
            function_ref<LogicalResult(Phase, ModuleOp)> afterPhase) {
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();
  for (Phase phase : kPhases) {
    if (phase != Phase::Import) {
      PassManager pm(module->getName());
      if (failed(applyPassManagerCLOptions(pm)))
        return failure();
      TimingScope phaseTiming = rootTiming.nest(phaseName(phase));
      pm.enableTiming(phaseTiming);
      addPhasePasses(phase, pm);
      if (failed(pm.run(module)))
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
