//===- Importer.h - Model spec to the nn dialect --------------------------===//
#ifndef TRANSFUSE_IMPORT_IMPORTER_H
#define TRANSFUSE_IMPORT_IMPORTER_H

#include "transfuse/Spec/Spec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include <string>
#include <vector>

namespace transfuse {

/// One layer of the spec as instantiated: `encoder.layers.3.self_attn`.
struct ImportedLayer {
  std::string path;
  std::string kind;
};

/// Imports `spec` into a module holding the `nn.parameter`s, `@forward`
/// (inputs to the spec's outputs, inference mode) and, with a training
/// section, `@loss` (inputs and labels to the scalar loss) and the
/// `nn.training` module attribute. A model that decodes incrementally
/// (docs/generation.md) also gets `@prefill`, `@decode_step` and
/// `@reorder_cache`, and an encoder-decoder `@encode`, which keep each
/// attention layer's keys and values in an `nn.cache`. Composite
/// layers are expanded into primitive ops as the reference notebooks
/// compute them. Errors are reported as diagnostics at the offending spec
/// field. A spec expanding to more than kMaxLayerInstances layers is
/// refused before any IR is built.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importSpec(mlir::MLIRContext *context, const spec::Spec &spec,
           std::vector<ImportedLayer> *layers = nullptr);

/// Adds the training section of `config` to an imported module whose model
/// came without one (an ONNX model's): `@loss` over the `@forward` output
/// the section names, and the `nn.training` attribute, as importSpec builds
/// them for a spec. `config` is a spec holding only `training` and the
/// `dims` its label shape names.
mlir::LogicalResult addTrainingSection(const spec::Spec &config,
                                       mlir::ModuleOp module);

} // namespace transfuse

#endif // TRANSFUSE_IMPORT_IMPORTER_H
