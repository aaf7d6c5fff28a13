//===- RuntimeCudaManifestTest.cpp - CUDA artifacts without a GPU ---------===//
//
// What the runtime does with a CUDA artifact before any GPU is involved:
// the manifest's cuda section and arenas are validated field by field, the
// artifact opens (its manifest can be inspected anywhere), its model
// fingerprint is the CPU artifact's, and creating a session where there is
// no driver is one clear error.
//===----------------------------------------------------------------------===//
#include "RuntimeTesting.h"

#include <dlfcn.h>

using namespace transfuse::test;
using json = nlohmann::json;

namespace {

/// The fake manifest as the CUDA target writes it.
json cudaManifest() {
  json manifest = fakeManifest();
  manifest["target"] = "cuda";
  manifest["cuda"] = {{"archs", {"sm_80", "sm_90"}},
                      {"images",
                       {{{"arch", "sm_80"},
                         {"format", "cubin"},
                         {"symbol", "tf_cuda_image_0"},
                         {"bytes", 4096}},
                        {{"arch", "sm_90"},
                         {"format", "cubin"},
                         {"symbol", "tf_cuda_image_1"},
                         {"bytes", 4096}},
                        {{"arch", "compute_90"},
                         {"format", "ptx"},
                         {"symbol", "tf_cuda_image_2"},
                         {"bytes", 8192}}}},
                      {"kernels", {"forward_kernel", "forward_kernel_0"}},
                      {"workspace_bytes", 33554432}};
  for (json &entry : manifest["entry_points"])
    entry["arena_bytes"] = 1 << 20;
  return manifest;
}

bool hasDriver() {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver)
    dlclose(driver);
  return driver != nullptr;
}

class RuntimeCudaManifestTest : public RuntimeTest {
protected:
  /// The message for the CUDA manifest after `edit`, which must fail.
  template <typename Edit> std::string manifestError(Edit edit) {
    json manifest = cudaManifest();
    edit(manifest);
    Outcome result = open(writeTfm(manifest));
    EXPECT_NE(result.status, TF_OK);
    return result.message;
  }
};

#ifdef TRANSFUSE_TEST_CUDA

TEST_F(RuntimeCudaManifestTest, OpensWithoutTouchingTheGPU) {
  Outcome opened = open(writeTfm(cudaManifest()));
  ASSERT_EQ(opened.status, TF_OK) << opened.message;
  EXPECT_STREQ(tf_artifact_target(artifact), "cuda");
  EXPECT_EQ(tf_artifact_num_entry_points(artifact), 5);
}

TEST_F(RuntimeCudaManifestTest, SharesTheModelFingerprintWithTheCPUArtifact) {
  ASSERT_EQ(open(writeTfm(fakeManifest(), "cpu.tfm")).status, TF_OK);
  std::string cpu = tf_artifact_model_fingerprint(artifact);
  EXPECT_EQ(cpu.size(), 16u);
  ASSERT_EQ(open(writeTfm(cudaManifest(), "cuda.tfm")).status, TF_OK);
  EXPECT_EQ(tf_artifact_model_fingerprint(artifact), cpu);

  // Another host CPU does not change the model; another parameter does.
  json otherHost = fakeManifest();
  otherHost["cpu"] = "znver4";
  ASSERT_EQ(open(writeTfm(otherHost, "host.tfm")).status, TF_OK);
  EXPECT_EQ(tf_artifact_model_fingerprint(artifact), cpu);
  json otherModel = cudaManifest();
  otherModel["parameters"][0]["shape"] = {4, 4};
  ASSERT_EQ(open(writeTfm(otherModel, "other.tfm")).status, TF_OK);
  EXPECT_NE(tf_artifact_model_fingerprint(artifact), cpu);
}

TEST_F(RuntimeCudaManifestTest, NamesTheBadField) {
  struct Case {
    const char *what;
    std::function<void(json &)> edit;
    const char *message;
  };
  const Case cases[] = {
      {"no section", [](json &m) { m.erase("cuda"); },
       "manifest: missing field 'cuda'"},
      {"archs", [](json &m) { m["cuda"]["archs"] = "sm_90"; },
       "manifest: cuda.archs: expected an array, got a string"},
      {"arch", [](json &m) { m["cuda"]["archs"][1] = "gfx90a"; },
       "manifest: cuda.archs[1]: expected an architecture like 'sm_90', got "
       "'gfx90a'"},
      {"no image", [](json &m) { m["cuda"]["images"] = json::array(); },
       "manifest: cuda.images: the artifact carries no kernel image"},
      {"format", [](json &m) { m["cuda"]["images"][0]["format"] = "sass"; },
       "manifest: cuda.images[0].format: expected 'cubin' or 'ptx', got "
       "'sass'"},
      {"ptx arch", [](json &m) { m["cuda"]["images"][2]["arch"] = "sm_90"; },
       "manifest: cuda.images[2].arch: expected an architecture like "
       "'compute_90', got 'sm_90'"},
      {"symbol twice",
       [](json &m) { m["cuda"]["images"][1]["symbol"] = "tf_cuda_image_0"; },
       "manifest: cuda.images[1].symbol: symbol 'tf_cuda_image_0' listed "
       "twice"},
      {"empty image", [](json &m) { m["cuda"]["images"][0]["bytes"] = 0; },
       "manifest: cuda.images[0].bytes: an image cannot be empty"},
      {"kernel twice",
       [](json &m) { m["cuda"]["kernels"][1] = "forward_kernel"; },
       "manifest: cuda.kernels[1]: kernel 'forward_kernel' listed twice"},
      {"workspace", [](json &m) { m["cuda"]["workspace_bytes"] = -1; },
       "manifest: cuda.workspace_bytes: must be >= 0, got -1"},
      {"precision", [](json &m) { m["cuda"]["precision"] = "bf16"; },
       "manifest: cuda.precision: expected 'f32' or 'tf32', got 'bf16'"},
      {"precision type", [](json &m) { m["cuda"]["precision"] = 32; },
       "manifest: cuda.precision: expected a string, got an integer"},
      {"arena missing",
       [](json &m) { m["entry_points"][2].erase("arena_bytes"); },
       "manifest: entry_points[2]: missing field 'arena_bytes'"},
      {"arena", [](json &m) { m["entry_points"][0]["arena_bytes"] = 1.5; },
       "manifest: entry_points[0].arena_bytes: expected an integer, got a "
       "number"},
  };
  for (const Case &c : cases)
    EXPECT_CONTAINS(manifestError(c.edit), c.message) << c.what;
}

TEST_F(RuntimeCudaManifestTest, ASessionWithoutADriverIsOneClearError) {
  if (hasDriver())
    GTEST_SKIP() << "a CUDA driver is installed: sessions reach the GPU";
  ASSERT_EQ(open(writeTfm(cudaManifest())).status, TF_OK);
  Outcome created = outcome(tf_session_create(artifact, &session));
  EXPECT_EQ(created.status, TF_ERROR_UNSUPPORTED);
  EXPECT_CONTAINS(created.message,
                  "no CUDA driver: libcuda.so.1 cannot be loaded");
  EXPECT_EQ(created.message.find('\n'), std::string::npos);
}

#else

TEST_F(RuntimeCudaManifestTest, ARuntimeWithoutCudaRefusesTheArtifact) {
  EXPECT_CONTAINS(manifestError([](json &) {}),
                  "target 'cuda' but this runtime was built without CUDA");
}

#endif

} // namespace
