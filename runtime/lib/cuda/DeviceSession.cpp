//===- DeviceSession.cpp - Device, context, stream, modules, buffers ------===//
#include "DeviceSession.h"

#include "CublasLt.h"
#include "Execution.h"
#include "Nccl.h"

#include <algorithm>
#include <cstdlib>

namespace transfuse::rt::cuda {
namespace {

std::string archName(const char *prefix, int major, int minor) {
  return prefix + std::to_string(major * 10 + minor);
}

/// The number of an "sm_90" / "compute_90" architecture (90).
int archNumber(const std::string &arch) {
  return std::atoi(arch.c_str() + arch.find('_') + 1);
}

std::string listImages(const CudaCode &code) {
  std::string list;
  for (const CudaImage &image : code.images)
    list += (list.empty() ? "" : ", ") + image.arch;
  return list;
}

} // namespace

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

DeviceBuffer::DeviceBuffer(size_t bytes, const std::string &what)
    : size_(bytes) {
  if (bytes == 0)
    return;
  CUresult result = driver().cuMemAlloc(&address_, bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    size_t freeBytes = 0, totalBytes = 0;
    driver().cuMemGetInfo(&freeBytes, &totalBytes);
    fail(TF_ERROR_EXECUTION, "out of GPU memory allocating " + what + " (" +
                                 std::to_string(bytes) + " bytes; " +
                                 std::to_string(freeBytes) + " of " +
                                 std::to_string(totalBytes) + " bytes free)");
  }
  check(result,
        "allocating " + what + " (" + std::to_string(bytes) + " bytes)");
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : address_(other.address_), size_(other.size_) {
  other.address_ = 0;
  other.size_ = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(address_, other.address_);
  std::swap(size_, other.size_);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (address_)
    driver().cuMemFree(address_);
}

//===----------------------------------------------------------------------===//
// DeviceSession
//===----------------------------------------------------------------------===//

DeviceSession::DeviceSession(const Artifact &artifact)
    : manifest_(artifact.manifest()), graphsEnabled_(graphsFromEnvironment()),
      collectivesLive_(manifest_.training &&
                       manifest_.training->allReduceBuckets > 0 &&
                       ncclCollectivesLive()) {
  const Driver &d = driver();
  selectDevice();
  check(d.cuDevicePrimaryCtxRetain(&context_, device_),
        "retaining the GPU's context");
  try {
    check(d.cuCtxSetCurrent(context_), "making the GPU's context current");
    check(d.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
          "creating a stream");
    loadKernels(artifact);
    for (const TensorDesc &param : manifest_.parameters)
      parameters_.emplace_back(param.bytes, "parameter '" + param.name + "'");
    for (const TensorDesc &tensor : manifest_.state)
      state_.emplace_back(tensor.bytes,
                          "optimizer state '" + tensor.name + "'");
    // Rows past a sequence's position are never attended to, but they are
    // read: zero keeps them finite.
    for (const TensorDesc &tensor : manifest_.cache) {
      cache_.emplace_back(tensor.bytes, "decoding cache '" + tensor.name + "'");
      if (tensor.bytes)
        check(d.cuMemsetD8Async(cache_.back().address(), 0, tensor.bytes,
                                stream_),
              "zeroing the decoding cache");
    }
    synchronize("zeroing the decoding cache");
    uint64_t arenaBytes = 0;
    for (const EntryPoint &entry : manifest_.entryPoints)
      arenaBytes = std::max(arenaBytes, entry.arenaBytes);
    arena_ = DeviceBuffer(arenaBytes, "the temporaries' arena");
    workspace_ =
        DeviceBuffer(manifest_.cuda->workspaceBytes, "the library workspace");
    inputs_.resize(manifest_.entryPoints.size());
    outputs_.resize(manifest_.entryPoints.size());
    graphs_.resize(manifest_.entryPoints.size());
  } catch (...) {
    release();
    throw;
  }
}

DeviceSession::~DeviceSession() { release(); }

void DeviceSession::release() {
  if (!context_)
    return;
  const Driver &d = driver();
  d.cuCtxSetCurrent(context_);
  if (stream_)
    d.cuStreamSynchronize(stream_);
  // Everything on the device goes before the context is released, the
  // graphs before the modules whose kernels they launch.
  graphs_.clear();
  cublasLt_.reset();
  collectives_.reset();
  parameters_.clear();
  state_.clear();
  cache_.clear();
  inputs_.clear();
  outputs_.clear();
  arena_ = DeviceBuffer();
  workspace_ = DeviceBuffer();
  for (CUmodule module : library_.modules)
    d.cuModuleUnload(module);
  library_ = KernelLibrary();
  if (module_)
    d.cuModuleUnload(module_);
  module_ = nullptr;
  if (stream_)
    d.cuStreamDestroy(stream_);
  stream_ = nullptr;
  d.cuDevicePrimaryCtxRelease(device_);
  context_ = nullptr;
}

void DeviceSession::selectDevice() {
  const Driver &d = driver();
  int count = 0;
  check(d.cuDeviceGetCount(&count), "counting GPUs");
  if (count == 0)
    fail(TF_ERROR_UNSUPPORTED, "no CUDA GPU: the driver finds no device");
  // The first visible GPU; CUDA_VISIBLE_DEVICES picks another.
  check(d.cuDeviceGet(&device_, 0), "opening GPU 0");
  check(d.cuDeviceGetAttribute(&computeMajor_,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                               device_),
        "reading the GPU's compute capability");
  check(d.cuDeviceGetAttribute(&computeMinor_,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                               device_),
        "reading the GPU's compute capability");
  char name[256] = {};
  check(d.cuDeviceGetName(name, sizeof(name) - 1, device_),
        "reading the GPU's name");
  deviceName_ = std::string(name) + " (" +
                archName("sm_", computeMajor_, computeMinor_) + ")";
}

void DeviceSession::loadKernels(const Artifact &artifact) {
  const CudaCode &code = *manifest_.cuda;
  int device = computeMajor_ * 10 + computeMinor_;
  // A cubin runs on GPUs of its major version and at least its minor one;
  // PTX is compiled by the driver for its architecture or any later one.
  const CudaImage *best = nullptr;
  for (const CudaImage &image : code.images) {
    int arch = archNumber(image.arch);
    bool runs = image.ptx ? arch <= device
                          : arch / 10 == computeMajor_ && arch <= device;
    if (!runs)
      continue;
    if (!best || (best->ptx && !image.ptx) ||
        (best->ptx == image.ptx && arch > archNumber(best->arch)))
      best = &image;
  }
  const std::string where = inQuotes(artifact.path());
  if (!best)
    fail(TF_ERROR_UNSUPPORTED, where + " has kernels for " + listImages(code) +
                                   ", none of which runs on this GPU, " +
                                   deviceName_);
  const void *image = artifact.symbol(best->symbol);
  if (!image)
    fail(TF_ERROR_FORMAT, where + ": kernel image symbol '" + best->symbol +
                              "' is not defined by the code");

  char log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUresult result =
      driver().cuModuleLoadDataEx(&module_, image, 2, options, values);
  if (result != CUDA_SUCCESS)
    fail(TF_ERROR_EXECUTION, where + ": loading its " + best->arch +
                                 (best->ptx ? " PTX" : " cubin") + " on " +
                                 deviceName_ + ": " + errorText(result) +
                                 (log[0] ? std::string(": ") + log : ""));
  for (const std::string &name : code.kernels) {
    CUfunction function = nullptr;
    check(driver().cuModuleGetFunction(&function, module_, name.c_str()),
          where + ": kernel '" + name + "'");
    kernels_.push_back(function);
  }
  library_ = loadKernelLibrary();
}

CUfunction DeviceSession::kernel(int64_t index) const {
  if (index < 0 || static_cast<size_t>(index) >= kernels_.size())
    fail(TF_ERROR_EXECUTION, "no generated kernel " + std::to_string(index) +
                                 " (the artifact has " +
                                 std::to_string(kernels_.size()) + ")");
  return kernels_[index];
}

CUfunction DeviceSession::libraryKernel(const char *symbol) const {
  auto found = library_.kernels.find(symbol);
  if (found != library_.kernels.end())
    return found->second;
  fail(TF_ERROR_EXECUTION,
       std::string("the runtime has no CUDA kernel '") + symbol + "'");
}

void DeviceSession::allowSharedBytes(CUfunction function, const char *symbol,
                                     unsigned bytes) {
  unsigned &allowed = sharedBytesAllowed_[function];
  if (bytes <= allowed)
    return;
  check(driver().cuFuncSetAttribute(
            function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            static_cast<int>(bytes)),
        std::string("allowing kernel ") + symbol + " " + std::to_string(bytes) +
            " bytes of shared memory");
  allowed = bytes;
}

CublasLt &DeviceSession::cublasLt() {
  if (!cublasLt_)
    cublasLt_ = std::make_unique<CublasLt>(manifest_.cuda->tf32);
  return *cublasLt_;
}

NcclCollectives *DeviceSession::collectives() {
  if (collectivesLive_ && !collectives_)
    collectives_ = std::make_unique<NcclCollectives>();
  return collectives_.get();
}

void DeviceSession::synchronize(const std::string &what) {
  check(driver().cuStreamSynchronize(stream_), what);
}

void DeviceSession::upload(const std::vector<Buffer> &parameters,
                           const std::vector<Buffer> &state) {
  const Driver &d = driver();
  check(d.cuCtxSetCurrent(context_), "making the GPU's context current");
  auto copy = [&](const std::vector<Buffer> &from,
                  const std::vector<DeviceBuffer> &to) {
    for (size_t i = 0; i < from.size(); ++i)
      if (to[i].size())
        check(d.cuMemcpyHtoDAsync(to[i].address(), from[i].data(), to[i].size(),
                                  stream_),
              "copying the parameters to the GPU");
  };
  copy(parameters, parameters_);
  copy(state, state_);
  synchronize("copying the parameters to the GPU");
}

void DeviceSession::download(std::vector<Buffer> &parameters,
                             std::vector<Buffer> &state) {
  const Driver &d = driver();
  check(d.cuCtxSetCurrent(context_), "making the GPU's context current");
  auto copy = [&](const std::vector<DeviceBuffer> &from,
                  std::vector<Buffer> &to) {
    for (size_t i = 0; i < from.size(); ++i)
      if (from[i].size())
        check(d.cuMemcpyDtoHAsync(to[i].data(), from[i].address(),
                                  from[i].size(), stream_),
              "copying the parameters from the GPU");
  };
  copy(parameters_, parameters);
  copy(state_, state);
  synchronize("copying the parameters from the GPU");
}

int32_t DeviceSession::launchEntry(const EntryPoint &entry, EntryGraph &graph,
                                   std::vector<void *> &buffers) {
  if (graph.captured()) {
    graph.launch(stream_);
    return 0;
  }
  // A step that exchanges gradients runs kernel by kernel: a captured
  // all-reduce would keep the weight of the step it was captured in.
  bool exchanges = collectivesLive_ && (entry.name == "train_step" ||
                                        entry.name == "loss_and_grads");
  bool capture = graphsEnabled_ && !exchanges && graph.capturesNext();
  if (capture)
    graph.beginCapture(stream_);
  int32_t status = 0;
  std::string failure;
  {
    Execution execution(*this);
    status = entry.fn(buffers.data());
    failure = execution.error();
  }
  bool succeeded = failure.empty() && status == 0;
  if (capture)
    graph.endCapture(stream_, succeeded);
  if (!failure.empty())
    fail(TF_ERROR_EXECUTION, failure);
  if (!capture)
    graph.ranUncaptured();
  else if (succeeded)
    graph.launch(stream_);
  return status;
}

void DeviceSession::run(size_t entryIndex,
                        const std::vector<const void *> &inputs,
                        std::vector<Buffer> &outputs) {
  const Driver &d = driver();
  const EntryPoint &entry = manifest_.entryPoints[entryIndex];
  const std::string where = "entry point '" + entry.name + "': ";
  check(d.cuCtxSetCurrent(context_), "making the GPU's context current");
  std::vector<DeviceBuffer> &deviceInputs = inputs_[entryIndex];
  std::vector<DeviceBuffer> &deviceOutputs = outputs_[entryIndex];
  if (deviceInputs.empty())
    for (const TensorDesc &input : entry.inputs)
      deviceInputs.emplace_back(input.bytes, "input '" + input.name + "'");
  if (deviceOutputs.empty())
    for (const TensorDesc &output : entry.outputs)
      deviceOutputs.emplace_back(output.bytes, "output '" + output.name + "'");

  std::vector<void *> buffers;
  for (size_t param : entry.parameters)
    buffers.push_back(parameters_[param].pointer());
  for (size_t state : entry.state)
    buffers.push_back(state_[state].pointer());
  for (size_t cache : entry.cache)
    buffers.push_back(cache_[cache].pointer());
  for (size_t i = 0; i < entry.inputs.size(); ++i) {
    if (deviceInputs[i].size())
      check(d.cuMemcpyHtoDAsync(deviceInputs[i].address(), inputs[i],
                                deviceInputs[i].size(), stream_),
            where + "copying input '" + entry.inputs[i].name + "' to the GPU");
    buffers.push_back(deviceInputs[i].pointer());
  }
  for (const DeviceBuffer &output : deviceOutputs)
    buffers.push_back(output.pointer());
  buffers.push_back(arena_.pointer());

  std::string failure;
  int32_t status = 0;
  try {
    status = launchEntry(entry, graphs_[entryIndex], buffers);
  } catch (const Error &error) {
    failure = error.what();
  }
  // Kernel faults surface here, when the stream drains.
  CUresult drained = d.cuStreamSynchronize(stream_);
  if (!failure.empty())
    fail(TF_ERROR_EXECUTION, where + failure);
  if (drained != CUDA_SUCCESS)
    fail(TF_ERROR_EXECUTION,
         where + "the GPU failed running it: " + errorText(drained));
  if (status != 0)
    fail(TF_ERROR_EXECUTION, where + "the generated code failed (returned " +
                                 std::to_string(status) + ")");
  for (size_t i = 0; i < entry.outputs.size(); ++i)
    if (deviceOutputs[i].size())
      check(d.cuMemcpyDtoHAsync(outputs[i].data(), deviceOutputs[i].address(),
                                deviceOutputs[i].size(), stream_),
            where + "copying output '" + entry.outputs[i].name +
                "' from the GPU");
  synchronize(where + "copying its outputs from the GPU");
}

} // namespace transfuse::rt::cuda

namespace transfuse::rt {

bool cudaSupported() { return true; }

std::unique_ptr<Device> openCudaDevice(const Artifact &artifact) {
  return std::make_unique<cuda::DeviceSession>(artifact);
}

} // namespace transfuse::rt
