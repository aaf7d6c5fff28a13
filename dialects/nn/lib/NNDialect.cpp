//===- NNDialect.cpp - Registration of the nn dialect ---------------------===//
#include "transfuse/Dialect/NN/NNDialect.h"
#include "transfuse/Dialect/NN/NNOps.h"

using namespace mlir;
using namespace transfuse::nn;

#include "transfuse/Dialect/NN/NNDialect.cpp.inc"

void NNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "transfuse/Dialect/NN/NNOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *NNDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}
