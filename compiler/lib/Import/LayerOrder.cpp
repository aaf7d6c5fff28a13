//===- LayerOrder.cpp - Layers read only what is already produced ---------===//
//
// Layers run in the order they are written, as in a PyTorch forward(). A
// layer that reads a tensor produced later is an error; when the later
// producer itself depends on the reader, the layers form a cycle, and the
// error names it.
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
namespace pb = google::protobuf;

namespace transfuse::import {

namespace {
class LayerOrder {
public:
  LayerOrder(const spec::SpecCursor &scope, StringRef field)
      : scope(scope), field(field) {
    const pb::Message &message = scope.getMessage();
    const pb::FieldDescriptor *descriptor =
        message.GetDescriptor()->FindFieldByName(field.str());
    int size = message.GetReflection()->FieldSize(message, descriptor);
    for (int i = 0; i < size; ++i)
      layers.push_back(static_cast<const spec::Layer *>(
          &message.GetReflection()->GetRepeatedMessage(message, descriptor,
                                                       i)));
  }

  LogicalResult check(ArrayRef<std::string> available);

private:
  std::string display(int index) const {
    const spec::Layer &layer = *layers[index];
    if (!layer.name().empty())
      return "'" + layer.name() + "'";
    return "#" + std::to_string(index) + " (" + layerKindName(layer) + ")";
  }
  /// The chain of layers from `from` to `target` through inputs, if any.
  bool reaches(int from, int target, SmallVectorImpl<int> &chain,
               llvm::DenseSet<int> &visited) const;

  spec::SpecCursor scope;
  std::string field;
  SmallVector<const spec::Layer *> layers;
  llvm::StringMap<int> producer;
};
} // namespace

bool LayerOrder::reaches(int from, int target, SmallVectorImpl<int> &chain,
                         llvm::DenseSet<int> &visited) const {
  chain.push_back(from);
  if (from == target)
    return true;
  if (visited.insert(from).second)
    for (const std::string &input : layers[from]->inputs())
      if (auto it = producer.find(input); it != producer.end())
        if (reaches(it->second, target, chain, visited))
          return true;
  chain.pop_back();
  return false;
}

LogicalResult LayerOrder::check(ArrayRef<std::string> available) {
  llvm::StringSet<> inputs;
  for (const std::string &name : available)
    inputs.insert(name);
  for (auto [i, layer] : llvm::enumerate(layers)) {
    spec::SpecCursor cursor = scope.child(field, i);
    for (auto [k, output] : llvm::enumerate(layer->outputs())) {
      std::string previous = inputs.contains(output) ? std::string("an input")
                             : producer.count(output)
                                 ? "layer " + display(producer[output])
                                 : "";
      if (!previous.empty())
        return emitError(cursor.locationOf("outputs", k))
               << cursor.pathOf("outputs", k) << ": layer " << display(i)
               << " writes '" << output << "', already produced by "
               << previous;
      producer[output] = i;
    }
  }
  for (auto [i, layer] : llvm::enumerate(layers)) {
    spec::SpecCursor cursor = scope.child(field, i);
    for (auto [k, input] : llvm::enumerate(layer->inputs())) {
      if (inputs.contains(input))
        continue;
      auto it = producer.find(input);
      if (it == producer.end())
        return emitError(cursor.locationOf("inputs", k))
               << cursor.pathOf("inputs", k) << ": layer " << display(i)
               << " reads '" << input << "', which no input or layer produces";
      int from = it->second;
      if (from < static_cast<int>(i))
        continue;
      SmallVector<int> chain;
      llvm::DenseSet<int> visited;
      if (reaches(from, i, chain, visited)) {
        InFlightDiagnostic diag = emitError(cursor.locationOf("inputs", k))
                                  << cursor.pathOf("inputs", k)
                                  << ": layers form a cycle: " << display(i);
        for (int step : chain)
          diag << " <- " << display(step);
        return diag;
      }
      return emitError(cursor.locationOf("inputs", k))
             << cursor.pathOf("inputs", k) << ": layer " << display(i)
             << " reads '" << input << "' before layer " << display(from)
             << " produces it; layers run in the order written";
    }
  }
  return success();
}

LogicalResult checkLayerOrder(const spec::SpecCursor &scope,
                              StringRef layersField,
                              ArrayRef<std::string> available) {
  return LayerOrder(scope, layersField).check(available);
}

} // namespace transfuse::import
