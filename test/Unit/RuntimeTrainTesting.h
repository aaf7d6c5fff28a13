//===- RuntimeTrainTesting.h - Fixtures of the training tests ---*- C++ -*-===//
#ifndef TRANSFUSE_TEST_UNIT_RUNTIMETRAINTESTING_H
#define TRANSFUSE_TEST_UNIT_RUNTIMETRAINTESTING_H

#include "FakeTrainManifests.h"
#include "RuntimeTesting.h"

#include <string>
#include <vector>

namespace transfuse::test {

/// Batches for the fake training models, a pure function of the step.
class TrainBatches {
public:
  /// The training inputs and labels of train_step in `manifest`, each
  /// filled with valid ids that change with `step`.
  TrainBatches(const nlohmann::json &manifest, int64_t step) {
    const nlohmann::json &entry = manifest["entry_points"][2];
    for (const nlohmann::json &input : entry["inputs"]) {
      if (input["name"] == "step")
        continue;
      int64_t count = 1;
      std::vector<int64_t> shape;
      for (int64_t dim : input["shape"]) {
        count *= dim;
        shape.push_back(dim);
      }
      // Ids within max_value, or the classes 0-2 of the classifier's label.
      int64_t bound = input.value("max_value", int64_t(2)) + 1;
      std::vector<int64_t> values(count);
      for (int64_t i = 0; i < count; ++i)
        values[i] = (i * 7 + step * 13 + i * i * step) % bound;
      names_.push_back(input["name"]);
      shapes_.push_back(shape);
      data_.push_back(std::move(values));
    }
  }

  std::vector<tf_named_tensor> tensors() {
    std::vector<tf_named_tensor> result;
    for (size_t i = 0; i < names_.size(); ++i)
      result.push_back(named(names_[i].c_str(), TF_I64, shapes_[i], data_[i]));
    return result;
  }

private:
  std::vector<std::string> names_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<std::vector<int64_t>> data_;
};

/// The bytes of every parameter and state tensor of a session, in manifest
/// order: what must match exactly after a resume.
inline std::vector<std::vector<char>> sessionBytes(tf_session *session) {
  const tf_artifact *artifact = tf_session_artifact(session);
  std::vector<std::vector<char>> result;
  auto add = [&](const tf_tensor &view) {
    const char *data = static_cast<const char *>(view.data);
    result.emplace_back(data, data + tf_tensor_numel(&view) *
                                         tf_dtype_size(view.dtype));
  };
  tf_tensor_info info;
  tf_tensor view;
  for (int32_t i = 0; i < tf_artifact_num_parameters(artifact); ++i) {
    EXPECT_EQ(tf_artifact_parameter(artifact, i, &info), TF_OK);
    EXPECT_EQ(tf_session_parameter(session, info.name, &view), TF_OK);
    add(view);
  }
  for (int32_t i = 0; i < tf_artifact_num_state(artifact); ++i) {
    EXPECT_EQ(tf_artifact_state(artifact, i, &info), TF_OK);
    EXPECT_EQ(tf_session_state(session, info.name, &view), TF_OK);
    add(view);
  }
  return result;
}

/// Takes `count` train steps, each on the batch of its step number.
inline void trainSteps(tf_session *session, const nlohmann::json &manifest,
                       int count) {
  for (int i = 0; i < count; ++i) {
    TrainBatches batch(manifest, tf_session_step(session) + 1);
    std::vector<tf_named_tensor> inputs = batch.tensors();
    tf_train_result result;
    ASSERT_EQ(tf_session_train_step(session, inputs.data(),
                                    int32_t(inputs.size()), &result),
              TF_OK)
        << tf_last_error();
  }
}

} // namespace transfuse::test

#endif // TRANSFUSE_TEST_UNIT_RUNTIMETRAINTESTING_H
