//===- MatmulGradients.cpp - Gradient rules of nn.matmul, nn.fused_matmul -===//
#include "Gradients.h"

using namespace mlir;

namespace transfuse::nn::gradients {
namespace {

/// `value` with its last two dimensions swapped.
Value swapLastTwo(OpBuilder &b, Location loc, Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return TransposeOp::create(b, loc, value, perm);
}

/// `value` as a matrix: every dimension but the last folded into rows.
Value asRows(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 2)
    return value;
  int64_t columns = type.getShape().back();
  return ReshapeOp::create(
      b, loc, value,
      ArrayRef<int64_t>{type.getNumElements() / columns, columns});
}

/// The adjoints of `lhs · rhs` (batch dimensions broadcast, as nn.matmul).
void matmulAdjoints(OpBuilder &b, Location loc, Value lhs, Value rhs, Value dy,
                    SmallVectorImpl<Value> &dx) {
  Value dlhs = MatmulOp::create(b, loc, dy, swapLastTwo(b, loc, rhs));
  dx.push_back(unbroadcast(b, loc, dlhs, lhs.getType()));
  Value drhs = MatmulOp::create(b, loc, swapLastTwo(b, loc, lhs), dy);
  dx.push_back(unbroadcast(b, loc, drhs, rhs.getType()));
}

LogicalResult matmulRule(MatmulOp op, OpBuilder &b, Value dy,
                         SmallVectorImpl<Value> &dx) {
  matmulAdjoints(b, op.getLoc(), op.getLhs(), op.getRhs(), dy, dx);
  return success();
}

/// Through the epilogue first (the activation's derivative, from the
/// result), then the product: a 2-D weight's adjoint is one product over
/// all rows, `dzᵀ · lhs` for a Linear weight read transposed.
LogicalResult fusedMatmulRule(FusedMatmulOp op, OpBuilder &b, Value dy,
                              SmallVectorImpl<Value> &dx) {
  Location loc = op.getLoc();
  Value dz = dy;
  switch (op.getActivation()) {
  case Activation::none:
    break;
  case Activation::relu: {
    Value y = op.getResult();
    Value zero = scalar(b, loc, getElementTypeOrSelf(y.getType()), 0.0);
    dz = zeroWhere(b, loc, dy,
                   CompareOp::create(b, loc, y, zero, ComparePredicate::le));
    break;
  }
  case Activation::gelu:
  case Activation::gelu_tanh: {
    // GELU's derivative needs its input, which the epilogue never stored:
    // the product is recomputed without it.
    Value preActivation = FusedMatmulOp::create(
        b, loc, op.getLhs(), op.getRhs(), op.getBias(), op.getTransposeRhs());
    dz = GeluGradOp::create(b, loc, dy, preActivation,
                            op.getActivation() == Activation::gelu_tanh);
    break;
  }
  }
  Value lhs = op.getLhs(), rhs = op.getRhs();
  bool transposed = op.getTransposeRhs();
  if (cast<RankedTensorType>(rhs.getType()).getRank() != 2) {
    Value product = transposed ? swapLastTwo(b, loc, rhs) : rhs;
    matmulAdjoints(b, loc, lhs, product, dz, dx);
    if (transposed)
      dx.back() = swapLastTwo(b, loc, dx.back());
  } else {
    // dlhs = dz · op(rhs)ᵀ: the weight as stored when it was read transposed.
    dx.push_back(FusedMatmulOp::create(b, loc, dz, rhs, /*bias=*/nullptr,
                                       /*transpose_rhs=*/!transposed));
    Value rows = asRows(b, loc, lhs), dzRows = asRows(b, loc, dz);
    dx.push_back(
        transposed
            ? MatmulOp::create(b, loc, swapLastTwo(b, loc, dzRows), rows)
            : MatmulOp::create(b, loc, swapLastTwo(b, loc, rows), dzRows));
  }
  if (Value bias = op.getBias())
    dx.push_back(unbroadcast(b, loc, dz, bias.getType()));
  return success();
}

} // namespace

void attachMatmulGradients(MLIRContext *context) {
  attach<MatmulOp, matmulRule>(context);
  attach<FusedMatmulOp, fusedMatmulRule>(context);
}

} // namespace transfuse::nn::gradients
