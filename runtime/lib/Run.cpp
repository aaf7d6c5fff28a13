//===- Run.cpp - Bind inputs, check them, call an entry point -------------===//
//
// The entry-point ABI (docs/artifact.md): one pointer per tensor, the entry
// point's parameters in manifest order, then its state tensors, then its
// cache tensors, then its inputs, then its outputs.
// Everything the caller passes is checked against the manifest first, so
// the generated code (which trusts its shapes and indexes with its ids)
// never sees a wrong buffer.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <cstring>

namespace transfuse::rt {
namespace {

std::string listNames(const std::vector<TensorDesc> &tensors) {
  if (tensors.empty())
    return "none";
  std::string names;
  for (const TensorDesc &tensor : tensors)
    names += (names.empty() ? "'" : ", '") + tensor.name + "'";
  return names;
}

/// Checks that every id is in [0, max_value] or, for labels, the value the
/// loss skips.
template <typename T>
void checkIds(const std::string &where, const TensorDesc &input, const T *ids) {
  for (int64_t i = 0; i < input.numel; ++i) {
    if ((ids[i] >= 0 && ids[i] <= input.maxValue) ||
        (input.ignoreValue && ids[i] == *input.ignoreValue))
      continue;
    fail(TF_ERROR_INVALID_ARGUMENT,
         where + "input '" + input.name + "': element " + std::to_string(i) +
             " (index " + indexString(input.shape, i) + ") is " +
             std::to_string(ids[i]) + ", outside [0, " +
             std::to_string(input.maxValue) + "]" +
             (input.ignoreValue ? " and not the ignored label " +
                                      std::to_string(*input.ignoreValue)
                                : ""));
  }
}

void checkBools(const std::string &where, const TensorDesc &input,
                const uint8_t *values) {
  for (int64_t i = 0; i < input.numel; ++i) {
    if (values[i] <= 1)
      continue;
    fail(TF_ERROR_INVALID_ARGUMENT,
         where + "input '" + input.name + "': element " + std::to_string(i) +
             " (index " + indexString(input.shape, i) + ") is " +
             std::to_string(values[i]) + ", a bool must be 0 or 1");
  }
}

} // namespace

void Session::run(std::string_view entryName,
                  const std::vector<NamedInput> &inputs) {
  const Manifest &m = manifest();
  int64_t entryIndex = m.findEntryPoint(entryName);
  if (entryIndex < 0) {
    std::string names;
    for (const EntryPoint &entry : m.entryPoints)
      names += (names.empty() ? "'" : ", '") + entry.name + "'";
    fail(TF_ERROR_INVALID_ARGUMENT,
         "model '" + m.model + "' has no entry point '" +
             std::string(entryName) + "' (it has " + names + ")");
  }
  const EntryPoint &entry = m.entryPoints[entryIndex];
  std::string where = "entry point '" + entry.name + "': ";

  // Bind by name.
  std::vector<const NamedInput *> bound(entry.inputs.size(), nullptr);
  for (const NamedInput &input : inputs) {
    size_t index = 0;
    while (index < entry.inputs.size() &&
           entry.inputs[index].name != input.name)
      ++index;
    if (index == entry.inputs.size())
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + "no input named '" + std::string(input.name) +
               "' (its inputs: " + listNames(entry.inputs) + ")");
    if (bound[index])
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + "input '" + std::string(input.name) + "' given twice");
    bound[index] = &input;
  }

  // Check, and copy what the generated code could not load as it is.
  std::vector<Buffer> copies;
  std::vector<void *> buffers;
  buffers.reserve(entry.parameters.size() + entry.state.size() +
                  entry.cache.size() + entry.inputs.size() +
                  entry.outputs.size());
  for (size_t param : entry.parameters)
    buffers.push_back(parameters_[param].data());
  for (size_t state : entry.state)
    buffers.push_back(state_[state].data());
  // A device session keeps the cache on the device and has none here.
  for (size_t cache : entry.cache)
    buffers.push_back(device_ ? nullptr : cache_[cache].data());
  for (size_t i = 0; i < entry.inputs.size(); ++i) {
    const TensorDesc &desc = entry.inputs[i];
    const NamedInput *input = bound[i];
    if (!input)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + "input '" + desc.name + "' is missing");
    if (input->dtype != desc.dtype)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + "input '" + desc.name + "' is " + dtypeName(input->dtype) +
               ", expected " + dtypeName(desc.dtype));
    if (input->shape != desc.shape)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + "input '" + desc.name + "' has shape " +
               shapeString(input->shape) + ", expected " +
               shapeString(desc.shape));
    if (!input->data && desc.bytes)
      fail(TF_ERROR_INVALID_ARGUMENT,
           where + "input '" + desc.name + "' has no data");
    const void *data = input->data;
    if (reinterpret_cast<uintptr_t>(data) % dtypeSize(desc.dtype)) {
      copies.emplace_back(desc.bytes);
      std::memcpy(copies.back().data(), data, desc.bytes);
      data = copies.back().data();
    }
    if (desc.maxValue >= 0 && desc.dtype == TF_I64)
      checkIds(where, desc, static_cast<const int64_t *>(data));
    if (desc.maxValue >= 0 && desc.dtype == TF_I32)
      checkIds(where, desc, static_cast<const int32_t *>(data));
    if (desc.dtype == TF_BOOL)
      checkBools(where, desc, static_cast<const uint8_t *>(data));
    // The ABI never writes inputs.
    buffers.push_back(const_cast<void *>(data));
  }
  for (size_t i = 0; i < entry.outputs.size(); ++i)
    buffers.push_back(output(entryIndex, i).data());
  size_t firstInput =
      entry.parameters.size() + entry.state.size() + entry.cache.size();

  if (device_) {
    if (newer_ == Newer::Host) {
      device_->upload(parameters_, state_);
      newer_ = Newer::Neither;
    }
    std::vector<const void *> hostInputs(buffers.begin() + firstInput,
                                         buffers.begin() + firstInput +
                                             entry.inputs.size());
    device_->run(entryIndex, hostInputs, outputs_[entryIndex]);
    if (entry.updates)
      newer_ = Newer::Device;
  } else {
    int32_t status = entry.fn(buffers.data());
    if (status != 0)
      fail(TF_ERROR_EXECUTION, where + "the generated code failed (returned " +
                                   std::to_string(status) + ")");
  }
  // The step an update took is the one the session has now completed.
  int64_t stepInput = entry.findInput(kStepInput);
  if (entry.updates && stepInput >= 0 &&
      entry.inputs[stepInput].dtype == TF_I64 &&
      entry.inputs[stepInput].shape.empty())
    std::memcpy(&step_, buffers[firstInput + stepInput], sizeof step_);
}

void Session::trainStep(const std::vector<NamedInput> &inputs) {
  int64_t next = step_ + 1;
  for (const NamedInput &input : inputs)
    if (input.name == kStepInput)
      fail(TF_ERROR_INVALID_ARGUMENT,
           "entry point 'train_step': input 'step' is the session's (the "
           "next is " +
               std::to_string(next) + "); do not pass it");
  std::vector<NamedInput> withStep = inputs;
  withStep.push_back({kStepInput, TF_I64, {}, &next});
  run(kTrainStep, withStep);
}

} // namespace transfuse::rt
