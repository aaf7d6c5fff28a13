//===- Collectives.cpp - The gradients' all-reduces of CUDA code ----------===//
//
// tfrt_cuda_all_reduce_*: the CUDA form of the CPU's tfrt_all_reduce_*
// (collective/AllReduce.cpp), on device buffers. A bucket is all-reduced
// by NCCL on the session's stream where it starts, so the kernels after it
// in the stream see the sums and the wait has nothing to do: the exchange
// does not overlap the rest of backward (docs/scale-out.md). Without live
// collectives (one process, TRANSFUSE_NCCL unset) all three return at once.
//===----------------------------------------------------------------------===//
#include "DeviceSession.h"
#include "Execution.h"
#include "Nccl.h"

#include "../collective/AllReduce.h"

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

extern "C" TF_API void tfrt_cuda_all_reduce_add(int64_t bucket, float *data,
                                                int64_t count) {
  onDevice("tfrt_cuda_all_reduce_add", [&](Execution &execution) {
    if (NcclCollectives *collectives = execution.session().collectives())
      collectives->add(bucket, data, count);
  });
}

extern "C" TF_API void tfrt_cuda_all_reduce_start(int64_t bucket,
                                                  int32_t reduction) {
  onDevice("tfrt_cuda_all_reduce_start", [&](Execution &execution) {
    if (NcclCollectives *collectives = execution.session().collectives())
      collectives->start(bucket, reduction, allReduceWeight(),
                         execution.stream());
  });
}

extern "C" TF_API void tfrt_cuda_all_reduce_wait(int64_t) {}
