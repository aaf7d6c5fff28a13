//===- DeviceSession.h - A session's state on the GPU -----------*- C++ -*-===//
//
// What a session of a CUDA artifact holds on the device: the primary
// context of the GPU, one stream, the artifact's kernels (the cubin for the
// GPU's architecture, or its PTX compiled by the driver) and the runtime's
// hand-written ones, and every buffer a step touches, allocated when the
// session is created (or, for an entry point's inputs and outputs, before
// its first run): the parameters and optimizer state, which stay resident,
// the arena the compiler planned for the temporaries, and the library
// workspace. Running an entry point copies its inputs in, launches
// everything on the stream (from the third call on, as one CUDA graph:
// EntryGraph.h), waits, and copies its outputs out; nothing is allocated
// while it runs.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_DEVICESESSION_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_DEVICESESSION_H

#include "Driver.h"
#include "EntryGraph.h"
#include "KernelLibrary.h"

#include "../Runtime.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace transfuse::rt::cuda {

struct Dim3;
class CublasLt;
class NcclCollectives;

/// A block of device memory (none when size is 0).
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(size_t bytes, const std::string &what);
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  CUdeviceptr address() const { return address_; }
  void *pointer() const { return reinterpret_cast<void *>(address_); }
  size_t size() const { return size_; }

private:
  CUdeviceptr address_ = 0;
  size_t size_ = 0;
};

class DeviceSession final : public Device {
public:
  /// Opens the GPU and loads `artifact`'s kernels; throws a one-line
  /// TF_ERROR_UNSUPPORTED when there is no driver, no GPU, or no code for it.
  explicit DeviceSession(const Artifact &artifact);
  ~DeviceSession() override;
  DeviceSession(const DeviceSession &) = delete;
  DeviceSession &operator=(const DeviceSession &) = delete;

  /// "NVIDIA H100 80GB HBM3 (sm_90)".
  const std::string &deviceName() const { return deviceName_; }

  /// Copies the host tensors to the resident ones on the device.
  void upload(const std::vector<Buffer> &parameters,
              const std::vector<Buffer> &state) override;
  /// Copies the resident tensors back to the host.
  void download(std::vector<Buffer> &parameters,
                std::vector<Buffer> &state) override;

  /// Runs entry point `entryIndex` on `inputs` (host, already checked
  /// against the manifest) and writes its outputs to `outputs` (host).
  void run(size_t entryIndex, const std::vector<const void *> &inputs,
           std::vector<Buffer> &outputs) override;

  // For the runtime functions generated code calls (Execution.h).
  CUstream stream() const { return stream_; }
  /// Generated kernel `index` (the manifest's cuda.kernels order).
  CUfunction kernel(int64_t index) const;
  /// A hand-written kernel by its symbol (KernelLibrary.h).
  CUfunction libraryKernel(const char *symbol) const;
  /// Lets `function` (hand-written kernel `symbol`) take `bytes` of dynamic
  /// shared memory; asks the driver only when no earlier launch needed as
  /// much, so that a captured call makes no such request.
  void allowSharedBytes(CUfunction function, const char *symbol,
                        unsigned bytes);
  /// The library workspace (cuda.workspace_bytes).
  const DeviceBuffer &workspace() const { return workspace_; }
  /// cuBLASLt, opened on first use.
  CublasLt &cublasLt();
  /// The NCCL communicator of a data-parallel step, joined on first use;
  /// null where the collectives are not live (Nccl.h).
  NcclCollectives *collectives();

private:
  void selectDevice();
  void loadKernels(const Artifact &artifact);
  void synchronize(const std::string &what);
  /// Runs the generated code of `entry` on `buffers`, its launches
  /// captured or replayed as `graph` says; returns what the code returned.
  int32_t launchEntry(const EntryPoint &entry, EntryGraph &graph,
                      std::vector<void *> &buffers);
  /// Frees everything on the device and releases the context.
  void release();

  const Manifest &manifest_;
  /// TRANSFUSE_CUDA_GRAPHS, read before the GPU is opened.
  const bool graphsEnabled_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  int computeMajor_ = 0, computeMinor_ = 0;
  std::string deviceName_;
  CUmodule module_ = nullptr;
  std::vector<CUfunction> kernels_;
  KernelLibrary library_;
  std::unique_ptr<CublasLt> cublasLt_;
  /// Whether the artifact's all-reduces exchange anything here, read when
  /// the session opens.
  const bool collectivesLive_;
  std::unique_ptr<NcclCollectives> collectives_;
  std::map<CUfunction, unsigned> sharedBytesAllowed_;

  std::vector<DeviceBuffer> parameters_, state_;
  /// The decoding cache, zero-filled when the session starts; it never
  /// leaves the device.
  std::vector<DeviceBuffer> cache_;
  /// Per entry point, allocated before its first run.
  std::vector<std::vector<DeviceBuffer>> inputs_, outputs_;
  /// Per entry point.
  std::vector<EntryGraph> graphs_;
  DeviceBuffer arena_, workspace_;
};

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_DEVICESESSION_H
