//===- Session.cpp - A session's parameters: init, load, save -------------===//
//
// A session owns one 64-byte aligned buffer per manifest parameter. Loading
// checks the whole file against the manifest before copying anything, so a
// failed load leaves the parameters as they were.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <cstring>

namespace transfuse::rt {

Session::Session(std::shared_ptr<const Artifact> artifact)
    : artifact_(std::move(artifact)) {
  ensureThreadsApplied();
  const Manifest &m = manifest();
  parameters_.reserve(m.parameters.size());
  for (const TensorDesc &param : m.parameters)
    parameters_.emplace_back(param.bytes);
  outputs_.resize(m.entryPoints.size());
}

void Session::initialize(uint64_t seed) {
  const Manifest &m = manifest();
  for (size_t i = 0; i < m.parameters.size(); ++i)
    initializeTensor(m.parameters[i], seed, parameters_[i].data());
}

void Session::loadParameters(const std::string &path) {
  TensorFile file = TensorFile::read(path);
  std::string where = inQuotes(path);
  const Manifest &m = manifest();
  std::vector<const StoredTensor *> sources;
  for (const TensorDesc &param : m.parameters) {
    const StoredTensor *tensor = file.find(param.name);
    if (!tensor)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + ": parameter '" + param.name + "' is missing");
    if (tensor->dtype != param.dtype)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + ": parameter '" + param.name + "' is " +
               safetensorsDtypeName(tensor->dtype) + ", the model expects " +
               safetensorsDtypeName(param.dtype));
    if (tensor->shape != param.shape)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + ": parameter '" + param.name + "' has shape " +
               shapeString(tensor->shape) + ", the model expects " +
               shapeString(param.shape));
    sources.push_back(tensor);
  }
  for (const StoredTensor &tensor : file.tensors())
    if (m.findParameter(tensor.name) < 0)
      fail(TF_ERROR_INVALID_ARGUMENT, where + ": tensor '" + tensor.name +
                                          "' is not a parameter of model '" +
                                          m.model + "'");
  for (size_t i = 0; i < sources.size(); ++i)
    if (sources[i]->bytes)
      std::memcpy(parameters_[i].data(), sources[i]->data, sources[i]->bytes);
}

void Session::saveParameters(const std::string &path) const {
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
  int64_t index = manifest().findParameter(name);
  if (index < 0)
    return nullptr;
  if (desc)
    *desc = &manifest().parameters[index];
  return &parameters_[index];
}

Buffer &Session::output(size_t entry, size_t index) {
  std::vector<Buffer> &buffers = outputs_[entry];
  if (buffers.empty())
    for (const TensorDesc &output : manifest().entryPoints[entry].outputs)
      buffers.emplace_back(output.bytes);
  return buffers[index];
}

} // namespace transfuse::rt
