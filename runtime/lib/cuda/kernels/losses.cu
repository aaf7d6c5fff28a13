//===- losses.cu - Cross entropy and NLL, forward and backward ------------===//
//
// nn.cross_entropy, nn.nll_loss and their gradients over `rows` rows of
// `classes` scores, with the arithmetic of shared/LossMath.h. Labels are
// int64 or int32 (the _i64 and _i32 kernels). The mean over counted rows is
// deterministic: each counted row's loss goes to its own slot of the
// caller's scratch, then one block sums the slots in a fixed order, in
// double so that hundreds of thousands of rows lose nothing to rounding.
// A gradient needs the count n before its first element: one block counts
// the rows into scratch[0] first.
//===----------------------------------------------------------------------===//
#include "reduce.cuh"
#include "shared/LossMath.h"
#include "shared/RowBlocks.h"

#include <cstdint>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

namespace {

struct SoftmaxStatistics {
  float max, sumExp, shiftedSum;
};

/// max(x), Σ exp(x - max) and Σ (x - max) of a row, in every thread of the
/// block.
__device__ SoftmaxStatistics softmaxStatistics(const float *__restrict x,
                                               int64_t classes) {
  float max = -INFINITY;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
    max = fmaxf(max, x[c]);
  max = blockMax(max);
  FloatPair sums{0.0f, 0.0f};
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    float shifted = x[c] - max;
    sums.first += expf(shifted);
    sums.second += shifted;
  }
  sums = blockSum(sums);
  return {max, sums.first, sums.second};
}

struct CountedSum {
  double sum;
  long long count;
};

/// The counted rows' count and, unless `rowLoss` is null, the sum of their
/// `rowLoss` slots, in every thread of the block. Each thread takes rows
/// threadIdx.x, threadIdx.x + blockDim.x, ... in order.
template <typename Index>
__device__ CountedSum countedSum(int64_t rows, const Index *__restrict labels,
                                 int64_t ignoreIndex,
                                 const float *__restrict rowLoss) {
  double sum = 0.0;
  long long count = 0;
  for (int64_t row = threadIdx.x; row < rows; row += blockDim.x) {
    if (!labelCounts(labels[row], ignoreIndex))
      continue;
    ++count;
    if (rowLoss)
      sum += rowLoss[row];
  }
  return {blockSum(sum), blockSum(count)};
}

/// rowLoss[r] = the smoothed cross entropy of each counted row r (ignored
/// rows' slots are left alone), rows blockIdx.x, blockIdx.x + gridDim.x, ...
template <typename Index>
__device__ void
crossEntropyRows(int64_t rows, int64_t classes, const float *__restrict logits,
                 const Index *__restrict labels, int64_t ignoreIndex,
                 float smoothing, float *__restrict rowLoss) {
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    int64_t label = labels[row];
    LabelKind kind = classifyLabel(label, ignoreIndex, classes);
    // The whole block reads the same label: the branch is uniform.
    if (kind == LabelKind::Ignored)
      continue;
    const float *x = logits + row * classes;
    SoftmaxStatistics stats = softmaxStatistics(x, classes);
    if (threadIdx.x == 0)
      rowLoss[row] = smoothedCrossEntropy(stats.max, stats.sumExp,
                                          labelScore(x, label, kind),
                                          stats.shiftedSum, classes, smoothing);
  }
}

/// The rows of d mean loss / d logits, rows blockIdx.x, blockIdx.x +
/// gridDim.x, ...; *count is n (> 0 whenever a row counts).
template <typename Index>
__device__ void crossEntropyGradRows(int64_t rows, int64_t classes,
                                     const float *__restrict logits,
                                     const Index *__restrict labels,
                                     int64_t ignoreIndex, float smoothing,
                                     const float *__restrict count,
                                     float *__restrict grad) {
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    int64_t label = labels[row];
    float *out = grad + row * classes;
    // The whole block reads the same label: the branch is uniform.
    if (classifyLabel(label, ignoreIndex, classes) == LabelKind::Ignored) {
      for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
        out[c] = 0.0f;
      continue;
    }
    const float *x = logits + row * classes;
    SoftmaxStatistics stats = softmaxStatistics(x, classes);
    float n = *count;
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
      out[c] = crossEntropyGrad(x[c], stats.max, stats.sumExp, c == label,
                                classes, smoothing, n);
  }
}

/// rowLoss[r] = -logProbs[r][label] of each counted row r, one row per
/// thread.
template <typename Index>
__device__ void nllLossRows(int64_t rows, int64_t classes,
                            const float *__restrict logProbs,
                            const Index *__restrict labels, int64_t ignoreIndex,
                            float *__restrict rowLoss) {
  for (int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; row < rows;
       row += int64_t(gridDim.x) * blockDim.x) {
    int64_t label = labels[row];
    LabelKind kind = classifyLabel(label, ignoreIndex, classes);
    if (kind != LabelKind::Ignored)
      rowLoss[row] = -labelScore(logProbs + row * classes, label, kind);
  }
}

/// grad[r][label] = -1 / n for each counted row r whose label is a class,
/// one row per thread; the rest of grad is already zero.
template <typename Index>
__device__ void
nllLossGradRows(int64_t rows, int64_t classes, const Index *__restrict labels,
                int64_t ignoreIndex, const float *__restrict count,
                float *__restrict grad) {
  for (int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; row < rows;
       row += int64_t(gridDim.x) * blockDim.x) {
    int64_t label = labels[row];
    if (classifyLabel(label, ignoreIndex, classes) == LabelKind::Counted)
      grad[row * classes + label] = nllLossGrad(*count);
  }
}

} // namespace

// Each family member has an _i64 and an _i32 kernel, for the labels' type.
#define TF_LOSS_KERNELS(suffix, Index)                                         \
  /* Row losses of nn.cross_entropy into scratch. Block: rowThreads. */        \
  extern "C" __global__ void __launch_bounds__(kRowThreadsMax)                 \
      tf_cross_entropy_rows_##suffix(int64_t rows, int64_t classes,            \
                                     const float *logits, const Index *labels, \
                                     int64_t ignore_index,                     \
                                     float label_smoothing, float *scratch) {  \
    crossEntropyRows(rows, classes, logits, labels, ignore_index,              \
                     label_smoothing, scratch);                                \
  }                                                                            \
  /* nn.cross_entropy_grad, n in count[0]. Block: rowThreads. */               \
  extern "C" __global__ void __launch_bounds__(kRowThreadsMax)                 \
      tf_cross_entropy_grad_rows_##suffix(                                     \
          int64_t rows, int64_t classes, const float *logits,                  \
          const Index *labels, int64_t ignore_index, float label_smoothing,    \
          const float *count, float *grad) {                                   \
    crossEntropyGradRows(rows, classes, logits, labels, ignore_index,          \
                         label_smoothing, count, grad);                        \
  }                                                                            \
  /* Row losses of nn.nll_loss into scratch, one row per thread. */            \
  extern "C" __global__ void __launch_bounds__(kPerItemThreads)                \
      tf_nll_loss_rows_##suffix(int64_t rows, int64_t classes,                 \
                                const float *log_probs, const Index *labels,   \
                                int64_t ignore_index, float *scratch) {        \
    nllLossRows(rows, classes, log_probs, labels, ignore_index, scratch);      \
  }                                                                            \
  /* nn.nll_loss_grad into a zeroed grad, n in count[0]. */                    \
  extern "C" __global__ void __launch_bounds__(kPerItemThreads)                \
      tf_nll_loss_grad_rows_##suffix(                                          \
          int64_t rows, int64_t classes, const Index *labels,                  \
          int64_t ignore_index, const float *count, float *grad) {             \
    nllLossGradRows(rows, classes, labels, ignore_index, count, grad);         \
  }                                                                            \
  /* *loss = the mean of the counted rows' scratch slots. One block of */      \
  /* kReduceBlockThreads. */                                                   \
  extern "C" __global__ void __launch_bounds__(kReduceBlockThreads)            \
      tf_loss_mean_##suffix(int64_t rows, const Index *labels,                 \
                            int64_t ignore_index, const float *scratch,        \
                            float *loss) {                                     \
    CountedSum counted = countedSum(rows, labels, ignore_index, scratch);      \
    if (threadIdx.x == 0)                                                      \
      *loss = meanLoss(counted.sum, counted.count);                            \
  }                                                                            \
  /* count[0] = n, the counted rows. One block of kReduceBlockThreads. */      \
  extern "C" __global__ void __launch_bounds__(kReduceBlockThreads)            \
      tf_loss_count_##suffix(int64_t rows, const Index *labels,                \
                             int64_t ignore_index, float *count) {             \
    CountedSum counted =                                                       \
        countedSum<Index>(rows, labels, ignore_index, nullptr);                \
    if (threadIdx.x == 0)                                                      \
      *count = static_cast<float>(counted.count);                              \
  }

TF_LOSS_KERNELS(i64, int64_t)
TF_LOSS_KERNELS(i32, int32_t)
