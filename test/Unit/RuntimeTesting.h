//===- RuntimeTesting.h - Fixtures of the runtime's unit tests --*- C++ -*-===//
#ifndef TRANSFUSE_TEST_UNIT_RUNTIMETESTING_H
#define TRANSFUSE_TEST_UNIT_RUNTIMETESTING_H

#include "TfmWriter.h"
#include "transfuse/transfuse.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace transfuse::test {

/// A fresh directory, removed with everything in it.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "transfuse-test-XXXXXX")
            .string();
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string &name) const { return path_ + "/" + name; }
  const std::string &path() const { return path_; }
  /// The files in it whose names end in ".tmp": none once a write is over,
  /// whether it succeeded or not.
  std::vector<std::string> temporaries() const {
    std::vector<std::string> names;
    for (const auto &entry :
         std::filesystem::recursive_directory_iterator(path_))
      if (entry.path().extension() == ".tmp")
        names.push_back(entry.path().string());
    return names;
  }

private:
  std::string path_;
};

/// EXPECT_CONTAINS(text, part): `text` contains `part`.
inline ::testing::AssertionResult contains(const char *textExpr,
                                           const char *partExpr,
                                           const std::string &text,
                                           const std::string &part) {
  if (text.find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << textExpr << " is\n  \"" << text << "\"\nwhich does not contain "
         << partExpr << ",\n  \"" << part << "\"";
}
#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_PRED_FORMAT2(::transfuse::test::contains, text, part)

/// The outcome of a C API call: its status and, on failure, the message.
struct Outcome {
  tf_status status;
  std::string message;
};

inline Outcome outcome(tf_status status) {
  return {status, status == TF_OK ? "" : tf_last_error()};
}

/// Runtime tests work in a temporary directory, with the fake model.
class RuntimeTest : public ::testing::Test {
protected:
  ~RuntimeTest() override {
    tf_session_destroy(session);
    tf_artifact_close(artifact);
  }

  /// Writes a .tfm of the fake code and `manifest`; returns its path.
  std::string writeTfm(const nlohmann::json &manifest = fakeManifest(),
                       const std::string &name = "model.tfm") {
    std::string path = dir.file(name);
    writeBinary(path, tfmBytes(manifest.dump(), fakeModelCode()));
    return path;
  }

  /// Opens a .tfm; returns the outcome (artifact is set on success).
  Outcome open(const std::string &path) {
    tf_artifact_close(artifact);
    artifact = nullptr;
    return outcome(tf_artifact_open(path.c_str(), &artifact));
  }

  /// Opens the fake model and makes a session of it, or fails the test.
  void openSession(const nlohmann::json &manifest = fakeManifest()) {
    Outcome opened = open(writeTfm(manifest));
    ASSERT_EQ(opened.status, TF_OK) << opened.message;
    ASSERT_EQ(tf_session_create(artifact, &session), TF_OK) << tf_last_error();
  }

  /// The values of an f32 parameter of the session.
  std::vector<float> floats(const char *name) {
    tf_tensor view;
    EXPECT_EQ(tf_session_parameter(session, name, &view), TF_OK)
        << tf_last_error();
    const float *data = static_cast<const float *>(view.data);
    return std::vector<float>(data, data + tf_tensor_numel(&view));
  }

  TempDir dir;
  tf_artifact *artifact = nullptr;
  tf_session *session = nullptr;
};

/// A view of a caller-owned vector.
template <typename T>
tf_named_tensor named(const char *name, tf_dtype dtype,
                      std::vector<int64_t> shape, std::vector<T> &data) {
  tf_named_tensor tensor{};
  tensor.name = name;
  tensor.tensor.dtype = dtype;
  tensor.tensor.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    tensor.tensor.shape[i] = shape[i];
  tensor.tensor.data = data.data();
  return tensor;
}

} // namespace transfuse::test

#endif // TRANSFUSE_TEST_UNIT_RUNTIMETESTING_H
