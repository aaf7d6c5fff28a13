//===- Nccl.h - NCCL, loaded at run time; the gradients' all-reduces -*- C++
//-*-===//
//
// A data-parallel CUDA artifact all-reduces its gradient buckets with NCCL,
// one rank per GPU, on the session's stream: stream order makes the wait
// implicit, and nothing synchronises the host. libnccl.so.2 is opened only
// when the collectives are live, in a run of more than one rank or where
// TRANSFUSE_NCCL=1 asks for them on one (the GPU check does, to run this
// path with a single-rank communicator); otherwise the calls return at
// once, as on the CPU.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_NCCL_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_NCCL_H

#include "Driver.h"

#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace transfuse::rt::cuda {

#define TF_NCCL_FUNCTIONS(X)                                                   \
  X(ncclGetVersion)                                                            \
  X(ncclGetErrorString)                                                        \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRank)                                                          \
  X(ncclCommDestroy)                                                           \
  X(ncclGroupStart)                                                            \
  X(ncclGroupEnd)                                                              \
  X(ncclAllReduce)                                                             \
  X(ncclRedOpCreatePreMulSum)                                                  \
  X(ncclRedOpDestroy)

/// The functions of the library.
struct NcclApi {
#define TF_NCCL_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  TF_NCCL_FUNCTIONS(TF_NCCL_DECLARE_MEMBER)
#undef TF_NCCL_DECLARE_MEMBER
};

/// The library, opened once (TRANSFUSE_NCCL_LIBRARY, the loader's path,
/// the toolkit); TF_ERROR_UNSUPPORTED naming every place tried.
const NcclApi &ncclApi();

/// Whether this process's data-parallel steps exchange their gradients:
/// more than one rank, or TRANSFUSE_NCCL=1 (0 or unset: only then). Any
/// other value of the variable is an Error.
bool ncclCollectivesLive();

/// A session's communicator over the ranks of the run (its rank's GPU
/// is the session's) and the buckets of the step being run.
class NcclCollectives {
public:
  NcclCollectives();
  ~NcclCollectives();
  NcclCollectives(const NcclCollectives &) = delete;
  NcclCollectives &operator=(const NcclCollectives &) = delete;

  void add(int64_t bucket, float *data, int64_t count);
  /// All-reduces bucket `bucket` in place on `stream`: a sum, or a mean
  /// with this rank's weight (NCCL's pre-multiplied sum).
  void start(int64_t bucket, int32_t reduction, double weight, CUstream stream);

private:
  struct Part {
    float *data;
    int64_t count;
  };
  ncclComm_t comm_ = nullptr;
  std::vector<std::vector<Part>> buckets_;
};

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_NCCL_H
