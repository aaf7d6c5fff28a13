//===- Gradients.h - Shared pieces of the nn gradient rules -----*- C++ -*-===//
#ifndef TRANSFUSE_DIALECT_NN_LIB_GRADIENTS_GRADIENTS_H
#define TRANSFUSE_DIALECT_NN_LIB_GRADIENTS_GRADIENTS_H

#include "transfuse/Dialect/NN/DifferentiableOpInterface.h"
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/IR/TypeUtilities.h"

namespace transfuse::nn::gradients {

/// A gradient rule: the adjoints of `op`'s operands from `dy`, the adjoint
/// of its (single) result.
template <typename OpT>
using Rule = mlir::LogicalResult (*)(OpT op, mlir::OpBuilder &b, mlir::Value dy,
                                     llvm::SmallVectorImpl<mlir::Value> &dx);

/// Attaches `rule` to `OpT` as its DifferentiableOpInterface.
template <typename OpT, Rule<OpT> rule>
struct RuleModel
    : DifferentiableOpInterface::ExternalModel<RuleModel<OpT, rule>, OpT> {
  mlir::LogicalResult
  buildAdjoints(mlir::Operation *op, mlir::OpBuilder &b,
                llvm::ArrayRef<mlir::Value> resultAdjoints,
                llvm::SmallVectorImpl<mlir::Value> &operandAdjoints) const {
    return rule(llvm::cast<OpT>(op), b, resultAdjoints.front(),
                operandAdjoints);
  }
};

template <typename OpT, Rule<OpT> rule>
void attach(mlir::MLIRContext *context) {
  OpT::template attachInterface<RuleModel<OpT, rule>>(*context);
}

/// A tensor of `type` filled with `value`.
mlir::Value splat(mlir::OpBuilder &b, mlir::Location loc,
                  mlir::RankedTensorType type, double value);

/// `value` of `type`'s element type as a rank-0 tensor, which the nn binary
/// ops broadcast.
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element,
                   double value);

/// The adjoint of an operand of type `target` that was broadcast to the
/// shape of `grad`: summed over the broadcast dimensions, reshaped back.
mlir::Value unbroadcast(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value grad, mlir::Type target);

/// `value` broadcast to `type`'s shape (NumPy rules).
mlir::Value broadcastTo(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, mlir::RankedTensorType type);

/// `grad` with zeros where the bool `mask` is true.
mlir::Value zeroWhere(mlir::OpBuilder &b, mlir::Location loc, mlir::Value grad,
                      mlir::Value mask);

void attachElementwiseGradients(mlir::MLIRContext *context);
void attachShapeGradients(mlir::MLIRContext *context);
void attachReductionGradients(mlir::MLIRContext *context);
void attachMatmulGradients(mlir::MLIRContext *context);
void attachLayerGradients(mlir::MLIRContext *context);
void attachLossGradients(mlir::MLIRContext *context);

} // namespace transfuse::nn::gradients

#endif // TRANSFUSE_DIALECT_NN_LIB_GRADIENTS_GRADIENTS_H
