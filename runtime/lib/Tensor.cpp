//===- Tensor.cpp - Dtypes, shapes and aligned buffers --------------------===//
#include "Runtime.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

namespace transfuse::rt {

size_t dtypeSize(tf_dtype dtype) {
  switch (dtype) {
  case TF_F32:
  case TF_I32:
    return 4;
  case TF_F64:
  case TF_I64:
    return 8;
  case TF_BOOL:
    return 1;
  }
  return 0;
}

const char *dtypeName(tf_dtype dtype) {
  switch (dtype) {
  case TF_F32:
    return "f32";
  case TF_F64:
    return "f64";
  case TF_I64:
    return "i64";
  case TF_I32:
    return "i32";
  case TF_BOOL:
    return "bool";
  }
  return "invalid";
}

bool parseDtype(std::string_view name, tf_dtype &dtype) {
  for (tf_dtype candidate : {TF_F32, TF_F64, TF_I64, TF_I32, TF_BOOL}) {
    if (name == dtypeName(candidate)) {
      dtype = candidate;
      return true;
    }
  }
  return false;
}

bool isInteger(tf_dtype dtype) { return dtype == TF_I64 || dtype == TF_I32; }
bool isFloat(tf_dtype dtype) { return dtype == TF_F32 || dtype == TF_F64; }

std::string shapeString(const Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

int64_t checkedNumel(const Shape &shape) {
  int64_t numel = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return -1;
    if (dim != 0 && numel > std::numeric_limits<int64_t>::max() / dim)
      return -1;
    numel *= dim;
  }
  return numel;
}

std::string indexString(const Shape &shape, int64_t flat) {
  Shape index(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = shape[i] ? flat % shape[i] : 0;
    flat = shape[i] ? flat / shape[i] : 0;
  }
  return shapeString(index);
}

//===----------------------------------------------------------------------===//
// Buffer
//===----------------------------------------------------------------------===//

static constexpr size_t kAlignment = 64;

Buffer::Buffer(size_t size) : size_(size) {
  // Round up so aligned_alloc's size is a multiple of the alignment; one
  // block even when empty, so data() of an empty tensor is not null.
  size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < size)
    throw std::bad_alloc();
  data_ = static_cast<uint8_t *>(
      std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment));
  if (!data_)
    throw std::bad_alloc();
  std::memset(data_, 0, rounded ? rounded : kAlignment);
}

Buffer::Buffer(Buffer &&other) noexcept
    : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

Buffer &Buffer::operator=(Buffer &&other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

Buffer::~Buffer() { std::free(data_); }

} // namespace transfuse::rt
