//===- transfuse.hpp - C++ wrapper of the Transfuse runtime -----*- C++ -*-===//
//
// Header-only RAII classes over transfuse.h: handles are released by
// destructors and failures are thrown as transfuse::Error (with the C API's
// status and message).
//
//   transfuse::Artifact model = transfuse::Artifact::open("model.tfm");
//   transfuse::Session session(model);
//   session.initParameters(/*seed=*/0);
//   std::vector<tf_named_tensor> outputs = session.run("forward", inputs);
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TRANSFUSE_HPP
#define TRANSFUSE_TRANSFUSE_HPP

#include "transfuse/transfuse.h"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace transfuse {

class Error : public std::runtime_error {
public:
  Error(tf_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  tf_status status() const { return status_; }

private:
  tf_status status_;
};

/// Throws the last error of this thread if `status` is not TF_OK.
inline void check(tf_status status) {
  if (status != TF_OK)
    throw Error(status, tf_last_error());
}

inline void setNumThreads(int32_t threads) {
  check(tf_set_num_threads(threads));
}

/// This process's place in a data-parallel run (tf_world): rank 0 of 1
/// unless an MPI launcher started it.
struct World {
  int32_t rank = 0, size = 1;
};
inline World joinWorld() {
  World world;
  check(tf_world(&world.rank, &world.size));
  return world;
}
inline void worldSum(double *values, int32_t count) {
  check(tf_world_sum(values, count));
}
inline void setWorldWeight(double weight) {
  check(tf_world_set_weight(weight));
}
inline tf_world_stats worldStats() {
  tf_world_stats stats{};
  check(tf_world_get_stats(&stats));
  return stats;
}

namespace detail {
/// A move-only owner of a C handle.
template <typename T, void (*Release)(T *)> class Handle {
public:
  Handle() = default;
  explicit Handle(T *handle) : handle_(handle) {}
  Handle(Handle &&other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  Handle &operator=(Handle &&other) noexcept {
    if (this != &other) {
      Release(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  ~Handle() { Release(handle_); }

  T *get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

private:
  T *handle_ = nullptr;
};
} // namespace detail

class Artifact {
public:
  static Artifact open(const std::string &path) {
    tf_artifact *handle = nullptr;
    check(tf_artifact_open(path.c_str(), &handle));
    return Artifact(handle);
  }

  tf_artifact *get() const { return handle_.get(); }
  std::string model() const { return tf_artifact_model(get()); }
  std::string target() const { return tf_artifact_target(get()); }

  std::vector<tf_tensor_info> parameters() const {
    std::vector<tf_tensor_info> result(tf_artifact_num_parameters(get()));
    for (size_t i = 0; i < result.size(); ++i)
      check(tf_artifact_parameter(get(), static_cast<int32_t>(i), &result[i]));
    return result;
  }

  std::vector<std::string> entryPoints() const {
    std::vector<std::string> result;
    for (int32_t i = 0, e = tf_artifact_num_entry_points(get()); i < e; ++i)
      result.emplace_back(tf_artifact_entry_point_name(get(), i));
    return result;
  }

  int32_t findEntryPoint(const std::string &name) const {
    int32_t index = -1;
    check(tf_artifact_find_entry_point(get(), name.c_str(), &index));
    return index;
  }

  std::vector<tf_tensor_info> inputs(const std::string &entry) const {
    int32_t index = findEntryPoint(entry);
    std::vector<tf_tensor_info> result(tf_entry_point_num_inputs(get(), index));
    for (size_t i = 0; i < result.size(); ++i)
      check(tf_entry_point_input(get(), index, static_cast<int32_t>(i),
                                 &result[i]));
    return result;
  }

  /// The optimizer's state tensors.
  std::vector<tf_tensor_info> state() const {
    std::vector<tf_tensor_info> result(tf_artifact_num_state(get()));
    for (size_t i = 0; i < result.size(); ++i)
      check(tf_artifact_state(get(), static_cast<int32_t>(i), &result[i]));
    return result;
  }

  bool hasTraining() const { return tf_artifact_has_training(get()) != 0; }
  /// The training section; its strings live as long as the artifact.
  tf_training_info training() const {
    tf_training_info info;
    check(tf_artifact_training(get(), &info));
    return info;
  }

  std::vector<tf_tensor_info> outputs(const std::string &entry) const {
    int32_t index = findEntryPoint(entry);
    std::vector<tf_tensor_info> result(
        tf_entry_point_num_outputs(get(), index));
    for (size_t i = 0; i < result.size(); ++i)
      check(tf_entry_point_output(get(), index, static_cast<int32_t>(i),
                                  &result[i]));
    return result;
  }

private:
  explicit Artifact(tf_artifact *handle) : handle_(handle) {}
  detail::Handle<tf_artifact, tf_artifact_close> handle_;
};

/// A safetensors file read in full; views into it live as long as it does.
class TensorFile {
public:
  static TensorFile read(const std::string &path) {
    tf_tensor_file *handle = nullptr;
    check(tf_tensor_file_read(path.c_str(), &handle));
    return TensorFile(handle);
  }

  static void write(const std::string &path,
                    const std::vector<tf_named_tensor> &tensors) {
    check(tf_tensor_file_write(path.c_str(), tensors.data(),
                               static_cast<int32_t>(tensors.size())));
  }

  const tf_tensor_file *get() const { return handle_.get(); }
  size_t size() const {
    return static_cast<size_t>(tf_tensor_file_count(handle_.get()));
  }
  tf_named_tensor operator[](size_t index) const {
    tf_named_tensor tensor;
    check(tf_tensor_file_get(handle_.get(), static_cast<int32_t>(index),
                             &tensor));
    return tensor;
  }
  std::vector<tf_named_tensor> all() const {
    std::vector<tf_named_tensor> result;
    for (size_t i = 0; i < size(); ++i)
      result.push_back((*this)[i]);
    return result;
  }
  tf_tensor find(const std::string &name) const {
    tf_tensor tensor;
    check(tf_tensor_file_find(handle_.get(), name.c_str(), &tensor));
    return tensor;
  }
  /// The "__metadata__" value of `key`, if the file has one.
  std::optional<std::string> metadata(const std::string &key) const {
    const char *value = tf_tensor_file_metadata(handle_.get(), key.c_str());
    if (!value)
      return std::nullopt;
    return std::string(value);
  }

private:
  explicit TensorFile(tf_tensor_file *handle) : handle_(handle) {}
  detail::Handle<tf_tensor_file, tf_tensor_file_close> handle_;
};

class Session {
public:
  explicit Session(const Artifact &artifact) {
    tf_session *handle = nullptr;
    check(tf_session_create(artifact.get(), &handle));
    handle_ = detail::Handle<tf_session, tf_session_destroy>(handle);
  }

  tf_session *get() const { return handle_.get(); }

  void initParameters(uint64_t seed) {
    check(tf_session_init_parameters(get(), seed));
  }
  void loadParameters(const std::string &path) {
    check(tf_session_load_parameters(get(), path.c_str()));
  }
  void saveParameters(const std::string &path) {
    check(tf_session_save_parameters(get(), path.c_str()));
  }
  tf_tensor parameter(const std::string &name) {
    tf_tensor view;
    check(tf_session_parameter(get(), name.c_str(), &view));
    return view;
  }

  tf_tensor state(const std::string &name) {
    tf_tensor view;
    check(tf_session_state(get(), name.c_str(), &view));
    return view;
  }
  /// The updates taken so far.
  int64_t step() const { return tf_session_step(get()); }

  /// One optimizer step on a batch (the session supplies "step").
  tf_train_result trainStep(const std::vector<tf_named_tensor> &inputs) {
    tf_train_result result;
    check(tf_session_train_step(get(), inputs.data(),
                                static_cast<int32_t>(inputs.size()), &result));
    return result;
  }

  void saveCheckpoint(const std::string &path,
                      const std::map<std::string, std::string> &metadata = {}) {
    std::vector<tf_key_value> entries;
    for (const auto &[key, value] : metadata)
      entries.push_back({key.c_str(), value.c_str()});
    check(tf_session_save_checkpoint(get(), path.c_str(), entries.data(),
                                     static_cast<int32_t>(entries.size())));
  }
  void loadCheckpoint(const TensorFile &checkpoint) {
    check(tf_session_load_checkpoint(get(), checkpoint.get()));
  }
  /// Reads and loads a checkpoint; the file gives its metadata back.
  TensorFile loadCheckpoint(const std::string &path) {
    TensorFile checkpoint = TensorFile::read(path);
    loadCheckpoint(checkpoint);
    return checkpoint;
  }

  /// Runs `entry`; the outputs view the session's buffers (see
  /// tf_session_run).
  std::vector<tf_named_tensor> run(const std::string &entry,
                                   const std::vector<tf_named_tensor> &inputs) {
    const tf_artifact *artifact = tf_session_artifact(get());
    int32_t index = -1;
    check(tf_artifact_find_entry_point(artifact, entry.c_str(), &index));
    std::vector<tf_named_tensor> outputs(
        tf_entry_point_num_outputs(artifact, index));
    check(tf_session_run(get(), entry.c_str(), inputs.data(),
                         static_cast<int32_t>(inputs.size()), outputs.data(),
                         static_cast<int32_t>(outputs.size())));
    return outputs;
  }

private:
  detail::Handle<tf_session, tf_session_destroy> handle_;
};

} // namespace transfuse

#endif // TRANSFUSE_TRANSFUSE_HPP
