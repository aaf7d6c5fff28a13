//===- RuntimeSafetensorsTest.cpp - Checkpoints and tensor files ----------===//
//
// Parameters round-trip through safetensors; a checkpoint that does not fit
// the model, or a file that is truncated or corrupted, is an error naming
// the file and the tensor, and leaves the parameters as they were.
//===----------------------------------------------------------------------===//
#include "RuntimeTesting.h"

#include <sys/stat.h>

using namespace transfuse::test;
using json = nlohmann::json;

namespace {

/// A safetensors file from its header and data, as given.
std::string rawSafetensors(const std::string &header, const std::string &data) {
  std::string out;
  appendLE(out, header.size(), 8);
  return out + header + data;
}

std::string floatBytes(std::vector<float> values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(float));
}

class RuntimeSafetensorsTest : public RuntimeTest {
protected:
  void SetUp() override { openSession(); }

  Outcome load(const std::string &path) {
    return outcome(tf_session_load_parameters(session, path.c_str()));
  }

  Outcome loadBytes(const std::string &bytes) {
    std::string path = dir.file("weights.safetensors");
    writeBinary(path, bytes);
    return load(path);
  }

  /// The model's parameters with some edits, written through the C API.
  std::string checkpoint(const std::vector<std::string> &skip = {},
                         const std::vector<tf_named_tensor> &extra = {}) {
    std::vector<tf_named_tensor> tensors;
    for (const char *name : {"w", "b", "table"}) {
      if (std::find(skip.begin(), skip.end(), name) != skip.end())
        continue;
      tf_named_tensor tensor{};
      tensor.name = name;
      EXPECT_EQ(tf_session_parameter(session, name, &tensor.tensor), TF_OK);
      tensors.push_back(tensor);
    }
    tensors.insert(tensors.end(), extra.begin(), extra.end());
    std::string path = dir.file("edited.safetensors");
    EXPECT_EQ(tf_tensor_file_write(path.c_str(), tensors.data(),
                                   int32_t(tensors.size())),
              TF_OK)
        << tf_last_error();
    return path;
  }
};

TEST_F(RuntimeSafetensorsTest, RoundTrip) {
  ASSERT_EQ(tf_session_init_parameters(session, 17), TF_OK);
  std::vector<float> w = floats("w"), b = floats("b"), table = floats("table");
  std::string path = dir.file("params.safetensors");
  ASSERT_EQ(tf_session_save_parameters(session, path.c_str()), TF_OK)
      << tf_last_error();
  EXPECT_EQ(dir.temporaries(), std::vector<std::string>{});

  ASSERT_EQ(tf_session_init_parameters(session, 18), TF_OK);
  ASSERT_NE(floats("w"), w);
  Outcome loaded = load(path);
  ASSERT_EQ(loaded.status, TF_OK) << loaded.message;
  EXPECT_EQ(floats("w"), w);
  EXPECT_EQ(floats("b"), b);
  EXPECT_EQ(floats("table"), table);

  // Saving twice writes the same bytes.
  std::string again = dir.file("again.safetensors");
  ASSERT_EQ(tf_session_save_parameters(session, again.c_str()), TF_OK);
  EXPECT_EQ(readBinary(again), readBinary(path));
}

TEST_F(RuntimeSafetensorsTest, TheFileFollowsTheFormat) {
  ASSERT_EQ(tf_session_init_parameters(session, 1), TF_OK);
  std::string path = dir.file("params.safetensors");
  ASSERT_EQ(tf_session_save_parameters(session, path.c_str()), TF_OK);
  std::string bytes = readBinary(path);
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = headerSize << 8 | uint8_t(bytes[i]);
  EXPECT_EQ((8 + headerSize) % 8, 0u);
  json header = json::parse(bytes.substr(8, headerSize));
  EXPECT_EQ(header["__metadata__"],
            (json{{"format", "pt"}, {"model", "fake"}}));
  EXPECT_EQ(header["w"]["dtype"], "F32");
  EXPECT_EQ(header["w"]["shape"], (json{3, 4}));
  // Sorted by name within a dtype: b, table, w.
  EXPECT_EQ(header["b"]["data_offsets"], (json{0, 12}));
  EXPECT_EQ(header["table"]["data_offsets"], (json{12, 52}));
  EXPECT_EQ(header["w"]["data_offsets"], (json{52, 100}));
  EXPECT_EQ(bytes.size(), 8 + headerSize + 100);

  tf_tensor_file *file = nullptr;
  ASSERT_EQ(tf_tensor_file_read(path.c_str(), &file), TF_OK);
  EXPECT_EQ(tf_tensor_file_count(file), 3);
  EXPECT_STREQ(tf_tensor_file_metadata(file, "model"), "fake");
  EXPECT_EQ(tf_tensor_file_metadata(file, "nope"), nullptr);
  tf_named_tensor first;
  ASSERT_EQ(tf_tensor_file_get(file, 0, &first), TF_OK);
  EXPECT_STREQ(first.name, "b");
  tf_tensor w;
  ASSERT_EQ(tf_tensor_file_find(file, "w", &w), TF_OK);
  EXPECT_EQ(std::vector<float>(static_cast<float *>(w.data),
                               static_cast<float *>(w.data) + 12),
            floats("w"));
  tf_tensor_file_close(file);
}

TEST_F(RuntimeSafetensorsTest, SavingIntoAMissingDirectoryFails) {
  std::string path = dir.file("no/such/dir/params.safetensors");
  Outcome saved = outcome(tf_session_save_parameters(session, path.c_str()));
  EXPECT_EQ(saved.status, TF_ERROR_IO);
  EXPECT_EQ(saved.message,
            "cannot write '" + path + "': No such file or directory");
}

TEST_F(RuntimeSafetensorsTest, AFailedSaveLeavesTheOldFile) {
  // The target is a directory: refused before a temporary is made.
  std::string path = dir.file("taken");
  std::filesystem::create_directory(path);
  std::filesystem::create_directory(path + "/inside");
  Outcome saved = outcome(tf_session_save_parameters(session, path.c_str()));
  EXPECT_EQ(saved.status, TF_ERROR_IO);
  EXPECT_EQ(saved.message, "cannot write '" + path + "': Is a directory");
  EXPECT_EQ(dir.temporaries(), std::vector<std::string>{});
  EXPECT_TRUE(std::filesystem::is_directory(path + "/inside"));
}

TEST_F(RuntimeSafetensorsTest, MissingParameter) {
  Outcome loaded = load(checkpoint({"b"}));
  EXPECT_EQ(loaded.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(loaded.message,
                  "edited.safetensors': parameter 'b' is missing");
}

TEST_F(RuntimeSafetensorsTest, ExtraTensor) {
  std::vector<float> data(2);
  Outcome loaded = load(checkpoint({}, {named("extra", TF_F32, {2}, data)}));
  EXPECT_EQ(loaded.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(loaded.message,
                  "edited.safetensors': tensor 'extra' is not a parameter of "
                  "model 'fake'");
}

TEST_F(RuntimeSafetensorsTest, WrongDtype) {
  std::vector<double> data(12);
  Outcome loaded = load(checkpoint({"w"}, {named("w", TF_F64, {3, 4}, data)}));
  EXPECT_EQ(loaded.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(loaded.message,
                  "edited.safetensors': parameter 'w' is F64, the model "
                  "expects F32");
}

TEST_F(RuntimeSafetensorsTest, WrongShape) {
  std::vector<float> data(12);
  Outcome loaded = load(checkpoint({"w"}, {named("w", TF_F32, {4, 3}, data)}));
  EXPECT_EQ(loaded.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(loaded.message,
                  "edited.safetensors': parameter 'w' has shape [4, 3], the "
                  "model expects [3, 4]");
}

TEST_F(RuntimeSafetensorsTest, AFailedLoadChangesNothing) {
  ASSERT_EQ(tf_session_init_parameters(session, 4), TF_OK);
  std::vector<float> w = floats("w");
  std::vector<float> zeros(3);
  std::string path = checkpoint({"b"}, {named("b", TF_F32, {1, 3}, zeros)});
  ASSERT_EQ(tf_session_init_parameters(session, 5), TF_OK);
  std::vector<float> before = floats("w");
  ASSERT_NE(before, w);
  EXPECT_NE(load(path).status, TF_OK);
  EXPECT_EQ(floats("w"), before);
}

TEST_F(RuntimeSafetensorsTest, MissingFile) {
  Outcome loaded = load(dir.file("absent.safetensors"));
  EXPECT_EQ(loaded.status, TF_ERROR_IO);
  EXPECT_EQ(loaded.message, "cannot read '" + dir.file("absent.safetensors") +
                                "': No such file or directory");
}

TEST_F(RuntimeSafetensorsTest, CorruptFiles) {
  const std::string header =
      R"({"b":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})";
  const std::string data = floatBytes({1, 2, 3});
  struct Case {
    std::string bytes;
    tf_status status;
    std::string message;
  };
  auto with = [&](const std::string &h, const std::string &d = "") {
    return rawSafetensors(h, d.empty() ? data : d);
  };
  const Case cases[] = {
      {"abc", TF_ERROR_FORMAT,
       "truncated: 3 bytes, a safetensors file starts with an 8-byte header "
       "length"},
      {std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "{}",
       TF_ERROR_FORMAT,
       "bad header length 9223372036854775807: the file has 2 bytes after it"},
      {rawSafetensors(header, data).substr(0, 8 + header.size() + 5),
       TF_ERROR_FORMAT,
       "truncated: tensor 'b' ends at byte 12 of the data, which has 5 bytes"},
      {with("{\"b\": [1, 2"), TF_ERROR_FORMAT,
       "the header is not valid JSON: parse error at line 1"},
      {with("[1, 2]"), TF_ERROR_FORMAT, "the header is not a JSON object"},
      {with(R"({"b":{"dtype":"F16","shape":[6],"data_offsets":[0,12]}})"),
       TF_ERROR_UNSUPPORTED,
       "tensor 'b': unsupported dtype 'F16' (the runtime reads F32, F64, I64, "
       "I32 and BOOL)"},
      {with(R"({"b":{"shape":[3],"data_offsets":[0,12]}})"), TF_ERROR_FORMAT,
       "tensor 'b': missing or non-string 'dtype'"},
      {with(R"({"b":{"dtype":"F32","shape":[-3],"data_offsets":[0,12]}})"),
       TF_ERROR_FORMAT,
       "tensor 'b': shape [-3] is not a list of non-negative integers"},
      {with(R"({"b":{"dtype":"F32","shape":[3],"data_offsets":[0]}})"),
       TF_ERROR_FORMAT,
       "tensor 'b': 'data_offsets' is not a pair of non-negative integers"},
      {with(R"({"b":{"dtype":"F32","shape":[3],"data_offsets":[12,0]}})"),
       TF_ERROR_FORMAT,
       "tensor 'b': data_offsets [12, 0) end before they begin"},
      {with(R"({"b":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})"),
       TF_ERROR_FORMAT,
       "tensor 'b': data_offsets [0, 8) hold 8 bytes, but F32 [3] needs 12"},
      {with(R"({"b":{"dtype":"F32","shape":[3],"data_offsets":[4,16]}})"),
       TF_ERROR_FORMAT,
       "truncated: tensor 'b' ends at byte 16 of the data, which has 12 bytes"},
      {with(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})"),
       TF_ERROR_FORMAT, "tensors 'a' [0, 8) and 'b' [4, 12) overlap"},
      {with(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
            R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})"),
       TF_ERROR_FORMAT, "bytes [4, 8) of the data belong to no tensor"},
      {with(R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})"),
       TF_ERROR_FORMAT, "bytes [8, 12) of the data belong to no tensor"},
      {with(R"({"__metadata__":{"format":1},"b":{"dtype":"F32","shape":[3],)"
            R"("data_offsets":[0,12]}})"),
       TF_ERROR_FORMAT, "__metadata__ value 'format' is not a string"},
      {with(R"({"b":{"dtype":"F32","shape":[4294967296,4294967296],)"
            R"("data_offsets":[0,12]}})"),
       TF_ERROR_FORMAT,
       "tensor 'b': shape [4294967296, 4294967296] is too large"},
  };
  for (const Case &c : cases) {
    Outcome loaded = loadBytes(c.bytes);
    EXPECT_EQ(loaded.status, c.status) << c.message;
    EXPECT_CONTAINS(loaded.message, "weights.safetensors': " + c.message);
  }
}

TEST_F(RuntimeSafetensorsTest, EveryTruncationAndByteFlipIsHandled) {
  ASSERT_EQ(tf_session_init_parameters(session, 2), TF_OK);
  std::string path = dir.file("params.safetensors");
  ASSERT_EQ(tf_session_save_parameters(session, path.c_str()), TF_OK);
  std::string bytes = readBinary(path);
  for (size_t size = 0; size < bytes.size(); ++size)
    EXPECT_NE(loadBytes(bytes.substr(0, size)).status, TF_OK) << size;
  // A flipped byte in the length or the header either still describes
  // these tensors or is an error; either way nothing crashes.
  size_t headerEnd = bytes.size() - 100;
  for (size_t i = 0; i < headerEnd; ++i) {
    std::string flipped = bytes;
    flipped[i] ^= 0x04;
    Outcome loaded = loadBytes(flipped);
    if (loaded.status != TF_OK) {
      EXPECT_FALSE(loaded.message.empty());
    }
  }
}

TEST_F(RuntimeSafetensorsTest, ReadsEveryDtype) {
  std::vector<double> f64 = {1.5, -2.5};
  std::vector<int64_t> i64 = {1ll << 40, -3};
  std::vector<int32_t> i32 = {7, -7, 9};
  std::vector<uint8_t> flags = {1, 0, 1, 1, 0};
  std::vector<float> scalar = {4.0f};
  std::vector<tf_named_tensor> tensors = {
      named("f64", TF_F64, {2}, f64), named("i64", TF_I64, {1, 2}, i64),
      named("i32", TF_I32, {3}, i32), named("flags", TF_BOOL, {5}, flags),
      named("scalar", TF_F32, {}, scalar)};
  std::string path = dir.file("mixed.safetensors");
  ASSERT_EQ(tf_tensor_file_write(path.c_str(), tensors.data(), 5), TF_OK)
      << tf_last_error();
  tf_tensor_file *file = nullptr;
  ASSERT_EQ(tf_tensor_file_read(path.c_str(), &file), TF_OK) << tf_last_error();
  tf_tensor t;
  ASSERT_EQ(tf_tensor_file_find(file, "i64", &t), TF_OK);
  EXPECT_EQ(t.dtype, TF_I64);
  EXPECT_EQ(t.rank, 2);
  EXPECT_EQ(static_cast<int64_t *>(t.data)[0], 1ll << 40);
  ASSERT_EQ(tf_tensor_file_find(file, "flags", &t), TF_OK);
  EXPECT_EQ(t.dtype, TF_BOOL);
  EXPECT_EQ(static_cast<uint8_t *>(t.data)[3], 1);
  ASSERT_EQ(tf_tensor_file_find(file, "scalar", &t), TF_OK);
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(tf_tensor_numel(&t), 1);
  EXPECT_EQ(*static_cast<float *>(t.data), 4.0f);
  ASSERT_EQ(tf_tensor_file_find(file, "f64", &t), TF_OK);
  EXPECT_EQ(static_cast<double *>(t.data)[1], -2.5);
  // Every tensor is aligned to its element size.
  for (int32_t i = 0; i < tf_tensor_file_count(file); ++i) {
    tf_named_tensor n;
    ASSERT_EQ(tf_tensor_file_get(file, i, &n), TF_OK);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(n.tensor.data) %
                  tf_dtype_size(n.tensor.dtype),
              0u)
        << n.name;
  }
  Outcome absent = outcome(tf_tensor_file_find(file, "nope", &t));
  EXPECT_EQ(absent.message, "'" + path + "': no tensor 'nope'");
  tf_tensor_file_close(file);
}

TEST_F(RuntimeSafetensorsTest, WritingRejectsBadTensors) {
  std::vector<float> data(2);
  std::vector<tf_named_tensor> twice = {named("a", TF_F32, {2}, data),
                                        named("a", TF_F32, {2}, data)};
  std::string path = dir.file("bad.safetensors");
  Outcome result = outcome(tf_tensor_file_write(path.c_str(), twice.data(), 2));
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "cannot write '" + path + "': tensor 'a' given twice");
  std::vector<tf_named_tensor> reserved = {
      named("__metadata__", TF_F32, {2}, data)};
  EXPECT_EQ(tf_tensor_file_write(path.c_str(), reserved.data(), 1),
            TF_ERROR_INVALID_ARGUMENT);
  EXPECT_FALSE(std::filesystem::exists(path));
}

} // namespace
