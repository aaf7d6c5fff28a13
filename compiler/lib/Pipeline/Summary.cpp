//===- Summary.cpp - A human-readable account of a module -----------------===//
#include "transfuse/Dialect/NN/NNOps.h"
#include "transfuse/Dialect/NN/ShapeRules.h"
#include "transfuse/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace transfuse {

/// 59508496 -> "59,508,496".
static std::string withThousands(uint64_t value) {
  std::string digits = std::to_string(value), result;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      result += ',';
    result += digits[i];
  }
  return result;
}

static void printValues(func::FuncOp func, bool results, raw_ostream &os) {
  unsigned count = results ? func.getNumResults() : func.getNumArguments();
  for (unsigned i = 0; i < count; ++i) {
    auto name = results ? func.getResultAttrOfType<StringAttr>(i, "nn.name")
                        : func.getArgAttrOfType<StringAttr>(i, "nn.name");
    Type type = results ? func.getResultTypes()[i] : func.getArgumentTypes()[i];
    os << "  " << (name ? name.getValue() : "?") << ": " << type << "\n";
  }
}

void printSummary(ModuleOp module, ArrayRef<ImportedLayer> layers,
                  raw_ostream &os) {
  if (auto name = module->getAttrOfType<StringAttr>("nn.model"))
    os << "model: " << name.getValue() << "\n";
  if (auto forward = module.lookupSymbol<func::FuncOp>("forward")) {
    os << "inputs:\n";
    printValues(forward, /*results=*/false, os);
    os << "outputs:\n";
    printValues(forward, /*results=*/true, os);
  }

  llvm::MapVector<StringRef, unsigned> layerKinds;
  for (const ImportedLayer &layer : layers)
    ++layerKinds[layer.kind];
  os << "layers: " << layers.size() << "\n";
  for (auto [kind, count] : layerKinds)
    os << "  " << kind << ": " << count << "\n";

  uint64_t values = 0;
  std::string table;
  llvm::raw_string_ostream tableStream(table);
  unsigned tensors = 0;
  for (auto parameter : module.getOps<nn::ParameterOp>()) {
    RankedTensorType type = parameter.getTensorType();
    values += type.getNumElements();
    ++tensors;
    tableStream << "  " << parameter.getSymName() << " "
                << nn::formatShape(type.getShape()) << " "
                << parameter.getInit() << "\n";
  }
  os << "parameters: " << tensors << " tensors, " << withThousands(values)
     << " values\n"
     << table;

  for (auto func : module.getOps<func::FuncOp>()) {
    llvm::MapVector<StringRef, unsigned> histogram;
    unsigned total = 0;
    func.walk([&](Operation *op) {
      if (op != func.getOperation()) {
        ++histogram[op->getName().getStringRef()];
        ++total;
      }
    });
    os << "ops in @" << func.getSymName() << ": " << total << "\n";
    SmallVector<std::pair<StringRef, unsigned>> sorted(histogram.begin(),
                                                       histogram.end());
    llvm::stable_sort(sorted,
                      [](auto &a, auto &b) { return a.second > b.second; });
    for (auto [name, count] : sorted)
      os << llvm::formatv("  {0,-24} {1,6}\n", name, count);
  }
}

} // namespace transfuse
