//===- LowerOwnedDeallocs.cpp - Trivial bufferization.dealloc to memref ---===//
//
// Ownership-based deallocation ends a straight-line function with one
// bufferization.dealloc of every buffer it allocated, each owned (condition
// true), nothing retained. Upstream's simplification splits such an op only
// after proving every pair of its operands apart, which is quadratic: at 32
// layers, thousands of buffers take seconds. Distinct memref.alloc results
// are distinct allocations, so when every operand is one, the op is just a
// memref.dealloc of each.
//===----------------------------------------------------------------------===//
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace transfuse {
#define GEN_PASS_DEF_LOWEROWNEDDEALLOCS
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;

namespace {

/// Whether `dealloc` frees each of its operands unconditionally and they
/// are distinct allocations, which no operand can alias.
bool freesDistinctAllocations(bufferization::DeallocOp dealloc) {
  if (!dealloc.getRetained().empty())
    return false;
  if (!llvm::all_of(dealloc.getConditions(), [](Value condition) {
        return matchPattern(condition, m_One());
      }))
    return false;
  llvm::SmallPtrSet<Value, 16> seen;
  return llvm::all_of(dealloc.getMemrefs(), [&](Value memref) {
    return memref.getDefiningOp<memref::AllocOp>() &&
           seen.insert(memref).second;
  });
}

struct LowerOwnedDeallocs
    : transfuse::impl::LowerOwnedDeallocsBase<LowerOwnedDeallocs> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation()->walk([&](bufferization::DeallocOp dealloc) {
      if (freesDistinctAllocations(dealloc))
        deallocs.push_back(dealloc);
    });
    OpBuilder builder(&getContext());
    for (bufferization::DeallocOp dealloc : deallocs) {
      builder.setInsertionPoint(dealloc);
      for (Value memref : dealloc.getMemrefs())
        memref::DeallocOp::create(builder, dealloc.getLoc(), memref);
      dealloc.erase();
    }
  }
};

} // namespace
