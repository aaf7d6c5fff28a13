//===- RuntimeTrainManifestTest.cpp - The manifest's training section -----===//
//
// The optimizer state, the entry points' state lists and the training
// section: what the runtime reads of them, and each malformed variant as an
// error naming the field.
//===----------------------------------------------------------------------===//
#include "FakeTrainManifests.h"
#include "RuntimeTesting.h"

using namespace transfuse::test;
using json = nlohmann::json;

namespace {

class RuntimeTrainManifestTest : public RuntimeTest {
protected:
  /// The outcome of opening the classifier's manifest after `edit`.
  template <typename Edit> Outcome edited(Edit edit) {
    json manifest = fakeClassifierManifest();
    edit(manifest);
    return open(writeTfm(manifest));
  }

  int32_t entry(const char *name) {
    int32_t index = -1;
    EXPECT_EQ(tf_artifact_find_entry_point(artifact, name, &index), TF_OK);
    return index;
  }
};

json &trainStep(json &manifest) { return manifest["entry_points"][2]; }

TEST_F(RuntimeTrainManifestTest, ReadsTheTrainingSection) {
  Outcome opened = open(writeTfm(fakeClassifierManifest()));
  ASSERT_EQ(opened.status, TF_OK) << opened.message;

  ASSERT_EQ(tf_artifact_num_state(artifact), 4);
  tf_tensor_info info;
  ASSERT_EQ(tf_artifact_state(artifact, 0, &info), TF_OK);
  EXPECT_STREQ(info.name, "optimizer.exp_avg.weight");
  EXPECT_EQ(info.dtype, TF_F32);
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.shape[1], 256);
  EXPECT_EQ(tf_artifact_state(artifact, 4, &info), TF_ERROR_INVALID_ARGUMENT);

  int32_t step = entry("train_step"), forward = entry("forward");
  EXPECT_EQ(tf_entry_point_updates(artifact, step), 1);
  EXPECT_EQ(tf_entry_point_updates(artifact, forward), 0);
  EXPECT_EQ(tf_entry_point_updates(artifact, 99), -1);
  ASSERT_EQ(tf_entry_point_num_state(artifact, step), 4);
  EXPECT_EQ(tf_entry_point_num_state(artifact, forward), 0);
  EXPECT_STREQ(tf_entry_point_state(artifact, step, 3),
               "optimizer.exp_avg_sq.bias");
  EXPECT_EQ(tf_entry_point_state(artifact, step, 4), nullptr);

  ASSERT_EQ(tf_artifact_has_training(artifact), 1);
  tf_training_info training;
  ASSERT_EQ(tf_artifact_training(artifact, &training), TF_OK);
  ASSERT_EQ(training.num_inputs, 1);
  EXPECT_STREQ(training.inputs[0], "tokens");
  ASSERT_EQ(training.num_labels, 1);
  EXPECT_STREQ(training.labels[0], "label");
  EXPECT_STREQ(training.loss, "cross_entropy");
  // kind first, then the other keys in name order, values as JSON writes
  // them.
  ASSERT_EQ(training.num_optimizer, 6);
  EXPECT_STREQ(training.optimizer[0].key, "kind");
  EXPECT_STREQ(training.optimizer[0].value, "adam");
  EXPECT_STREQ(training.optimizer[1].key, "beta1");
  EXPECT_STREQ(training.optimizer[1].value, "0.9");
  EXPECT_STREQ(training.optimizer[4].key, "lr");
  EXPECT_STREQ(training.optimizer[4].value, "0.1");
  ASSERT_EQ(training.num_schedule, 3);
  EXPECT_STREQ(training.schedule[0].value, "linear_warmup");
  EXPECT_EQ(training.clip_grad_norm, 1.0);
  EXPECT_EQ(training.seed, 1u);
  EXPECT_EQ(training.ignore_index, -100);
}

TEST_F(RuntimeTrainManifestTest, ModelsWithoutTrainingHaveNone) {
  Outcome opened = open(writeTfm(fakeManifest()));
  ASSERT_EQ(opened.status, TF_OK) << opened.message;
  EXPECT_EQ(tf_artifact_num_state(artifact), 0);
  EXPECT_EQ(tf_artifact_has_training(artifact), 0);
  tf_training_info training;
  Outcome result = outcome(tf_artifact_training(artifact, &training));
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "model 'fake' has no training section");
}

TEST_F(RuntimeTrainManifestTest, AnEmptyStateListIsAllowed) {
  // Plain SGD keeps no state.
  Outcome result = edited([](json &m) {
    m["state"] = json::array();
    trainStep(m)["state"] = json::array();
  });
  EXPECT_EQ(result.status, TF_OK) << result.message;
  EXPECT_EQ(tf_artifact_num_state(artifact), 0);
}

struct BadCase {
  const char *name;
  void (*edit)(json &);
  tf_status status;
  const char *message;
};

void PrintTo(const BadCase &bad, std::ostream *out) { *out << bad.name; }

class RuntimeTrainManifestBadTest
    : public RuntimeTrainManifestTest,
      public ::testing::WithParamInterface<BadCase> {};

TEST_P(RuntimeTrainManifestBadTest, NamesTheField) {
  const BadCase &bad = GetParam();
  Outcome result = edited(bad.edit);
  EXPECT_EQ(result.status, bad.status) << result.message;
  EXPECT_CONTAINS(result.message,
                  std::string("model.tfm': manifest: ") + bad.message);
}

const BadCase kBadCases[] = {
    {"StateNotAList", [](json &m) { m["state"] = 3; }, TF_ERROR_FORMAT,
     "state: expected an array, got an integer"},
    {"StateWithoutShape", [](json &m) { m["state"][1].erase("shape"); },
     TF_ERROR_FORMAT, "state[1]: missing field 'shape'"},
    {"StateNamedTwice",
     [](json &m) { m["state"][1]["name"] = m["state"][0]["name"]; },
     TF_ERROR_FORMAT,
     "state[1].name: duplicate state tensor 'optimizer.exp_avg.weight'"},
    {"StateNamedLikeAParameter",
     [](json &m) { m["state"][0]["name"] = "bias"; }, TF_ERROR_FORMAT,
     "state[0].name: 'bias' is already the name of a parameter"},
    {"EntryStateUnknown", [](json &m) { trainStep(m)["state"][0] = "nope"; },
     TF_ERROR_FORMAT, "entry_points[2].state[0]: no state tensor named 'nope'"},
    {"EntryStateTwice",
     [](json &m) { trainStep(m)["state"][1] = trainStep(m)["state"][0]; },
     TF_ERROR_FORMAT,
     "entry_points[2].state[1]: state tensor 'optimizer.exp_avg.weight' "
     "listed twice"},
    {"EntryStateNotAList", [](json &m) { trainStep(m)["state"] = "all"; },
     TF_ERROR_FORMAT, "entry_points[2].state: expected an array, got a string"},
    {"TrainStepWithoutState", [](json &m) { trainStep(m).erase("state"); },
     TF_ERROR_FORMAT,
     "entry_points[2]: train_step has no 'state' list: it updates its "
     "parameters and the optimizer state in place"},
    {"TrainStepWithoutStep", [](json &m) { trainStep(m)["inputs"].erase(2); },
     TF_ERROR_FORMAT,
     "entry_points[2].inputs: train_step has no input 'step' (i64 [])"},
    {"StepOfTheWrongDtype",
     [](json &m) { trainStep(m)["inputs"][2]["dtype"] = "f32"; },
     TF_ERROR_FORMAT,
     "entry_points[2].inputs[2]: 'step' must be i64 [], got f32 []"},
    {"StepNotAScalar",
     [](json &m) { trainStep(m)["inputs"][2]["shape"] = {1}; }, TF_ERROR_FORMAT,
     "entry_points[2].inputs[2]: 'step' must be i64 [], got i64 [1]"},
    {"TrainStepWithoutGradNorm",
     [](json &m) { trainStep(m)["outputs"].erase(1); }, TF_ERROR_FORMAT,
     "entry_points[2].outputs: train_step has no output 'grad_norm' (f32 [])"},
    {"TrainStepWithoutTraining", [](json &m) { m.erase("training"); },
     TF_ERROR_FORMAT, "entry point 'train_step' needs the 'training' section"},
    {"TrainingNotAnObject", [](json &m) { m["training"] = json::array(); },
     TF_ERROR_FORMAT, "training: expected an object, got an array"},
    {"NoInputs", [](json &m) { m["training"]["inputs"] = json::array(); },
     TF_ERROR_FORMAT, "training.inputs: must name at least one input"},
    {"NoLabels", [](json &m) { m["training"].erase("labels"); },
     TF_ERROR_FORMAT, "training: missing field 'labels'"},
    {"InputNotOfTrainStep",
     [](json &m) { m["training"]["inputs"][0] = "words"; }, TF_ERROR_FORMAT,
     "training.inputs[0]: 'words' is not an input of train_step"},
    {"StepAsALabel", [](json &m) { m["training"]["labels"][0] = "step"; },
     TF_ERROR_FORMAT,
     "training.labels[0]: 'step' is the step number, not data"},
    {"NamedTwice", [](json &m) { m["training"]["labels"][0] = "tokens"; },
     TF_ERROR_FORMAT, "training.labels[0]: 'tokens' is named twice"},
    {"TrainStepInputNotInTraining",
     [](json &m) {
       trainStep(m)["inputs"].push_back(
           {{"name", "extra"}, {"dtype", "f32"}, {"shape", json::array()}});
     },
     TF_ERROR_FORMAT,
     "entry_points[2].inputs[3]: train_step input 'extra' is neither the "
     "step nor one of training.inputs and training.labels"},
    {"LossNotAString", [](json &m) { m["training"]["loss"] = 1; },
     TF_ERROR_FORMAT, "training.loss: expected a string, got an integer"},
    {"OptimizerWithoutKind",
     [](json &m) { m["training"]["optimizer"].erase("kind"); }, TF_ERROR_FORMAT,
     "training.optimizer: missing field 'kind'"},
    {"UnknownOptimizer",
     [](json &m) { m["training"]["optimizer"]["kind"] = "lamb"; },
     TF_ERROR_UNSUPPORTED,
     "training.optimizer.kind: unknown optimizer 'lamb' (expected sgd, adam "
     "or adamw)"},
    {"UnknownSchedule",
     [](json &m) { m["training"]["schedule"]["kind"] = "step"; },
     TF_ERROR_UNSUPPORTED,
     "training.schedule.kind: unknown schedule 'step' (expected constant, "
     "linear_warmup, inverse_sqrt or cosine)"},
    {"NoSchedule", [](json &m) { m["training"].erase("schedule"); },
     TF_ERROR_FORMAT, "training: missing field 'schedule'"},
    // The decoding cache shares the names' space and the list rules.
    {"CacheNamedLikeState",
     [](json &m) { m["cache"] = json::array({m["state"][0]}); },
     TF_ERROR_FORMAT,
     "cache[0].name: 'optimizer.exp_avg.weight' is already the name of a "
     "state tensor"},
    {"CacheDuplicate",
     [](json &m) {
       json k = detail::tensor("cache.k", "f32", {2, 1, 4, 8});
       m["cache"] = json::array({k, k});
     },
     TF_ERROR_FORMAT, "cache[1].name: duplicate cache tensor 'cache.k'"},
    {"EntryCacheUnknown",
     [](json &m) {
       m["cache"] =
           json::array({detail::tensor("cache.k", "f32", {2, 1, 4, 8})});
       m["entry_points"][0]["cache"] = json::array({"cache.v"});
     },
     TF_ERROR_FORMAT,
     "entry_points[0].cache[0]: no cache tensor named 'cache.v'"},
    {"NegativeClip", [](json &m) { m["training"]["clip_grad_norm"] = -1.0; },
     TF_ERROR_FORMAT, "training.clip_grad_norm: must be >= 0 (0: no clipping)"},
    {"NegativeSeed", [](json &m) { m["training"]["seed"] = -2; },
     TF_ERROR_FORMAT, "training.seed: must be >= 0, got -2"},
    {"FractionalIgnoreIndex",
     [](json &m) { m["training"]["ignore_index"] = 0.5; }, TF_ERROR_FORMAT,
     "training.ignore_index: expected an integer, got a number"},
};

INSTANTIATE_TEST_SUITE_P(Cases, RuntimeTrainManifestBadTest,
                         ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase> &info) {
                           return std::string(info.param.name);
                         });

} // namespace
