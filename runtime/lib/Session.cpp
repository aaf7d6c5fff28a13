//===- Session.cpp - A session's tensors: init, load, save ----------------===//
//
// A session owns one 64-byte aligned buffer per manifest parameter and per
// optimizer state tensor. Loading checks the whole file against the manifest
// before copying anything, so a failed load leaves the session as it was.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <cstring>

namespace transfuse::rt {
namespace {

/// One buffer per tensor; running out of memory names the tensor, its size
/// and what the session already holds.
std::vector<Buffer> allocate(const std::vector<TensorDesc> &tensors,
                             const char *kind) {
  std::vector<Buffer> buffers;
  buffers.reserve(tensors.size());
  size_t held = 0;
  for (const TensorDesc &tensor : tensors) {
    try {
      buffers.emplace_back(tensor.bytes);
    } catch (const std::bad_alloc &) {
      fail(TF_ERROR_EXECUTION,
           std::string("out of memory allocating ") + kind + " '" +
               tensor.name + "' " + shapeString(tensor.shape) + ": " +
               std::to_string(tensor.bytes) + " bytes, after " +
               std::to_string(held) + " bytes for the tensors before it");
    }
    held += tensor.bytes;
  }
  return buffers;
}

Buffer *find(std::vector<Buffer> &buffers, const std::vector<TensorDesc> &descs,
             std::string_view name, const TensorDesc **desc) {
  for (size_t i = 0; i < descs.size(); ++i) {
    if (descs[i].name != name)
      continue;
    if (desc)
      *desc = &descs[i];
    return &buffers[i];
  }
  return nullptr;
}

} // namespace

std::vector<const StoredTensor *>
matchTensors(const TensorFile &file, const std::vector<TensorDesc> &tensors,
             const char *kind) {
  std::string where = inQuotes(file.path()) + ": " + kind + " '";
  std::vector<const StoredTensor *> sources;
  for (const TensorDesc &desc : tensors) {
    const StoredTensor *tensor = file.find(desc.name);
    if (!tensor)
      fail(TF_ERROR_INVALID_ARGUMENT, where + desc.name + "' is missing");
    if (tensor->dtype != desc.dtype)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + desc.name + "' is " + safetensorsDtypeName(tensor->dtype) +
               ", the model expects " + safetensorsDtypeName(desc.dtype));
    if (tensor->shape != desc.shape)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + desc.name + "' has shape " + shapeString(tensor->shape) +
               ", the model expects " + shapeString(desc.shape));
    sources.push_back(tensor);
  }
  return sources;
}

void checkNoOtherTensors(const TensorFile &file, const Manifest &manifest) {
  for (const StoredTensor &tensor : file.tensors())
    if (manifest.findParameter(tensor.name) < 0 &&
        manifest.findState(tensor.name) < 0)
      fail(TF_ERROR_INVALID_ARGUMENT,
           inQuotes(file.path()) + ": tensor '" + tensor.name + "' is not " +
               (manifest.state.empty() ? "a parameter"
                                       : "a parameter or state tensor") +
               " of model '" + manifest.model + "'");
}

Session::Session(std::shared_ptr<const Artifact> artifact)
    : artifact_(std::move(artifact)) {
  ensureThreadsApplied();
  if (manifest().target == kCudaTarget)
    device_ = openCudaDevice(*artifact_);
  parameters_ = allocate(manifest().parameters, "parameter");
  state_ = allocate(manifest().state, "optimizer state");
  // The device keeps its own cache.
  if (!device_)
    cache_ = allocate(manifest().cache, "decoding cache");
  // Rows past a sequence's position are never attended to, but they are
  // read: zero keeps them finite.
  for (Buffer &buffer : cache_)
    std::memset(buffer.data(), 0, buffer.size());
  outputs_.resize(manifest().entryPoints.size());
}

void Session::refreshHost() const {
  if (device_ && newer_ == Newer::Device) {
    device_->download(parameters_, state_);
    newer_ = Newer::Neither;
  }
}

void Session::initialize(uint64_t seed) {
  const Manifest &m = manifest();
  // All or nothing: refused before any parameter changes.
  for (const TensorDesc &param : m.parameters)
    if (param.init.kind == TF_INIT_EXTERNAL)
      fail(TF_ERROR_INVALID_ARGUMENT,
           "parameter '" + param.name + "' of model '" + m.model +
               "' has no initialiser: its values come with the model (the "
               "weights file transfuse-compile wrote from the ONNX "
               "initializers); load them instead (--weights)");
  for (size_t i = 0; i < m.parameters.size(); ++i)
    initializeTensor(m.parameters[i], seed, parameters_[i].data());
  for (Buffer &buffer : state_)
    std::memset(buffer.data(), 0, buffer.size());
  step_ = 0;
  hostChanged();
}

void Session::loadParameters(const std::string &path) {
  TensorFile file = TensorFile::read(path);
  std::vector<const StoredTensor *> sources =
      matchTensors(file, manifest().parameters, "parameter");
  checkNoOtherTensors(file, manifest());
  // The state stays as it is: bring it up to date before the upload that
  // the new parameters cause.
  refreshHost();
  for (size_t i = 0; i < sources.size(); ++i)
    if (sources[i]->bytes)
      std::memcpy(parameters_[i].data(), sources[i]->data, sources[i]->bytes);
  hostChanged();
}

void Session::saveParameters(const std::string &path) const {
  refreshHost();
  const Manifest &m = manifest();
  std::vector<TensorToWrite> tensors;
  for (size_t i = 0; i < m.parameters.size(); ++i) {
    const TensorDesc &param = m.parameters[i];
    tensors.push_back({param.name, param.dtype, param.shape,
                       parameters_[i].data(), param.bytes});
  }
  writeTensorFile(path, std::move(tensors),
                  {{"format", "pt"}, {"model", m.model}});
}

Buffer *Session::parameter(std::string_view name, const TensorDesc **desc) {
  // The caller may write through the buffer.
  refreshHost();
  hostChanged();
  return find(parameters_, manifest().parameters, name, desc);
}

Buffer *Session::state(std::string_view name, const TensorDesc **desc) {
  refreshHost();
  hostChanged();
  return find(state_, manifest().state, name, desc);
}

Buffer &Session::output(size_t entry, size_t index) {
  std::vector<Buffer> &buffers = outputs_[entry];
  if (buffers.empty())
    buffers = allocate(manifest().entryPoints[entry].outputs, "output");
  return buffers[index];
}

} // namespace transfuse::rt
