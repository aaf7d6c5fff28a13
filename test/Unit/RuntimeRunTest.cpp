//===- RuntimeRunTest.cpp - Running entry points, checking their inputs ---===//
#include "RuntimeTesting.h"

#include "transfuse/transfuse.hpp"

#include <cmath>
#include <cstring>
#include <limits>

using namespace transfuse::test;
using json = nlohmann::json;

namespace {

class RuntimeRunTest : public RuntimeTest {
protected:
  void SetUp() override {
    openSession();
    // Known parameters: w[i][j] = (i + 1) * 0.1 * (j - 1), b = [1, 2, 3].
    tf_tensor view;
    ASSERT_EQ(tf_session_parameter(session, "w", &view), TF_OK);
    float *w = static_cast<float *>(view.data);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        w[i * 4 + j] = (i + 1) * 0.1f * (j - 1);
    ASSERT_EQ(tf_session_parameter(session, "b", &view), TF_OK);
    for (int i = 0; i < 3; ++i)
      static_cast<float *>(view.data)[i] = float(i + 1);
    ASSERT_EQ(tf_session_parameter(session, "table", &view), TF_OK);
    for (int i = 0; i < 10; ++i)
      static_cast<float *>(view.data)[i] = float(10 * i);
  }

  Outcome run(const char *entry, std::vector<tf_named_tensor> inputs,
              std::vector<tf_named_tensor> *outputs = nullptr) {
    int32_t count = 0;
    if (outputs) {
      int32_t index;
      EXPECT_EQ(tf_artifact_find_entry_point(artifact, entry, &index), TF_OK);
      count = tf_entry_point_num_outputs(artifact, index);
      outputs->resize(count);
    }
    return outcome(tf_session_run(session, entry, inputs.data(),
                                  int32_t(inputs.size()),
                                  outputs ? outputs->data() : nullptr, count));
  }

  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> y = {0.5, 0.5, 0.5, 0.5, -1, -1, -1, -1};
  std::vector<int64_t> tokens = {0, 1, 2, 3, 4, 0};
};

std::vector<float> values(const tf_tensor &t) {
  const float *data = static_cast<const float *>(t.data);
  return std::vector<float>(data, data + tf_tensor_numel(&t));
}

/// x · wᵀ + b for the parameters of SetUp.
std::vector<float> expectedProj(const std::vector<float> &x) {
  std::vector<float> out(6);
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 3; ++i) {
      double sum = i + 1;
      for (int j = 0; j < 4; ++j)
        sum += x[r * 4 + j] * (i + 1) * 0.1 * (j - 1);
      out[r * 3 + i] = float(sum);
    }
  return out;
}

void expectNear(const std::vector<float> &actual,
                const std::vector<float> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5) << "element " << i;
}

TEST_F(RuntimeRunTest, Forward) {
  std::vector<tf_named_tensor> outputs;
  Outcome result = run(
      "forward", {named("y", TF_F32, {2, 4}, y), named("x", TF_F32, {2, 4}, x)},
      &outputs);
  ASSERT_EQ(result.status, TF_OK) << result.message;
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_STREQ(outputs[0].name, "sum");
  EXPECT_EQ(outputs[0].tensor.rank, 2);
  EXPECT_EQ(values(outputs[0].tensor),
            (std::vector<float>{1.5, 2.5, 3.5, 4.5, 4, 5, 6, 7}));
  EXPECT_STREQ(outputs[1].name, "proj");
  expectNear(values(outputs[1].tensor), expectedProj(x));

  // The same buffers through tf_session_output.
  tf_tensor proj;
  ASSERT_EQ(tf_session_output(session, "forward", "proj", &proj), TF_OK);
  EXPECT_EQ(proj.data, outputs[1].tensor.data);
}

TEST_F(RuntimeRunTest, ParametersArePassedInTheEntryPointsOrder) {
  // forward_bw takes (b, w): the same results.
  std::vector<tf_named_tensor> outputs;
  ASSERT_EQ(run("forward_bw",
                {named("x", TF_F32, {2, 4}, x), named("y", TF_F32, {2, 4}, y)},
                &outputs)
                .status,
            TF_OK);
  expectNear(values(outputs[1].tensor), expectedProj(x));
}

TEST_F(RuntimeRunTest, Embed) {
  std::vector<tf_named_tensor> outputs;
  ASSERT_EQ(
      run("embed", {named("tokens", TF_I64, {2, 3}, tokens)}, &outputs).status,
      TF_OK)
      << tf_last_error();
  EXPECT_EQ(values(outputs[0].tensor),
            (std::vector<float>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 0, 10}));
}

TEST_F(RuntimeRunTest, EveryInputDtype) {
  std::vector<int32_t> ids = {1, 9, 3, 0};
  std::vector<uint8_t> mask = {1, 1, 0, 1};
  std::vector<double> scale = {0.5};
  std::vector<tf_named_tensor> outputs;
  Outcome result =
      run("mixed",
          {named("ids", TF_I32, {4}, ids), named("mask", TF_BOOL, {4}, mask),
           named("scale", TF_F64, {}, scale)},
          &outputs);
  ASSERT_EQ(result.status, TF_OK) << result.message;
  const double *out = static_cast<const double *>(outputs[0].tensor.data);
  EXPECT_EQ(std::vector<double>(out, out + 4),
            (std::vector<double>{0.5, 4.5, -1, 0}));
}

TEST_F(RuntimeRunTest, MisalignedInputsAreCopied) {
  std::vector<char> storage(8 * sizeof(float) + 1);
  std::memcpy(storage.data() + 1, x.data(), 8 * sizeof(float));
  tf_named_tensor shifted = named("x", TF_F32, {2, 4}, x);
  shifted.tensor.data = storage.data() + 1;
  std::vector<tf_named_tensor> outputs;
  ASSERT_EQ(
      run("forward", {shifted, named("y", TF_F32, {2, 4}, y)}, &outputs).status,
      TF_OK);
  expectNear(values(outputs[1].tensor), expectedProj(x));
}

TEST_F(RuntimeRunTest, WrongShape) {
  std::vector<float> wide(10);
  Outcome result = run("forward", {named("x", TF_F32, {2, 5}, wide),
                                   named("y", TF_F32, {2, 4}, y)});
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      result.message,
      "entry point 'forward': input 'x' has shape [2, 5], expected [2, 4]");
  std::vector<float> flat(8);
  EXPECT_EQ(run("forward",
                {named("x", TF_F32, {8}, flat), named("y", TF_F32, {2, 4}, y)})
                .message,
            "entry point 'forward': input 'x' has shape [8], expected [2, 4]");
}

TEST_F(RuntimeRunTest, WrongDtype) {
  std::vector<double> wide(8);
  Outcome result = run("forward", {named("x", TF_F32, {2, 4}, x),
                                   named("y", TF_F64, {2, 4}, wide)});
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "entry point 'forward': input 'y' is f64, expected f32");
}

TEST_F(RuntimeRunTest, MissingUnknownAndRepeatedInputs) {
  EXPECT_EQ(run("forward", {named("x", TF_F32, {2, 4}, x)}).message,
            "entry point 'forward': input 'y' is missing");
  EXPECT_EQ(run("forward",
                {named("x", TF_F32, {2, 4}, x), named("y", TF_F32, {2, 4}, y),
                 named("z", TF_F32, {2, 4}, y)})
                .message,
            "entry point 'forward': no input named 'z' (its inputs: 'x', 'y')");
  EXPECT_EQ(run("forward",
                {named("x", TF_F32, {2, 4}, x), named("x", TF_F32, {2, 4}, y)})
                .message,
            "entry point 'forward': input 'x' given twice");
  tf_named_tensor empty = named("x", TF_F32, {2, 4}, x);
  empty.tensor.data = nullptr;
  EXPECT_EQ(run("forward", {empty, named("y", TF_F32, {2, 4}, y)}).message,
            "entry point 'forward': input 'x' has no data");
}

TEST_F(RuntimeRunTest, IdsOutOfRange) {
  tokens[4] = 5;
  Outcome result = run("embed", {named("tokens", TF_I64, {2, 3}, tokens)});
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "entry point 'embed': input 'tokens': element 4 "
                            "(index [1, 1]) is 5, outside [0, 4]");
  tokens[4] = 1;
  tokens[2] = -1;
  EXPECT_EQ(run("embed", {named("tokens", TF_I64, {2, 3}, tokens)}).message,
            "entry point 'embed': input 'tokens': element 2 (index [0, 2]) is "
            "-1, outside [0, 4]");

  std::vector<int32_t> ids = {1, 2, 10, 0};
  std::vector<uint8_t> mask = {1, 1, 0, 1};
  std::vector<double> scale = {0.5};
  EXPECT_EQ(run("mixed", {named("ids", TF_I32, {4}, ids),
                          named("mask", TF_BOOL, {4}, mask),
                          named("scale", TF_F64, {}, scale)})
                .message,
            "entry point 'mixed': input 'ids': element 2 (index [2]) is 10, "
            "outside [0, 9]");
  ids[2] = 9;
  mask[1] = 2;
  EXPECT_EQ(run("mixed", {named("ids", TF_I32, {4}, ids),
                          named("mask", TF_BOOL, {4}, mask),
                          named("scale", TF_F64, {}, scale)})
                .message,
            "entry point 'mixed': input 'mask': element 1 (index [1]) is 2, a "
            "bool must be 0 or 1");
}

TEST_F(RuntimeRunTest, UnknownEntryPoint) {
  Outcome result = run("train_step", {});
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "model 'fake' has no entry point 'train_step' (it has 'forward', "
            "'forward_bw', 'embed', 'mixed', 'fail')");
}

TEST_F(RuntimeRunTest, FailingEntryPoint) {
  Outcome result = run("fail", {});
  EXPECT_EQ(result.status, TF_ERROR_EXECUTION);
  EXPECT_EQ(result.message,
            "entry point 'fail': the generated code failed (returned 7)");
}

TEST_F(RuntimeRunTest, OutputCountMustMatch) {
  std::vector<tf_named_tensor> outputs(1);
  std::vector<tf_named_tensor> inputs = {named("x", TF_F32, {2, 4}, x),
                                         named("y", TF_F32, {2, 4}, y)};
  Outcome result = outcome(
      tf_session_run(session, "forward", inputs.data(), 2, outputs.data(), 1));
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "tf_session_run: entry point 'forward' has 2 "
                            "outputs, num_outputs is 1");
}

TEST_F(RuntimeRunTest, TheSessionOutlivesItsArtifactHandle) {
  tf_artifact_close(artifact);
  artifact = nullptr;
  const tf_artifact *own = tf_session_artifact(session);
  EXPECT_STREQ(tf_artifact_model(own), "fake");
  std::vector<tf_named_tensor> inputs = {named("x", TF_F32, {2, 4}, x),
                                         named("y", TF_F32, {2, 4}, y)};
  std::vector<tf_named_tensor> outputs(2);
  ASSERT_EQ(
      tf_session_run(session, "forward", inputs.data(), 2, outputs.data(), 2),
      TF_OK);
  expectNear(values(outputs[1].tensor), expectedProj(x));
}

TEST(RuntimeThreads, SettingTheCount) {
  EXPECT_EQ(tf_set_num_threads(-1), TF_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tf_last_error(),
               "thread count must be >= 0 (0 for the default), got -1");
  ASSERT_EQ(tf_set_num_threads(1), TF_OK);
  EXPECT_EQ(tf_get_num_threads(), 1);
  ASSERT_EQ(tf_set_num_threads(0), TF_OK);
  EXPECT_GE(tf_get_num_threads(), 1);
}

TEST(RuntimeCppApi, WrapsTheCApi) {
  TempDir dir;
  std::string path = dir.file("model.tfm");
  writeBinary(path, tfmBytes(fakeManifest().dump(), fakeModelCode()));

  transfuse::Artifact artifact = transfuse::Artifact::open(path);
  EXPECT_EQ(artifact.model(), "fake");
  EXPECT_EQ(artifact.parameters().size(), 3u);
  EXPECT_EQ(artifact.entryPoints().front(), "forward");
  EXPECT_EQ(artifact.inputs("embed").front().max_value, 4);
  EXPECT_EQ(artifact.outputs("forward").size(), 2u);

  transfuse::Session session(artifact);
  session.initParameters(3);
  session.saveParameters(dir.file("p.safetensors"));
  session.loadParameters(dir.file("p.safetensors"));
  std::vector<float> x(8, 1.0f), y(8, 2.0f);
  std::vector<tf_named_tensor> outputs =
      session.run("forward", {named("x", TF_F32, {2, 4}, x),
                              named("y", TF_F32, {2, 4}, y)});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(static_cast<float *>(outputs[0].tensor.data)[7], 3.0f);

  transfuse::TensorFile::write(dir.file("out.safetensors"), outputs);
  transfuse::TensorFile file =
      transfuse::TensorFile::read(dir.file("out.safetensors"));
  EXPECT_EQ(file.size(), 2u);
  EXPECT_EQ(static_cast<float *>(file.find("sum").data)[0], 3.0f);

  try {
    session.run("forward", {});
    FAIL() << "expected an error";
  } catch (const transfuse::Error &error) {
    EXPECT_EQ(error.status(), TF_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(error.what(), "entry point 'forward': input 'x' is missing");
  }
  EXPECT_THROW(transfuse::Artifact::open(dir.file("absent.tfm")),
               transfuse::Error);
}

TEST(TensorFirstNonFinite, FindsNaNAndInfinitiesInFloatTensors) {
  std::vector<float> finite = {1.0f, -2.0f, 3.0e38f, 0.0f};
  tf_tensor view = named("w", TF_F32, {2, 2}, finite).tensor;
  EXPECT_EQ(tf_tensor_first_nonfinite(&view), -1);
  finite[2] = std::numeric_limits<float>::infinity();
  finite[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(tf_tensor_first_nonfinite(&view), 2);

  std::vector<double> doubles = {0.0, -std::numeric_limits<double>::infinity()};
  view = named("d", TF_F64, {2}, doubles).tensor;
  EXPECT_EQ(tf_tensor_first_nonfinite(&view), 1);

  // Integers are always finite; a null or malformed tensor has nothing.
  std::vector<int64_t> ids = {1, 2};
  view = named("ids", TF_I64, {2}, ids).tensor;
  EXPECT_EQ(tf_tensor_first_nonfinite(&view), -1);
  EXPECT_EQ(tf_tensor_first_nonfinite(nullptr), -1);
  view.rank = -1;
  EXPECT_EQ(tf_tensor_first_nonfinite(&view), -1);
}

} // namespace
