//===- DifferentiableOpInterface.cpp - Gradient rules of nn ops -----------===//
#include "transfuse/Dialect/NN/DifferentiableOpInterface.h"
#include "Gradients/Gradients.h"
#include "transfuse/Dialect/NN/NNDialect.h"

#include "transfuse/Dialect/NN/DifferentiableOpInterface.cpp.inc"

namespace transfuse::nn {

void registerDifferentiableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry) {
  registry.addExtension(+[](mlir::MLIRContext *context, NNDialect *) {
    gradients::attachElementwiseGradients(context);
    gradients::attachShapeGradients(context);
    gradients::attachReductionGradients(context);
    gradients::attachMatmulGradients(context);
    gradients::attachLayerGradients(context);
    gradients::attachLossGradients(context);
  });
}

} // namespace transfuse::nn
