//===- layer_norm.cu - Layer normalisation, forward and backward ----------===//
//
// nn.layer_norm (optionally of input + residual) and nn.layer_norm_grad
// over rows of `cols` elements, in the op's form (`form`, decoded by
// shared/LayerNormMath.h, which has the per-element arithmetic). Each row is
// reduced by one block (row statistics in two passes, the mean first and
// then the centred squares, as the CPU lowering computes them; RMSNorm skips
// the mean); a row is read again for each pass rather than kept on chip, so
// any width works, and the re-reads mostly hit the cache.
//
// The backward's column sums (grad_gamma, grad_beta) are deterministic
// without atomics: the block of a chunk of rows walks them in order, each
// thread adding its own columns' terms into the chunk's partial sums, and
// tf_layer_norm_grad_columns then adds the chunks' partials in an order
// fixed by the sizes: lane l of a column adds chunks l, l + kColumnLanes,
// ... in turn, and the lanes' sums are added in lane order.
//===----------------------------------------------------------------------===//
#include "reduce.cuh"
#include "shared/LayerNormMath.h"
#include "shared/RowBlocks.h"

#include <cstdint>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

namespace {

struct RowStatistics {
  float mean, squares, scale;
};

/// Element `c` of the normalised operand: x[c] (+ residual[c]).
__device__ __forceinline__ float operand(const float *__restrict x,
                                         const float *__restrict residual,
                                         int64_t c) {
  return residual ? x[c] + residual[c] : x[c];
}

/// The mean (0 for a form that does not centre), Σ(x - mean)² and scale
/// of row x (+ residual), in every thread of the block.
__device__ RowStatistics rowStatistics(const float *__restrict x,
                                       const float *__restrict residual,
                                       int64_t cols, float epsilon,
                                       LayerNormForm form) {
  float mean = 0.0f;
  if (form.centred) {
    float sum = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
      sum += operand(x, residual, c);
    mean = layerNormMean(blockSum(sum), cols);
  }
  float squares = 0.0f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float centred = operand(x, residual, c) - mean;
    squares += centred * centred;
  }
  squares = blockSum(squares);
  return {mean, squares, layerNormScale(squares, cols, epsilon, form)};
}

/// Adds one row's grad · xhat and grad to the chunk's partial column sums
/// `gammaPartial` and `betaPartial` (each column by the one thread that
/// owns it) and returns the row's mean of g (0 for a form that does not
/// centre) and the weight of xhat in grad_input, g = grad · gamma.
__device__ FloatPair accumulateRow(const float *__restrict dy,
                                   const float *__restrict x,
                                   const float *__restrict gamma,
                                   RowStatistics stats, int64_t cols,
                                   LayerNormForm form, float *gammaPartial,
                                   float *betaPartial) {
  FloatPair sums{0.0f, 0.0f};
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float xhat = layerNormXhat(x[c], stats.mean, stats.scale);
    float g = dy[c] * gamma[c];
    sums.first += g;
    sums.second += g * xhat;
    gammaPartial[c] += dy[c] * xhat;
    betaPartial[c] += dy[c];
  }
  sums = blockSum(sums);
  return {
      form.centred ? layerNormMean(sums.first, cols) : 0.0f,
      layerNormXhatWeight(sums.second, stats.squares, stats.scale, cols, form)};
}

/// grad_input and the partial column sums for the rows of chunks
/// blockIdx.x, blockIdx.x + gridDim.x, ...; `partials` holds the chunks'
/// grad_gamma sums, [chunks][cols], then their grad_beta sums.
__device__ void
layerNormGradChunks(int64_t rows, int64_t cols, const float *__restrict grad,
                    const float *__restrict input,
                    const float *__restrict gamma, float epsilon,
                    LayerNormForm form, int64_t rowChunk,
                    float *__restrict gradInput, float *__restrict partials) {
  int64_t chunks = (rows - 1) / rowChunk + 1;
  for (int64_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
    float *gammaPartial = partials + chunk * cols;
    float *betaPartial = partials + (chunks + chunk) * cols;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
      gammaPartial[c] = 0.0f;
      betaPartial[c] = 0.0f;
    }
    int64_t first = chunk * rowChunk;
    int64_t end = rows - first < rowChunk ? rows : first + rowChunk;
    for (int64_t row = first; row < end; ++row) {
      const float *dy = grad + row * cols;
      const float *x = input + row * cols;
      RowStatistics stats = rowStatistics(x, nullptr, cols, epsilon, form);
      FloatPair weights = accumulateRow(dy, x, gamma, stats, cols, form,
                                        gammaPartial, betaPartial);
      float *dx = gradInput + row * cols;
      for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        float xhat = layerNormXhat(x[c], stats.mean, stats.scale);
        dx[c] = layerNormGradInput(dy[c] * gamma[c], xhat, weights.first,
                                   weights.second, stats.scale);
      }
    }
  }
}

} // namespace

/// out = layer_norm(input (+ residual)) in form `form` for rows
/// blockIdx.x, blockIdx.x + gridDim.x, ...; `residual` and `beta` may be
/// null. Block: rowThreads(cols).
extern "C" __global__ void __launch_bounds__(kRowThreadsMax)
    tf_layer_norm(int64_t rows, int64_t cols, const float *__restrict input,
                  const float *__restrict residual,
                  const float *__restrict gamma, const float *__restrict beta,
                  float epsilon, int32_t form, float *__restrict out) {
  LayerNormForm decoded = decodeLayerNormForm(form);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float *x = input + row * cols;
    const float *r = residual ? residual + row * cols : nullptr;
    RowStatistics stats = rowStatistics(x, r, cols, epsilon, decoded);
    float *y = out + row * cols;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
      y[c] = layerNormOutput(operand(x, r, c), stats.mean, stats.scale,
                             gamma[c], beta ? beta[c] : 0.0f);
  }
}

/// grad_input and the chunks' partial column sums of nn.layer_norm_grad in
/// form `form`, chunks of `row_chunk` rows (rows >= 1). Block:
/// rowThreads(cols).
extern "C" __global__ void __launch_bounds__(kRowThreadsMax)
    tf_layer_norm_grad_chunks(int64_t rows, int64_t cols, const float *grad,
                              const float *input, const float *gamma,
                              float epsilon, int32_t form, int64_t row_chunk,
                              float *grad_input, float *partials) {
  layerNormGradChunks(rows, cols, grad, input, gamma, epsilon,
                      decodeLayerNormForm(form), row_chunk, grad_input,
                      partials);
}

/// grad_gamma (blockIdx.y 0) or grad_beta (1): per column, the sum of the
/// `chunks` partials; zeros when there are none. Block: (kColumnTile,
/// kColumnLanes); blocks blockIdx.x, blockIdx.x + gridDim.x, ... take the
/// tiles of kColumnTile columns.
extern "C" __global__ void __launch_bounds__(kColumnTile *kColumnLanes)
    tf_layer_norm_grad_columns(int64_t cols, int64_t chunks,
                               const float *__restrict partials,
                               float *__restrict grad_gamma,
                               float *__restrict grad_beta) {
  __shared__ float laneSums[kColumnLanes][kColumnTile];
  const float *sums = partials + blockIdx.y * chunks * cols;
  float *out = blockIdx.y == 0 ? grad_gamma : grad_beta;
  int64_t tiles = (cols - 1) / kColumnTile + 1;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int64_t c = tile * kColumnTile + threadIdx.x;
    float sum = 0.0f;
    if (c < cols)
      for (int64_t chunk = threadIdx.y; chunk < chunks; chunk += kColumnLanes)
        sum += sums[chunk * cols + c];
    laneSums[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
      float total = 0.0f;
      for (unsigned lane = 0; lane < kColumnLanes; ++lane)
        total += laneSums[lane][threadIdx.x];
      out[c] = total;
    }
    // The next tile's lane sums wait until this one's are read.
    __syncthreads();
  }
}
