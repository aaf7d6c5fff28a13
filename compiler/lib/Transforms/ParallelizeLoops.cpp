//===- ParallelizeLoops.cpp - Parallel tiles for bufferized loop nests ----===//
//
// Splits the leading parallel loops of each sizeable linalg op into an
// scf.parallel of tiles; the code generator turns those into OpenMP
// worksharing loops run on the runtime's threads.
//
//===----------------------------------------------------------------------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace transfuse {
#define GEN_PASS_DEF_PARALLELIZELOOPS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// How many leading loops may be tiled: a second one only when the first
/// is too short to give every thread work (a batch of 4, say).
constexpr size_t kMaxTiledLoops = 2;

/// Tile sizes that split `op`'s leading parallel loops into about `tiles`
/// pieces (0 keeps a loop whole), or none when it cannot be split.
SmallVector<int64_t> chooseTileSizes(linalg::LinalgOp op, int64_t tiles) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> sizes(ranges.size(), 0);
  int64_t wanted = tiles;
  for (size_t d = 0; d < std::min(kMaxTiledLoops, ranges.size()); ++d) {
    if (wanted <= 1 || iterators[d] != utils::IteratorType::parallel ||
        ranges[d] <= 1)
      break;
    int64_t pieces = std::min(ranges[d], wanted);
    sizes[d] = llvm::divideCeil(ranges[d], pieces);
    wanted = llvm::divideCeil(wanted, llvm::divideCeil(ranges[d], sizes[d]));
  }
  if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return {};
  return sizes;
}

struct ParallelizeLoopsPass
    : transfuse::impl::ParallelizeLoopsBase<ParallelizeLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Only ops directly in a function body: a tile's op sits inside its
    // scf.parallel and is not split again.
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() &&
          isa<FunctionOpInterface>(op->getParentOp()))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (ranges.empty() || ShapedType::isDynamicShape(ranges))
        continue;
      int64_t work = 1;
      for (int64_t range : ranges)
        work *= range;
      int64_t tiles = std::min<int64_t>(maxTiles, work / minTileWork);
      SmallVector<int64_t> sizes = chooseTileSizes(op, tiles);
      if (sizes.empty())
        continue;
      rewriter.setInsertionPoint(op);
      auto options =
          linalg::LinalgTilingOptions().setTileSizes(sizes).setLoopType(
              linalg::LinalgTilingLoopType::ParallelLoops);
      // An op tiling cannot split simply stays one sequential loop nest.
      if (succeeded(linalg::tileLinalgOp(rewriter, op, options)))
        rewriter.eraseOp(op);
    }
  }
};

} // namespace
