//===- optimizer.cu - The global norm and the optimizer updates -----------===//
//
// nn.global_norm as partial sums of squares (kGlobalNormBlocks per tensor,
// in double, each block's in its own slot) then one block that sums the
// slots in a fixed order; nn.adam_update and nn.sgd_update one element per
// thread, striding, with the arithmetic of shared/OptimizerMath.h. The
// step's scalars are read from device memory, where the step computed them.
//===----------------------------------------------------------------------===//
#include "reduce.cuh"
#include "shared/OptimizerMath.h"
#include "shared/RowBlocks.h"

#include <cstdint>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

/// partials[b] = Σ x² over the elements b · blockDim + threadIdx + k ·
/// gridDim · blockDim. Grid: kGlobalNormBlocks blocks.
extern "C" __global__ void __launch_bounds__(kGlobalNormThreads)
    tf_sum_squares_f32(int64_t n, const float *__restrict x,
                       double *__restrict partials) {
  double sum = 0.0;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride) {
    double value = x[i];
    sum += value * value;
  }
  sum = blockSum(sum);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = sum;
}

/// *out = sqrt(Σ partials[0, count)), summed by one block in a fixed order.
extern "C" __global__ void __launch_bounds__(kReduceBlockThreads)
    tf_global_norm_f32(int64_t count, const double *__restrict partials,
                       float *__restrict out) {
  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x)
    sum += partials[i];
  sum = blockSum(sum);
  if (threadIdx.x == 0)
    *out = static_cast<float>(sqrt(sum));
}

extern "C" __global__ void __launch_bounds__(kPerItemThreads)
    tf_adam_update_f32(int64_t n, float *__restrict param,
                       const float *__restrict grad, float *__restrict expAvg,
                       float *__restrict expAvgSq, AdamSettings settings,
                       const float *__restrict stepSize,
                       const float *__restrict biasCorrection2Sqrt,
                       const float *__restrict clipFactor,
                       const float *__restrict decayFactor) {
  AdamScalars scalars{*stepSize, *biasCorrection2Sqrt, *clipFactor,
                      *decayFactor};
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride)
    adamStep(param[i], grad[i], expAvg[i], expAvgSq[i], settings, scalars);
}

/// `buffer` is null without momentum.
extern "C" __global__ void __launch_bounds__(kPerItemThreads)
    tf_sgd_update_f32(int64_t n, float *__restrict param,
                      const float *__restrict grad, float *__restrict buffer,
                      SgdSettings settings, const float *__restrict lr,
                      const float *__restrict clipFactor) {
  float rate = *lr, clip = *clipFactor;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride)
    sgdStep(param[i], grad[i], buffer ? buffer + i : nullptr, rate, clip,
            settings);
}
