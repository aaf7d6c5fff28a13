//===- LayerInstances.h - How many layers a spec may expand to --*- C++ -*-===//
#ifndef TRANSFUSE_LIB_IMPORT_LAYERINSTANCES_H
#define TRANSFUSE_LIB_IMPORT_LAYERINSTANCES_H

#include "transfuse/Spec/Spec.h"

namespace transfuse::import {

/// Fails, at the top-level layer that crosses it, when the spec expands to
/// more than kMaxLayerInstances layers (each repeat of a block counted).
mlir::LogicalResult checkLayerInstances(const spec::Spec &spec);

} // namespace transfuse::import

#endif // TRANSFUSE_LIB_IMPORT_LAYERINSTANCES_H
