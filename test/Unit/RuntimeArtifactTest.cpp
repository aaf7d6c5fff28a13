//===- RuntimeArtifactTest.cpp - Loading and validating .tfm files --------===//
//
// Every check of docs/artifact.md's reader, in its order, and every field of
// the manifest: each failure is a status and a message naming the file and
// what is wrong, never a crash.
//===----------------------------------------------------------------------===//
#include "RuntimeTesting.h"

#include <functional>

using namespace transfuse::test;
using json = nlohmann::json;

namespace {

class RuntimeArtifactTest : public RuntimeTest {
protected:
  /// Opens a .tfm holding exactly `bytes`.
  Outcome openBytes(const std::string &bytes) {
    std::string path = dir.file("model.tfm");
    writeBinary(path, bytes);
    return open(path);
  }

  /// Opens the fake code with a manifest given as text.
  Outcome openManifest(const std::string &manifest) {
    return openBytes(tfmBytes(manifest, fakeModelCode()));
  }

  /// The message for the fake manifest after `edit`, which must fail.
  template <typename Edit> std::string manifestError(Edit edit) {
    json manifest = fakeManifest();
    edit(manifest);
    Outcome result = openManifest(manifest.dump());
    EXPECT_NE(result.status, TF_OK);
    return result.message;
  }
};

TEST_F(RuntimeArtifactTest, LoadsTheFakeModel) {
  Outcome opened = open(writeTfm());
  ASSERT_EQ(opened.status, TF_OK) << opened.message;
  EXPECT_STREQ(tf_artifact_model(artifact), "fake");
  EXPECT_STREQ(tf_artifact_target(artifact), "cpu");
  EXPECT_STREQ(tf_artifact_cpu(artifact), "x86-64");
  EXPECT_STREQ(tf_artifact_producer(artifact), "TfmWriter.h");
  EXPECT_EQ(json::parse(tf_artifact_manifest_json(artifact)), fakeManifest());

  ASSERT_EQ(tf_artifact_num_parameters(artifact), 3);
  tf_tensor_info info;
  ASSERT_EQ(tf_artifact_parameter(artifact, 0, &info), TF_OK);
  EXPECT_STREQ(info.name, "w");
  EXPECT_EQ(info.dtype, TF_F32);
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.shape[0], 3);
  EXPECT_EQ(info.shape[1], 4);
  EXPECT_EQ(info.init, TF_INIT_NORMAL);
  EXPECT_EQ(info.init_a, 0.0);
  EXPECT_EQ(info.init_b, 0.5);
  EXPECT_EQ(tf_artifact_parameter(artifact, 3, &info),
            TF_ERROR_INVALID_ARGUMENT);

  ASSERT_EQ(tf_artifact_num_entry_points(artifact), 5);
  EXPECT_STREQ(tf_artifact_entry_point_name(artifact, 2), "embed");
  EXPECT_EQ(tf_artifact_entry_point_name(artifact, 5), nullptr);
  int32_t embed = -1;
  ASSERT_EQ(tf_artifact_find_entry_point(artifact, "embed", &embed), TF_OK);
  EXPECT_EQ(embed, 2);
  EXPECT_EQ(tf_entry_point_num_parameters(artifact, embed), 1);
  EXPECT_STREQ(tf_entry_point_parameter(artifact, embed, 0), "table");
  ASSERT_EQ(tf_entry_point_num_inputs(artifact, embed), 1);
  ASSERT_EQ(tf_entry_point_input(artifact, embed, 0, &info), TF_OK);
  EXPECT_STREQ(info.name, "tokens");
  EXPECT_EQ(info.dtype, TF_I64);
  EXPECT_EQ(info.max_value, 4);
  ASSERT_EQ(tf_entry_point_num_outputs(artifact, embed), 1);
  ASSERT_EQ(tf_entry_point_output(artifact, embed, 0, &info), TF_OK);
  EXPECT_STREQ(info.name, "rows");
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.max_value, -1);

  Outcome missing =
      outcome(tf_artifact_find_entry_point(artifact, "train_step", &embed));
  EXPECT_EQ(missing.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(missing.message,
            "model 'fake' has no entry point 'train_step' (it has 'forward', "
            "'forward_bw', 'embed', 'mixed', 'fail')");
}

TEST_F(RuntimeArtifactTest, MissingFile) {
  Outcome result = open(dir.file("absent.tfm"));
  EXPECT_EQ(result.status, TF_ERROR_IO);
  EXPECT_EQ(result.message, "cannot read '" + dir.file("absent.tfm") +
                                "': No such file or directory");
  EXPECT_EQ(artifact, nullptr);
  EXPECT_EQ(open(dir.path()).message,
            "cannot read '" + dir.path() + "': Is a directory");
}

TEST_F(RuntimeArtifactTest, TooSmall) {
  Outcome result = openBytes("TRANSFUS");
  EXPECT_EQ(result.status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(result.message,
                  "model.tfm': too small to be a .tfm: 8 bytes, at "
                  "least 40");
}

TEST_F(RuntimeArtifactTest, BadMagic) {
  std::string bytes = tfmBytes(fakeManifest().dump(), fakeModelCode());
  bytes[0] = 'X';
  Outcome result = openBytes(bytes);
  EXPECT_EQ(result.status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(result.message, "model.tfm': not a .tfm file (bad magic)");
}

TEST_F(RuntimeArtifactTest, WrongFormatVersion) {
  Outcome result =
      openBytes(tfmBytes(fakeManifest().dump(), fakeModelCode(), 2));
  EXPECT_EQ(result.status, TF_ERROR_UNSUPPORTED);
  EXPECT_CONTAINS(result.message,
                  "model.tfm': format version 2, this runtime reads 1");
}

TEST_F(RuntimeArtifactTest, Truncated) {
  std::string bytes = tfmBytes(fakeManifest().dump(), fakeModelCode());
  std::string cut = bytes.substr(0, bytes.size() - 100);
  Outcome result = openBytes(cut);
  EXPECT_EQ(result.status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(result.message, "model.tfm': truncated: expected " +
                                      std::to_string(bytes.size()) +
                                      " bytes, got " +
                                      std::to_string(cut.size()));
}

TEST_F(RuntimeArtifactTest, TrailingData) {
  Outcome result =
      openBytes(tfmBytes(fakeManifest().dump(), fakeModelCode()) + "xyz");
  EXPECT_EQ(result.status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(result.message, "(trailing data)");
}

TEST_F(RuntimeArtifactTest, SizesLargerThanTheFile) {
  std::string bytes = tfmBytes(fakeManifest().dump(), fakeModelCode());
  for (int i = 0; i < 8; ++i)
    bytes[16 + i] = '\xff';
  Outcome result = openBytes(bytes);
  EXPECT_EQ(result.status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(result.message,
                  "truncated: the header declares a manifest of "
                  "18446744073709551615 bytes");
}

TEST_F(RuntimeArtifactTest, CorruptChecksum) {
  std::string bytes = tfmBytes(fakeManifest().dump(), fakeModelCode());
  bytes[bytes.size() / 2] ^= 0x40;
  Outcome result = openBytes(bytes);
  EXPECT_EQ(result.status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(result.message, "model.tfm': checksum mismatch (stored 0x");
  EXPECT_CONTAINS(result.message, "): the file is corrupted");
}

TEST_F(RuntimeArtifactTest, EveryTruncationAndEveryByteFlipIsAnError) {
  std::string bytes = tfmBytes(fakeManifest().dump(), fakeModelCode());
  for (size_t size = 0; size < bytes.size(); size += 97)
    EXPECT_NE(openBytes(bytes.substr(0, size)).status, TF_OK) << size;
  // The header, the manifest and the checksum, byte by byte.
  size_t manifestEnd = 32 + fakeManifest().dump().size();
  for (size_t i = 0; i < bytes.size();
       i = i == manifestEnd ? bytes.size() - 8 : i + 1) {
    if (i >= 12 && i < 16)
      continue; // reserved: not checked, but covered by the checksum
    std::string flipped = bytes;
    flipped[i] ^= 0x01;
    EXPECT_NE(openBytes(flipped).status, TF_OK) << "byte " << i;
  }
}

TEST_F(RuntimeArtifactTest, MalformedJson) {
  Outcome result = openManifest("{\"format_version\": 1, \"target\": ");
  EXPECT_EQ(result.status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(result.message,
                  "model.tfm': manifest is not valid JSON: parse error "
                  "at line 1, column 33");
  EXPECT_EQ(openManifest("").status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(openManifest("[1, 2]").message,
                  "manifest: expected an object, got an array");
}

TEST_F(RuntimeArtifactTest, WrongTarget) {
  Outcome result = openManifest([] {
    json manifest = fakeManifest();
    manifest["target"] = "rocm";
    return manifest;
  }()
                                    .dump());
  EXPECT_EQ(result.status, TF_ERROR_UNSUPPORTED);
  EXPECT_CONTAINS(result.message,
                  "model.tfm': target 'rocm' but this runtime runs 'cpu'");
}

TEST_F(RuntimeArtifactTest, ManifestFormatVersion) {
  EXPECT_CONTAINS(manifestError([](json &m) { m["format_version"] = 3; }),
                  "manifest format_version 3, this runtime reads 1");
  EXPECT_CONTAINS(manifestError([](json &m) { m["format_version"] = "1"; }),
                  "manifest: format_version: expected an integer, got a "
                  "string");
}

TEST_F(RuntimeArtifactTest, MissingFields) {
  for (const char *field :
       {"format_version", "target", "model", "parameters", "entry_points"})
    EXPECT_CONTAINS(manifestError([&](json &m) { m.erase(field); }),
                    std::string("manifest: missing field '") + field + "'");
  for (const char *field : {"name", "dtype", "shape", "init"})
    EXPECT_CONTAINS(
        manifestError([&](json &m) { m["parameters"][1].erase(field); }),
        std::string("manifest: parameters[1]: missing field '") + field + "'");
  for (const char *field :
       {"name", "symbol", "parameters", "inputs", "outputs"})
    EXPECT_CONTAINS(
        manifestError([&](json &m) { m["entry_points"][2].erase(field); }),
        std::string("manifest: entry_points[2]: missing field '") + field +
            "'");
  EXPECT_CONTAINS(manifestError([](json &m) {
                    m["entry_points"][0]["inputs"][1].erase("shape");
                  }),
                  "entry_points[0].inputs[1]: missing field 'shape'");
  EXPECT_CONTAINS(
      manifestError([](json &m) { m["parameters"][0]["init"].erase("b"); }),
      "parameters[0].init: missing field 'b'");
}

TEST_F(RuntimeArtifactTest, BadFieldValues) {
  struct Case {
    std::function<void(json &)> edit;
    const char *message;
  };
  const Case cases[] = {
      {[](json &m) { m["model"] = 3; },
       "manifest: model: expected a string, got an integer"},
      {[](json &m) { m["cpu"] = json::array(); },
       "manifest: cpu: expected a string, got an array"},
      {[](json &m) { m["parameters"] = json::object(); },
       "manifest: parameters: expected an array, got an object"},
      {[](json &m) { m["parameters"][0]["name"] = ""; },
       "manifest: parameters[0].name: must not be empty"},
      {[](json &m) { m["parameters"][1]["name"] = "w"; },
       "manifest: parameters[1].name: duplicate parameter 'w'"},
      {[](json &m) { m["parameters"][0]["dtype"] = "f16"; },
       "manifest: parameters[0].dtype: unknown dtype 'f16' (expected f32, "
       "f64, i64, i32 or bool)"},
      {[](json &m) { m["parameters"][0]["shape"] = "3x4"; },
       "manifest: parameters[0].shape: expected an array, got a string"},
      {[](json &m) { m["parameters"][0]["shape"][1] = -4; },
       "manifest: parameters[0].shape[1]: expected a non-negative size, got "
       "-4"},
      {[](json &m) { m["parameters"][0]["shape"][1] = 4.5; },
       "manifest: parameters[0].shape[1]: expected an integer, got a number"},
      {[](json &m) {
         m["parameters"][0]["shape"] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
       },
       "manifest: parameters[0].shape: rank 9 exceeds the runtime's limit of "
       "8"},
      {[](json &m) {
         m["parameters"][0]["shape"] = {1ll << 40, 1ll << 40};
       },
       "manifest: parameters[0].shape: tensor of shape [1099511627776, "
       "1099511627776] is too large"},
      {[](json &m) { m["parameters"][0]["init"]["kind"] = "xavier"; },
       "manifest: parameters[0].init.kind: unknown init kind 'xavier' "
       "(expected zeros, ones, constant, uniform, normal or external)"},
      {[](json &m) { m["parameters"][1]["init"]["a"] = 1.0; },
       "manifest: parameters[1].init: uniform init needs a <= b"},
      {[](json &m) { m["parameters"][0]["init"]["b"] = -1.0; },
       "manifest: parameters[0].init: normal init needs a standard deviation "
       "b >= 0"},
      {[](json &m) { m["parameters"][0]["init"]["a"] = "0"; },
       "manifest: parameters[0].init.a: expected a number, got a string"},
      {[](json &m) { m["parameters"][0]["dtype"] = "i64"; },
       "manifest: parameters[0].init: normal init needs a floating-point "
       "parameter, not i64"},
      {[](json &m) {
         m["parameters"][0]["dtype"] = "i32";
         m["parameters"][0]["init"] = {{"kind", "constant"}, {"a", 0.5}};
       },
       "manifest: parameters[0].init.a: not a valid i32 value"},
      {[](json &m) { m["entry_points"] = json::array(); },
       "manifest: entry_points: the manifest declares no entry point"},
      {[](json &m) { m["entry_points"][1]["name"] = "forward"; },
       "manifest: entry_points[1].name: duplicate entry point 'forward'"},
      {[](json &m) { m["entry_points"][0]["parameters"][1] = "nope"; },
       "manifest: entry_points[0].parameters[1]: no parameter named 'nope'"},
      {[](json &m) { m["entry_points"][0]["parameters"][1] = "w"; },
       "manifest: entry_points[0].parameters[1]: parameter 'w' listed twice"},
      {[](json &m) { m["entry_points"][0]["inputs"][1]["name"] = "x"; },
       "manifest: entry_points[0].inputs[1].name: duplicate name 'x'"},
      {[](json &m) { m["entry_points"][0]["inputs"][0]["max_value"] = 3; },
       "manifest: entry_points[0].inputs[0].max_value: max_value applies to "
       "integer inputs only"},
      {[](json &m) { m["entry_points"][2]["inputs"][0]["max_value"] = -1; },
       "manifest: entry_points[2].inputs[0].max_value: must be >= 0, got -1"},
      {[](json &m) {
         m["entry_points"][3]["inputs"][0]["max_value"] = 1ll << 40;
       },
       "manifest: entry_points[3].inputs[0].max_value: out of range for i32"},
      {[](json &m) { m["entry_points"][0]["symbol"] = "tf_entry_nope"; },
       "entry point 'forward': symbol 'tf_entry_nope' is not defined by the "
       "code"},
  };
  for (const Case &c : cases)
    EXPECT_CONTAINS(manifestError(c.edit), c.message);
}

TEST_F(RuntimeArtifactTest, UnknownFieldsAreIgnored) {
  json manifest = fakeManifest();
  manifest["buffer_plan"] = {{"arena", 1024}};
  manifest["entry_points"][0]["flops"] = 12345;
  Outcome result = openManifest(manifest.dump());
  EXPECT_EQ(result.status, TF_OK) << result.message;
}

TEST_F(RuntimeArtifactTest, CodeThatIsNotASharedObject) {
  Outcome result = openBytes(tfmBytes(fakeManifest().dump(), "not elf"));
  EXPECT_EQ(result.status, TF_ERROR_FORMAT);
  EXPECT_CONTAINS(result.message,
                  "model.tfm': the code is not an ELF file (expected an "
                  "ELF64 x86-64 shared object)");
}

TEST_F(RuntimeArtifactTest, TheCodeLeavesTheKernelsToTheRuntime) {
  // The fake model calls tfrt_matmul_f32 without defining it: loading it
  // resolves the symbol against this process's runtime library.
  std::string code = fakeModelCode();
  EXPECT_NE(code.find("tfrt_matmul_f32"), std::string::npos);
  ASSERT_EQ(open(writeTfm()).status, TF_OK) << tf_last_error();
}

TEST_F(RuntimeArtifactTest, ManyArtifactsAtOnceAndInTurn) {
  // Each load gets its own copy of the code, even when descriptor numbers
  // (and so /proc/self/fd paths) are reused.
  std::string path = writeTfm();
  std::vector<tf_artifact *> open;
  for (int i = 0; i < 4; ++i) {
    tf_artifact *a = nullptr;
    ASSERT_EQ(tf_artifact_open(path.c_str(), &a), TF_OK) << tf_last_error();
    open.push_back(a);
  }
  for (tf_artifact *a : open)
    tf_artifact_close(a);
  for (int i = 0; i < 20; ++i) {
    tf_artifact *a = nullptr;
    ASSERT_EQ(tf_artifact_open(path.c_str(), &a), TF_OK) << tf_last_error();
    tf_artifact_close(a);
  }
}

TEST_F(RuntimeArtifactTest, NullArguments) {
  EXPECT_EQ(tf_artifact_open(nullptr, &artifact), TF_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tf_last_error(), "tf_artifact_open: path is null");
  EXPECT_EQ(tf_artifact_open("x", nullptr), TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tf_artifact_num_parameters(nullptr), -1);
  EXPECT_STREQ(tf_artifact_model(nullptr), "");
  tf_artifact_close(nullptr);
  EXPECT_EQ(tf_session_create(nullptr, &session), TF_ERROR_INVALID_ARGUMENT);
}

} // namespace
