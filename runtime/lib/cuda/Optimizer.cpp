//===- Optimizer.cpp - tfrt_cuda_{sum_squares,global_norm,*_update}_f32 ---===//
//
// The host side of kernels/optimizer.cu. The training step calls
// tfrt_cuda_sum_squares_f32 once per gradient, each into its own
// kGlobalNormBlocks slots of a scratch buffer, then
// tfrt_cuda_global_norm_f32 over all the slots; then one update per
// parameter. The step's scalars are device pointers.
//===----------------------------------------------------------------------===//
#include "Arguments.h"
#include "Execution.h"

#include "../shared/OptimizerMath.h"
#include "../shared/RowBlocks.h"

#include <string>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

namespace {

/// Blocks of kPerItemThreads threads over `n` elements, striding beyond
/// kGridBlocksMax.
Dim3 elementGrid(int64_t n) {
  return {gridBlocks(blocksFor(n, kPerItemThreads))};
}

} // namespace

/// partials[0, slots) = partial sums of x[i]² over x[0, n); slots must be
/// kGlobalNormBlocks, what the compiler planned the scratch for.
extern "C" TF_API void tfrt_cuda_sum_squares_f32(int64_t n, const float *x,
                                                 int64_t slots,
                                                 double *partials) {
  onDevice("tfrt_cuda_sum_squares_f32", [&](Execution &execution) {
    requireNonNegative("n", n);
    if (slots != kGlobalNormBlocks)
      fail(TF_ERROR_EXECUTION,
           "the artifact plans " + std::to_string(slots) +
               " partial sums per tensor, this runtime computes " +
               std::to_string(kGlobalNormBlocks));
    launch(execution, "tf_sum_squares_f32",
           {static_cast<unsigned>(kGlobalNormBlocks)}, {kGlobalNormThreads}, 0,
           n, x, partials);
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

/// nn.adam_update of `n` elements, in place.
extern "C" TF_API void tfrt_cuda_adam_update_f32(
    int64_t n, float *param, const float *grad, float *exp_avg,
    float *exp_avg_sq, float beta1, float one_minus_beta1, float beta2,
    float one_minus_beta2, float eps, float weight_decay,
    const float *step_size, const float *bias_correction2_sqrt,
    const float *clip_factor, const float *decay_factor) {
  onDevice("tfrt_cuda_adam_update_f32", [&](Execution &execution) {
    requireNonNegative("n", n);
    if (n == 0)
      return;
    AdamSettings settings{beta1, one_minus_beta1, beta2, one_minus_beta2,
                          eps,   weight_decay};
    launch(execution, "tf_adam_update_f32", elementGrid(n), {kPerItemThreads},
           0, n, param, grad, exp_avg, exp_avg_sq, settings, step_size,
           bias_correction2_sqrt, clip_factor, decay_factor);
  });
}

/// nn.sgd_update of `n` elements, in place; `momentum_buffer` is null
/// without momentum.
extern "C" TF_API void
tfrt_cuda_sgd_update_f32(int64_t n, float *param, const float *grad,
                         float *momentum_buffer, float momentum,
                         float weight_decay, int32_t nesterov, const float *lr,
                         const float *clip_factor) {
  onDevice("tfrt_cuda_sgd_update_f32", [&](Execution &execution) {
    requireNonNegative("n", n);
    if (n == 0)
      return;
    SgdSettings settings{momentum, weight_decay, nesterov != 0};
    launch(execution, "tf_sgd_update_f32", elementGrid(n), {kPerItemThreads}, 0,
           n, param, grad, momentum_buffer, settings, lr, clip_factor);
  });
}
