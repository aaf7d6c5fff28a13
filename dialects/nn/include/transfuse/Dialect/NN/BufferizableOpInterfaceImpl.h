//===- BufferizableOpInterfaceImpl.h - Bufferizing nn ops -------*- C++ -*-===//
#ifndef TRANSFUSE_DIALECT_NN_BUFFERIZABLEOPINTERFACEIMPL_H
#define TRANSFUSE_DIALECT_NN_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace transfuse::nn {

/// Lets one-shot bufferization handle the nn ops that reach it: today
/// `nn.attention`, which becomes an allocation and `nn.attention_into`.
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace transfuse::nn

#endif // TRANSFUSE_DIALECT_NN_BUFFERIZABLEOPINTERFACEIMPL_H
