//===- LayerNorm.cpp - tfrt_cuda_layer_norm{,_grad}_f32 -------------------===//
//
// The host side of kernels/layer_norm.cu: one block per row (forward) or
// per chunk of rows (backward), sized by the row width (shared/RowBlocks.h).
//===----------------------------------------------------------------------===//
#include "Arguments.h"
#include "Execution.h"

#include "../shared/LayerNormMath.h"
#include "../shared/RowBlocks.h"

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

namespace {

/// A `form` argument the kernels know, and a row they can normalise in it.
void checkForm(int32_t form, int64_t cols) {
  if (!isLayerNormForm(form))
    fail(TF_ERROR_EXECUTION,
         "form " + std::to_string(form) + " is not a layer norm form");
  if (decodeLayerNormForm(form).unbiased && cols == 1)
    fail(TF_ERROR_EXECUTION,
         "an unbiased variance needs rows of at least 2 elements, got 1");
}

} // namespace

/// out [rows, cols] = layer_norm(input (+ residual)) over each row: (x -
/// mean) · s · gamma + beta in form `form` (shared/LayerNormMath.h).
/// residual and beta may be null; gamma and beta are [cols].
extern "C" TF_API void
tfrt_cuda_layer_norm_f32(int64_t rows, int64_t cols, const float *input,
                         const float *residual, const float *gamma,
                         const float *beta, float epsilon, int32_t form,
                         float *out) {
  onDevice("tfrt_cuda_layer_norm_f32", [&](Execution &execution) {
    requireNonNegative("rows", rows);
    requireNonNegative("cols", cols);
    checkForm(form, cols);
    if (rows == 0 || cols == 0)
      return;
    launch(execution, "tf_layer_norm", {gridBlocks(rows)}, {rowThreads(cols)},
           0, rows, cols, input, residual, gamma, beta, epsilon, form, out);
  });
}

/// nn.layer_norm_grad in form `form` of grad and input [rows, cols] (input
/// the full normalised operand): grad_input [rows, cols], grad_gamma and
/// grad_beta [cols]. The column sums go through `partials`, 2 · ceil(rows /
/// row_chunk) · cols floats: each chunk of row_chunk rows sums its rows in
/// order, then the chunks' sums are added in an order fixed by the sizes
/// (kernels/layer_norm.cu), so the result depends on row_chunk but never
/// on the run. Chunks are the backward's unit of
/// parallelism (one block each), so a row_chunk that gives a few chunks
/// per multiprocessor keeps the GPU busy without making the final sums long.
extern "C" TF_API void tfrt_cuda_layer_norm_grad_f32(
    int64_t rows, int64_t cols, const float *grad, const float *input,
    const float *gamma, float epsilon, int32_t form, float *grad_input,
    float *grad_gamma, float *grad_beta, float *partials, int64_t row_chunk) {
  onDevice("tfrt_cuda_layer_norm_grad_f32", [&](Execution &execution) {
    requireNonNegative("rows", rows);
    requireNonNegative("cols", cols);
    checkForm(form, cols);
    if (row_chunk < 1)
      fail(TF_ERROR_EXECUTION,
           "row_chunk must be at least 1, got " + std::to_string(row_chunk));
    if (cols == 0)
      return;
    // No rows leave no chunks, and the column sums are zeros.
    int64_t chunks = rows == 0 ? 0 : (rows - 1) / row_chunk + 1;
    if (chunks > 0)
      launch(execution, "tf_layer_norm_grad_chunks", {gridBlocks(chunks)},
             {rowThreads(cols)}, 0, rows, cols, grad, input, gamma, epsilon,
             form, row_chunk, grad_input, partials);
    launch(execution, "tf_layer_norm_grad_columns",
           {gridBlocks(blocksFor(cols, kColumnTile)), 2},
           {kColumnTile, kColumnLanes}, 0, cols, chunks,
           static_cast<const float *>(partials), grad_gamma, grad_beta);
  });
}
