//===- HostTensor.cpp - ONNX tensors known at compile time ----------------===//
#include "HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cstring>
#include <limits>

using namespace mlir;

namespace transfuse::onnx_import {
namespace {

using onnx::TensorProto;

/// Tensors larger than this (4 Gi elements) are refused: no model the
/// importer handles needs one, and the count bounds every allocation.
constexpr int64_t kMaxElements = int64_t(1) << 32;

/// Bytes per element of the types raw_data may hold; 0 for the others.
size_t elementBytes(int32_t type) {
  switch (type) {
  case TensorProto::FLOAT:
  case TensorProto::INT32:
  case TensorProto::UINT32:
    return 4;
  case TensorProto::DOUBLE:
  case TensorProto::INT64:
  case TensorProto::UINT64:
    return 8;
  case TensorProto::INT16:
  case TensorProto::UINT16:
    return 2;
  case TensorProto::INT8:
  case TensorProto::UINT8:
  case TensorProto::BOOL:
    return 1;
  default:
    return 0;
  }
}

/// Element `i` of little-endian raw data of `type`, into the tensor.
void storeRaw(HostTensor &tensor, const char *bytes, int64_t i) {
  auto load = [&](auto value) {
    std::memcpy(&value, bytes + i * sizeof(value), sizeof(value));
    return value;
  };
  switch (tensor.type) {
  case TensorProto::FLOAT:
    tensor.floats[i] = load(float());
    return;
  case TensorProto::DOUBLE:
    tensor.floats[i] = float(load(double()));
    return;
  case TensorProto::INT64:
    tensor.ints[i] = load(int64_t());
    return;
  case TensorProto::UINT64:
    tensor.ints[i] = int64_t(load(uint64_t()));
    return;
  case TensorProto::INT32:
    tensor.ints[i] = load(int32_t());
    return;
  case TensorProto::UINT32:
    tensor.ints[i] = load(uint32_t());
    return;
  case TensorProto::INT16:
    tensor.ints[i] = load(int16_t());
    return;
  case TensorProto::UINT16:
    tensor.ints[i] = load(uint16_t());
    return;
  case TensorProto::INT8:
    tensor.ints[i] = load(int8_t());
    return;
  default: // UINT8, BOOL
    tensor.ints[i] = load(uint8_t());
    if (tensor.type == TensorProto::BOOL)
      tensor.ints[i] = tensor.ints[i] != 0;
    return;
  }
}

/// The bytes of an external tensor: `location` relative to the model's
/// directory, never outside it, from `offset` for `length` bytes.
FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
readExternal(const TensorProto &proto, StringRef modelDir, size_t expected,
             std::string &why) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      int64_t value;
      if (StringRef(entry.value()).getAsInteger(10, value) || value < 0) {
        why = "external data " + entry.key() + " '" + entry.value() +
              "' is not a byte count";
        return failure();
      }
      (entry.key() == "offset" ? offset : length) = value;
    }
  }
  if (location.empty()) {
    why = "external data without a location";
    return failure();
  }
  namespace path = llvm::sys::path;
  if (path::is_absolute(location) ||
      llvm::any_of(llvm::make_range(path::begin(location), path::end(location)),
                   [](StringRef part) { return part == ".."; })) {
    why = "external data location '" + location +
          "' must be a path inside the model's directory";
    return failure();
  }
  if (length >= 0 && size_t(length) != expected) {
    why = "external data length " + std::to_string(length) + " != the " +
          std::to_string(expected) + " bytes of its shape";
    return failure();
  }
  SmallString<256> file(modelDir);
  path::append(file, location);
  auto cannotRead = [&](const std::string &reason) {
    why = "cannot read " + std::to_string(expected) + " bytes at offset " +
          std::to_string(offset) + " of external data '" + file.str().str() +
          "': " + reason;
    return failure();
  };
  // A slice past the end would read as zeros: the file's size decides.
  uint64_t size = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(file, size))
    return cannotRead(ec.message());
  if (uint64_t(offset) > size || size - uint64_t(offset) < expected)
    return cannotRead("the file has " + std::to_string(size) + " bytes");
  auto buffer = llvm::MemoryBuffer::getFileSlice(file, expected, offset);
  if (std::error_code ec = buffer.getError())
    return cannotRead(ec.message());
  return std::move(*buffer);
}

/// The typed field holding the values of `type`, as doubles or int64s.
LogicalResult decodeTyped(const TensorProto &proto, HostTensor &tensor,
                          std::string &why) {
  int64_t n = tensor.size();
  auto take = [&](const auto &field, const char *name) -> LogicalResult {
    if (field.size() != n) {
      why = std::string(name) + " holds " + std::to_string(field.size()) +
            " values, its shape " + std::to_string(n);
      return failure();
    }
    for (int64_t i = 0; i < n; ++i) {
      if (tensor.isFloat())
        tensor.floats[i] = float(field.Get(i));
      else
        tensor.ints[i] = int64_t(field.Get(i));
    }
    return success();
  };
  switch (tensor.type) {
  case TensorProto::FLOAT:
    return take(proto.float_data(), "float_data");
  case TensorProto::DOUBLE:
    return take(proto.double_data(), "double_data");
  case TensorProto::INT64:
    return take(proto.int64_data(), "int64_data");
  case TensorProto::UINT64:
  case TensorProto::UINT32:
    return take(proto.uint64_data(), "uint64_data");
  default:
    if (failed(take(proto.int32_data(), "int32_data")))
      return failure();
    if (tensor.type == TensorProto::BOOL)
      for (int64_t &v : tensor.ints)
        v = v != 0;
    return success();
  }
}

} // namespace

int64_t toInt64(double value) {
  constexpr double kLimit = 9223372036854775808.0; // 2^63
  if (std::isnan(value) || value < -kLimit)
    return std::numeric_limits<int64_t>::min();
  if (value >= kLimit)
    return std::numeric_limits<int64_t>::max();
  return int64_t(value);
}

int64_t wrappingAdd(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) + uint64_t(b));
}
int64_t wrappingSub(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) - uint64_t(b));
}
int64_t wrappingMul(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) * uint64_t(b));
}
int64_t wrappingDiv(int64_t a, int64_t b) {
  if (b == -1)
    return int64_t(0 - uint64_t(a));
  return a / b;
}

int64_t HostTensor::size() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool HostTensor::isFloatType(DataType type) {
  return type == TensorProto::FLOAT || type == TensorProto::DOUBLE;
}

HostTensor HostTensor::zeros(DataType type, ArrayRef<int64_t> shape) {
  HostTensor tensor;
  tensor.type = type;
  tensor.shape.assign(shape.begin(), shape.end());
  if (tensor.isFloat())
    tensor.floats.assign(tensor.size(), 0.0f);
  else
    tensor.ints.assign(tensor.size(), 0);
  return tensor;
}

HostTensor HostTensor::ofInts(ArrayRef<int64_t> values) {
  HostTensor tensor = zeros(TensorProto::INT64, {int64_t(values.size())});
  tensor.ints.assign(values.begin(), values.end());
  return tensor;
}

LogicalResult checkFoldable(ArrayRef<int64_t> shape, std::string &why) {
  constexpr int64_t kMaxFolded = int64_t(1) << 24;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      why = "negative dimension " + std::to_string(d);
      return failure();
    }
    if (d > 0 && n > kMaxFolded / d) {
      why = "folding it would build a constant of more than 2^24 elements";
      return failure();
    }
    n *= d;
  }
  if (n > kMaxFolded) {
    why = "folding it would build a constant of more than 2^24 elements";
    return failure();
  }
  return success();
}

std::string dataTypeName(int32_t type) {
  if (TensorProto::DataType_IsValid(type))
    return TensorProto::DataType_Name(static_cast<DataType>(type));
  return "type " + std::to_string(type);
}

Type elementTypeOf(MLIRContext *context, int32_t type) {
  switch (type) {
  case TensorProto::FLOAT:
  case TensorProto::DOUBLE:
    return Float32Type::get(context);
  case TensorProto::INT64:
    return IntegerType::get(context, 64);
  case TensorProto::INT32:
    return IntegerType::get(context, 32);
  case TensorProto::BOOL:
    return IntegerType::get(context, 1);
  default:
    return nullptr;
  }
}

FailureOr<HostTensor> decodeTensor(const TensorProto &proto, StringRef modelDir,
                                   std::string &why) {
  HostTensor tensor;
  size_t bytes = elementBytes(proto.data_type());
  if (bytes == 0) {
    why = "tensors of type " + dataTypeName(proto.data_type()) +
          " are not supported";
    return failure();
  }
  if (proto.has_segment()) {
    why = "segmented tensors are not supported";
    return failure();
  }
  tensor.type = static_cast<DataType>(proto.data_type());
  int64_t n = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0 || (d > 0 && n > kMaxElements / d)) {
      why = d < 0 ? "negative dimension " + std::to_string(d)
                  : "more than 2^32 elements";
      return failure();
    }
    n *= d;
    tensor.shape.push_back(d);
  }
  if (tensor.isFloat())
    tensor.floats.resize(n);
  else
    tensor.ints.resize(n);

  std::unique_ptr<llvm::MemoryBuffer> external;
  StringRef raw = proto.raw_data();
  if (proto.data_location() == TensorProto::EXTERNAL) {
    auto buffer = readExternal(proto, modelDir, size_t(n) * bytes, why);
    if (failed(buffer))
      return failure();
    external = std::move(*buffer);
    raw = external->getBuffer();
  } else if (!proto.has_raw_data()) {
    if (failed(decodeTyped(proto, tensor, why)))
      return failure();
    return tensor;
  }
  if (raw.size() != size_t(n) * bytes) {
    why = "raw_data holds " + std::to_string(raw.size()) + " bytes, its " +
          dataTypeName(tensor.type) + " shape needs " +
          std::to_string(size_t(n) * bytes);
    return failure();
  }
  for (int64_t i = 0; i < n; ++i)
    storeRaw(tensor, raw.data(), i);
  return tensor;
}

DenseElementsAttr toAttribute(MLIRContext *context, const HostTensor &tensor) {
  Type element = elementTypeOf(context, tensor.type);
  assert(element && "materialising a type the nn ops do not have");
  auto type = RankedTensorType::get(tensor.shape, element);
  if (tensor.isFloat())
    return DenseElementsAttr::get(type, ArrayRef<float>(tensor.floats));
  if (element.isInteger(1)) {
    SmallVector<bool> bits(tensor.ints.begin(), tensor.ints.end());
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  if (element.isInteger(32)) {
    SmallVector<int32_t> narrow(tensor.ints.begin(), tensor.ints.end());
    return DenseElementsAttr::get(type, ArrayRef<int32_t>(narrow));
  }
  return DenseElementsAttr::get(type, ArrayRef<int64_t>(tensor.ints));
}

/// The row-major strides of `shape` as seen from a broadcast to `to`: 0 on
/// the dimensions it broadcasts along.
static SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> to) {
  SmallVector<int64_t> strides(to.size(), 0);
  int64_t stride = 1;
  for (int64_t i = shape.size() - 1, j = to.size() - 1; i >= 0; --i, --j) {
    strides[j] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

/// Calls `fn(index, offsets...)` for every element of `shape`, with each
/// operand's offset by its strides.
template <size_t N, typename Fn>
static void forEachElement(ArrayRef<int64_t> shape,
                           std::array<SmallVector<int64_t>, N> strides, Fn fn) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t> index(shape.size(), 0);
  std::array<int64_t, N> offsets{};
  for (int64_t e = 0; e < n; ++e) {
    fn(e, offsets);
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      ++index[d];
      for (size_t k = 0; k < N; ++k)
        offsets[k] += strides[k][d];
      if (index[d] < shape[d])
        break;
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

FailureOr<HostTensor> broadcastBinary(
    const HostTensor &lhs, const HostTensor &rhs, DataType resultType,
    const std::function<double(double, double)> &floatFn,
    const std::function<int64_t(int64_t, int64_t)> &intFn, std::string &why) {
  size_t rank = std::max(lhs.shape.size(), rhs.shape.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t k = 0; k < rank; ++k) {
    auto dim = [&](const HostTensor &t) {
      size_t offset = rank - t.shape.size();
      return k < offset ? int64_t(1) : t.shape[k - offset];
    };
    int64_t a = dim(lhs), b = dim(rhs);
    if (a != b && a != 1 && b != 1) {
      why = "shapes do not broadcast";
      return failure();
    }
    shape[k] = a == 1 ? b : a;
  }
  if (failed(checkFoldable(shape, why)))
    return failure();
  HostTensor result = HostTensor::zeros(resultType, shape);
  bool integer = !lhs.isFloat() && !rhs.isFloat();
  forEachElement<2>(
      shape,
      {broadcastStrides(lhs.shape, shape), broadcastStrides(rhs.shape, shape)},
      [&](int64_t e, std::array<int64_t, 2> at) {
        if (integer && !result.isFloat()) {
          result.ints[e] = intFn(lhs.ints[at[0]], rhs.ints[at[1]]);
          return;
        }
        double v = floatFn(lhs.at(at[0]), rhs.at(at[1]));
        if (result.isFloat())
          result.floats[e] = float(v);
        else
          result.ints[e] = toInt64(v);
      });
  return result;
}

HostTensor castTo(const HostTensor &tensor, DataType type) {
  HostTensor result = HostTensor::zeros(type, tensor.shape);
  for (int64_t i = 0, n = tensor.size(); i < n; ++i) {
    if (result.isFloat())
      result.floats[i] = float(tensor.at(i));
    else if (type == onnx::TensorProto::BOOL)
      result.ints[i] = tensor.at(i) != 0.0;
    else if (tensor.isFloat())
      result.ints[i] = toInt64(tensor.floats[i]);
    else
      result.ints[i] = tensor.ints[i];
    // Narrow integer types wrap as a C cast to them does.
    switch (type) {
    case onnx::TensorProto::UINT8:
      result.ints[i] = uint8_t(result.ints[i]);
      break;
    case onnx::TensorProto::INT8:
      result.ints[i] = int8_t(result.ints[i]);
      break;
    case onnx::TensorProto::INT32:
      result.ints[i] = int32_t(result.ints[i]);
      break;
    default:
      break;
    }
  }
  return result;
}

HostTensor transposeHost(const HostTensor &tensor, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape, inputStrides(tensor.shape.size()), strides;
  int64_t stride = 1;
  for (int64_t d = tensor.shape.size() - 1; d >= 0; --d) {
    inputStrides[d] = stride;
    stride *= tensor.shape[d];
  }
  for (int64_t p : perm) {
    shape.push_back(tensor.shape[p]);
    strides.push_back(inputStrides[p]);
  }
  HostTensor result = HostTensor::zeros(tensor.type, shape);
  forEachElement<1>(shape, {strides},
                    [&](int64_t e, std::array<int64_t, 1> at) {
                      if (result.isFloat())
                        result.floats[e] = tensor.floats[at[0]];
                      else
                        result.ints[e] = tensor.ints[at[0]];
                    });
  return result;
}

HostTensor broadcastTo(const HostTensor &tensor, ArrayRef<int64_t> shape) {
  HostTensor result = HostTensor::zeros(tensor.type, shape);
  forEachElement<1>(shape, {broadcastStrides(tensor.shape, shape)},
                    [&](int64_t e, std::array<int64_t, 1> at) {
                      if (result.isFloat())
                        result.floats[e] = tensor.floats[at[0]];
                      else
                        result.ints[e] = tensor.ints[at[0]];
                    });
  return result;
}

} // namespace transfuse::onnx_import
