//===- NNFolds.cpp - Folders of nn ops ------------------------------------===//
//
// Folds that remove no-op shape changes and compose chains of them, so the
// fusion patterns see canonical graphs; and folds of splat constants through
// shape ops, so scalars written as broadcast tensors stay recognisable.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace transfuse::nn;

/// A splat constant operand reshaped to the result type, or null.
static Attribute reshapeSplat(Attribute operand, Type resultType) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(operand);
  if (!splat)
    return {};
  return splat.resizeSplat(cast<ShapedType>(resultType));
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (llvm::equal(getPerm(), llvm::seq<int64_t>(0, getPerm().size())))
    return getInput();
  if (Attribute splat = reshapeSplat(adaptor.getInput(), getType()))
    return splat;
  // transpose(transpose(x, inner), outer) == transpose(x, inner ∘ outer).
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t axis : getPerm())
      composed.push_back(inner.getPerm()[axis]);
    setPerm(composed);
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (Attribute splat = reshapeSplat(adaptor.getInput(), getType()))
    return splat;
  // reshape(reshape(x)) == reshape(x): only the final shape matters.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return reshapeSplat(adaptor.getInput(), getType());
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}
