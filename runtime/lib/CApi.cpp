//===- CApi.cpp - transfuse.h over the runtime's C++ internals ------------===//
//
// Every entry catches what the internals throw: the status goes back to the
// caller and the message to tf_last_error(). No exception crosses the C
// boundary.
//===----------------------------------------------------------------------===//
#include "Runtime.h"
#include "collective/AllReduce.h"
#include "collective/World.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace transfuse::rt;

struct tf_artifact {
  explicit tf_artifact(std::shared_ptr<Artifact> artifact);

  std::shared_ptr<Artifact> impl;
  // The C views of the training section, for tf_artifact_training.
  std::vector<const char *> trainingInputs, trainingLabels;
  std::vector<tf_key_value> optimizer, schedule;
};

tf_artifact::tf_artifact(std::shared_ptr<Artifact> artifact)
    : impl(std::move(artifact)) {
  const std::optional<Training> &training = impl->manifest().training;
  if (!training)
    return;
  for (const std::string &name : training->inputs)
    trainingInputs.push_back(name.c_str());
  for (const std::string &name : training->labels)
    trainingLabels.push_back(name.c_str());
  for (const Setting &setting : training->optimizer)
    optimizer.push_back({setting.key.c_str(), setting.value.c_str()});
  for (const Setting &setting : training->schedule)
    schedule.push_back({setting.key.c_str(), setting.value.c_str()});
}

struct tf_session {
  std::unique_ptr<Session> impl;
  tf_artifact artifact; // the same artifact, for tf_session_artifact
};

struct tf_tensor_file {
  TensorFile impl;
};

namespace {

thread_local std::string lastError;

template <typename Body> tf_status guard(Body &&body) {
  try {
    body();
    return TF_OK;
  } catch (const Error &error) {
    lastError = error.what();
    return error.status();
  } catch (const std::bad_alloc &) {
    lastError = "out of memory";
    return TF_ERROR_EXECUTION;
  } catch (const std::exception &error) {
    lastError = error.what();
    return TF_ERROR_EXECUTION;
  }
}

void require(const void *pointer, const char *function, const char *what) {
  if (!pointer)
    fail(TF_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": " + what + " is null");
}

void toInfo(const TensorDesc &desc, tf_tensor_info *out) {
  *out = tf_tensor_info();
  out->name = desc.name.c_str();
  out->dtype = desc.dtype;
  out->rank = static_cast<int32_t>(desc.shape.size());
  for (size_t i = 0; i < desc.shape.size(); ++i)
    out->shape[i] = desc.shape[i];
  out->max_value = desc.maxValue;
  out->init = desc.init.kind;
  out->init_a = desc.init.a;
  out->init_b = desc.init.b;
  out->has_ignore_value = desc.ignoreValue.has_value();
  out->ignore_value = desc.ignoreValue.value_or(0);
}

void toView(tf_dtype dtype, const Shape &shape, const void *data,
            tf_tensor *out) {
  if (shape.size() > TF_MAX_RANK)
    fail(TF_ERROR_INVALID_ARGUMENT, "rank " + std::to_string(shape.size()) +
                                        " exceeds TF_MAX_RANK (" +
                                        std::to_string(TF_MAX_RANK) + ")");
  *out = tf_tensor();
  out->dtype = dtype;
  out->rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    out->shape[i] = shape[i];
  out->data = const_cast<void *>(data);
}

/// Validates a caller's view and returns its shape.
Shape shapeOf(const tf_tensor &tensor, const std::string &what) {
  if (dtypeSize(tensor.dtype) == 0)
    fail(TF_ERROR_INVALID_ARGUMENT,
         what + ": invalid dtype " + std::to_string(int(tensor.dtype)));
  if (tensor.rank < 0 || tensor.rank > TF_MAX_RANK)
    fail(TF_ERROR_INVALID_ARGUMENT,
         what + ": invalid rank " + std::to_string(tensor.rank));
  Shape shape(tensor.shape, tensor.shape + tensor.rank);
  if (checkedNumel(shape) < 0)
    fail(TF_ERROR_INVALID_ARGUMENT,
         what + ": invalid shape " + shapeString(shape));
  return shape;
}

/// A caller's input array, validated.
std::vector<NamedInput> namedInputs(const tf_named_tensor *inputs,
                                    int32_t count, const char *function) {
  if (count < 0 || (count > 0 && !inputs))
    fail(TF_ERROR_INVALID_ARGUMENT,
         std::string(function) + ": bad input array");
  std::vector<NamedInput> named;
  named.reserve(count);
  for (int32_t i = 0; i < count; ++i) {
    if (!inputs[i].name)
      fail(TF_ERROR_INVALID_ARGUMENT, std::string(function) + ": input " +
                                          std::to_string(i) + " has no name");
    Shape shape = shapeOf(inputs[i].tensor,
                          "input '" + std::string(inputs[i].name) + "'");
    named.push_back({inputs[i].name, inputs[i].tensor.dtype, std::move(shape),
                     inputs[i].tensor.data});
  }
  return named;
}

const EntryPoint *entryAt(const tf_artifact *artifact, int32_t entry) {
  if (!artifact || entry < 0 ||
      static_cast<size_t>(entry) >=
          artifact->impl->manifest().entryPoints.size())
    return nullptr;
  return &artifact->impl->manifest().entryPoints[entry];
}

tf_status tensorInfo(const std::vector<TensorDesc> *list, int32_t index,
                     tf_tensor_info *out, const char *function) {
  return guard([&] {
    require(out, function, "out");
    if (!list)
      fail(TF_ERROR_INVALID_ARGUMENT,
           std::string(function) + ": no such entry point");
    if (index < 0 || static_cast<size_t>(index) >= list->size())
      fail(TF_ERROR_INVALID_ARGUMENT, std::string(function) + ": index " +
                                          std::to_string(index) +
                                          " out of range");
    toInfo((*list)[index], out);
  });
}

} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// Errors and helpers
//===----------------------------------------------------------------------===//

const char *tf_last_error(void) { return lastError.c_str(); }

const char *tf_status_name(tf_status status) {
  switch (status) {
  case TF_OK:
    return "ok";
  case TF_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case TF_ERROR_IO:
    return "i/o error";
  case TF_ERROR_FORMAT:
    return "malformed file";
  case TF_ERROR_UNSUPPORTED:
    return "unsupported";
  case TF_ERROR_EXECUTION:
    return "execution error";
  }
  return "unknown status";
}

const char *tf_dtype_name(tf_dtype dtype) { return dtypeName(dtype); }
size_t tf_dtype_size(tf_dtype dtype) { return dtypeSize(dtype); }

int64_t tf_tensor_numel(const tf_tensor *tensor) {
  if (!tensor || tensor->rank < 0 || tensor->rank > TF_MAX_RANK)
    return -1;
  return checkedNumel(Shape(tensor->shape, tensor->shape + tensor->rank));
}

int64_t tf_tensor_first_nonfinite(const tf_tensor *tensor) {
  int64_t numel = tf_tensor_numel(tensor);
  if (numel <= 0 || !tensor->data)
    return -1;
  auto firstIn = [numel](const auto *values) -> int64_t {
    for (int64_t i = 0; i < numel; ++i)
      if (!std::isfinite(values[i]))
        return i;
    return -1;
  };
  if (tensor->dtype == TF_F32)
    return firstIn(static_cast<const float *>(tensor->data));
  if (tensor->dtype == TF_F64)
    return firstIn(static_cast<const double *>(tensor->data));
  return -1;
}

const char *tf_runtime_version(void) { return TRANSFUSE_RUNTIME_VERSION; }
const char *tf_runtime_target(void) { return "cpu"; }

tf_status tf_set_num_threads(int32_t threads) {
  return guard([&] { setNumThreads(threads); });
}

int32_t tf_get_num_threads(void) { return numThreads(); }

//===----------------------------------------------------------------------===//
// Data-parallel runs
//===----------------------------------------------------------------------===//

tf_status tf_world(int32_t *rank, int32_t *size) {
  return guard([&] {
    if (!rank || !size)
      fail(TF_ERROR_INVALID_ARGUMENT, "tf_world: null output");
    World &world = World::get();
    *rank = world.rank();
    *size = world.size();
  });
}

tf_status tf_world_sum(double *values, int32_t count) {
  return guard([&] {
    if (count < 0 || (count > 0 && !values))
      fail(TF_ERROR_INVALID_ARGUMENT, "tf_world_sum: bad values or count");
    World::get().sum(values, count);
  });
}

tf_status tf_world_set_weight(double weight) {
  return guard([&] { setAllReduceWeight(weight); });
}

tf_status tf_world_get_stats(tf_world_stats *out) {
  return guard([&] {
    if (!out)
      fail(TF_ERROR_INVALID_ARGUMENT, "tf_world_get_stats: null output");
    AllReduceStats stats = allReduceStats();
    *out = {stats.allReduces, stats.bytes, stats.waitSeconds};
  });
}

void tf_world_abort(int32_t code) {
  try {
    World &world = World::get();
    if (world.transport())
      world.transport()->abort(code);
  } catch (const Error &) {
    // Not in a run that could be joined: only this process ends.
  }
  std::fflush(stdout);
  std::_Exit(code);
}

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

tf_status tf_artifact_open(const char *path, tf_artifact **out) {
  if (out)
    *out = nullptr;
  return guard([&] {
    require(path, "tf_artifact_open", "path");
    require(out, "tf_artifact_open", "out");
    *out = new tf_artifact(Artifact::open(path));
  });
}

void tf_artifact_close(tf_artifact *artifact) { delete artifact; }

const char *tf_artifact_model(const tf_artifact *artifact) {
  return artifact ? artifact->impl->manifest().model.c_str() : "";
}
const char *tf_artifact_target(const tf_artifact *artifact) {
  return artifact ? artifact->impl->manifest().target.c_str() : "";
}
const char *tf_artifact_cpu(const tf_artifact *artifact) {
  return artifact ? artifact->impl->manifest().cpu.c_str() : "";
}
const char *tf_artifact_producer(const tf_artifact *artifact) {
  return artifact ? artifact->impl->manifest().producer.c_str() : "";
}
const char *tf_artifact_model_fingerprint(const tf_artifact *artifact) {
  return artifact ? artifact->impl->manifest().fingerprint.c_str() : "";
}
const char *tf_artifact_manifest_json(const tf_artifact *artifact) {
  return artifact ? artifact->impl->manifestJson().c_str() : "";
}

int32_t tf_artifact_num_parameters(const tf_artifact *artifact) {
  return artifact ? static_cast<int32_t>(
                        artifact->impl->manifest().parameters.size())
                  : -1;
}

tf_status tf_artifact_parameter(const tf_artifact *artifact, int32_t index,
                                tf_tensor_info *out) {
  return tensorInfo(artifact ? &artifact->impl->manifest().parameters : nullptr,
                    index, out, "tf_artifact_parameter");
}

int32_t tf_artifact_num_entry_points(const tf_artifact *artifact) {
  return artifact ? static_cast<int32_t>(
                        artifact->impl->manifest().entryPoints.size())
                  : -1;
}

const char *tf_artifact_entry_point_name(const tf_artifact *artifact,
                                         int32_t index) {
  const EntryPoint *entry = entryAt(artifact, index);
  return entry ? entry->name.c_str() : nullptr;
}

tf_status tf_artifact_find_entry_point(const tf_artifact *artifact,
                                       const char *name, int32_t *index) {
  return guard([&] {
    require(artifact, "tf_artifact_find_entry_point", "artifact");
    require(name, "tf_artifact_find_entry_point", "name");
    require(index, "tf_artifact_find_entry_point", "index");
    const Manifest &manifest = artifact->impl->manifest();
    int64_t found = manifest.findEntryPoint(name);
    if (found < 0) {
      std::string names;
      for (const EntryPoint &entry : manifest.entryPoints)
        names += (names.empty() ? "'" : ", '") + entry.name + "'";
      fail(TF_ERROR_INVALID_ARGUMENT, "model '" + manifest.model +
                                          "' has no entry point '" + name +
                                          "' (it has " + names + ")");
    }
    *index = static_cast<int32_t>(found);
  });
}

int32_t tf_entry_point_num_parameters(const tf_artifact *artifact,
                                      int32_t entry) {
  const EntryPoint *e = entryAt(artifact, entry);
  return e ? static_cast<int32_t>(e->parameters.size()) : -1;
}

const char *tf_entry_point_parameter(const tf_artifact *artifact, int32_t entry,
                                     int32_t index) {
  const EntryPoint *e = entryAt(artifact, entry);
  if (!e || index < 0 || static_cast<size_t>(index) >= e->parameters.size())
    return nullptr;
  return artifact->impl->manifest()
      .parameters[e->parameters[index]]
      .name.c_str();
}

int32_t tf_entry_point_num_inputs(const tf_artifact *artifact, int32_t entry) {
  const EntryPoint *e = entryAt(artifact, entry);
  return e ? static_cast<int32_t>(e->inputs.size()) : -1;
}

tf_status tf_entry_point_input(const tf_artifact *artifact, int32_t entry,
                               int32_t index, tf_tensor_info *out) {
  const EntryPoint *e = entryAt(artifact, entry);
  return tensorInfo(e ? &e->inputs : nullptr, index, out,
                    "tf_entry_point_input");
}

int32_t tf_entry_point_num_outputs(const tf_artifact *artifact, int32_t entry) {
  const EntryPoint *e = entryAt(artifact, entry);
  return e ? static_cast<int32_t>(e->outputs.size()) : -1;
}

tf_status tf_entry_point_output(const tf_artifact *artifact, int32_t entry,
                                int32_t index, tf_tensor_info *out) {
  const EntryPoint *e = entryAt(artifact, entry);
  return tensorInfo(e ? &e->outputs : nullptr, index, out,
                    "tf_entry_point_output");
}

int32_t tf_entry_point_updates(const tf_artifact *artifact, int32_t entry) {
  const EntryPoint *e = entryAt(artifact, entry);
  return e ? int32_t(e->updates) : -1;
}

int32_t tf_entry_point_num_state(const tf_artifact *artifact, int32_t entry) {
  const EntryPoint *e = entryAt(artifact, entry);
  return e ? static_cast<int32_t>(e->state.size()) : -1;
}

const char *tf_entry_point_state(const tf_artifact *artifact, int32_t entry,
                                 int32_t index) {
  const EntryPoint *e = entryAt(artifact, entry);
  if (!e || index < 0 || static_cast<size_t>(index) >= e->state.size())
    return nullptr;
  return artifact->impl->manifest().state[e->state[index]].name.c_str();
}

int32_t tf_artifact_num_state(const tf_artifact *artifact) {
  return artifact
             ? static_cast<int32_t>(artifact->impl->manifest().state.size())
             : -1;
}

tf_status tf_artifact_state(const tf_artifact *artifact, int32_t index,
                            tf_tensor_info *out) {
  return tensorInfo(artifact ? &artifact->impl->manifest().state : nullptr,
                    index, out, "tf_artifact_state");
}

int32_t tf_artifact_has_training(const tf_artifact *artifact) {
  return artifact && artifact->impl->manifest().training ? 1 : 0;
}

tf_status tf_artifact_training(const tf_artifact *artifact,
                               tf_training_info *out) {
  return guard([&] {
    require(artifact, "tf_artifact_training", "artifact");
    require(out, "tf_artifact_training", "out");
    const Manifest &manifest = artifact->impl->manifest();
    if (!manifest.training)
      fail(TF_ERROR_INVALID_ARGUMENT,
           "model '" + manifest.model + "' has no training section");
    const Training &training = *manifest.training;
    *out = tf_training_info();
    out->num_inputs = static_cast<int32_t>(artifact->trainingInputs.size());
    out->inputs = artifact->trainingInputs.data();
    out->num_labels = static_cast<int32_t>(artifact->trainingLabels.size());
    out->labels = artifact->trainingLabels.data();
    out->loss = training.loss.c_str();
    out->num_optimizer = static_cast<int32_t>(artifact->optimizer.size());
    out->optimizer = artifact->optimizer.data();
    out->num_schedule = static_cast<int32_t>(artifact->schedule.size());
    out->schedule = artifact->schedule.data();
    out->clip_grad_norm = training.clipGradNorm;
    out->seed = training.seed;
    out->ignore_index = training.ignoreIndex;
    out->all_reduce_buckets = static_cast<int32_t>(training.allReduceBuckets);
  });
}

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

tf_status tf_session_create(const tf_artifact *artifact, tf_session **out) {
  if (out)
    *out = nullptr;
  return guard([&] {
    require(artifact, "tf_session_create", "artifact");
    require(out, "tf_session_create", "out");
    *out = new tf_session{std::make_unique<Session>(artifact->impl),
                          tf_artifact(artifact->impl)};
  });
}

void tf_session_destroy(tf_session *session) { delete session; }

const tf_artifact *tf_session_artifact(const tf_session *session) {
  return session ? &session->artifact : nullptr;
}

tf_status tf_session_init_parameters(tf_session *session, uint64_t seed) {
  return guard([&] {
    require(session, "tf_session_init_parameters", "session");
    session->impl->initialize(seed);
  });
}

tf_status tf_session_load_parameters(tf_session *session, const char *path) {
  return guard([&] {
    require(session, "tf_session_load_parameters", "session");
    require(path, "tf_session_load_parameters", "path");
    session->impl->loadParameters(path);
  });
}

tf_status tf_session_save_parameters(tf_session *session, const char *path) {
  return guard([&] {
    require(session, "tf_session_save_parameters", "session");
    require(path, "tf_session_save_parameters", "path");
    session->impl->saveParameters(path);
  });
}

tf_status tf_session_parameter(tf_session *session, const char *name,
                               tf_tensor *out) {
  return guard([&] {
    require(session, "tf_session_parameter", "session");
    require(name, "tf_session_parameter", "name");
    require(out, "tf_session_parameter", "out");
    const TensorDesc *desc = nullptr;
    Buffer *buffer = session->impl->parameter(name, &desc);
    if (!buffer)
      fail(TF_ERROR_INVALID_ARGUMENT, "model '" +
                                          session->impl->manifest().model +
                                          "' has no parameter '" + name + "'");
    toView(desc->dtype, desc->shape, buffer->data(), out);
  });
}

tf_status tf_session_run(tf_session *session, const char *entry,
                         const tf_named_tensor *inputs, int32_t num_inputs,
                         tf_named_tensor *outputs, int32_t num_outputs) {
  return guard([&] {
    require(session, "tf_session_run", "session");
    require(entry, "tf_session_run", "entry");
    const Manifest &manifest = session->impl->manifest();
    int64_t entryIndex = manifest.findEntryPoint(entry);
    if (outputs && entryIndex >= 0 &&
        static_cast<size_t>(num_outputs) !=
            manifest.entryPoints[entryIndex].outputs.size())
      fail(TF_ERROR_INVALID_ARGUMENT,
           "tf_session_run: entry point '" + std::string(entry) + "' has " +
               std::to_string(manifest.entryPoints[entryIndex].outputs.size()) +
               " outputs, num_outputs is " + std::to_string(num_outputs));

    session->impl->run(entry,
                       namedInputs(inputs, num_inputs, "tf_session_run"));

    if (!outputs)
      return;
    const EntryPoint &e = manifest.entryPoints[entryIndex];
    for (size_t i = 0; i < e.outputs.size(); ++i) {
      outputs[i].name = e.outputs[i].name.c_str();
      toView(e.outputs[i].dtype, e.outputs[i].shape,
             session->impl->output(entryIndex, i).data(), &outputs[i].tensor);
    }
  });
}

tf_status tf_session_output(tf_session *session, const char *entry,
                            const char *name, tf_tensor *out) {
  return guard([&] {
    require(session, "tf_session_output", "session");
    require(entry, "tf_session_output", "entry");
    require(name, "tf_session_output", "name");
    require(out, "tf_session_output", "out");
    const Manifest &manifest = session->impl->manifest();
    int64_t entryIndex = manifest.findEntryPoint(entry);
    if (entryIndex < 0)
      fail(TF_ERROR_INVALID_ARGUMENT,
           "model '" + manifest.model + "' has no entry point '" + entry + "'");
    const EntryPoint &e = manifest.entryPoints[entryIndex];
    for (size_t i = 0; i < e.outputs.size(); ++i) {
      if (e.outputs[i].name != name)
        continue;
      toView(e.outputs[i].dtype, e.outputs[i].shape,
             session->impl->output(entryIndex, i).data(), out);
      return;
    }
    fail(TF_ERROR_INVALID_ARGUMENT,
         "entry point '" + e.name + "' has no output '" + name + "'");
  });
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

tf_status tf_session_state(tf_session *session, const char *name,
                           tf_tensor *out) {
  return guard([&] {
    require(session, "tf_session_state", "session");
    require(name, "tf_session_state", "name");
    require(out, "tf_session_state", "out");
    const TensorDesc *desc = nullptr;
    Buffer *buffer = session->impl->state(name, &desc);
    if (!buffer)
      fail(TF_ERROR_INVALID_ARGUMENT,
           "model '" + session->impl->manifest().model +
               "' has no state tensor '" + name + "'");
    toView(desc->dtype, desc->shape, buffer->data(), out);
  });
}

int64_t tf_session_step(const tf_session *session) {
  return session ? session->impl->step() : -1;
}

tf_status tf_session_train_step(tf_session *session,
                                const tf_named_tensor *inputs,
                                int32_t num_inputs, tf_train_result *out) {
  return guard([&] {
    require(session, "tf_session_train_step", "session");
    Session &impl = *session->impl;
    impl.trainStep(namedInputs(inputs, num_inputs, "tf_session_train_step"));
    if (!out)
      return;
    const Manifest &manifest = impl.manifest();
    size_t entry = static_cast<size_t>(manifest.findEntryPoint(kTrainStep));
    auto scalar = [&](const char *name) {
      float value;
      size_t index =
          static_cast<size_t>(manifest.entryPoints[entry].findOutput(name));
      std::memcpy(&value, impl.output(entry, index).data(), sizeof value);
      return value;
    };
    out->step = impl.step();
    out->loss = scalar("loss");
    out->grad_norm = scalar("grad_norm");
    out->lr = scalar("lr");
  });
}

tf_status tf_session_save_checkpoint(tf_session *session, const char *path,
                                     const tf_key_value *metadata,
                                     int32_t num_metadata) {
  return guard([&] {
    require(session, "tf_session_save_checkpoint", "session");
    require(path, "tf_session_save_checkpoint", "path");
    if (num_metadata < 0 || (num_metadata > 0 && !metadata))
      fail(TF_ERROR_INVALID_ARGUMENT,
           "tf_session_save_checkpoint: bad metadata array");
    std::map<std::string, std::string> entries;
    for (int32_t i = 0; i < num_metadata; ++i) {
      if (!metadata[i].key || !metadata[i].value)
        fail(TF_ERROR_INVALID_ARGUMENT, "tf_session_save_checkpoint: "
                                        "metadata entry " +
                                            std::to_string(i) +
                                            " has no key or value");
      if (!entries.emplace(metadata[i].key, metadata[i].value).second)
        fail(TF_ERROR_INVALID_ARGUMENT,
             "tf_session_save_checkpoint: metadata key '" +
                 std::string(metadata[i].key) + "' given twice");
    }
    session->impl->saveCheckpoint(path, entries);
  });
}

tf_status tf_session_load_checkpoint(tf_session *session,
                                     const tf_tensor_file *checkpoint) {
  return guard([&] {
    require(session, "tf_session_load_checkpoint", "session");
    require(checkpoint, "tf_session_load_checkpoint", "checkpoint");
    session->impl->loadCheckpoint(checkpoint->impl);
  });
}

//===----------------------------------------------------------------------===//
// safetensors files
//===----------------------------------------------------------------------===//

tf_status tf_tensor_file_read(const char *path, tf_tensor_file **out) {
  if (out)
    *out = nullptr;
  return guard([&] {
    require(path, "tf_tensor_file_read", "path");
    require(out, "tf_tensor_file_read", "out");
    *out = new tf_tensor_file{TensorFile::read(path)};
  });
}

void tf_tensor_file_close(tf_tensor_file *file) { delete file; }

int32_t tf_tensor_file_count(const tf_tensor_file *file) {
  return file ? static_cast<int32_t>(file->impl.tensors().size()) : -1;
}

tf_status tf_tensor_file_get(const tf_tensor_file *file, int32_t index,
                             tf_named_tensor *out) {
  return guard([&] {
    require(file, "tf_tensor_file_get", "file");
    require(out, "tf_tensor_file_get", "out");
    if (index < 0 || static_cast<size_t>(index) >= file->impl.tensors().size())
      fail(TF_ERROR_INVALID_ARGUMENT, "tf_tensor_file_get: index " +
                                          std::to_string(index) +
                                          " out of range");
    const StoredTensor &tensor = file->impl.tensors()[index];
    try {
      toView(tensor.dtype, tensor.shape, tensor.data, &out->tensor);
    } catch (const Error &error) {
      fail(error.status(), inQuotes(file->impl.path()) + ": tensor '" +
                               tensor.name + "': " + error.what());
    }
    out->name = tensor.name.c_str();
  });
}

tf_status tf_tensor_file_find(const tf_tensor_file *file, const char *name,
                              tf_tensor *out) {
  return guard([&] {
    require(file, "tf_tensor_file_find", "file");
    require(name, "tf_tensor_file_find", "name");
    require(out, "tf_tensor_file_find", "out");
    const StoredTensor *tensor = file->impl.find(name);
    if (!tensor)
      fail(TF_ERROR_INVALID_ARGUMENT,
           inQuotes(file->impl.path()) + ": no tensor '" + name + "'");
    toView(tensor->dtype, tensor->shape, tensor->data, out);
  });
}

const char *tf_tensor_file_metadata(const tf_tensor_file *file,
                                    const char *key) {
  if (!file || !key)
    return nullptr;
  auto it = file->impl.metadata().find(key);
  return it == file->impl.metadata().end() ? nullptr : it->second.c_str();
}

tf_status tf_tensor_file_write(const char *path, const tf_named_tensor *tensors,
                               int32_t count) {
  return guard([&] {
    require(path, "tf_tensor_file_write", "path");
    if (count < 0 || (count > 0 && !tensors))
      fail(TF_ERROR_INVALID_ARGUMENT, "tf_tensor_file_write: bad tensor array");
    std::vector<TensorToWrite> list;
    for (int32_t i = 0; i < count; ++i) {
      if (!tensors[i].name)
        fail(TF_ERROR_INVALID_ARGUMENT, "tf_tensor_file_write: tensor " +
                                            std::to_string(i) + " has no name");
      std::string what = "tensor '" + std::string(tensors[i].name) + "'";
      Shape shape = shapeOf(tensors[i].tensor, what);
      size_t bytes = static_cast<size_t>(checkedNumel(shape)) *
                     dtypeSize(tensors[i].tensor.dtype);
      if (bytes && !tensors[i].tensor.data)
        fail(TF_ERROR_INVALID_ARGUMENT, what + " has no data");
      list.push_back({tensors[i].name, tensors[i].tensor.dtype,
                      std::move(shape), tensors[i].tensor.data, bytes});
    }
    writeTensorFile(path, std::move(list), {});
  });
}

} // extern "C"
