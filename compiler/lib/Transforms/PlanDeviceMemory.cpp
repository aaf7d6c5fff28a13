//===- PlanDeviceMemory.cpp - The temporaries as views of one arena -------===//
//
// On the GPU nothing may be allocated while a step runs: every temporary of
// an entry point becomes a view of one byte buffer, the arena, which the
// runtime allocates once per session and passes as the function's last
// argument. After nn-dealloc-after-last-use each temporary lives from its
// allocation to its deallocation; two temporaries whose lifetimes overlap
// get disjoint bytes, others may share them. Offsets come from a greedy
// first fit in order of decreasing size, the classic heuristic for this
// interval-packing problem (near-optimal in practice, which the peak of
// simultaneously live bytes bounds from below).
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace transfuse {
#define GEN_PASS_DEF_PLANDEVICEMEMORY
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// Every buffer starts at a multiple of this: what cudaMalloc guarantees,
/// and more than any vector access or library call needs.
constexpr int64_t kAlignment = 256;

struct Temporary {
  memref::AllocOp alloc;
  /// Its deallocations, wherever they are (they go with the allocation).
  SmallVector<memref::DeallocOp> deallocs;
  int64_t bytes = 0;
  unsigned begin = 0, end = 0; // positions in the block, inclusive
  int64_t offset = -1;
};

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// Bytes of a static buffer; elements narrower than a byte take a byte, as
/// the memref lowering stores them.
int64_t bytesOf(MemRefType type) {
  int64_t elementBytes =
      std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
  return type.getNumElements() * elementBytes;
}

/// Whether `value` (a constant or a view of one) is read only by ops that
/// become generated kernels: linalg ops and copies.
bool readOnlyByKernels(Value value) {
  return llvm::all_of(value.getUsers(), [](Operation *user) {
    if (isa<linalg::LinalgOp, memref::CopyOp>(user))
      return true;
    return transfuse::buffers::isView(user) &&
           llvm::all_of(user->getResults(), readOnlyByKernels);
  });
}

/// A constant that anything but a generated kernel reads (its address
/// passed to a runtime call) is copied into a temporary first: constants
/// live in the kernels' module on the device, where only generated kernels
/// (which the copy becomes) can read them.
void copyConstantsForCalls(func::FuncOp function) {
  SmallVector<memref::GetGlobalOp> globals;
  function.walk([&](memref::GetGlobalOp global) { globals.push_back(global); });
  for (memref::GetGlobalOp global : globals) {
    if (readOnlyByKernels(global))
      continue;
    OpBuilder b(global->getNextNode());
    auto type = cast<MemRefType>(global.getType());
    Value copy = memref::AllocOp::create(
        b, global.getLoc(),
        MemRefType::get(type.getShape(), type.getElementType()));
    global.getResult().replaceAllUsesWith(copy);
    memref::CopyOp::create(b, global.getLoc(), global, copy);
  }
}

LogicalResult planFunction(func::FuncOp function) {
  Block &body = function.getBody().front();
  copyConstantsForCalls(function);
  DenseMap<Operation *, unsigned> position;
  unsigned index = 0;
  for (Operation &op : body)
    position[&op] = index++;

  SmallVector<Temporary> temporaries;
  WalkResult walk = function.walk([&](memref::AllocOp alloc) {
    auto type = alloc.getType();
    if (alloc->getBlock() != &body || !type.hasStaticShape() ||
        !type.getLayout().isIdentity()) {
      alloc.emitOpError("cannot be placed in the device arena: only "
                        "statically shaped buffers allocated in the "
                        "function's body can");
      return WalkResult::interrupt();
    }
    Temporary temporary;
    temporary.alloc = alloc;
    temporary.bytes = roundUp(std::max<int64_t>(bytesOf(type), 1), kAlignment);
    temporary.begin = position[alloc];
    // It lives to its deallocation in the body, or, when it is freed
    // inside an op (a conditional free), to the end of the function.
    temporary.end = index;
    for (Operation *user : alloc->getUsers())
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        temporary.deallocs.push_back(dealloc);
        if (dealloc->getBlock() == &body)
          temporary.end = position[dealloc];
      }
    if (temporary.deallocs.size() != 1 ||
        temporary.deallocs.front()->getBlock() != &body)
      temporary.end = index;
    temporaries.push_back(temporary);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // Largest first; each at the lowest offset clear of every placed buffer
  // whose lifetime overlaps its own.
  SmallVector<Temporary *> order;
  for (Temporary &temporary : temporaries)
    order.push_back(&temporary);
  llvm::stable_sort(order, [](const Temporary *a, const Temporary *b) {
    return a->bytes > b->bytes;
  });
  int64_t arenaBytes = 0;
  SmallVector<Temporary *> placed;
  for (Temporary *temporary : order) {
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Temporary *other : placed)
      if (other->begin <= temporary->end && temporary->begin <= other->end)
        taken.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + temporary->bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    temporary->offset = offset;
    arenaBytes = std::max(arenaBytes, offset + temporary->bytes);
    placed.push_back(temporary);
  }

  MLIRContext *context = function.getContext();
  auto arenaType = MemRefType::get({arenaBytes}, IntegerType::get(context, 8));
  unsigned arenaIndex = function.getNumArguments();
  if (failed(function.insertArgument(
          arenaIndex, arenaType,
          DictionaryAttr::get(
              context, {NamedAttribute(StringAttr::get(context, "nn.arena"),
                                       UnitAttr::get(context))}),
          function.getLoc())))
    return failure();
  Value arena = function.getArgument(arenaIndex);
  for (Temporary &temporary : temporaries) {
    OpBuilder b(temporary.alloc);
    Location loc = temporary.alloc.getLoc();
    Value offset = arith::ConstantIndexOp::create(b, loc, temporary.offset);
    Value view = memref::ViewOp::create(b, loc, temporary.alloc.getType(),
                                        arena, offset, ValueRange());
    for (memref::DeallocOp dealloc : temporary.deallocs)
      dealloc.erase();
    temporary.alloc.getResult().replaceAllUsesWith(view);
    temporary.alloc.erase();
  }
  function->setAttr(
      "nn.arena_bytes",
      IntegerAttr::get(IntegerType::get(context, 64), arenaBytes));
  return success();
}

struct PlanDeviceMemoryPass
    : transfuse::impl::PlanDeviceMemoryBase<PlanDeviceMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      WalkResult calls = function.walk([&](func::CallOp call) {
        auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
        if (callee && callee.isExternal())
          return WalkResult::advance();
        call.emitOpError("calls a function with a body: the device memory "
                         "plan needs every entry point inlined");
        return WalkResult::interrupt();
      });
      if (calls.wasInterrupted() || failed(planFunction(function)))
        return signalPassFailure();
    }
  }
};

} // namespace
