//===- RuntimeTrainCheckpointTest.cpp - Save, load and resume training ----===//
//
// A checkpoint round-trips bit for bit, resuming from one continues exactly
// as if training had not stopped, and every bad checkpoint is refused with a
// message naming the tensor or the field, leaving the session as it was.
//===----------------------------------------------------------------------===//
#include "RuntimeTrainTesting.h"

#include <functional>
#include <map>

using namespace transfuse::test;
using json = nlohmann::json;

namespace {

/// A tensor of a safetensors file as stored.
struct Stored {
  std::string dtype;
  json shape;
  std::string bytes;
};

/// Rewrites the safetensors file `in` as `out` after `edit` has changed its
/// tensors and metadata.
void rewrite(
    const std::string &in, const std::string &out,
    const std::function<void(std::map<std::string, Stored> &, json &)> &edit) {
  std::string file = readBinary(in);
  uint64_t size = 0;
  for (int i = 7; i >= 0; --i)
    size = size << 8 | static_cast<unsigned char>(file[i]);
  json header = json::parse(file.substr(8, size));
  std::string data = file.substr(8 + size);
  json metadata = header["__metadata__"];
  std::map<std::string, Stored> tensors;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__")
      continue;
    uint64_t begin = (*it)["data_offsets"][0], end = (*it)["data_offsets"][1];
    tensors[it.key()] = {(*it)["dtype"], (*it)["shape"],
                         data.substr(begin, end - begin)};
  }
  edit(tensors, metadata);
  json written = {{"__metadata__", metadata}};
  std::string blob;
  for (const auto &[name, tensor] : tensors) {
    written[name] = {
        {"dtype", tensor.dtype},
        {"shape", tensor.shape},
        {"data_offsets", {blob.size(), blob.size() + tensor.bytes.size()}}};
    blob += tensor.bytes;
  }
  std::string text = written.dump();
  std::string bytes;
  appendLE(bytes, text.size(), 8);
  writeBinary(out, bytes + text + blob);
}

class RuntimeTrainCheckpointTest : public RuntimeTest {
protected:
  void SetUp() override {
    openSession(manifest);
    ASSERT_EQ(tf_session_init_parameters(session, 1), TF_OK);
  }

  tf_session *newSession() {
    tf_session *other = nullptr;
    EXPECT_EQ(tf_session_create(artifact, &other), TF_OK);
    return other;
  }

  Outcome save(tf_session *from, const std::string &path,
               const std::vector<tf_key_value> &metadata = {}) {
    return outcome(tf_session_save_checkpoint(
        from, path.c_str(), metadata.data(), int32_t(metadata.size())));
  }

  Outcome load(tf_session *into, const std::string &path) {
    tf_tensor_file *file = nullptr;
    tf_status status = tf_tensor_file_read(path.c_str(), &file);
    if (status == TF_OK)
      status = tf_session_load_checkpoint(into, file);
    Outcome result = outcome(status);
    tf_tensor_file_close(file);
    return result;
  }

  /// Loading `path` fails with `status` and a message ending in `message`,
  /// and changes nothing.
  void expectRefused(const std::string &path, tf_status status,
                     const std::string &message) {
    std::vector<std::vector<char>> before = sessionBytes(session);
    int64_t step = tf_session_step(session);
    Outcome result = load(session, path);
    EXPECT_EQ(result.status, status) << result.message;
    EXPECT_CONTAINS(result.message, message);
    EXPECT_EQ(sessionBytes(session), before);
    EXPECT_EQ(tf_session_step(session), step);
  }

  /// A checkpoint of this session after three steps, edited.
  std::string edited(const std::function<void(std::map<std::string, Stored> &,
                                              json &)> &edit) {
    trainSteps(session, manifest, 3);
    std::string good = dir.file("good.safetensors");
    EXPECT_EQ(save(session, good).status, TF_OK);
    trainSteps(session, manifest, 1);
    std::string bad = dir.file("bad.safetensors");
    rewrite(good, bad, edit);
    return bad;
  }

  json manifest = fakeClassifierManifest();
};

TEST_F(RuntimeTrainCheckpointTest, RoundTripsBitForBit) {
  trainSteps(session, manifest, 3);
  std::string path = dir.file("ckpt.safetensors");
  ASSERT_EQ(save(session, path, {{"data_position", "0 12"}}).status, TF_OK);
  EXPECT_EQ(dir.temporaries(), std::vector<std::string>{});

  tf_session *other = newSession();
  tf_tensor_file *file = nullptr;
  ASSERT_EQ(tf_tensor_file_read(path.c_str(), &file), TF_OK);
  ASSERT_EQ(tf_session_load_checkpoint(other, file), TF_OK) << tf_last_error();
  EXPECT_EQ(tf_session_step(other), 3);
  EXPECT_EQ(sessionBytes(other), sessionBytes(session));
  // The caller's metadata comes back, beside the runtime's.
  EXPECT_STREQ(tf_tensor_file_metadata(file, "data_position"), "0 12");
  EXPECT_STREQ(tf_tensor_file_metadata(file, "step"), "3");
  EXPECT_STREQ(tf_tensor_file_metadata(file, "model"), "fake_classifier");
  EXPECT_EQ(tf_tensor_file_count(file), 6);
  tf_tensor_file_close(file);

  // Saved again, the same bytes.
  std::string again = dir.file("again.safetensors");
  ASSERT_EQ(save(other, again, {{"data_position", "0 12"}}).status, TF_OK);
  EXPECT_EQ(readBinary(again), readBinary(path));
  tf_session_destroy(other);
}

TEST_F(RuntimeTrainCheckpointTest, ParametersLoadFromACheckpoint) {
  trainSteps(session, manifest, 2);
  std::string path = dir.file("ckpt.safetensors");
  ASSERT_EQ(save(session, path).status, TF_OK);
  tf_session *other = newSession();
  ASSERT_EQ(tf_session_load_parameters(other, path.c_str()), TF_OK)
      << tf_last_error();
  tf_tensor mine, theirs;
  ASSERT_EQ(tf_session_parameter(session, "weight", &mine), TF_OK);
  ASSERT_EQ(tf_session_parameter(other, "weight", &theirs), TF_OK);
  EXPECT_EQ(std::memcmp(mine.data, theirs.data, 3 * 256 * sizeof(float)), 0);
  EXPECT_EQ(tf_session_step(other), 0);
  tf_session_destroy(other);
}

TEST_F(RuntimeTrainCheckpointTest, ReservedMetadataIsRefused) {
  Outcome result = save(session, dir.file("c"), {{"step", "9"}});
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(result.message, "metadata key 'step' is the runtime's own");
  EXPECT_FALSE(std::filesystem::exists(dir.file("c")));
}

class RuntimeTrainResumeTest
    : public RuntimeTest,
      public ::testing::WithParamInterface<json (*)()> {};

TEST_P(RuntimeTrainResumeTest, ResumingContinuesExactly) {
  json manifest = GetParam()();
  openSession(manifest);
  const int total = 6, first = 2;
  ASSERT_EQ(tf_session_init_parameters(session, 3), TF_OK);
  trainSteps(session, manifest, total);

  tf_session *before = nullptr, *after = nullptr;
  ASSERT_EQ(tf_session_create(artifact, &before), TF_OK);
  ASSERT_EQ(tf_session_init_parameters(before, 3), TF_OK);
  trainSteps(before, manifest, first);
  std::string path = dir.file("ckpt.safetensors");
  ASSERT_EQ(tf_session_save_checkpoint(before, path.c_str(), nullptr, 0),
            TF_OK);
  tf_session_destroy(before);

  ASSERT_EQ(tf_session_create(artifact, &after), TF_OK);
  tf_tensor_file *file = nullptr;
  ASSERT_EQ(tf_tensor_file_read(path.c_str(), &file), TF_OK);
  ASSERT_EQ(tf_session_load_checkpoint(after, file), TF_OK) << tf_last_error();
  tf_tensor_file_close(file);
  trainSteps(after, manifest, total - first);
  EXPECT_EQ(tf_session_step(after), total);
  EXPECT_EQ(sessionBytes(after), sessionBytes(session));
  tf_session_destroy(after);
}

INSTANTIATE_TEST_SUITE_P(Models, RuntimeTrainResumeTest,
                         ::testing::Values(fakeClassifierManifest,
                                           fakeLanguageModelManifest,
                                           fakeSeq2SeqManifest));

TEST_F(RuntimeTrainCheckpointTest, MissingStateTensor) {
  std::string bad = edited([](std::map<std::string, Stored> &tensors, json &) {
    tensors.erase("optimizer.exp_avg_sq.bias");
  });
  expectRefused(bad, TF_ERROR_INVALID_ARGUMENT,
                "bad.safetensors': state tensor 'optimizer.exp_avg_sq.bias' "
                "is missing");
}

TEST_F(RuntimeTrainCheckpointTest, ExtraTensor) {
  std::string bad = edited([](std::map<std::string, Stored> &tensors, json &) {
    tensors["optimizer.step"] = {"F32", json::array(), std::string(4, '\0')};
  });
  expectRefused(bad, TF_ERROR_INVALID_ARGUMENT,
                "bad.safetensors': tensor 'optimizer.step' is not a parameter "
                "or state tensor of model 'fake_classifier'");
}

TEST_F(RuntimeTrainCheckpointTest, WrongDtype) {
  std::string bad = edited([](std::map<std::string, Stored> &tensors, json &) {
    Stored &bias = tensors["optimizer.exp_avg.bias"];
    bias.dtype = "I32";
  });
  expectRefused(bad, TF_ERROR_INVALID_ARGUMENT,
                "state tensor 'optimizer.exp_avg.bias' is I32, the model "
                "expects F32");
}

TEST_F(RuntimeTrainCheckpointTest, WrongShape) {
  std::string bad = edited([](std::map<std::string, Stored> &tensors, json &) {
    tensors["weight"].shape = {256, 3};
  });
  expectRefused(bad, TF_ERROR_INVALID_ARGUMENT,
                "parameter 'weight' has shape [256, 3], the model expects "
                "[3, 256]");
}

TEST_F(RuntimeTrainCheckpointTest, AnotherModel) {
  tf_session *lm = nullptr;
  tf_artifact *lmArtifact = nullptr;
  std::string lmPath = writeTfm(fakeLanguageModelManifest(), "lm.tfm");
  ASSERT_EQ(tf_artifact_open(lmPath.c_str(), &lmArtifact), TF_OK);
  ASSERT_EQ(tf_session_create(lmArtifact, &lm), TF_OK);
  std::string path = dir.file("lm.safetensors");
  ASSERT_EQ(tf_session_save_checkpoint(lm, path.c_str(), nullptr, 0), TF_OK);
  tf_session_destroy(lm);
  tf_artifact_close(lmArtifact);
  expectRefused(path, TF_ERROR_INVALID_ARGUMENT,
                "lm.safetensors': parameter 'weight' has shape [256, 256], "
                "the model expects [3, 256] (it is a checkpoint of model "
                "'fake_lm')");
}

TEST_F(RuntimeTrainCheckpointTest, AnotherArtifact) {
  // The same model, compiled with another learning rate.
  trainSteps(session, manifest, 1);
  std::string path = dir.file("ckpt.safetensors");
  ASSERT_EQ(save(session, path).status, TF_OK);
  json changed = manifest;
  changed["training"]["optimizer"]["lr"] = 0.2;
  tf_session_destroy(session);
  session = nullptr;
  openSession(changed);
  expectRefused(path, TF_ERROR_INVALID_ARGUMENT,
                "ckpt.safetensors': the checkpoint was written by a different "
                "artifact than '" +
                    dir.file("model.tfm") +
                    "': training.optimizer.lr is 0.1 in the checkpoint, 0.2 "
                    "in this artifact");
}

TEST_F(RuntimeTrainCheckpointTest, AnotherArtifactWithoutItsManifest) {
  std::string bad = edited([](std::map<std::string, Stored> &, json &meta) {
    meta.erase("manifest");
    meta["manifest_fingerprint"] = "0123456789abcdef";
  });
  expectRefused(bad, TF_ERROR_INVALID_ARGUMENT,
                "': its manifest fingerprint is 0123456789abcdef, this "
                "artifact's ");
}

TEST_F(RuntimeTrainCheckpointTest, Truncated) {
  trainSteps(session, manifest, 1);
  std::string good = dir.file("good.safetensors");
  ASSERT_EQ(save(session, good).status, TF_OK);
  std::string bytes = readBinary(good);
  std::string cut = dir.file("cut.safetensors");
  writeBinary(cut, bytes.substr(0, bytes.size() - 100));
  expectRefused(cut, TF_ERROR_FORMAT, "cut.safetensors': truncated: tensor");
}

TEST_F(RuntimeTrainCheckpointTest, AFileOfParameters) {
  std::string path = dir.file("params.safetensors");
  ASSERT_EQ(tf_session_save_parameters(session, path.c_str()), TF_OK);
  expectRefused(path, TF_ERROR_FORMAT,
                "params.safetensors': not a checkpoint: no 'checkpoint' "
                "metadata (a file of parameters only loads as weights)");
}

TEST_F(RuntimeTrainCheckpointTest, BadStep) {
  std::string bad = edited(
      [](std::map<std::string, Stored> &, json &meta) { meta["step"] = "-1"; });
  expectRefused(bad, TF_ERROR_FORMAT,
                "bad.safetensors': metadata 'step' is '-1', not a step count");
}

TEST_F(RuntimeTrainCheckpointTest, StepOverTheLimit) {
  // One past TF_MAX_STEP, and the largest int64, whose next step overflows.
  for (std::string step : {"9007199254740993", "9223372036854775807"}) {
    std::string bad = edited([&](std::map<std::string, Stored> &, json &meta) {
      meta["step"] = step;
    });
    expectRefused(bad, TF_ERROR_FORMAT,
                  "bad.safetensors': metadata 'step' is " + step +
                      ", over the limit of 9007199254740992 steps");
  }
}

TEST_F(RuntimeTrainCheckpointTest, NewerFormat) {
  std::string bad = edited([](std::map<std::string, Stored> &, json &meta) {
    meta["checkpoint"] = "transfuse 2";
  });
  expectRefused(bad, TF_ERROR_UNSUPPORTED,
                "bad.safetensors': checkpoint format 'transfuse 2', this "
                "runtime reads 'transfuse 1'");
}

} // namespace
