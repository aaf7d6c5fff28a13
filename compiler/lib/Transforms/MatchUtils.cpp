//===- MatchUtils.cpp - Small matchers shared by the fusion passes --------===//
#include "MatchUtils.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace transfuse::fusion {

std::optional<double> getScalarConstant(Value value) {
  DenseFPElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  if (!llvm::all_of(attr.getType().getShape(),
                    [](int64_t dim) { return dim == 1; }))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

std::optional<std::pair<Value, double>> matchScalarScale(Operation *op) {
  if (auto div = dyn_cast_if_present<nn::DivOp>(op)) {
    std::optional<double> c = getScalarConstant(div.getRhs());
    if (c && *c > 0.0 && div.getLhs().getType() == div.getType())
      return std::make_pair(div.getLhs(), 1.0 / *c);
    return std::nullopt;
  }
  if (auto mul = dyn_cast_if_present<nn::MulOp>(op)) {
    // A scalar operand does not broadcast the other one up: the result has
    // the other operand's type.
    if (std::optional<double> c = getScalarConstant(mul.getRhs());
        c && *c > 0.0 && mul.getLhs().getType() == mul.getType())
      return std::make_pair(mul.getLhs(), *c);
    if (std::optional<double> c = getScalarConstant(mul.getLhs());
        c && *c > 0.0 && mul.getRhs().getType() == mul.getType())
      return std::make_pair(mul.getRhs(), *c);
  }
  return std::nullopt;
}

PeeledScale peelScalarScales(PatternRewriter &rewriter, Value value) {
  // value = shape ops (scales (base)): collect the shape ops, then the
  // scales below them.
  SmallVector<Operation *> shapeOps;
  Value current = value;
  while (Operation *op = current.getDefiningOp()) {
    if (!isa<nn::ReshapeOp, nn::TransposeOp>(op))
      break;
    shapeOps.push_back(op);
    current = op->getOperand(0);
  }
  double factor = 1.0;
  while (auto scale = matchScalarScale(current.getDefiningOp())) {
    factor *= scale->second;
    current = scale->first;
  }
  if (!matchScalarScale(
          (shapeOps.empty() ? value : shapeOps.back()->getOperand(0))
              .getDefiningOp()))
    return {value, 1.0};
  // Rebuild the shape ops, innermost first, on the unscaled value.
  for (Operation *shapeOp : llvm::reverse(shapeOps)) {
    IRMapping mapping;
    mapping.map(shapeOp->getOperand(0), current);
    current = rewriter.clone(*shapeOp, mapping)->getResult(0);
  }
  return {current, factor};
}

bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  if (rank < 2)
    return false;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[d] != d)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

} // namespace transfuse::fusion
