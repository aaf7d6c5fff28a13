//===- LayerInstances.cpp - How many layers a spec may expand to ----------===//
//
// Checked before any IR is built: IR for millions of layers (a block
// repeated 10^7 times, or repeats nested) would itself exhaust the
// compiler's memory and time.
//===----------------------------------------------------------------------===//
#include "LayerInstances.h"

#include "transfuse/Spec/SpecLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace transfuse::import {

namespace {

/// Counts the layer instances a list of layers expands to, saturating just
/// above the limit. Blocks are counted once and remembered; a block that
/// instantiates itself counts as empty here and is reported by the import.
class InstanceCounter {
public:
  explicit InstanceCounter(const spec::Model &model) : model(model) {
    for (auto [i, block] : llvm::enumerate(model.blocks()))
      blockIndex.try_emplace(block.name(), i);
  }

  uint64_t countLayer(const spec::Layer &layer) {
    if (!layer.has_block())
      return 1;
    uint64_t repeat = std::max<int64_t>(layer.block().repeat(), 1);
    return cap(
        llvm::SaturatingMultiply(repeat, countBlock(layer.block().block())));
  }

private:
  static uint64_t cap(uint64_t count) {
    return std::min<uint64_t>(count, spec::kMaxLayerInstances + 1);
  }

  uint64_t countBlock(const std::string &name) {
    auto known = counted.find(name);
    if (known != counted.end())
      return known->second;
    auto index = blockIndex.find(name);
    if (index == blockIndex.end() || !visiting.insert(name).second)
      return 0;
    uint64_t total = 0;
    for (const spec::Layer &layer : model.blocks(index->second).layers())
      total = cap(llvm::SaturatingAdd(total, countLayer(layer)));
    visiting.erase(name);
    counted[name] = total;
    return total;
  }

  const spec::Model &model;
  llvm::StringMap<int> blockIndex;
  llvm::StringMap<uint64_t> counted;
  llvm::StringSet<> visiting;
};

} // namespace

LogicalResult checkLayerInstances(const spec::Spec &spec) {
  const spec::Model &model = spec.getModel();
  InstanceCounter counter(model);
  uint64_t total = 0;
  for (auto [i, layer] : llvm::enumerate(model.layers())) {
    total = llvm::SaturatingAdd(total, counter.countLayer(layer));
    if (total <= spec::kMaxLayerInstances)
      continue;
    spec::SpecCursor root = spec.root();
    return emitError(root.locationOf("layers", i))
           << root.pathOf("layers", i) << ": layer '" << layer.name()
           << "' brings the model to more than " << spec::kMaxLayerInstances
           << " layer instances (each repeat of a block counted), the most "
              "a spec may expand to";
  }
  return success();
}

} // namespace transfuse::import
