//===- OnnxHostTensorTest.cpp - ONNX tensors known at compile time --------===//
//
// The ONNX importer's host tensors (compiler/lib/Import/Onnx/HostTensor.h):
// decoding every storage form of a TensorProto, external data and its
// checks, NumPy broadcasting, casts and the cap on folded constants.
//===----------------------------------------------------------------------===//
#include "HostTensor.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>

using namespace transfuse::onnx_import;
using onnx::TensorProto;

namespace {

TensorProto tensorOf(int32_t type, std::initializer_list<int64_t> dims) {
  TensorProto proto;
  proto.set_name("t");
  proto.set_data_type(type);
  for (int64_t d : dims)
    proto.add_dims(d);
  return proto;
}

HostTensor decode(const TensorProto &proto, llvm::StringRef dir = "") {
  std::string why;
  mlir::FailureOr<HostTensor> tensor = decodeTensor(proto, dir, why);
  EXPECT_TRUE(succeeded(tensor)) << why;
  return succeeded(tensor) ? *tensor : HostTensor();
}

std::string refusal(const TensorProto &proto, llvm::StringRef dir = "") {
  std::string why;
  EXPECT_TRUE(failed(decodeTensor(proto, dir, why)));
  return why;
}

TEST(OnnxHostTensorTest, RawAndTypedDataDecodeAlike) {
  TensorProto typed = tensorOf(TensorProto::FLOAT, {2, 2});
  for (float v : {1.5f, -2.0f, 0.25f, 8.0f})
    typed.add_float_data(v);
  TensorProto raw = tensorOf(TensorProto::FLOAT, {2, 2});
  const float values[] = {1.5f, -2.0f, 0.25f, 8.0f};
  raw.set_raw_data(values, sizeof values);
  EXPECT_EQ(decode(typed).floats, decode(raw).floats);
  EXPECT_EQ(decode(raw).shape, (llvm::SmallVector<int64_t, 4>{2, 2}));

  // Integers keep all 64 bits; BOOL is 0/1 whatever was stored; INT8 is
  // signed.
  TensorProto big = tensorOf(TensorProto::INT64, {1});
  big.add_int64_data((int64_t(1) << 60) + 1);
  EXPECT_EQ(decode(big).ints[0], (int64_t(1) << 60) + 1);
  TensorProto flags = tensorOf(TensorProto::BOOL, {3});
  for (int32_t v : {0, 1, 7})
    flags.add_int32_data(v);
  EXPECT_EQ(decode(flags).ints, (std::vector<int64_t>{0, 1, 1}));
  TensorProto small = tensorOf(TensorProto::INT8, {2});
  small.set_raw_data("\xff\x05", 2);
  EXPECT_EQ(decode(small).ints, (std::vector<int64_t>{-1, 5}));
  // A scalar has one element.
  TensorProto scalar = tensorOf(TensorProto::DOUBLE, {});
  scalar.add_double_data(0.5);
  EXPECT_EQ(decode(scalar).floats, std::vector<float>{0.5f});
}

TEST(OnnxHostTensorTest, DataMustFillTheShape) {
  TensorProto raw = tensorOf(TensorProto::FLOAT, {3, 2});
  raw.set_raw_data(std::string(4, '\0'));
  EXPECT_EQ(refusal(raw), "raw_data holds 4 bytes, its FLOAT shape needs 24");
  TensorProto typed = tensorOf(TensorProto::INT64, {3});
  typed.add_int64_data(1);
  EXPECT_EQ(refusal(typed), "int64_data holds 1 values, its shape 3");
  EXPECT_EQ(refusal(tensorOf(TensorProto::FLOAT, {2, -1})),
            "negative dimension -1");
  EXPECT_EQ(refusal(tensorOf(TensorProto::FLOAT, {1 << 20, 1 << 20, 1 << 20})),
            "more than 2^32 elements");
  EXPECT_EQ(refusal(tensorOf(TensorProto::FLOAT16, {1})),
            "tensors of type FLOAT16 are not supported");
}

TEST(OnnxHostTensorTest, ExternalDataStaysInTheModelsDirectory) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("onnx-test", dir));
  llvm::SmallString<128> file(dir);
  llvm::sys::path::append(file, "weights.bin");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    ASSERT_FALSE(ec);
    const float values[] = {9.0f, 9.0f, 3.0f, 4.0f};
    os.write(reinterpret_cast<const char *>(values), sizeof values);
  }
  auto external = [](const char *location, const char *offset) {
    TensorProto proto = tensorOf(TensorProto::FLOAT, {2});
    proto.set_data_location(TensorProto::EXTERNAL);
    auto *entry = proto.add_external_data();
    entry->set_key("location");
    entry->set_value(location);
    entry = proto.add_external_data();
    entry->set_key("offset");
    entry->set_value(offset);
    return proto;
  };
  EXPECT_EQ(decode(external("weights.bin", "8"), dir).floats,
            (std::vector<float>{3.0f, 4.0f}));
  EXPECT_EQ(refusal(external("../weights.bin", "0"), dir),
            "external data location '../weights.bin' must be a path inside "
            "the model's directory");
  EXPECT_EQ(refusal(external("/etc/passwd", "0"), dir),
            "external data location '/etc/passwd' must be a path inside the "
            "model's directory");
  EXPECT_EQ(refusal(external("weights.bin", "-4"), dir),
            "external data offset '-4' is not a byte count");
  // Past the end of the file: refused, not read as zeros.
  std::string past = refusal(external("weights.bin", "12"), dir);
  EXPECT_NE(past.find("cannot read 8 bytes at offset 12 of external data"),
            std::string::npos)
      << past;
  EXPECT_NE(past.find("the file has 16 bytes"), std::string::npos) << past;
  llvm::sys::fs::remove_directories(dir);
}

TEST(OnnxHostTensorTest, BroadcastsLikeNumPy) {
  HostTensor column = HostTensor::zeros(TensorProto::INT64, {2, 1});
  column.ints = {10, 20};
  HostTensor row = HostTensor::ofInts({1, 2, 3});
  std::string why;
  auto sum = broadcastBinary(
      column, row, TensorProto::INT64, [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b) { return a + b; }, why);
  ASSERT_TRUE(succeeded(sum)) << why;
  EXPECT_EQ(sum->shape, (llvm::SmallVector<int64_t, 4>{2, 3}));
  EXPECT_EQ(sum->ints, (std::vector<int64_t>{11, 12, 13, 21, 22, 23}));
  HostTensor other = HostTensor::ofInts({1, 2});
  EXPECT_TRUE(failed(broadcastBinary(
      row, other, TensorProto::INT64, [](double a, double) { return a; },
      [](int64_t a, int64_t) { return a; }, why)));
  EXPECT_EQ(why, "shapes do not broadcast");
  EXPECT_EQ(broadcastTo(row, {2, 3}).ints,
            (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
}

TEST(OnnxHostTensorTest, FoldedConstantsAreCapped) {
  std::string why;
  EXPECT_TRUE(succeeded(checkFoldable({1 << 12, 1 << 12}, why)));
  EXPECT_TRUE(failed(checkFoldable({1 << 12, 1 << 13}, why)));
  EXPECT_EQ(why, "folding it would build a constant of more than 2^24 "
                 "elements");
  EXPECT_TRUE(failed(checkFoldable({int64_t(1) << 40, int64_t(1) << 40}, why)));
  EXPECT_TRUE(failed(checkFoldable({4, -1}, why)));
  EXPECT_EQ(why, "negative dimension -1");
}

TEST(OnnxHostTensorTest, CastsAsOnnxDoes) {
  HostTensor ints = HostTensor::ofInts({257, 200, -1});
  EXPECT_EQ(castTo(ints, TensorProto::UINT8).ints,
            (std::vector<int64_t>{1, 200, 255}));
  EXPECT_EQ(castTo(ints, TensorProto::INT8).ints,
            (std::vector<int64_t>{1, -56, -1}));
  EXPECT_EQ(castTo(ints, TensorProto::BOOL).ints,
            (std::vector<int64_t>{1, 1, 1}));
  HostTensor floats = HostTensor::zeros(TensorProto::FLOAT, {3});
  floats.floats = {2.75f, -2.75f, std::nanf("")};
  EXPECT_EQ(castTo(floats, TensorProto::INT64).ints,
            (std::vector<int64_t>{2, -2, std::numeric_limits<int64_t>::min()}));
}

TEST(OnnxHostTensorTest, TransposesByPermutation) {
  HostTensor t = HostTensor::zeros(TensorProto::INT64, {2, 3});
  t.ints = {0, 1, 2, 3, 4, 5};
  HostTensor result = transposeHost(t, {1, 0});
  EXPECT_EQ(result.shape, (llvm::SmallVector<int64_t, 4>{3, 2}));
  EXPECT_EQ(result.ints, (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

} // namespace
