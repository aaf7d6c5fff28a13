//===- Optimizer.cpp - tfrt_cuda_{sum_squares,global_norm,*_update}_f32 ---===//
//
// The host side of kernels/optimizer.cu. The training step calls
// tfrt_cuda_sum_squares_f32 once for all its gradients, each into its own
// kGlobalNormBlocks slots of a scratch buffer, then
// tfrt_cuda_global_norm_f32 over all the slots; then one update call per
// group of parameters with the same settings. The tensors come as host
// arrays of sizes and device addresses, launched kBatchTensors at a time
// (shared/TensorBatch.h). The step's scalars are device pointers.
//===----------------------------------------------------------------------===//
#include "Arguments.h"
#include "Execution.h"

#include "../shared/OptimizerMath.h"
#include "../shared/RowBlocks.h"
#include "../shared/TensorBatch.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

namespace {

/// The tensors [first, first + count) of the call as one batch; an entry of
/// `arrays` is null where the call passes no such buffers.
template <int Arrays>
TensorBatch<Arrays>
batchOf(int64_t first, int32_t count, const int64_t *sizes,
        const std::array<const float *const *, Arrays> &arrays) {
  TensorBatch<Arrays> batch{};
  batch.count = count;
  int64_t blocks = 0;
  for (int32_t t = 0; t < count; ++t) {
    for (int a = 0; a < Arrays; ++a)
      batch.data[a][t] =
          arrays[a] ? const_cast<float *>(arrays[a][first + t]) : nullptr;
    batch.size[t] = sizes[first + t];
    batch.firstBlock[t] = static_cast<uint32_t>(blocks);
    blocks += blocksOfTensor(sizes[first + t]);
    if (blocks > std::numeric_limits<int32_t>::max())
      fail(TF_ERROR_EXECUTION,
           "tensors " + std::to_string(first) + " to " +
               std::to_string(first + t) +
               " need more blocks than a grid has: " + std::to_string(blocks));
  }
  batch.firstBlock[count] = static_cast<uint32_t>(blocks);
  return batch;
}

/// Checks `count` and the sizes, then calls `launchBatch(batch, first)`
/// for each batch of at most kBatchTensors tensors, the first at `first`.
template <int Arrays, typename LaunchBatch>
void forEachBatch(int64_t count, const int64_t *sizes,
                  const std::array<const float *const *, Arrays> &arrays,
                  const LaunchBatch &launchBatch) {
  requireNonNegative("count", count);
  for (int64_t t = 0; t < count; ++t)
    requireNonNegative("sizes[" + std::to_string(t) + "]", sizes[t]);
  for (int64_t first = 0; first < count; first += kBatchTensors) {
    auto size =
        static_cast<int32_t>(std::min<int64_t>(kBatchTensors, count - first));
    launchBatch(batchOf<Arrays>(first, size, sizes, arrays), first);
  }
}

/// Launches update `kernel` (one thread per element, kPerItemThreads a
/// block) over each batch of the call's tensors, with `settings` and the
/// step's scalars after the batch.
template <int Arrays, typename... Rest>
void launchUpdates(Execution &execution, const char *kernel, int64_t count,
                   const int64_t *sizes,
                   const std::array<const float *const *, Arrays> &arrays,
                   const Rest &...rest) {
  forEachBatch<Arrays>(count, sizes, arrays,
                       [&](const TensorBatch<Arrays> &batch, int64_t) {
                         // A grid of no blocks fails: a batch of empty tensors
                         // launches nothing.
                         if (unsigned blocks = batch.firstBlock[batch.count])
                           launch(execution, kernel, {blocks},
                                  {kPerItemThreads}, 0, batch, rest...);
                       });
}

} // namespace

/// partials[t · slots, (t + 1) · slots) = partial sums of x[i]² over tensor
/// t's sizes[t] elements, for t < count; slots must be kGlobalNormBlocks,
/// what the compiler planned the scratch for.
extern "C" TF_API void tfrt_cuda_sum_squares_f32(int64_t count,
                                                 const int64_t *sizes,
                                                 const float *const *tensors,
                                                 int64_t slots,
                                                 double *partials) {
  onDevice("tfrt_cuda_sum_squares_f32", [&](Execution &execution) {
    if (slots != kGlobalNormBlocks)
      fail(TF_ERROR_EXECUTION,
           "the artifact plans " + std::to_string(slots) +
               " partial sums per tensor, this runtime computes " +
               std::to_string(kGlobalNormBlocks));
    forEachBatch<1>(count, sizes, {tensors},
                    [&](const TensorBatch<1> &batch, int64_t first) {
                      launch(execution, "tf_sum_squares_f32",
                             {static_cast<unsigned>(kGlobalNormBlocks),
                              static_cast<unsigned>(batch.count)},
                             {kGlobalNormThreads}, 0, batch,
                             partials + first * kGlobalNormBlocks);
                    });
  });
}

/// *out = sqrt(Σ partials[0, count)) in f32.
extern "C" TF_API void
tfrt_cuda_global_norm_f32(int64_t count, const double *partials, float *out) {
  onDevice("tfrt_cuda_global_norm_f32", [&](Execution &execution) {
    requireNonNegative("count", count);
    launch(execution, "tf_global_norm_f32", {1}, {kReduceBlockThreads}, 0,
           count, partials, out);
  });
}

/// nn.adam_update of `count` tensors of sizes[t] elements, in place.
extern "C" TF_API void tfrt_cuda_adam_update_f32(
    int64_t count, const int64_t *sizes, float *const *params,
    const float *const *grads, float *const *exp_avgs,
    float *const *exp_avg_sqs, float beta1, float one_minus_beta1, float beta2,
    float one_minus_beta2, float eps, float weight_decay,
    const float *step_size, const float *bias_correction2_sqrt,
    const float *clip_factor, const float *decay_factor) {
  onDevice("tfrt_cuda_adam_update_f32", [&](Execution &execution) {
    AdamSettings settings{beta1, one_minus_beta1, beta2, one_minus_beta2,
                          eps,   weight_decay};
    launchUpdates<4>(execution, "tf_adam_update_f32", count, sizes,
                     {params, grads, exp_avgs, exp_avg_sqs}, settings,
                     step_size, bias_correction2_sqrt, clip_factor,
                     decay_factor);
  });
}

/// nn.sgd_update of `count` tensors of sizes[t] elements, in place;
/// `momentum_buffers` is null without momentum.
extern "C" TF_API void
tfrt_cuda_sgd_update_f32(int64_t count, const int64_t *sizes,
                         float *const *params, const float *const *grads,
                         float *const *momentum_buffers, float momentum,
                         float weight_decay, int32_t nesterov, const float *lr,
                         const float *clip_factor) {
  onDevice("tfrt_cuda_sgd_update_f32", [&](Execution &execution) {
    SgdSettings settings{momentum, weight_decay, nesterov != 0};
    launchUpdates<3>(execution, "tf_sgd_update_f32", count, sizes,
                     {params, grads, momentum_buffers}, settings, lr,
                     clip_factor);
  });
}
