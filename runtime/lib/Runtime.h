//===- Runtime.h - Internals shared by the runtime's sources ----*- C++ -*-===//
//
// Not installed: the public surface is transfuse.h. Internally every failure
// is an Error carrying its tf_status; the C API (CApi.cpp) turns it into a
// status code and tf_last_error().
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_RUNTIME_H
#define TRANSFUSE_RUNTIME_LIB_RUNTIME_H

#include "transfuse/printable.hpp"
#include "transfuse/transfuse.h"
#include "transfuse/transfuse.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace transfuse::rt {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// The public wrapper's error: a status and a one-line message.
using transfuse::Error;

using transfuse::printable;

/// Throws the runtime's error; the message is made printable here, so no
/// byte quoted from input reaches a terminal raw.
[[noreturn]] inline void fail(tf_status status, const std::string &message) {
  throw Error(status, printable(message));
}

/// `'path'`, the way every message names a file.
inline std::string inQuotes(std::string_view text) {
  return "'" + std::string(text) + "'";
}

//===----------------------------------------------------------------------===//
// Dtypes and shapes
//===----------------------------------------------------------------------===//

using Shape = std::vector<int64_t>;

size_t dtypeSize(tf_dtype dtype);
/// "f32", ... (the manifest's spelling).
const char *dtypeName(tf_dtype dtype);
/// Parses the manifest's spelling; false if unknown.
bool parseDtype(std::string_view name, tf_dtype &dtype);
bool isInteger(tf_dtype dtype);
bool isFloat(tf_dtype dtype);

/// "[2, 3]"; "[]" for a scalar.
std::string shapeString(const Shape &shape);
/// The product of the dims, or -1 if a dim is negative or it overflows.
int64_t checkedNumel(const Shape &shape);
/// "[1, 2]" for flat position 5 of shape [2, 3].
std::string indexString(const Shape &shape, int64_t flat);

//===----------------------------------------------------------------------===//
// Hashing
//===----------------------------------------------------------------------===//

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

/// FNV-1a 64, continuing from `hash` (the container checksum and the
/// parameter-name key of the initialiser).
inline uint64_t fnv1a64(const void *data, size_t size,
                        uint64_t hash = kFnvOffset) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= kFnvPrime;
  }
  return hash;
}

//===----------------------------------------------------------------------===//
// Buffers and files
//===----------------------------------------------------------------------===//

/// A zero-filled, 64-byte aligned allocation.
class Buffer {
public:
  Buffer() = default;
  explicit Buffer(size_t size);
  Buffer(Buffer &&other) noexcept;
  Buffer &operator=(Buffer &&other) noexcept;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer();

  uint8_t *data() { return data_; }
  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

private:
  uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

/// The whole file; TF_ERROR_IO naming the path and the reason on failure.
Buffer readFile(const std::string &path);

/// Writes `path` atomically with an OutputFile (transfuse/output.hpp).
void writeFileAtomically(const std::string &path,
                         const std::vector<std::string_view> &pieces);

//===----------------------------------------------------------------------===//
// Manifest (Manifest.cpp)
//===----------------------------------------------------------------------===//

struct InitRule {
  tf_init_kind kind = TF_INIT_ZEROS;
  double a = 0.0, b = 0.0;
};

struct TensorDesc {
  std::string name;
  tf_dtype dtype = TF_F32;
  Shape shape;
  int64_t numel = 1;
  size_t bytes = 0;
  int64_t maxValue = -1; // inputs: the largest valid id, -1 if none
  /// Labels: the value the loss skips (ignore_index), valid besides ids.
  std::optional<int64_t> ignoreValue;
  InitRule init; // parameters
};

using EntryFn = int32_t (*)(void **);

struct EntryPoint {
  std::string name, symbol;
  std::vector<size_t> parameters; // indices into Manifest::parameters
  std::vector<size_t> state;      // indices into Manifest::state
  /// An entry point with a `state` list is an optimizer step: it reads and
  /// writes its parameters and state in place. Others never write them.
  bool updates = false;
  /// Indices into Manifest::cache: the decoding cache it reads and writes
  /// in place (prefill, decode_step).
  std::vector<size_t> cache;
  std::vector<TensorDesc> inputs, outputs;
  /// CUDA: the bytes of device memory its temporaries need (the compiler's
  /// plan); 0 on the CPU, whose generated code allocates its own.
  uint64_t arenaBytes = 0;
  EntryFn fn = nullptr; // resolved when the code is loaded

  /// -1 if absent.
  int64_t findInput(std::string_view name) const;
  int64_t findOutput(std::string_view name) const;
};

/// A key and its value as text (a string as it is, anything else as JSON),
/// for display: the optimizer's and the schedule's settings.
struct Setting {
  std::string key, value;
};

/// The manifest's `training` section: how train_step was built.
struct Training {
  std::vector<std::string> inputs, labels; // names of train_step inputs
  std::string loss;
  /// "kind" first, then the other keys in name order; opaque to the runtime.
  std::vector<Setting> optimizer, schedule;
  double clipGradNorm = 0; // 0: no clipping
  uint64_t seed = 0;
  /// The label value the loss skips (PyTorch's ignore_index).
  int64_t ignoreIndex = -100;
  /// How many all-reduces a data-parallel train_step issues; 0 if it is
  /// not data-parallel (transfuse-compile --data-parallel).
  int64_t allReduceBuckets = 0;
};

/// One image of a CUDA artifact's kernels: a cubin for one GPU
/// architecture, or PTX the driver compiles for newer ones.
struct CudaImage {
  std::string arch;   // "sm_90" for a cubin, "compute_90" for PTX
  bool ptx = false;   // format "ptx" (else "cubin")
  std::string symbol; // the code's exported data symbol holding it
  uint64_t bytes = 0;
};

/// The manifest's `cuda` section (target "cuda", docs/artifact.md).
struct CudaCode {
  std::vector<std::string> archs;
  std::vector<CudaImage> images;
  /// The generated kernels; tfrt_cuda_launch names one by its index here.
  std::vector<std::string> kernels;
  /// Device memory the library calls need (cuBLASLt's workspace).
  uint64_t workspaceBytes = 0;
  /// The GEMMs may round their inputs to TF32 (precision "tf32").
  bool tf32 = false;
};

/// The entry point that takes one optimizer step, and its fixed tensors.
constexpr const char *kTrainStep = "train_step";
constexpr const char *kStepInput = "step";
constexpr const char *kTrainOutputs[] = {"loss", "grad_norm", "lr"};

struct Manifest {
  int64_t formatVersion = 0;
  std::string target, cpu, producer, model;
  std::vector<TensorDesc> parameters;
  /// The optimizer's tensors (moments, momentum), zero at the start.
  std::vector<TensorDesc> state;
  /// The decoding cache, zero when a session starts; never loaded or saved.
  std::vector<TensorDesc> cache;
  std::vector<EntryPoint> entryPoints;
  std::optional<Training> training;
  /// Target "cuda": its kernels and memory plan.
  std::optional<CudaCode> cuda;
  /// The manifest re-serialised with sorted keys and no spaces: the same
  /// for the same content, whatever the file's layout.
  std::string canonicalJson;
  /// canonicalJson without what depends on the target (target, cpu, cuda,
  /// arena_bytes): the same for the CPU and the CUDA artifact of one spec,
  /// so their checkpoints are interchangeable.
  std::string modelJson;
  /// FNV-1a 64 of modelJson, 16 hex digits: what a checkpoint records.
  std::string fingerprint;

  /// -1 if absent.
  int64_t findParameter(std::string_view name) const;
  int64_t findState(std::string_view name) const;
  int64_t findCache(std::string_view name) const;
  int64_t findEntryPoint(std::string_view name) const;
};

/// The target of CUDA artifacts.
constexpr const char *kCudaTarget = "cuda";
/// Whether this runtime was built with CUDA support.
bool cudaSupported();

/// Parses and validates a manifest. Every failure is an Error whose message
/// starts with `where` and names the field (`entry_points[0].inputs[1].shape`).
Manifest parseManifest(std::string_view json, const std::string &where);

//===----------------------------------------------------------------------===//
// Artifacts (Artifact.cpp)
//===----------------------------------------------------------------------===//

/// What Artifact::open checks before it loads the code: the container
/// (size, magic, version, section sizes, checksum), the manifest, and that
/// the code is a shared object for this machine. Errors start with `where`.
struct ArtifactContents {
  std::string manifestJson;
  Manifest manifest;
  const uint8_t *code = nullptr; // inside the bytes checked
  uint64_t codeSize = 0;
};
ArtifactContents checkArtifact(const uint8_t *bytes, uint64_t size,
                               const std::string &where);

class Artifact {
public:
  /// Reads, validates and loads a .tfm (see docs/artifact.md).
  static std::shared_ptr<Artifact> open(const std::string &path);
  ~Artifact();

  const std::string &path() const { return path_; }
  const Manifest &manifest() const { return manifest_; }
  const std::string &manifestJson() const { return manifestJson_; }
  /// The address of a data symbol the code exports, or null.
  const void *symbol(const std::string &name) const;

private:
  Artifact() = default;

  std::string path_;
  std::string manifestJson_;
  Manifest manifest_;
  void *handle_ = nullptr;
  int codeFd_ = -1;
};

//===----------------------------------------------------------------------===//
// Parameter initialisation (Init.cpp)
//===----------------------------------------------------------------------===//

/// Fills `data` (param.bytes bytes) from param.init, deterministically in
/// (seed, param.name, element index).
void initializeTensor(const TensorDesc &param, uint64_t seed, void *data);

//===----------------------------------------------------------------------===//
// safetensors (Safetensors.cpp)
//===----------------------------------------------------------------------===//

struct StoredTensor {
  std::string name;
  tf_dtype dtype = TF_F32;
  Shape shape;
  const uint8_t *data = nullptr; // inside the file's buffer
  size_t bytes = 0;
};

/// A safetensors file read and validated in full.
class TensorFile {
public:
  static TensorFile read(const std::string &path);

  const std::string &path() const { return path_; }
  const std::vector<StoredTensor> &tensors() const { return tensors_; }
  const std::map<std::string, std::string> &metadata() const {
    return metadata_;
  }
  const StoredTensor *find(std::string_view name) const;

private:
  std::string path_;
  Buffer contents_;
  std::vector<StoredTensor> tensors_; // in file order
  std::map<std::string, std::string> metadata_;
};

struct TensorToWrite {
  std::string name;
  tf_dtype dtype = TF_F32;
  Shape shape;
  const void *data = nullptr;
  size_t bytes = 0;
};

/// safetensors' spelling ("F32", ...).
const char *safetensorsDtypeName(tf_dtype dtype);

/// Writes a safetensors file atomically. Tensors are stored by decreasing
/// element size, then name, so every tensor is aligned to its element size.
void writeTensorFile(const std::string &path,
                     std::vector<TensorToWrite> tensors,
                     const std::map<std::string, std::string> &metadata);

//===----------------------------------------------------------------------===//
// Sessions (Session.cpp, Run.cpp)
//===----------------------------------------------------------------------===//

struct NamedInput {
  std::string_view name;
  tf_dtype dtype;
  Shape shape;
  const void *data;
};

/// Where a session's entry points run when it is not this process's own
/// memory: the GPU of a CUDA artifact. It holds its own copy of the
/// parameters and optimizer state.
class Device {
public:
  virtual ~Device() = default;
  /// Copies the host's parameters and state to the device.
  virtual void upload(const std::vector<Buffer> &parameters,
                      const std::vector<Buffer> &state) = 0;
  /// Copies the device's parameters and state to the host.
  virtual void download(std::vector<Buffer> &parameters,
                        std::vector<Buffer> &state) = 0;
  /// Runs entry point `entry` on host `inputs` (checked), writing its
  /// outputs to the host buffers `outputs`.
  virtual void run(size_t entry, const std::vector<const void *> &inputs,
                   std::vector<Buffer> &outputs) = 0;
};

/// The GPU device of a CUDA artifact (cuda/DeviceSession.cpp);
/// TF_ERROR_UNSUPPORTED when there is no driver or GPU, or the runtime was
/// built without CUDA.
std::unique_ptr<Device> openCudaDevice(const Artifact &artifact);

class Session {
public:
  explicit Session(std::shared_ptr<const Artifact> artifact);

  const Manifest &manifest() const { return artifact_->manifest(); }

  /// Initialises the parameters, zeroes the optimizer state and the step.
  void initialize(uint64_t seed);
  /// Loads the parameters; a checkpoint's state tensors are skipped.
  void loadParameters(const std::string &path);
  void saveParameters(const std::string &path) const;
  /// The buffer of a parameter, or null if there is none of that name.
  Buffer *parameter(std::string_view name, const TensorDesc **desc = nullptr);
  /// The buffer of a state tensor, or null if there is none of that name.
  Buffer *state(std::string_view name, const TensorDesc **desc = nullptr);

  /// Runs an entry point (Run.cpp); throws on any mismatch. An entry point
  /// that updates in place and takes a step sets step() to it on success.
  void run(std::string_view entry, const std::vector<NamedInput> &inputs);
  /// Runs train_step with the input "step" = step() + 1.
  void trainStep(const std::vector<NamedInput> &inputs);
  /// The updates taken: 0 after initialize(), the checkpoint's after a load.
  int64_t step() const { return step_; }
  /// Output `index` of an entry point (allocated, zero, if it never ran).
  Buffer &output(size_t entry, size_t index);

  /// Parameters, state, step and a fingerprint of the manifest, plus the
  /// caller's `metadata` (Checkpoint.cpp), written atomically.
  void saveCheckpoint(const std::string &path,
                      const std::map<std::string, std::string> &metadata) const;
  /// Checks `file` against this artifact in full, then loads it.
  void loadCheckpoint(const TensorFile &file);

private:
  /// With a device: the host copies are brought up to date before they are
  /// read (saving, a parameter view), after which the host's may change.
  void refreshHost() const;
  void hostChanged() { newer_ = Newer::Host; }

  std::shared_ptr<const Artifact> artifact_;
  // Refreshed from the device by const methods that read them.
  mutable std::vector<Buffer> parameters_;
  mutable std::vector<Buffer> state_;
  /// The decoding cache, which only the entry points read.
  std::vector<Buffer> cache_;
  std::unique_ptr<Device> device_;
  /// With a device: which copy of the parameters and state is newer.
  enum class Newer { Neither, Host, Device };
  mutable Newer newer_ = Newer::Host;
  int64_t step_ = 0;
  std::vector<std::vector<Buffer>> outputs_; // per entry point, lazily
};

/// The stored tensor of every one of `tensors` (the parameters or the
/// state), each checked for dtype and shape; `kind` names them in errors.
std::vector<const StoredTensor *>
matchTensors(const TensorFile &file, const std::vector<TensorDesc> &tensors,
             const char *kind);
/// Fails on a tensor of `file` that is neither a parameter nor a state
/// tensor of the model.
void checkNoOtherTensors(const TensorFile &file, const Manifest &manifest);

//===----------------------------------------------------------------------===//
// Threads (Threads.cpp)
//===----------------------------------------------------------------------===//

/// Ends the process, naming `kernel` and what is wrong with its arguments:
/// the generated code passes static shapes, so a wrong one is a compiler
/// bug, and a kernel must not read out of bounds.
[[noreturn]] inline void abortWith(const char *kernel, const char *what) {
  std::fprintf(stderr, "%s: %s\n", kernel, what);
  std::abort();
}

/// The kernels' thread count (see tf_set_num_threads).
int32_t numThreads();
void setNumThreads(int32_t threads);
/// Loads OpenBLAS and applies the thread count once, before the first
/// kernel: sessions call it, so kernels called from generated code find
/// everything ready and never fail.
void ensureThreadsApplied();

/// Calls body(begin, end) over [0, count) split in up to numThreads()
/// contiguous chunks of at least `grain` items, one per OpenMP thread. The
/// split never changes what is computed, only who computes it.
template <typename Body>
void parallelFor(int64_t count, int64_t grain, const Body &body) {
  int64_t chunks =
      std::min<int64_t>(numThreads(), count / std::max<int64_t>(grain, 1));
  if (chunks <= 1) {
    if (count > 0)
      body(int64_t(0), count);
    return;
  }
  int64_t step = (count + chunks - 1) / chunks;
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    int64_t begin = chunk * step;
    if (begin < count)
      body(begin, std::min(count, begin + step));
  }
}

//===----------------------------------------------------------------------===//
// OpenBLAS (Blas.cpp)
//===----------------------------------------------------------------------===//

struct Blas {
  using Sgemm = void (*)(int order, int transA, int transB, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b,
                         int ldb, float beta, float *c, int ldc);
  Sgemm sgemm = nullptr;
  void (*setNumThreads)(int) = nullptr;
  char *(*coreName)() = nullptr;
};

/// OpenBLAS, loaded on first use; TF_ERROR_UNSUPPORTED if it cannot be.
const Blas &blas();

/// Rows of A at most, for fewRowsGemm.
constexpr int64_t kFewRows = 16;

/// c[height][width] = a[height][k] · b[width][k]ᵀ for height <= kFewRows,
/// rows lda, ldb and ldc apart, on the calling thread (FewRowsGemm.cpp).
void fewRowsGemm(int64_t height, int64_t width, int64_t k, const float *a,
                 int64_t lda, const float *b, int64_t ldb, float *c,
                 int64_t ldc);

/// The `count` tokens of the largest of `size` logits, the larger logit
/// first, the lower token on ties, into `tokens` (LargestLogits.cpp);
/// returns whether a logit is NaN.
bool largestLogits(const float *logits, int64_t size, size_t count,
                   std::vector<int64_t> &tokens);

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_RUNTIME_H
