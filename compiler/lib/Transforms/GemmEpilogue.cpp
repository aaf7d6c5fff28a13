//===- GemmEpilogue.cpp - Bias and ReLU after a GEMM, into its call -------===//
#include "GemmEpilogue.h"

#include "BufferUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace transfuse::buffers {
namespace {

bool isDenseF32(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32() &&
         type.getLayout().isIdentity();
}

/// The op of `block` that holds `op`, or null when `op` is outside it.
Operation *inBlock(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

/// Whether `op` comes strictly between `from` and `to` (same block).
bool isBetween(Operation *op, Operation *from, Operation *to) {
  return op && from->isBeforeInBlock(op) && op->isBeforeInBlock(to);
}

/// Whether some user of a value viewing `buffer`'s memory, other than a
/// view, lies strictly between `from` and `to`, nested ops included.
bool usedBetween(Value buffer, Operation *from, Operation *to) {
  for (Value alias : aliasesOf(buffer))
    for (Operation *user : alias.getUsers())
      if (!isView(user) && isBetween(inBlock(from->getBlock(), user), from, to))
        return true;
  return false;
}

/// The first op after `gemm` in its block that uses a value viewing the
/// product's memory, views aside.
Operation *nextUser(Operation *gemm, const Aliases &product) {
  for (Operation *op = gemm->getNextNode(); op; op = op->getNextNode()) {
    if (isView(op))
      continue;
    bool uses = false;
    op->walk([&](Operation *nested) {
      uses |= llvm::any_of(nested->getOperands(), [&](Value operand) {
        return product.contains(operand);
      });
    });
    if (uses)
      return op;
  }
  return nullptr;
}

/// The activation `yielded` applies to `sum` (ReLU as maximumf with 0), or
/// nothing when it is not one.
std::optional<GemmActivation> activationOf(Value yielded, Value &sum) {
  sum = yielded;
  auto maximum = yielded.getDefiningOp<arith::MaximumFOp>();
  if (!maximum)
    return GemmActivation::None;
  for (unsigned i : {0u, 1u}) {
    FloatAttr zero;
    if (matchPattern(maximum->getOperand(1 - i), m_Constant(&zero)) &&
        zero.getValue().isZero() && !zero.getValue().isNegative()) {
      sum = maximum->getOperand(i);
      return GemmActivation::Relu;
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<GemmEpilogue> findGemmEpilogue(Operation *gemm,
                                             Operation *zeroInit, Value lhs,
                                             Value rhs, Value product) {
  Aliases productAliases = aliasesOf(product);
  auto generic =
      dyn_cast_or_null<linalg::GenericOp>(nextUser(gemm, productAliases));
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return std::nullopt;

  // Which input is the product, which the bias; the maps: the identity for
  // the product and the output, the last loop for the bias.
  Value output = generic.getDpsInits()[0];
  auto productType = cast<MemRefType>(product.getType());
  int64_t n = productType.getShape().back();
  auto readsProduct = [&](unsigned input) {
    return productAliases.contains(generic.getDpsInputs()[input]);
  };
  if (!readsProduct(0) && !readsProduct(1))
    return std::nullopt;
  unsigned productInput = readsProduct(0) ? 0 : 1;
  Value productView = generic.getDpsInputs()[productInput];
  Value bias = generic.getDpsInputs()[1 - productInput];
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  unsigned loops = generic.getNumLoops();
  MLIRContext *context = generic.getContext();
  AffineMap lastLoop =
      AffineMap::get(loops, 0, getAffineDimExpr(loops - 1, context));
  auto outputType = dyn_cast<MemRefType>(output.getType());
  if (!isDenseF32(productView) || !isDenseF32(output) || !isDenseF32(bias) ||
      !maps[productInput].isIdentity() || !maps[2].isIdentity() ||
      maps[1 - productInput] != lastLoop ||
      productView.getType() != output.getType() ||
      outputType.getNumElements() != productType.getNumElements() ||
      outputType.getShape().back() != n ||
      cast<MemRefType>(bias.getType()).getShape() != ArrayRef<int64_t>{n})
    return std::nullopt;

  // The body: yield act(product + bias).
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value sum;
  std::optional<GemmActivation> activation =
      activationOf(yield.getOperand(0), sum);
  auto add = sum.getDefiningOp<arith::AddFOp>();
  Value productArg = body.getArgument(productInput);
  Value biasArg = body.getArgument(1 - productInput);
  size_t expectedOps = *activation == GemmActivation::None ? 2 : 3;
  if (!activation || !add || body.getOperations().size() != expectedOps ||
      !((add.getLhs() == productArg && add.getRhs() == biasArg) ||
        (add.getLhs() == biasArg && add.getRhs() == productArg)))
    return std::nullopt;

  // The product is read by nothing else: it dies at the op.
  for (Value alias : productAliases)
    for (Operation *user : alias.getUsers())
      if (user != gemm && user != zeroInit && user != generic &&
          !isView(user) && !isa<memref::DeallocOp>(user))
        return std::nullopt;

  // The output can be written at the GEMM instead: an argument or an
  // allocation, neither operand, and untouched in between; the bias holds
  // the same values there.
  Block *block = gemm->getBlock();
  Operation *definition = output.getDefiningOp();
  bool argument = isa<BlockArgument>(output) &&
                  cast<BlockArgument>(output).getOwner() == block;
  bool allocated = definition && isa<memref::AllocOp>(definition) &&
                   definition->getBlock() == block;
  Aliases outputAliases = aliasesOf(output);
  if ((!argument && !allocated) || outputAliases.contains(lhs) ||
      outputAliases.contains(rhs) || outputAliases.contains(bias))
    return std::nullopt;
  for (Value alias : outputAliases)
    for (Operation *user : alias.getUsers())
      if (user != definition && !isView(user) &&
          isBetween(inBlock(block, user), gemm, generic))
        return std::nullopt;
  if (usedBetween(bias, gemm, generic))
    return std::nullopt;
  return GemmEpilogue{generic, bias, *activation, output};
}

void hoistEpilogueOutput(const GemmEpilogue &epilogue, Operation *gemm) {
  Operation *allocation = epilogue.output.getDefiningOp();
  if (allocation && gemm->isBeforeInBlock(allocation))
    allocation->moveBefore(gemm);
}

} // namespace transfuse::buffers
