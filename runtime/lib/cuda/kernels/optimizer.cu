//===- optimizer.cu - The global norm and the optimizer updates -----------===//
//
// nn.global_norm as partial sums of squares (kGlobalNormBlocks per tensor,
// in double, each block's in its own slot) then one block that sums the
// slots in a fixed order; nn.adam_update and nn.sgd_update one element per
// thread, with the arithmetic of shared/OptimizerMath.h. Each launch takes
// a batch of tensors (shared/TensorBatch.h). The step's scalars are read
// from device memory, where the step computed them.
//===----------------------------------------------------------------------===//
#include "reduce.cuh"
#include "shared/OptimizerMath.h"
#include "shared/RowBlocks.h"
#include "shared/TensorBatch.h"

#include <cstdint>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

/// For tensor t = blockIdx.y of the batch (data[0], read only):
/// partials[t · gridDim.x + b] = Σ x² over its elements b · blockDim +
/// threadIdx + k · gridDim.x · blockDim. Grid: (kGlobalNormBlocks, count).
extern "C" __global__ void __launch_bounds__(kGlobalNormThreads)
    tf_sum_squares_f32(TensorBatch<1> batch, double *__restrict partials) {
  const float *__restrict x = batch.data[0][blockIdx.y];
  int64_t n = batch.size[blockIdx.y];
  double sum = 0.0;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride) {
    double value = x[i];
    sum += value * value;
  }
  sum = blockSum(sum);
  if (threadIdx.x == 0)
    partials[static_cast<int64_t>(blockIdx.y) * gridDim.x + blockIdx.x] = sum;
}

namespace {

/// The elements [begin, end) of tensor `tensor` that block blockIdx.x of an
/// element launch updates.
struct BlockRange {
  int32_t tensor;
  int64_t begin, end;
};

template <int Arrays>
__device__ BlockRange blockRange(const TensorBatch<Arrays> &batch) {
  int32_t t = tensorOfBlock(batch, blockIdx.x);
  int64_t begin = static_cast<int64_t>(blockIdx.x - batch.firstBlock[t]) *
                  kBatchBlockElements;
  int64_t left = batch.size[t] - begin;
  return {t, begin,
          begin + (left < kBatchBlockElements ? left : kBatchBlockElements)};
}

} // namespace

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

/// Per tensor of the batch: data[0] the parameter, data[1] its gradient
/// (read only), data[2] and data[3] exp_avg and exp_avg_sq, all updated in
/// place. Grid: firstBlock[count] blocks.
extern "C" __global__ void __launch_bounds__(kPerItemThreads)
    tf_adam_update_f32(TensorBatch<4> batch, AdamSettings settings,
                       const float *__restrict stepSize,
                       const float *__restrict biasCorrection2Sqrt,
                       const float *__restrict clipFactor,
                       const float *__restrict decayFactor) {
  AdamScalars scalars{*stepSize, *biasCorrection2Sqrt, *clipFactor,
                      *decayFactor};
  BlockRange range = blockRange(batch);
  float *__restrict param = batch.data[0][range.tensor];
  const float *__restrict grad = batch.data[1][range.tensor];
  float *__restrict expAvg = batch.data[2][range.tensor];
  float *__restrict expAvgSq = batch.data[3][range.tensor];
  for (int64_t i = range.begin + threadIdx.x; i < range.end; i += blockDim.x)
    adamStep(param[i], grad[i], expAvg[i], expAvgSq[i], settings, scalars);
}

/// Per tensor of the batch: data[0] the parameter, data[1] its gradient
/// (read only), data[2] the momentum buffer, null without momentum. Grid:
/// firstBlock[count] blocks.
extern "C" __global__ void __launch_bounds__(kPerItemThreads)
    tf_sgd_update_f32(TensorBatch<3> batch, SgdSettings settings,
                      const float *__restrict lr,
                      const float *__restrict clipFactor) {
  float rate = *lr, clip = *clipFactor;
  BlockRange range = blockRange(batch);
  float *__restrict param = batch.data[0][range.tensor];
  const float *__restrict grad = batch.data[1][range.tensor];
  float *__restrict buffer = batch.data[2][range.tensor];
  for (int64_t i = range.begin + threadIdx.x; i < range.end; i += blockDim.x)
    sgdStep(param[i], grad[i], buffer ? buffer + i : nullptr, rate, clip,
            settings);
}
