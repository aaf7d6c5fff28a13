//===- Losses.cpp - tfrt_cuda_{cross_entropy,nll_loss}{,_grad}_f32 --------===//
//
// The host side of kernels/losses.cu. Labels are int64 (index_bits 64) or
// int32 (32), each kernel in a form for either; a row counts unless its
// label is ignore_index. `scratch` holds `rows` floats: the counted rows'
// losses for a loss, the count of counted rows (scratch[0]) for a gradient.
//===----------------------------------------------------------------------===//
#include "Arguments.h"
#include "Execution.h"

#include "../shared/RowBlocks.h"

#include <string>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

namespace {

void checkLossArguments(int64_t rows, int64_t classes, int32_t indexBits) {
  requireNonNegative("rows", rows);
  requireNonNegative("classes", classes);
  if (indexBits != 32 && indexBits != 64)
    fail(TF_ERROR_EXECUTION,
         "index_bits must be 32 or 64, got " + std::to_string(indexBits));
}

void checkSmoothing(float smoothing) {
  // Written to reject NaN too.
  if (!(smoothing >= 0.0f && smoothing <= 1.0f))
    fail(TF_ERROR_EXECUTION, "label_smoothing must lie in [0, 1], got " +
                                 std::to_string(smoothing));
}

/// The symbol of kernel `base` for labels of `indexBits` bits.
std::string labelKernel(const char *base, int32_t indexBits) {
  return std::string(base) + (indexBits == 64 ? "_i64" : "_i32");
}

/// *loss = the mean of the counted rows' scratch slots (NaN when none).
void meanOfCountedRows(Execution &execution, int64_t rows, const void *labels,
                       int32_t indexBits, int64_t ignoreIndex,
                       const float *scratch, float *loss) {
  launch(execution, labelKernel("tf_loss_mean", indexBits).c_str(), {1},
         {kReduceBlockThreads}, 0, rows, labels, ignoreIndex, scratch, loss);
}

/// scratch[0] = the number of counted rows, which a gradient divides by.
void countRows(Execution &execution, int64_t rows, const void *labels,
               int32_t indexBits, int64_t ignoreIndex, float *scratch) {
  launch(execution, labelKernel("tf_loss_count", indexBits).c_str(), {1},
         {kReduceBlockThreads}, 0, rows, labels, ignoreIndex, scratch);
}

/// A grid with one thread per row, striding beyond kGridBlocksMax blocks.
Dim3 rowPerThreadGrid(int64_t rows) {
  return {gridBlocks((rows + kPerItemThreads - 1) / kPerItemThreads)};
}

} // namespace

/// *loss = the mean over counted rows of the smoothed cross entropy of
/// logits [rows, classes], as torch.nn.CrossEntropyLoss(reduction="mean",
/// ignore_index, label_smoothing); NaN when no row counts.
extern "C" TF_API void
tfrt_cuda_cross_entropy_f32(int64_t rows, int64_t classes, const float *logits,
                            const void *labels, int32_t index_bits,
                            int64_t ignore_index, float label_smoothing,
                            float *loss, float *scratch) {
  onDevice("tfrt_cuda_cross_entropy_f32", [&](Execution &execution) {
    checkLossArguments(rows, classes, index_bits);
    checkSmoothing(label_smoothing);
    if (rows > 0)
      launch(execution,
             labelKernel("tf_cross_entropy_rows", index_bits).c_str(),
             {gridBlocks(rows)}, {rowThreads(classes)}, 0, rows, classes,
             logits, labels, ignore_index, label_smoothing, scratch);
    meanOfCountedRows(execution, rows, labels, index_bits, ignore_index,
                      scratch, loss);
  });
}

/// grad [rows, classes] = d loss / d logits of tfrt_cuda_cross_entropy_f32:
/// (softmax - (1 - ls) · onehot(label) - ls / classes) / n in counted rows,
/// 0 in ignored ones.
extern "C" TF_API void tfrt_cuda_cross_entropy_grad_f32(
    int64_t rows, int64_t classes, const float *logits, const void *labels,
    int32_t index_bits, int64_t ignore_index, float label_smoothing,
    float *grad, float *scratch) {
  onDevice("tfrt_cuda_cross_entropy_grad_f32", [&](Execution &execution) {
    checkLossArguments(rows, classes, index_bits);
    checkSmoothing(label_smoothing);
    if (rows == 0 || classes == 0)
      return;
    countRows(execution, rows, labels, index_bits, ignore_index, scratch);
    launch(execution,
           labelKernel("tf_cross_entropy_grad_rows", index_bits).c_str(),
           {gridBlocks(rows)}, {rowThreads(classes)}, 0, rows, classes, logits,
           labels, ignore_index, label_smoothing,
           static_cast<const float *>(scratch), grad);
  });
}

/// *loss = the mean over counted rows of -log_probs[row][label], as
/// torch.nn.NLLLoss(reduction="mean", ignore_index); NaN when none counts.
extern "C" TF_API void
tfrt_cuda_nll_loss_f32(int64_t rows, int64_t classes, const float *log_probs,
                       const void *labels, int32_t index_bits,
                       int64_t ignore_index, float *loss, float *scratch) {
  onDevice("tfrt_cuda_nll_loss_f32", [&](Execution &execution) {
    checkLossArguments(rows, classes, index_bits);
    if (rows > 0)
      launch(execution, labelKernel("tf_nll_loss_rows", index_bits).c_str(),
             rowPerThreadGrid(rows), {kPerItemThreads}, 0, rows, classes,
             log_probs, labels, ignore_index, scratch);
    meanOfCountedRows(execution, rows, labels, index_bits, ignore_index,
                      scratch, loss);
  });
}

/// grad [rows, classes] = d loss / d log_probs of tfrt_cuda_nll_loss_f32:
/// -1 / n at [row, label] of each counted row, 0 elsewhere.
extern "C" TF_API void
tfrt_cuda_nll_loss_grad_f32(int64_t rows, int64_t classes,
                            const float * /*log_probs: unused*/,
                            const void *labels, int32_t index_bits,
                            int64_t ignore_index, float *grad, float *scratch) {
  onDevice("tfrt_cuda_nll_loss_grad_f32", [&](Execution &execution) {
    checkLossArguments(rows, classes, index_bits);
    if (rows == 0 || classes == 0)
      return;
    check(driver().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(grad), 0,
                                   rows * classes * sizeof(float),
                                   execution.stream()),
          "zeroing the NLL gradient");
    countRows(execution, rows, labels, index_bits, ignore_index, scratch);
    launch(execution, labelKernel("tf_nll_loss_grad_rows", index_bits).c_str(),
           rowPerThreadGrid(rows), {kPerItemThreads}, 0, rows, classes, labels,
           ignore_index, static_cast<const float *>(scratch), grad);
  });
}
