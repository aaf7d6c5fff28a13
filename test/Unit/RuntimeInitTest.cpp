//===- RuntimeInitTest.cpp - Deterministic parameter initialisation -------===//
//
// The scheme documented in runtime/lib/Init.cpp is recomputed here from its
// description, on Philox.h's blocks (RuntimePhiloxTest checks them), so the
// test pins the scheme itself, bit for bit, not just its determinism.
//===----------------------------------------------------------------------===//
#include "Philox.h"
#include "RuntimeTesting.h"

#include <algorithm>
#include <array>
#include <cmath>

using namespace transfuse::test;
using json = nlohmann::json;

namespace {

/// Element i of a parameter, as Init.cpp documents it (in double).
double expected(const std::string &name, uint64_t seed, int64_t i,
                const std::string &kind, double a, double b) {
  uint64_t h = fnv1a64(name);
  uint64_t block = uint64_t(i) >> 1;
  auto x = transfuse::rt::philox4x32_10<uint32_t>(
      {uint32_t(block), uint32_t(block >> 32), uint32_t(h), uint32_t(h >> 32)},
      {uint32_t(seed), uint32_t(seed >> 32)});
  double u1 = double((uint64_t(x[0]) << 32 | x[1]) >> 11) * 0x1.0p-53;
  double u2 = double((uint64_t(x[2]) << 32 | x[3]) >> 11) * 0x1.0p-53;
  if (kind == "uniform")
    return a + (b - a) * (i & 1 ? u2 : u1);
  double r = std::sqrt(-2.0 * std::log(1.0 - u1));
  double theta = 6.283185307179586476925286766559 * u2;
  return a + b * (i & 1 ? r * std::sin(theta) : r * std::cos(theta));
}

json param(const std::string &name, const char *dtype, json shape,
           const char *kind, double a, double b) {
  return {{"name", name},
          {"dtype", dtype},
          {"shape", shape},
          {"init", {{"kind", kind}, {"a", a}, {"b", b}}}};
}

/// A manifest with these parameters, whose only entry point is `fail`.
json manifestWith(json params) {
  json manifest = fakeManifest();
  manifest["parameters"] = params;
  manifest["entry_points"] = {manifest["entry_points"][4]};
  return manifest;
}

class RuntimeInitTest : public RuntimeTest {
protected:
  std::vector<uint8_t> bytes(const char *name) {
    tf_tensor view;
    EXPECT_EQ(tf_session_parameter(session, name, &view), TF_OK);
    const uint8_t *data = static_cast<const uint8_t *>(view.data);
    return std::vector<uint8_t>(data, data + tf_tensor_numel(&view) *
                                                 tf_dtype_size(view.dtype));
  }

  std::vector<std::vector<uint8_t>> all() {
    std::vector<std::vector<uint8_t>> result;
    for (const char *name : {"w", "b", "table"})
      result.push_back(bytes(name));
    return result;
  }
};

TEST_F(RuntimeInitTest, FollowsTheDocumentedSchemeBitForBit) {
  openSession();
  const uint64_t seed = 0x0123456789abcdefull;
  ASSERT_EQ(tf_session_init_parameters(session, seed), TF_OK);
  std::vector<float> w = floats("w"), b = floats("b"), table = floats("table");
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(w[i], float(expected("w", seed, i, "normal", 0.0, 0.5))) << i;
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_EQ(b[i], float(expected("b", seed, i, "uniform", -0.1, 0.1))) << i;
  for (int64_t i = 0; i < 10; ++i)
    EXPECT_EQ(table[i], float(expected("table", seed, i, "uniform", -1, 1)))
        << i;
}

TEST_F(RuntimeInitTest, SameSeedGivesBitIdenticalParameters) {
  openSession();
  ASSERT_EQ(tf_session_init_parameters(session, 42), TF_OK);
  auto first = all();
  // Another session of another load of the same file.
  tf_session *other = session;
  session = nullptr;
  openSession();
  ASSERT_EQ(tf_session_init_parameters(session, 42), TF_OK);
  EXPECT_EQ(all(), first);
  // And the same session again, after other values.
  ASSERT_EQ(tf_session_init_parameters(session, 7), TF_OK);
  ASSERT_EQ(tf_session_init_parameters(session, 42), TF_OK);
  EXPECT_EQ(all(), first);
  tf_session_destroy(other);
}

TEST_F(RuntimeInitTest, DifferentSeedsDiffer) {
  openSession();
  ASSERT_EQ(tf_session_init_parameters(session, 1), TF_OK);
  auto one = all();
  ASSERT_EQ(tf_session_init_parameters(session, 2), TF_OK);
  auto two = all();
  for (size_t i = 0; i < one.size(); ++i)
    EXPECT_NE(one[i], two[i]) << "parameter " << i;
  // Seeds that differ only in their high word differ too.
  ASSERT_EQ(tf_session_init_parameters(session, 1ull | 1ull << 32), TF_OK);
  EXPECT_NE(all()[0], one[0]);
}

TEST_F(RuntimeInitTest, IndependentOfParameterOrder) {
  openSession();
  ASSERT_EQ(tf_session_init_parameters(session, 5), TF_OK);
  auto forward = all();
  json manifest = fakeManifest();
  std::reverse(manifest["parameters"].begin(), manifest["parameters"].end());
  tf_session_destroy(session);
  session = nullptr;
  openSession(manifest);
  ASSERT_EQ(tf_session_init_parameters(session, 5), TF_OK);
  EXPECT_EQ(all(), forward);
}

TEST_F(RuntimeInitTest, IndependentOfTheThreadCount) {
  openSession(manifestWith({param("big", "f32", {300000}, "normal", 0, 1)}));
  ASSERT_EQ(tf_set_num_threads(1), TF_OK);
  ASSERT_EQ(tf_session_init_parameters(session, 9), TF_OK);
  std::vector<uint8_t> serial = bytes("big");
  ASSERT_EQ(tf_set_num_threads(3), TF_OK);
  ASSERT_EQ(tf_session_init_parameters(session, 9), TF_OK);
  EXPECT_EQ(bytes("big"), serial);
  ASSERT_EQ(tf_set_num_threads(0), TF_OK);
}

TEST_F(RuntimeInitTest, UniformStaysInBoundsWithTheRightMean) {
  openSession(
      manifestWith({param("u", "f32", {200000}, "uniform", -0.25, 0.75),
                    param("d", "f64", {200000}, "uniform", 2, 3),
                    param("tiny", "f32", {1000}, "uniform", 1.0, 1.0000001),
                    param("point", "f32", {10}, "uniform", 0.5, 0.5)}));
  ASSERT_EQ(tf_session_init_parameters(session, 3), TF_OK);
  std::vector<float> u = floats("u");
  double sum = 0;
  for (float x : u) {
    ASSERT_GE(x, -0.25f);
    ASSERT_LT(x, 0.75f);
    sum += x;
  }
  EXPECT_NEAR(sum / u.size(), 0.25, 0.005);

  tf_tensor view;
  ASSERT_EQ(tf_session_parameter(session, "d", &view), TF_OK);
  ASSERT_EQ(view.dtype, TF_F64);
  const double *d = static_cast<const double *>(view.data);
  sum = 0;
  for (int64_t i = 0; i < 200000; ++i) {
    ASSERT_GE(d[i], 2.0);
    ASSERT_LT(d[i], 3.0);
    sum += d[i];
  }
  EXPECT_NEAR(sum / 200000, 2.5, 0.005);

  // [1, 1.0000001) holds one float: samples that round up are kept below b.
  for (float x : floats("tiny")) {
    ASSERT_GE(x, 1.0f);
    ASSERT_LT(x, float(1.0000001));
  }
  for (float x : floats("point"))
    ASSERT_EQ(x, 0.5f);
}

TEST_F(RuntimeInitTest, NormalHasTheRightMoments) {
  openSession(manifestWith({param("n", "f32", {200000}, "normal", 1.0, 2.0),
                            param("z", "f32", {10}, "normal", 3.0, 0.0)}));
  ASSERT_EQ(tf_session_init_parameters(session, 11), TF_OK);
  std::vector<float> n = floats("n");
  double sum = 0, squares = 0;
  int beyond4 = 0;
  for (float x : n) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    squares += double(x) * x;
    beyond4 += std::fabs(x - 1.0) > 8.0;
  }
  double mean = sum / n.size();
  double stddev = std::sqrt(squares / n.size() - mean * mean);
  EXPECT_NEAR(mean, 1.0, 0.02);
  EXPECT_NEAR(stddev, 2.0, 0.02);
  EXPECT_LT(beyond4, 30); // P(|z| > 4) = 6.3e-5: about 13 of 200000
  for (float x : floats("z"))
    EXPECT_EQ(x, 3.0f);
}

TEST_F(RuntimeInitTest, ConstantRulesOnEveryDtype) {
  openSession(manifestWith(
      {param("zero", "f32", {3}, "zeros", 0, 0),
       param("one", "f64", {3}, "ones", 0, 0),
       param("seven", "i64", {3}, "constant", 7, 0),
       param("minus", "i32", {3}, "constant", -2, 0),
       param("flag", "bool", {3}, "constant", 1, 0),
       param("scalar", "f32", json::array(), "constant", 0.25, 0)}));
  ASSERT_EQ(tf_session_init_parameters(session, 0), TF_OK);
  EXPECT_EQ(floats("zero"), std::vector<float>(3, 0.0f));
  tf_tensor view;
  ASSERT_EQ(tf_session_parameter(session, "one", &view), TF_OK);
  EXPECT_EQ(static_cast<double *>(view.data)[2], 1.0);
  ASSERT_EQ(tf_session_parameter(session, "seven", &view), TF_OK);
  EXPECT_EQ(static_cast<int64_t *>(view.data)[1], 7);
  ASSERT_EQ(tf_session_parameter(session, "minus", &view), TF_OK);
  EXPECT_EQ(static_cast<int32_t *>(view.data)[0], -2);
  ASSERT_EQ(tf_session_parameter(session, "flag", &view), TF_OK);
  EXPECT_EQ(static_cast<uint8_t *>(view.data)[2], 1);
  EXPECT_EQ(floats("scalar"), std::vector<float>{0.25f});
}

TEST_F(RuntimeInitTest, ExternalValuesAreLoadedNeverInitialised) {
  // An imported model's weights come with it: initialising would make up
  // values for them, so it is refused before any parameter changes.
  openSession(manifestWith({param("made_up", "f32", {2}, "constant", 3, 0),
                            param("imported", "f32", {2}, "external", 0, 0)}));
  Outcome refused = outcome(tf_session_init_parameters(session, 0));
  EXPECT_EQ(refused.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(refused.message,
            "parameter 'imported' of model 'fake' has no initialiser: its "
            "values come with the model (the weights file transfuse-compile "
            "wrote from the ONNX initializers); load them instead "
            "(--weights)");
  EXPECT_EQ(floats("made_up"), std::vector<float>(2, 0.0f));
}

TEST_F(RuntimeInitTest, OutOfMemoryNamesTheTensor) {
  // 2^52 floats: 16 PiB, more than any machine's address space holds.
  json manifest = fakeManifest();
  json huge = manifest["parameters"][0];
  huge["name"] = "huge";
  huge["shape"] = {int64_t(1) << 26, int64_t(1) << 26};
  manifest["parameters"].push_back(huge);
  ASSERT_EQ(open(writeTfm(manifest)).status, TF_OK);
  Outcome created = outcome(tf_session_create(artifact, &session));
  EXPECT_EQ(created.status, TF_ERROR_EXECUTION);
  EXPECT_EQ(created.message,
            "out of memory allocating parameter 'huge' [67108864, 67108864]: "
            "18014398509481984 bytes, after 100 bytes for the tensors before "
            "it");
}

TEST_F(RuntimeInitTest, MessagesQuoteInputPrintably) {
  // A name with an escape sequence, a C1 control (U+009B, 8-bit CSI), a
  // malformed byte and well-formed UTF-8, as a caller or a file may give.
  openSession();
  tf_tensor view;
  Outcome missing = outcome(tf_session_parameter(
      session, "a\x1b[31m\xc2\x9b\xff\xc3\xa9\x7f", &view));
  EXPECT_EQ(missing.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(missing.message, "model 'fake' has no parameter "
                             "'a\\x1b[31m\\xc2\\x9b\\xff\xc3\xa9\\x7f'");
}

TEST_F(RuntimeInitTest, ParametersStartAtZero) {
  openSession();
  EXPECT_EQ(floats("w"), std::vector<float>(12, 0.0f));
  tf_tensor view;
  Outcome missing = outcome(tf_session_parameter(session, "nope", &view));
  EXPECT_EQ(missing.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(missing.message, "model 'fake' has no parameter 'nope'");
}

} // namespace
