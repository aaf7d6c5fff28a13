//===- DifferentiableOpInterface.h - Gradient rules of nn ops ---*- C++ -*-===//
#ifndef TRANSFUSE_DIALECT_NN_DIFFERENTIABLEOPINTERFACE_H
#define TRANSFUSE_DIALECT_NN_DIFFERENTIABLEOPINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"

#include "transfuse/Dialect/NN/DifferentiableOpInterface.h.inc"

namespace transfuse::nn {

/// Attaches the gradient rules (dialects/nn/lib/Gradients/) to the nn ops.
void registerDifferentiableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace transfuse::nn

#endif // TRANSFUSE_DIALECT_NN_DIFFERENTIABLEOPINTERFACE_H
