//===- NNDialect.cpp - Registration of the nn dialect ---------------------===//
#include "transfuse/Dialect/NN/NNDialect.h"
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace transfuse::nn;

#include "transfuse/Dialect/NN/NNDialect.cpp.inc"

namespace {
/// Every nn op may be inlined: none refers to its enclosing function (a
/// parameter load names a module-level symbol). The CUDA target inlines
/// each entry point's calls so that one arena plan covers all its buffers.
struct NNInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void NNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "transfuse/Dialect/NN/NNOps.cpp.inc"
      >();
  addInterfaces<NNInlinerInterface>();
  registerAttributes();
}

Operation *NNDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}
