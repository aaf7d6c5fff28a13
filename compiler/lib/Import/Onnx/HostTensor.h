//===- HostTensor.h - ONNX tensors known at compile time --------*- C++ -*-===//
//
// Private to the ONNX importer. Exports compute shapes, masks and scales
// from constants (Shape, Gather, Concat, Trilu, Cast, Equal, ...); the
// importer evaluates those subgraphs on the host, so that the nn ops see
// static shapes and constant masks, as a spec would give them.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_LIB_IMPORT_ONNX_HOSTTENSOR_H
#define TRANSFUSE_LIB_IMPORT_ONNX_HOSTTENSOR_H

#include "onnx.pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include <functional>
#include <string>
#include <vector>

namespace transfuse::onnx_import {

using DataType = onnx::TensorProto::DataType;

/// `value` truncated to an integer, saturated at the int64 range; NaN is
/// INT64_MIN. (A plain conversion of an out-of-range float is undefined.)
int64_t toInt64(double value);

/// Integer arithmetic that wraps around as two's complement does, where the
/// plain operators' overflow is undefined.
int64_t wrappingAdd(int64_t a, int64_t b);
int64_t wrappingSub(int64_t a, int64_t b);
int64_t wrappingMul(int64_t a, int64_t b);
/// Truncating division; INT64_MIN / -1 wraps to INT64_MIN. `b` != 0.
int64_t wrappingDiv(int64_t a, int64_t b);

/// A tensor whose values the importer knows. Floating-point types are held
/// as float (the model computes in f32), every integer type and BOOL as
/// int64.
struct HostTensor {
  DataType type = onnx::TensorProto::FLOAT;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<float> floats;
  std::vector<int64_t> ints;

  bool isFloat() const { return isFloatType(type); }
  int64_t size() const;
  /// Element `i` as a double, whatever the type.
  double at(int64_t i) const {
    return isFloat() ? double(floats[i]) : double(ints[i]);
  }
  /// Element `i` as an integer (a float is truncated, saturated).
  int64_t intAt(int64_t i) const {
    return isFloat() ? toInt64(floats[i]) : ints[i];
  }

  static bool isFloatType(DataType type);
  /// An empty tensor of `type` and `shape`, its elements zero.
  static HostTensor zeros(DataType type, llvm::ArrayRef<int64_t> shape);
  /// A 1-D INT64 tensor of `values`.
  static HostTensor ofInts(llvm::ArrayRef<int64_t> values);
};

/// Checks that a tensor of `shape` may be folded on the host: no negative
/// dimension and at most 2^24 elements (folded constants are shapes, masks
/// and tables; a model that asks for more is refused, not allocated).
mlir::LogicalResult checkFoldable(llvm::ArrayRef<int64_t> shape,
                                  std::string &why);

/// The name of an ONNX data type ("FLOAT", "INT64").
std::string dataTypeName(int32_t type);

/// The element type the nn ops give an ONNX type: f32, i64, i32 or i1;
/// null for the types that exist only in constant expressions.
mlir::Type elementTypeOf(mlir::MLIRContext *context, int32_t type);

/// Decodes a TensorProto: raw_data or the typed fields, or external data in
/// a file beside the model (`modelDir`), checked against its shape. Fails
/// with `why` set.
mlir::FailureOr<HostTensor> decodeTensor(const onnx::TensorProto &proto,
                                         llvm::StringRef modelDir,
                                         std::string &why);

/// The tensor as an MLIR constant attribute of its nn element type.
mlir::DenseElementsAttr toAttribute(mlir::MLIRContext *context,
                                    const HostTensor &tensor);

/// Elementwise `fn` of two tensors with NumPy broadcasting, computed in
/// double (integers in int64 when both are integer) and stored as
/// `resultType`. Fails with `why` set when the shapes do not broadcast.
mlir::FailureOr<HostTensor> broadcastBinary(
    const HostTensor &lhs, const HostTensor &rhs, DataType resultType,
    const std::function<double(double, double)> &floatFn,
    const std::function<int64_t(int64_t, int64_t)> &intFn, std::string &why);

/// The elements converted to `type` (ONNX Cast; bool is `x != 0`).
HostTensor castTo(const HostTensor &tensor, DataType type);

/// `tensor` with dimensions permuted: result dimension i is dimension
/// perm[i].
HostTensor transposeHost(const HostTensor &tensor,
                         llvm::ArrayRef<int64_t> perm);

/// `tensor` broadcast to `shape` (which it must broadcast to).
HostTensor broadcastTo(const HostTensor &tensor, llvm::ArrayRef<int64_t> shape);

} // namespace transfuse::onnx_import

#endif // TRANSFUSE_LIB_IMPORT_ONNX_HOSTTENSOR_H
