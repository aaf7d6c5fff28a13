//===- NNDialect.h - The nn dialect ---------------------------------------===//
#ifndef TRANSFUSE_DIALECT_NN_NNDIALECT_H
#define TRANSFUSE_DIALECT_NN_NNDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"

#include "transfuse/Dialect/NN/NNDialect.h.inc"

#endif // TRANSFUSE_DIALECT_NN_NNDIALECT_H
