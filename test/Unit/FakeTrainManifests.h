//===- FakeTrainManifests.h - The fake training models ---------*- C++ -*-===//
//
// The manifests a compiler would write for the hand-written models of
// Inputs/fake_train_model.c (built into the same shared object as
// fake_model.c): forward, loss and train_step, a training section and the
// optimizer state.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_UNIT_FAKETRAINMANIFESTS_H
#define TRANSFUSE_TEST_UNIT_FAKETRAINMANIFESTS_H

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace transfuse::test {

namespace detail {

using json = nlohmann::json;

inline json tensor(const std::string &name, const char *dtype, json shape) {
  return {{"name", name}, {"dtype", dtype}, {"shape", shape}};
}

inline json ids(const std::string &name, json shape, int64_t maxValue) {
  json desc = tensor(name, "i64", shape);
  desc["max_value"] = maxValue;
  return desc;
}

/// A model of `weight` and `bias`, its entry points named `prefix`_*, whose
/// train_step takes `stateNames` (each shaped like weight, then like bias).
inline json trainManifest(const std::string &model, const std::string &prefix,
                          json weightShape, json biasShape, json inputs,
                          json labels, json logits, json training,
                          const std::vector<std::string> &stateNames) {
  json params = {tensor("weight", "f32", weightShape),
                 tensor("bias", "f32", biasShape)};
  params[0]["init"] = {{"kind", "normal"}, {"a", 0.0}, {"b", 0.1}};
  params[1]["init"] = {{"kind", "zeros"}};
  json state = json::array();
  for (size_t i = 0; i < stateNames.size(); ++i)
    state.push_back(
        tensor(stateNames[i], "f32",
               i < stateNames.size() / 2 ? weightShape : biasShape));
  json stateList = json::array();
  for (const std::string &name : stateNames)
    stateList.push_back(name);
  json withLabels = inputs;
  for (const json &label : labels)
    withLabels.push_back(label);
  json stepInputs = withLabels;
  stepInputs.push_back(tensor("step", "i64", json::array()));
  json scalar = json::array();
  json trainOutputs = {tensor("loss", "f32", scalar),
                       tensor("grad_norm", "f32", scalar),
                       tensor("lr", "f32", scalar)};
  json names = json::array(), labelNames = json::array();
  for (const json &input : inputs)
    names.push_back(input["name"]);
  for (const json &label : labels)
    labelNames.push_back(label["name"]);
  training["inputs"] = names;
  training["labels"] = labelNames;
  training["loss"] = "cross_entropy";
  training["seed"] = 1;
  json entryParams = {"weight", "bias"};
  return {
      {"format_version", 1},
      {"target", "cpu"},
      {"cpu", "x86-64"},
      {"producer", "FakeTrainManifests.h"},
      {"model", model},
      {"parameters", params},
      {"state", state},
      {"training", training},
      {"entry_points",
       {{{"name", "forward"},
         {"symbol", "tf_entry_" + prefix + "_forward"},
         {"parameters", entryParams},
         {"inputs", inputs},
         {"outputs", {tensor("logits", "f32", logits)}}},
        {{"name", "loss"},
         {"symbol", "tf_entry_" + prefix + "_loss"},
         {"parameters", entryParams},
         {"inputs", withLabels},
         {"outputs", {tensor("loss", "f32", scalar)}}},
        {{"name", "train_step"},
         {"symbol", "tf_entry_" + prefix + "_train_step"},
         {"parameters", entryParams},
         {"state", stateList},
         {"inputs", stepInputs},
         {"outputs", trainOutputs}}}},
  };
}

} // namespace detail

/// A bag-of-bytes classifier of [4, 8] tokens into 3 classes; Adam.
inline nlohmann::json fakeClassifierManifest() {
  using detail::json;
  json training = {
      {"optimizer",
       {{"kind", "adam"},
        {"lr", 0.1},
        {"beta1", 0.9},
        {"beta2", 0.999},
        {"eps", 1e-8},
        {"weight_decay", 0.0}}},
      {"schedule",
       {{"kind", "linear_warmup"}, {"warmup_steps", 2}, {"min_lr", 0.0}}},
      {"clip_grad_norm", 1.0}};
  return detail::trainManifest(
      "fake_classifier", "cls", {3, 256}, {3},
      {detail::ids("tokens", {4, 8}, 255)},
      {detail::tensor("label", "i64", {4})}, {4, 3}, training,
      {"optimizer.exp_avg.weight", "optimizer.exp_avg_sq.weight",
       "optimizer.exp_avg.bias", "optimizer.exp_avg_sq.bias"});
}

/// A bigram byte language model on [2, 8] tokens; SGD with momentum.
inline nlohmann::json fakeLanguageModelManifest() {
  using detail::json;
  json training = {{"optimizer",
                    {{"kind", "sgd"},
                     {"lr", 0.5},
                     {"momentum", 0.9},
                     {"weight_decay", 0.0},
                     {"nesterov", false}}},
                   {"schedule", {{"kind", "constant"}}}};
  return detail::trainManifest(
      "fake_lm", "lm", {256, 256}, {256}, {detail::ids("tokens", {2, 8}, 255)},
      {detail::tensor("targets", "i64", {2, 8})}, {2, 8, 256}, training,
      {"optimizer.momentum_buffer.weight", "optimizer.momentum_buffer.bias"});
}

/// A bigram model of the decoder input of a [2, 6] -> [2, 6] seq2seq task
/// over 16 ids, its loss ignoring the padding 0; SGD with momentum.
inline nlohmann::json fakeSeq2SeqManifest() {
  using detail::json;
  json training = {
      {"optimizer", {{"kind", "sgd"}, {"lr", 0.5}, {"momentum", 0.9}}},
      {"schedule", {{"kind", "constant"}}},
      {"ignore_index", 0}};
  return detail::trainManifest(
      "fake_seq2seq", "s2s", {16, 16}, {16},
      {detail::ids("src", {2, 6}, 15), detail::ids("tgt", {2, 6}, 15)},
      {detail::ids("tgt_y", {2, 6}, 15)}, {2, 6, 16}, training,
      {"optimizer.momentum_buffer.weight", "optimizer.momentum_buffer.bias"});
}

} // namespace transfuse::test

#endif // TRANSFUSE_TEST_UNIT_FAKETRAINMANIFESTS_H
