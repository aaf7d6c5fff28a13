//===- DeallocAfterLastUse.cpp - Free each buffer once nothing reads it ---===//
//
// The ownership-based deallocation pipeline frees a block's temporaries at
// the end of that block: in a forward pass, that is every temporary at the
// end of the function, so peak memory is their sum. Moving each dealloc up
// to just after the last op that uses the buffer (through any view, or as
// the raw pointer a runtime kernel takes) bounds the peak by what is live at
// once; the runtime's allocator hands freed blocks to later allocations.
//===----------------------------------------------------------------------===//
#include "BufferUtils.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace transfuse {
#define GEN_PASS_DEF_DEALLOCAFTERLASTUSE
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// Whether `op` computes another handle on its operand's memory (a view, or
/// the address arithmetic that feeds a runtime call) rather than reading it.
bool derivesHandle(Operation *op) {
  return transfuse::buffers::isView(op) ||
         isa<memref::ExtractAlignedPointerAsIndexOp,
             memref::ExtractStridedMetadataOp, arith::IndexCastOp,
             arith::AddIOp, LLVM::IntToPtrOp, LLVM::GEPOp>(op);
}

/// The last op of `block` that uses `buffer`'s memory, directly, through a
/// derived handle, or from inside its regions; null if one of those handles
/// leaves the block (the buffer then stays where the pipeline freed it).
Operation *lastUser(Value buffer, Operation *dealloc) {
  Block *block = dealloc->getBlock();
  Operation *last = buffer.getDefiningOp();
  SmallVector<Value> worklist = {buffer};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value handle = worklist.pop_back_val();
    if (!seen.insert(handle).second)
      continue;
    for (Operation *user : handle.getUsers()) {
      if (user == dealloc)
        continue;
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top)
        return nullptr;
      if (last->isBeforeInBlock(top))
        last = top;
      if (derivesHandle(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  return last;
}

struct DeallocAfterLastUsePass
    : transfuse::impl::DeallocAfterLastUseBase<DeallocAfterLastUsePass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation()->walk([&](memref::DeallocOp dealloc) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (alloc && alloc->getBlock() == dealloc->getBlock())
        deallocs.push_back(dealloc);
    });
    // Every destination is found before anything moves: a move invalidates
    // the block's op order, and recomputing it for each query would make
    // the pass quadratic in the length of a deep model's function.
    SmallVector<std::pair<memref::DeallocOp, Operation *>> moves;
    for (memref::DeallocOp dealloc : deallocs)
      if (Operation *last = lastUser(dealloc.getMemref(), dealloc);
          last && last->isBeforeInBlock(dealloc))
        moves.emplace_back(dealloc, last);
    for (auto [dealloc, last] : moves)
      dealloc->moveAfter(last);
  }
};

} // namespace
