//===- RuntimeTrainStepTest.cpp - State buffers and the step count --------===//
#include "RuntimeTrainTesting.h"

#include <cmath>

using namespace transfuse::test;
using json = nlohmann::json;

namespace {

class RuntimeTrainStepTest : public RuntimeTest {
protected:
  void SetUp() override {
    openSession(manifest);
    ASSERT_EQ(tf_session_init_parameters(session, 1), TF_OK);
  }

  std::vector<float> state(const char *name) {
    tf_tensor view;
    EXPECT_EQ(tf_session_state(session, name, &view), TF_OK) << tf_last_error();
    const float *data = static_cast<const float *>(view.data);
    return std::vector<float>(data, data + tf_tensor_numel(&view));
  }

  Outcome trainStep(std::vector<tf_named_tensor> inputs,
                    tf_train_result *result) {
    return outcome(tf_session_train_step(session, inputs.data(),
                                         int32_t(inputs.size()), result));
  }

  json manifest = fakeClassifierManifest();
};

bool allZero(const std::vector<float> &values) {
  for (float value : values)
    if (value != 0)
      return false;
  return true;
}

TEST_F(RuntimeTrainStepTest, StateStartsAtZero) {
  EXPECT_EQ(tf_session_step(session), 0);
  std::vector<float> moments = state("optimizer.exp_avg.weight");
  EXPECT_EQ(moments.size(), 3u * 256);
  EXPECT_TRUE(allZero(moments));
  tf_tensor view;
  Outcome missing = outcome(tf_session_state(session, "weight", &view));
  EXPECT_EQ(missing.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(missing.message,
            "model 'fake_classifier' has no state tensor 'weight'");
}

TEST_F(RuntimeTrainStepTest, CountsTheSteps) {
  std::vector<float> before = floats("weight");
  for (int64_t step = 1; step <= 3; ++step) {
    TrainBatches batch(manifest, step);
    tf_train_result result;
    Outcome ran = trainStep(batch.tensors(), &result);
    ASSERT_EQ(ran.status, TF_OK) << ran.message;
    EXPECT_EQ(result.step, step);
    EXPECT_EQ(tf_session_step(session), step);
    EXPECT_TRUE(std::isfinite(result.loss));
    EXPECT_GT(result.grad_norm, 0);
    // The fake model warms up over two steps to 0.1.
    EXPECT_FLOAT_EQ(result.lr, step == 1 ? 0.05f : 0.1f);
  }
  EXPECT_NE(floats("weight"), before);
  EXPECT_FALSE(allZero(state("optimizer.exp_avg_sq.weight")));

  // The results are also train_step's outputs.
  tf_tensor loss;
  ASSERT_EQ(tf_session_output(session, "train_step", "lr", &loss), TF_OK);
  EXPECT_FLOAT_EQ(*static_cast<float *>(loss.data), 0.1f);
}

TEST_F(RuntimeTrainStepTest, InitialisingStartsOver) {
  trainSteps(session, manifest, 2);
  std::vector<float> first = floats("weight");
  ASSERT_EQ(tf_session_init_parameters(session, 1), TF_OK);
  EXPECT_EQ(tf_session_step(session), 0);
  EXPECT_TRUE(allZero(state("optimizer.exp_avg.weight")));
  trainSteps(session, manifest, 2);
  EXPECT_EQ(floats("weight"), first);
}

TEST_F(RuntimeTrainStepTest, TheSessionGivesTheStep) {
  TrainBatches batch(manifest, 1);
  std::vector<tf_named_tensor> inputs = batch.tensors();
  std::vector<int64_t> step = {1};
  inputs.push_back(named("step", TF_I64, {}, step));
  Outcome result = trainStep(inputs, nullptr);
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(result.message, "entry point 'train_step': input 'step' is the "
                            "session's (the next is 1); do not pass it");
  EXPECT_EQ(tf_session_step(session), 0);
}

TEST_F(RuntimeTrainStepTest, RunningTrainStepSetsTheStep) {
  TrainBatches batch(manifest, 5);
  std::vector<tf_named_tensor> inputs = batch.tensors();
  std::vector<int64_t> step = {5};
  inputs.push_back(named("step", TF_I64, {}, step));
  std::vector<tf_named_tensor> outputs(3);
  ASSERT_EQ(tf_session_run(session, "train_step", inputs.data(),
                           int32_t(inputs.size()), outputs.data(), 3),
            TF_OK)
      << tf_last_error();
  EXPECT_EQ(tf_session_step(session), 5);
  EXPECT_STREQ(outputs[2].name, "lr");
  EXPECT_FLOAT_EQ(*static_cast<float *>(outputs[2].tensor.data), 0.1f);

  // A failed update leaves the count alone (the fake refuses step 0).
  step[0] = 0;
  Outcome failed = outcome(tf_session_run(session, "train_step", inputs.data(),
                                          int32_t(inputs.size()), nullptr, 0));
  EXPECT_EQ(failed.status, TF_ERROR_EXECUTION);
  EXPECT_EQ(tf_session_step(session), 5);
}

TEST_F(RuntimeTrainStepTest, EvaluationWritesNoParameter) {
  std::vector<float> before = floats("weight");
  TrainBatches batch(manifest, 1);
  std::vector<tf_named_tensor> inputs = batch.tensors();
  std::vector<tf_named_tensor> outputs(1);
  ASSERT_EQ(tf_session_run(session, "loss", inputs.data(),
                           int32_t(inputs.size()), outputs.data(), 1),
            TF_OK)
      << tf_last_error();
  EXPECT_GT(*static_cast<float *>(outputs[0].tensor.data), 0);
  EXPECT_EQ(floats("weight"), before);
  EXPECT_EQ(tf_session_step(session), 0);
}

TEST_F(RuntimeTrainStepTest, IsDeterministic) {
  trainSteps(session, manifest, 4);
  tf_session *other = nullptr;
  ASSERT_EQ(tf_session_create(artifact, &other), TF_OK);
  ASSERT_EQ(tf_session_init_parameters(other, 1), TF_OK);
  trainSteps(other, manifest, 4);
  EXPECT_EQ(sessionBytes(session), sessionBytes(other));
  tf_session_destroy(other);
}

TEST_F(RuntimeTrainStepTest, AModelWithoutTrainStep) {
  tf_session_destroy(session);
  session = nullptr;
  openSession(fakeManifest());
  Outcome result = trainStep({}, nullptr);
  EXPECT_EQ(result.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(result.message,
            "model 'fake' has no entry point 'train_step' (it has 'forward', "
            "'forward_bw', 'embed', 'mixed', 'fail')");
}

} // namespace
