//===- DifferentiableOpInterface.td - Gradient rules of nn ops -*- tablegen -*-===//
#ifndef TRANSFUSE_NN_DIFFERENTIABLE_OP_INTERFACE
#define TRANSFUSE_NN_DIFFERENTIABLE_OP_INTERFACE

include "mlir/IR/OpBase.td"

def NN_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let description = [{
    The reverse-mode gradient rule of an op, which `nn-autodiff` calls while
    it walks a function backwards. Given the adjoint of each result (the
    gradient of the scalar being differentiated with respect to it; null
    when no result use contributes), the rule builds, at the builder's
    insertion point, the adjoint of each operand, or null for an operand
    that has none (integer ids, bool masks). Rules may read the op's
    operands and results: the forward values stay available.
  }];
  let cppNamespace = "::transfuse::nn";
  let methods = [
    InterfaceMethod<
      "Appends one adjoint (or null) per operand to `operandAdjoints`.",
      "::llvm::LogicalResult", "buildAdjoints",
      (ins "::mlir::OpBuilder &":$b,
           "::mlir::ArrayRef<::mlir::Value>":$resultAdjoints,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints)>
  ];
}

#endif // TRANSFUSE_NN_DIFFERENTIABLE_OP_INTERFACE
