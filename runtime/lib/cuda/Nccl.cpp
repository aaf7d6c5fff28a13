//===- Nccl.cpp - NCCL, loaded at run time; the gradients' all-reduces ----===//
//
// The communicator is made on the first all-reduce of a session, inside its
// first train step, which every rank reaches: rank 0 makes NCCL's unique id
// and the run's transport (MPI) gives it to the others. A bucket is one
// NCCL group of an in-place all-reduce per gradient, which NCCL fuses; a
// mean multiplies each rank's values by its weight on the way in
// (ncclRedOpCreatePreMulSum), so the weight may change from step to step.
//===----------------------------------------------------------------------===//
#include "Nccl.h"

#include "Libraries.h"

#include "../Runtime.h"
#include "../collective/World.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>

namespace transfuse::rt::cuda {
namespace {

/// nn::Reduction's values.
constexpr int32_t kSum = 0, kMean = 1;
constexpr const char *kLiveVariable = "TRANSFUSE_NCCL";

std::string majorLibrary() {
  return "libnccl.so." + std::to_string(NCCL_MAJOR);
}

NcclApi load() {
  void *library =
      openNvidiaLibrary(majorLibrary(), "TRANSFUSE_NCCL_LIBRARY", "NCCL");
  NcclApi api;
#define TF_NCCL_LOAD_MEMBER(name)                                              \
  api.name = reinterpret_cast<decltype(api.name)>(                             \
      dlsym(library, TF_CUDA_STRINGIFY_EXPANDED(name)));                       \
  if (!api.name)                                                               \
    fail(TF_ERROR_UNSUPPORTED, "NCCL lacks " TF_CUDA_STRINGIFY_EXPANDED(name));
  TF_NCCL_FUNCTIONS(TF_NCCL_LOAD_MEMBER)
#undef TF_NCCL_LOAD_MEMBER
  int version = 0;
  api.ncclGetVersion(&version);
  // NCCL_VERSION_CODE is major * 10000 + minor * 100 + patch since 2.9.
  if (version / 10000 != NCCL_MAJOR)
    fail(TF_ERROR_UNSUPPORTED,
         "NCCL " + std::to_string(version) + " is not of version " +
             std::to_string(NCCL_MAJOR) + ".x, which the runtime needs");
  return api;
}

void check(ncclResult_t result, const std::string &what) {
  if (result != ncclSuccess)
    fail(TF_ERROR_EXECUTION,
         what + ": " + ncclApi().ncclGetErrorString(result));
}

} // namespace

const NcclApi &ncclApi() {
  static std::once_flag once;
  static NcclApi api;
  std::call_once(once, [] { api = load(); });
  return api;
}

bool ncclCollectivesLive() {
  const char *text = std::getenv(kLiveVariable);
  if (text && std::strcmp(text, "0") != 0 && std::strcmp(text, "1") != 0)
    fail(TF_ERROR_INVALID_ARGUMENT,
         std::string(kLiveVariable) + " is " + inQuotes(text) +
             ": 1 all-reduces a data-parallel step's gradients over NCCL "
             "even in one process, 0 (or unset) only across ranks");
  return World::get().size() > 1 || (text && text[0] == '1');
}

NcclCollectives::NcclCollectives() {
  World &world = World::get();
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  if (world.rank() == 0)
    check(ncclApi().ncclGetUniqueId(&id), "making NCCL's unique id");
  world.broadcast(&id, sizeof id, 0);
  check(ncclApi().ncclCommInitRank(&comm_, world.size(), id, world.rank()),
        "joining the NCCL communicator of " + std::to_string(world.size()) +
            " ranks");
}

NcclCollectives::~NcclCollectives() {
  if (comm_)
    ncclApi().ncclCommDestroy(comm_);
}

void NcclCollectives::add(int64_t bucket, float *data, int64_t count) {
  if (bucket < 0 || count < 0)
    fail(TF_ERROR_EXECUTION, "bad bucket " + std::to_string(bucket) +
                                 " or count " + std::to_string(count));
  if (static_cast<size_t>(bucket) >= buckets_.size())
    buckets_.resize(bucket + 1);
  buckets_[bucket].push_back({data, count});
}

void NcclCollectives::start(int64_t bucket, int32_t reduction, double weight,
                            CUstream stream) {
  if (bucket < 0 || static_cast<size_t>(bucket) >= buckets_.size())
    fail(TF_ERROR_EXECUTION,
         "bucket " + std::to_string(bucket) + " was never added to");
  if (reduction != kSum && reduction != kMean)
    fail(TF_ERROR_EXECUTION, "unknown reduction " + std::to_string(reduction));
  const NcclApi &api = ncclApi();
  ncclRedOp_t op = ncclSum;
  auto scale = static_cast<float>(weight);
  if (reduction == kMean)
    check(api.ncclRedOpCreatePreMulSum(&op, &scale, ncclFloat32,
                                       ncclScalarHostImmediate, comm_),
          "making the weighted sum");
  std::vector<Part> parts = std::move(buckets_[bucket]);
  buckets_[bucket].clear();
  std::string what = "all-reducing bucket " + std::to_string(bucket);
  check(api.ncclGroupStart(), what);
  for (const Part &part : parts)
    check(api.ncclAllReduce(part.data, part.data,
                            static_cast<size_t>(part.count), ncclFloat32, op,
                            comm_, reinterpret_cast<cudaStream_t>(stream)),
          what);
  check(api.ncclGroupEnd(), what);
  // NCCL allows destroying an operator once the calls using it returned.
  if (reduction == kMean)
    check(api.ncclRedOpDestroy(op, comm_), "releasing the weighted sum");
}

} // namespace transfuse::rt::cuda
