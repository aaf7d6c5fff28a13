//===- SplitReductions.cpp - Reductions in two steps, for many threads ----===//
//
// On the GPU one thread computes each result of a reduction, looping over
// what it reduces. A reduction with few results and many inputs (the sum
// of squares of a whole gradient for its norm, a bias gradient summed over
// thousands of rows) would run on a handful of threads. This pass splits
// one of its reduction dimensions d (size E) in two, d = r * c + p: a first
// op computes c partial results per result, each over every c-th element
// (adjacent threads read adjacent elements), and a second op combines the
// partials. The pass repeats on what it creates until each op has enough
// results or little left to reduce, so a full reduction becomes a short
// tree of them. Only reductions whose combiner is associative are split
// (integer add, max and min, and float add with `reassoc`, as the nn
// lowering marks its sums): the result is the same up to the order of a
// reassociable float sum, and the same on every run.
//===----------------------------------------------------------------------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace transfuse {
#define GEN_PASS_DEF_SPLITREDUCTIONS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// Results an op should have to keep the GPU busy.
constexpr int64_t kEnoughResults = 16384;
/// Elements below which a reduction is left alone. Unsplit, a bias
/// gradient's thread walked about 30 rows a microsecond on an H100 (45 us
/// for 64 x 20 rows, 72 us for 64 x 30), where another op costs a launch
/// of a few microseconds: a few hundred elements pay for it.
constexpr int64_t kSmallReduction = 256;
/// Elements each thread of a split reduction should still reduce, so that
/// a full reduction is a short chain of ops.
constexpr int64_t kMinPerThread = 16;

/// The combiner of a reduction body: `yield combine(%out, x)`.
struct Combiner {
  Operation *op = nullptr;
  Attribute neutral;
};

std::optional<Combiner> combinerOf(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  Value out = body.getArgument(body.getNumArguments() - 1);
  if (!out.hasOneUse())
    return std::nullopt;
  Operation *combine = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!combine || combine->getNumOperands() != 2 ||
      !llvm::is_contained(combine->getOperands(), out) ||
      *out.getUsers().begin() != combine)
    return std::nullopt;
  Type type = out.getType();
  Builder b(op.getContext());
  auto floatAttr = [&](double value) -> Attribute {
    return b.getFloatAttr(type, value);
  };
  double inf = std::numeric_limits<double>::infinity();
  if (auto add = dyn_cast<arith::AddFOp>(combine))
    return arith::bitEnumContainsAll(add.getFastmath(),
                                     arith::FastMathFlags::reassoc)
               ? std::optional<Combiner>({combine, floatAttr(0.0)})
               : std::nullopt;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combine))
    return Combiner{combine, floatAttr(-inf)};
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(combine))
    return Combiner{combine, floatAttr(inf)};
  if (isa<arith::AddIOp>(combine))
    return Combiner{combine, b.getIntegerAttr(type, 0)};
  if (!type.isInteger())
    return std::nullopt;
  unsigned bits = type.getIntOrFloatBitWidth();
  auto integer = [&](const APInt &value) -> Attribute {
    return b.getIntegerAttr(type, value);
  };
  if (isa<arith::MaxSIOp>(combine))
    return Combiner{combine, integer(APInt::getSignedMinValue(bits))};
  if (isa<arith::MinSIOp>(combine))
    return Combiner{combine, integer(APInt::getSignedMaxValue(bits))};
  if (isa<arith::MaxUIOp>(combine))
    return Combiner{combine, integer(APInt::getMinValue(bits))};
  if (isa<arith::MinUIOp>(combine))
    return Combiner{combine, integer(APInt::getMaxValue(bits))};
  return std::nullopt;
}

/// The split of `op`: its dimension `dim` (size `size`) into `parts`.
struct Split {
  unsigned dim;
  int64_t size, parts;
};

/// Which dimension to split, into how many parts, or none. Every operand
/// must index `dim` by the dimension alone (a projected permutation).
std::optional<Split> chooseSplit(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return std::nullopt;
  int64_t results = 1, reduced = 1;
  SmallVector<unsigned> reductions;
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (iterator == utils::IteratorType::reduction) {
      reduced *= sizes[dim];
      reductions.push_back(dim);
    } else {
      results *= sizes[dim];
    }
  }
  if (reductions.empty() || results == 0 || results >= kEnoughResults ||
      reduced < kSmallReduction ||
      llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return !map.isProjectedPermutation(); }))
    return std::nullopt;
  // The largest reduction dimension that divides well. Each thread of the
  // partial op reduces reduced / parts elements, whichever dimension is
  // split.
  llvm::sort(reductions,
             [&](unsigned a, unsigned b) { return sizes[a] > sizes[b]; });
  int64_t wanted = std::min((kEnoughResults + results - 1) / results,
                            reduced / kMinPerThread);
  for (unsigned dim : reductions) {
    int64_t size = sizes[dim], best = 1;
    for (int64_t parts = 2; parts <= std::min(wanted, size); ++parts)
      if (size % parts == 0)
        best = parts;
    if (best > 1)
      return Split{dim, size, best};
  }
  return std::nullopt;
}

/// `map` over the dimensions after the split: dimension `split.dim`
/// becomes p (at split.dim, parallel) and r (at split.dim + 1), later ones
/// shift by one, and an operand result indexed by it becomes (r, p).
AffineMap splitMap(AffineMap map, const Split &split, MLIRContext *context,
                   SmallVectorImpl<int64_t> *expandedAt) {
  SmallVector<AffineExpr> results;
  for (auto [position, result] : llvm::enumerate(map.getResults())) {
    unsigned dim = cast<AffineDimExpr>(result).getPosition();
    if (dim == split.dim) {
      if (expandedAt)
        expandedAt->push_back(position);
      results.push_back(getAffineDimExpr(dim + 1, context));
      results.push_back(getAffineDimExpr(dim, context));
    } else {
      results.push_back(
          getAffineDimExpr(dim > split.dim ? dim + 1 : dim, context));
    }
  }
  return AffineMap::get(map.getNumDims() + 1, 0, results, context);
}

/// `tensor` with its dimension `position` (size split.size) expanded into
/// [size / parts, parts].
Value expand(OpBuilder &b, Location loc, Value tensor, int64_t position,
             const Split &split) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    int64_t next = shape.size();
    if (dim == position) {
      shape.append({split.size / split.parts, split.parts});
      groups.push_back({next, next + 1});
    } else {
      shape.push_back(type.getDimSize(dim));
      groups.push_back({next});
    }
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), tensor,
      groups);
}

/// Replaces `op` by the partial op and the op combining the partials;
/// returns both (the pass looks at them again).
SmallVector<linalg::GenericOp> splitReduction(linalg::GenericOp op,
                                              const Split &split,
                                              const Combiner &combiner) {
  MLIRContext *context = op.getContext();
  OpBuilder b(op);
  Location loc = op.getLoc();
  // Inputs, each with the split dimension expanded where it indexes it.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    SmallVector<int64_t> at;
    AffineMap map =
        splitMap(op.getMatchingIndexingMap(input), split, context, &at);
    Value value = input->get();
    if (!at.empty())
      value = expand(b, loc, value, at.front(), split);
    inputs.push_back(value);
    maps.push_back(map);
  }
  // Partials: [parts, results...], starting at the neutral element.
  OpOperand *init = op.getDpsInitOperand(0);
  auto initType = cast<RankedTensorType>(init->get().getType());
  SmallVector<int64_t> partialShape = {split.parts};
  llvm::append_range(partialShape, initType.getShape());
  Value empty =
      tensor::EmptyOp::create(b, loc, partialShape, initType.getElementType());
  Value neutral =
      arith::ConstantOp::create(b, loc, cast<TypedAttr>(combiner.neutral));
  Value partialInit =
      linalg::FillOp::create(b, loc, neutral, empty).getResult(0);
  AffineMap outMap =
      splitMap(op.getMatchingIndexingMap(init), split, context, nullptr);
  SmallVector<AffineExpr> partialResults = {
      getAffineDimExpr(split.dim, context)};
  llvm::append_range(partialResults, outMap.getResults());
  maps.push_back(
      AffineMap::get(outMap.getNumDims(), 0, partialResults, context));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators[split.dim] = utils::IteratorType::parallel;
  iterators.insert(iterators.begin() + split.dim + 1,
                   utils::IteratorType::reduction);

  auto partial = linalg::GenericOp::create(
      b, loc, partialInit.getType(), inputs, partialInit, maps, iterators,
      [&](OpBuilder &inner, Location at, ValueRange args) {
        IRMapping mapping;
        Block &body = op.getRegion().front();
        mapping.map(body.getArguments(), args);
        for (Operation &bodyOp : body) {
          auto index = dyn_cast<linalg::IndexOp>(bodyOp);
          if (!index) {
            inner.clone(bodyOp, mapping);
            continue;
          }
          // Original dimension k is k, p * 1 + r * parts, or k + 1.
          uint64_t k = index.getDim();
          Value value;
          if (k < split.dim) {
            value = linalg::IndexOp::create(inner, at, k);
          } else if (k > split.dim) {
            value = linalg::IndexOp::create(inner, at, k + 1);
          } else {
            Value p = linalg::IndexOp::create(inner, at, split.dim);
            Value r = linalg::IndexOp::create(inner, at, split.dim + 1);
            value = arith::AddIOp::create(
                inner, at, p,
                arith::MulIOp::create(
                    inner, at, r,
                    arith::ConstantIndexOp::create(inner, at, split.parts)));
          }
          mapping.map(index.getResult(), value);
        }
      });

  // The partials combined into the original init.
  unsigned rank = initType.getRank();
  SmallVector<AffineExpr> resultDims;
  for (unsigned dim = 0; dim < rank; ++dim)
    resultDims.push_back(getAffineDimExpr(dim, context));
  SmallVector<AffineExpr> partialDims = {getAffineDimExpr(rank, context)};
  llvm::append_range(partialDims, resultDims);
  SmallVector<AffineMap> finalMaps = {
      AffineMap::get(rank + 1, 0, partialDims, context),
      AffineMap::get(rank + 1, 0, resultDims, context)};
  SmallVector<utils::IteratorType> finalIterators(
      rank, utils::IteratorType::parallel);
  finalIterators.push_back(utils::IteratorType::reduction);
  auto combined = linalg::GenericOp::create(
      b, loc, initType, partial.getResult(0), init->get(), finalMaps,
      finalIterators, [&](OpBuilder &inner, Location at, ValueRange args) {
        IRMapping mapping;
        Operation *clone = inner.clone(*combiner.op, mapping);
        clone->setOperands({args[1], args[0]});
        linalg::YieldOp::create(inner, at, clone->getResult(0));
      });
  op.getResult(0).replaceAllUsesWith(combined.getResult(0));
  op.erase();
  return {partial, combined};
}

struct SplitReductionsPass
    : transfuse::impl::SplitReductionsBase<SplitReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> worklist;
    getOperation()->walk([&](linalg::GenericOp op) { worklist.push_back(op); });
    while (!worklist.empty()) {
      linalg::GenericOp op = worklist.pop_back_val();
      std::optional<Split> split = chooseSplit(op);
      std::optional<Combiner> combiner = split ? combinerOf(op) : std::nullopt;
      if (combiner)
        llvm::append_range(worklist, splitReduction(op, *split, *combiner));
    }
  }
};

} // namespace
