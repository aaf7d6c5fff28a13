//===- NNOps.h - Ops and attributes of the nn dialect ---------------------===//
#ifndef TRANSFUSE_DIALECT_NN_NNOPS_H
#define TRANSFUSE_DIALECT_NN_NNOPS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include <limits>
#include "transfuse/Dialect/NN/NNDialect.h"

#include "transfuse/Dialect/NN/NNEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "transfuse/Dialect/NN/NNAttrs.h.inc"

#define GET_OP_CLASSES
#include "transfuse/Dialect/NN/NNOps.h.inc"

#endif // TRANSFUSE_DIALECT_NN_NNOPS_H
