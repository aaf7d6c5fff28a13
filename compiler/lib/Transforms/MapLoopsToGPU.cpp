//===- MapLoopsToGPU.cpp - Every loop nest of a host function on the GPU --===//
//
// After planning, a CUDA entry point's body holds runtime calls, views and
// the linalg ops (and copies) that are left: the elementwise and broadcast
// glue, row reductions, fills. Each of those becomes one GPU kernel: the op
// is lowered to loops with its parallel dimensions first (reductions run
// inside a thread, in order), and its parallel iteration space, flattened,
// is split into blocks of threads, one thread per iteration. The result is
// a two-level scf.parallel nest (blocks, threads) that upstream's
// gpu-map-parallel-loops and convert-parallel-loops-to-gpu turn into a
// gpu.launch. What has no parallel loop (a full reduction, an op on 0-d
// buffers) runs on one thread. Nothing that touches memory is left on the
// host: an op that does and cannot be moved is an error.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace transfuse {
#define GEN_PASS_DEF_MAPLOOPSTOGPU
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using transfuse::buffers::isView;
using transfuse::buffers::throughIdentity;
using transfuse::buffers::viewSource;

namespace {

/// Threads per block of a generated kernel.
constexpr int64_t kThreadsPerBlock = 256;
/// Consecutive iterations of the last loop each thread runs when its trip
/// count allows: four f32 elements are one 16-byte access.
constexpr int64_t kLanes = 4;
/// A warp: blocks of fewer threads are rounded up to it.
constexpr int64_t kWarp = 32;

std::optional<int64_t> constantIndex(Value value) {
  if (auto constant = value.getDefiningOp<arith::ConstantIndexOp>())
    return constant.value();
  return std::nullopt;
}

/// The generic form of `op` with its parallel loops outermost, so that the
/// parallel lowering puts them in one scf.parallel around the reductions.
FailureOr<linalg::LinalgOp> parallelFirst(RewriterBase &rewriter,
                                          linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op.getOperation()) &&
      !isa<linalg::FillOp, linalg::CopyOp, linalg::TransposeOp>(
          op.getOperation())) {
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return failure();
    op = *generic;
  }
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic)
    return op;
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (linalg::isParallelIterator(iterators[i]))
      order.push_back(i);
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (!linalg::isParallelIterator(iterators[i]))
      order.push_back(i);
  if (llvm::equal(order, llvm::seq<unsigned>(0, iterators.size())))
    return op;
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(interchanged))
    return failure();
  return cast<linalg::LinalgOp>(interchanged->getOperation());
}

/// Rewrites every scf.parallel in `root` (`root` itself too, unless it is
/// `keep`) as scf.for loops: inside a thread, iterations run in order.
void sequentialize(Operation *root, Operation *keep = nullptr) {
  SmallVector<scf::ParallelOp> loops;
  root->walk([&](scf::ParallelOp loop) {
    if (loop != keep)
      loops.push_back(loop);
  });
  // Post-order: inner loops are rewritten before the loops holding them.
  for (scf::ParallelOp loop : loops) {
    OpBuilder b(loop);
    IRMapping mapping;
    for (auto [iv, lb, ub, step] :
         llvm::zip(loop.getInductionVars(), loop.getLowerBound(),
                   loop.getUpperBound(), loop.getStep())) {
      auto inner = scf::ForOp::create(b, loop.getLoc(), lb, ub, step);
      mapping.map(iv, inner.getInductionVar());
      b.setInsertionPointToStart(inner.getBody());
    }
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    loop.erase();
  }
}

/// The two-level nest of `blocks` blocks of `threads` threads around the
/// insertion point; returns the builder inside, positioned for the body,
/// and the linear thread index.
std::pair<OpBuilder, Value> buildGrid(OpBuilder &b, Location loc,
                                      int64_t blocks, int64_t threads) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto grid = scf::ParallelOp::create(
      b, loc, ValueRange{zero},
      ValueRange{arith::ConstantIndexOp::create(b, loc, blocks)},
      ValueRange{one});
  OpBuilder inside = OpBuilder::atBlockBegin(grid.getBody());
  auto block = scf::ParallelOp::create(
      inside, loc, ValueRange{zero},
      ValueRange{arith::ConstantIndexOp::create(inside, loc, threads)},
      ValueRange{one});
  OpBuilder body = OpBuilder::atBlockBegin(block.getBody());
  Value linear = arith::AddIOp::create(
      body, loc,
      arith::MulIOp::create(body, loc, grid.getInductionVars()[0],
                            arith::ConstantIndexOp::create(body, loc, threads)),
      block.getInductionVars()[0]);
  return {body, linear};
}

/// The buffer `value` views: a function argument, an arena view, or a
/// constant table.
Value rootBuffer(Value value) {
  while (Operation *view = value.getDefiningOp()) {
    if (!isView(view) || isa<memref::ViewOp>(view))
      break;
    value = viewSource(view);
  }
  return value;
}

/// Whether `lanes` consecutive elements of `memref` along its last
/// dimension, starting at a multiple of `lanes`, are one aligned vector:
/// the last dimension is contiguous, the offset and the other strides are
/// static multiples of `lanes`, the elements are whole bytes, and the
/// buffer starts at least that aligned (function arguments and arena views
/// are 256-byte aligned; a constant table only if its global says so).
bool vectorizable(Value memref, int64_t lanes) {
  auto type = cast<MemRefType>(memref.getType());
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0 || bits > 64)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      ShapedType::isDynamic(offset) || offset % lanes != 0 ||
      strides.back() != 1)
    return false;
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (ShapedType::isDynamic(stride) || stride % lanes != 0)
      return false;
  Value root = rootBuffer(memref);
  if (auto global = root.getDefiningOp<memref::GetGlobalOp>()) {
    auto symbol = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        global, global.getNameAttr());
    std::optional<uint64_t> alignment =
        symbol ? symbol.getAlignment() : std::nullopt;
    return alignment && *alignment >= lanes * bits / 8;
  }
  return true;
}

/// Whether the access `indices` of `memref` reads `lanes` consecutive
/// elements when `iv` takes `lanes` consecutive values: `iv` is its last
/// index, alone, and no other index varies with it.
bool isLaneVector(Value memref, ValueRange indices, Value iv,
                  const DenseSet<Value> &varying, int64_t lanes) {
  return !indices.empty() && throughIdentity(indices.back()) == iv &&
         llvm::none_of(indices.drop_back(),
                       [&](Value index) { return varying.contains(index); }) &&
         !varying.contains(memref) && vectorizable(memref, lanes);
}

/// Emits `loop`'s body for `kLanes` consecutive values of its last
/// induction variable, from `base`, with `mapping` giving the other
/// induction variables. What does not depend on the last one is emitted
/// once; loads and stores of consecutive elements become one vector access;
/// the rest is emitted once per lane. The iterations of a parallel loop are
/// independent, so any interleaving of the lanes' operations is correct.
void emitLanes(OpBuilder &b, scf::ParallelOp loop, IRMapping mapping,
               Value base) {
  Location loc = loop.getLoc();
  Value iv = loop.getInductionVars().back();
  DenseSet<Value> varying = {iv};
  for (Operation &op : loop.getBody()->without_terminator())
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return varying.contains(v); }))
      varying.insert(op.result_begin(), op.result_end());
  SmallVector<IRMapping> lanes(kLanes, mapping);
  for (int64_t lane = 0; lane < kLanes; ++lane)
    lanes[lane].map(
        iv, arith::AddIOp::create(
                b, loc, base, arith::ConstantIndexOp::create(b, loc, lane)));
  auto alignmentOf = [](Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    return llvm::MaybeAlign(kLanes * type.getElementTypeBitWidth() / 8);
  };
  auto vectorIndices = [&](ValueRange indices) {
    SmallVector<Value> mapped;
    for (Value index : indices.drop_back())
      mapped.push_back(lanes[0].lookupOrDefault(index));
    mapped.push_back(base);
    return mapped;
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (llvm::none_of(op.getResults(),
                      [&](Value v) { return varying.contains(v); }) &&
        llvm::none_of(op.getOperands(),
                      [&](Value v) { return varying.contains(v); })) {
      Operation *once = b.clone(op, lanes[0]);
      for (IRMapping &lane : lanes)
        lane.map(op.getResults(), once->getResults());
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && isLaneVector(load.getMemRef(), load.getIndices(), iv, varying,
                             kLanes)) {
      auto type = VectorType::get({kLanes}, load.getType());
      Value vector = vector::LoadOp::create(
          b, loc, type, lanes[0].lookupOrDefault(load.getMemRef()),
          vectorIndices(load.getIndices()), /*nontemporal=*/false,
          alignmentOf(load.getMemRef()));
      for (int64_t lane = 0; lane < kLanes; ++lane)
        lanes[lane].map(load.getResult(),
                        vector::ExtractOp::create(b, loc, vector, lane));
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op);
        store && isLaneVector(store.getMemRef(), store.getIndices(), iv,
                              varying, kLanes)) {
      SmallVector<Value> elements;
      for (IRMapping &lane : lanes)
        elements.push_back(lane.lookupOrDefault(store.getValueToStore()));
      Value vector = vector::FromElementsOp::create(
          b, loc, VectorType::get({kLanes}, store.getValueToStore().getType()),
          elements);
      vector::StoreOp::create(
          b, loc, vector, lanes[0].lookupOrDefault(store.getMemRef()),
          vectorIndices(store.getIndices()),
          /*nontemporal=*/false, alignmentOf(store.getMemRef()));
      continue;
    }
    for (IRMapping &lane : lanes)
      b.clone(op, lane);
  }
}

/// Runs `loop` (constant bounds, no reductions) with one thread per
/// iteration of its flattened iteration space, or per kLanes consecutive
/// iterations of its last loop.
LogicalResult mapParallel(scf::ParallelOp loop) {
  if (loop.getNumReductions() != 0)
    return loop.emitOpError("with reductions cannot be mapped to the GPU");
  SmallVector<int64_t> lowers, steps, trips;
  int64_t count = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = constantIndex(lb), u = constantIndex(ub),
                           s = constantIndex(step);
    if (!l || !u || !s || *s <= 0)
      return loop.emitOpError("needs constant bounds to be mapped to the GPU");
    lowers.push_back(*l);
    steps.push_back(*s);
    trips.push_back(*u > *l ? (*u - *l + *s - 1) / *s : 0);
    count *= trips.back();
  }
  sequentialize(loop, /*keep=*/loop);
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  if (count == 0) {
    loop.erase();
    return success();
  }
  // Straight-line bodies whose last loop runs from 0 in steps of 1 a
  // multiple of kLanes times run kLanes iterations per thread.
  bool straight =
      llvm::all_of(loop.getBody()->without_terminator(),
                   [](Operation &op) { return op.getNumRegions() == 0; });
  int64_t lanes = straight && lowers.back() == 0 && steps.back() == 1 &&
                          trips.back() % kLanes == 0
                      ? kLanes
                      : 1;
  trips.back() /= lanes;
  count /= lanes;
  int64_t threads =
      std::min(kThreadsPerBlock, (count + kWarp - 1) / kWarp * kWarp);
  int64_t blocks = (count + threads - 1) / threads;
  auto [body, linear] = buildGrid(b, loc, blocks, threads);
  Value inRange =
      arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ult, linear,
                            arith::ConstantIndexOp::create(body, loc, count));
  auto guard = scf::IfOp::create(body, loc, inRange, /*withElse=*/false);
  OpBuilder then = guard.getThenBodyBuilder();
  // The last dimension varies fastest, as in the loops it replaces.
  IRMapping mapping;
  Value rest = linear;
  for (int64_t dim = trips.size() - 1; dim >= 0; --dim) {
    Value trip = arith::ConstantIndexOp::create(then, loc, trips[dim]);
    Value index =
        dim == 0 ? rest : arith::RemUIOp::create(then, loc, rest, trip);
    if (dim != 0)
      rest = arith::DivUIOp::create(then, loc, rest, trip);
    Value iv = arith::AddIOp::create(
        then, loc, arith::ConstantIndexOp::create(then, loc, lowers[dim]),
        arith::MulIOp::create(
            then, loc, index,
            arith::ConstantIndexOp::create(then, loc, steps[dim])));
    mapping.map(loop.getInductionVars()[dim], iv);
  }
  if (lanes == 1) {
    for (Operation &op : loop.getBody()->without_terminator())
      then.clone(op, mapping);
  } else {
    Value last = loop.getInductionVars().back();
    Value base =
        arith::MulIOp::create(then, loc, mapping.lookup(last),
                              arith::ConstantIndexOp::create(then, loc, lanes));
    mapping.erase(last);
    emitLanes(then, loop, mapping, base);
  }
  loop.erase();
  return success();
}

/// Moves `ops` (consecutive, in one block) into a kernel of one thread.
/// Their results must not be used after them on the host.
LogicalResult mapSerial(ArrayRef<Operation *> ops) {
  DenseSet<Operation *> moved(ops.begin(), ops.end());
  for (Operation *op : ops)
    for (Operation *user : op->getUsers())
      if (!moved.contains(op->getBlock()->findAncestorOpInBlock(*user)))
        return op->emitOpError(
            "reads GPU memory for the host: the CUDA target runs it on the "
            "device, where its result cannot reach the host code");
  OpBuilder b(ops.front());
  auto [body, linear] = buildGrid(b, ops.front()->getLoc(), 1, 1);
  (void)linear;
  Operation *terminator = body.getInsertionBlock()->getTerminator();
  IRRewriter rewriter(b.getContext());
  for (Operation *op : ops) {
    op->moveBefore(terminator);
    // Linalg ops inside a moved loop (a host loop around them) run as
    // loops on the thread.
    SmallVector<linalg::LinalgOp> nested;
    op->walk([&](linalg::LinalgOp linalgOp) { nested.push_back(linalgOp); });
    for (linalg::LinalgOp linalgOp : nested) {
      rewriter.setInsertionPoint(linalgOp);
      if (!linalgOp.hasPureBufferSemantics() ||
          failed(linalg::linalgOpToLoops(rewriter, linalgOp)))
        return linalgOp.emitOpError("cannot be lowered to GPU loops");
      rewriter.eraseOp(linalgOp);
    }
    sequentialize(op);
  }
  return success();
}

/// Whether `op`, left at the top of a host function, touches memory the
/// GPU owns: anything that reads or writes a buffer except the runtime
/// calls (which take addresses), views, the planned buffers themselves,
/// and the host's stack arrays that runtime calls read (memref.alloca and
/// the stores that fill it).
bool touchesDeviceMemory(Operation *op) {
  if (isView(op) ||
      isa<func::CallOp, func::ReturnOp, memref::ExtractAlignedPointerAsIndexOp,
          memref::ExtractStridedMetadataOp, memref::GetGlobalOp,
          memref::AllocOp, memref::DeallocOp, memref::AllocaOp>(op))
    return false;
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return !store.getMemRef().getDefiningOp<memref::AllocaOp>();
  if (op->getNumRegions() > 0)
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return !effects || !effects.hasNoEffect();
}

/// Lowers the linalg op `op` to loops and maps them: a parallel nest to
/// threads, anything else to one thread.
LogicalResult mapLinalg(IRRewriter &rewriter, linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return op.emitOpError("cannot be lowered to GPU loops: it is not on "
                          "buffers (run after bufferization)");
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::LinalgOp> ordered = parallelFirst(rewriter, op);
  if (failed(ordered))
    return op.emitOpError("cannot be lowered to GPU loops");
  Operation *before = ordered->getOperation()->getPrevNode();
  Block *block = ordered->getOperation()->getBlock();
  rewriter.setInsertionPoint(*ordered);
  if (failed(linalg::linalgOpToParallelLoops(rewriter, *ordered)))
    return ordered->emitOpError("cannot be lowered to GPU loops");
  Operation *end = ordered->getOperation();
  SmallVector<Operation *> created, touching;
  for (Operation *it = before ? before->getNextNode() : &block->front();
       it != end; it = it->getNextNode()) {
    created.push_back(it);
    if (touchesDeviceMemory(it))
      touching.push_back(it);
  }
  rewriter.eraseOp(*ordered);
  if (touching.empty())
    return success();
  if (touching.size() == 1)
    if (auto loop = dyn_cast<scf::ParallelOp>(touching.front()))
      return mapParallel(loop);
  // Straight-line code (an op on 0-d buffers) or a loop nest without a
  // parallel loop: all of it on one thread.
  return mapSerial(created);
}

LogicalResult mapFunction(func::FuncOp function) {
  IRRewriter rewriter(function.getContext());
  SmallVector<Operation *> tops;
  for (Operation &op : function.getBody().front())
    tops.push_back(&op);
  for (Operation *op : tops) {
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.setInsertionPoint(copy);
      op = linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                                  copy.getTarget());
      rewriter.eraseOp(copy);
    }
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (failed(mapLinalg(rewriter, linalgOp)))
        return failure();
      continue;
    }
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (failed(mapParallel(loop)))
        return failure();
      continue;
    }
    if (touchesDeviceMemory(op) && failed(mapSerial({op})))
      return failure();
  }
  return success();
}

struct MapLoopsToGPUPass
    : transfuse::impl::MapLoopsToGPUBase<MapLoopsToGPUPass> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal() && failed(mapFunction(function)))
        return signalPassFailure();
  }
};

} // namespace
