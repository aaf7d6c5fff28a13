//===- Losses.cpp - tfrt_cross_entropy_f32 and its gradient ---------------===//
//
// nn.cross_entropy and nn.cross_entropy_grad over `rows` rows of `classes`
// logits, with the arithmetic of shared/LossMath.h (the CUDA kernels'
// too). Lowered to loops, a training step's loss over a 10,000-word
// vocabulary made eight passes over the logits, half of them writing a
// tensor as large (the shifted logits, the log-probabilities, ...); here
// the loss reads each row twice (its maximum, then Σ e^(x - m) and
// Σ (x - m)) and the gradient writes it once more, on 16-float vectors.
//
// Rows run in parallel, each computed the same way by whichever thread
// takes it; the loss sums the counted rows' losses in row order, in
// double: the result does not depend on the thread count. Labels are int64
// (index_bits 64) or int32 (32); `scratch` holds `rows` floats.
//===----------------------------------------------------------------------===//
#include "Runtime.h"
#include "Vectors.h"
#include "shared/LossMath.h"

#include <limits>

namespace transfuse::rt {
namespace {

/// Checks what the generated code passes (abortWith).
void checkArguments(const char *kernel, int64_t rows, int64_t classes,
                    int32_t indexBits, float smoothing) {
  if (rows < 0 || classes < 0)
    abortWith(kernel, "negative size");
  if (indexBits != 32 && indexBits != 64)
    abortWith(kernel, "index_bits must be 32 or 64");
  // Written to reject NaN too.
  if (!(smoothing >= 0.0f && smoothing <= 1.0f))
    abortWith(kernel, "label_smoothing outside [0, 1]");
}

int64_t labelAt(const void *labels, int32_t indexBits, int64_t row) {
  return indexBits == 64 ? static_cast<const int64_t *>(labels)[row]
                         : static_cast<const int32_t *>(labels)[row];
}

struct SoftmaxStatistics {
  float max, sumExp, shiftedSum;
};

/// max(x), Σ e^(x - max) and Σ (x - max) of a row (LossMath.h), sixteen
/// classes at a time; the classes past the last sixteen one by one.
TF_INLINE SoftmaxStatistics softmaxStatistics(const float *x, int64_t classes) {
  int64_t vectorEnd = classes / kLanes * kLanes;
  v16 top = splat(-std::numeric_limits<float>::infinity());
  for (int64_t c = 0; c < vectorEnd; c += kLanes) {
    v16 value = load(x + c);
    top = top < value ? value : top;
  }
  float max = horizontalMax(top);
  for (int64_t c = vectorEnd; c < classes; ++c)
    max = std::max(max, x[c]);
  v16 exps = {}, shifted = {};
  for (int64_t c = 0; c < vectorEnd; c += kLanes) {
    v16 value = load(x + c) - max;
    exps += exp16(value);
    shifted += value;
  }
  float sumExp = horizontalSum(exps), shiftedSum = horizontalSum(shifted);
  for (int64_t c = vectorEnd; c < classes; ++c) {
    sumExp += std::exp(x[c] - max);
    shiftedSum += x[c] - max;
  }
  return {max, sumExp, shiftedSum};
}

/// scratch[row] = the smoothed cross entropy of each counted row in
/// [begin, end) (ignored rows' slots are left alone).
TF_INLINE void crossEntropyRows(int64_t begin, int64_t end, int64_t classes,
                                const float *logits, const void *labels,
                                int32_t indexBits, int64_t ignoreIndex,
                                float smoothing, float *scratch) {
  for (int64_t row = begin; row < end; ++row) {
    int64_t label = labelAt(labels, indexBits, row);
    LabelKind kind = classifyLabel(label, ignoreIndex, classes);
    if (kind == LabelKind::Ignored)
      continue;
    const float *x = logits + row * classes;
    SoftmaxStatistics stats = softmaxStatistics(x, classes);
    scratch[row] = smoothedCrossEntropy(stats.max, stats.sumExp,
                                        labelScore(x, label, kind),
                                        stats.shiftedSum, classes, smoothing);
  }
}

/// The rows [begin, end) of d mean loss / d logits (crossEntropyGrad, with
/// e^(x - max) on vectors and the division by the sum a product with its
/// inverse), count the counted rows.
TF_INLINE void crossEntropyGradRows(int64_t begin, int64_t end, int64_t classes,
                                    const float *logits, const void *labels,
                                    int32_t indexBits, int64_t ignoreIndex,
                                    float smoothing, float count, float *grad) {
  float offLabel = smoothing / static_cast<float>(classes);
  for (int64_t row = begin; row < end; ++row) {
    int64_t label = labelAt(labels, indexBits, row);
    float *out = grad + row * classes;
    if (classifyLabel(label, ignoreIndex, classes) == LabelKind::Ignored) {
      std::fill(out, out + classes, 0.0f);
      continue;
    }
    const float *x = logits + row * classes;
    SoftmaxStatistics stats = softmaxStatistics(x, classes);
    float inverseSum = 1.0f / stats.sumExp, inverseCount = 1.0f / count;
    int64_t vectorEnd = classes / kLanes * kLanes;
    for (int64_t c = 0; c < vectorEnd; c += kLanes)
      store(out + c, (exp16(load(x + c) - stats.max) * inverseSum - offLabel) *
                         inverseCount);
    for (int64_t c = vectorEnd; c < classes; ++c)
      out[c] =
          (std::exp(x[c] - stats.max) * inverseSum - offLabel) * inverseCount;
    // An out-of-range label is no class: every element stays off-label.
    if (label >= 0 && label < classes)
      out[label] = crossEntropyGrad(x[label], stats.max, stats.sumExp, true,
                                    classes, smoothing, count);
  }
}

// Cloned per instruction set; everything that takes or returns a vector is
// inlined into the clones (Vectors.h).
TF_VECTOR_CLONES void crossEntropyRowsOf(int64_t begin, int64_t end,
                                         int64_t classes, const float *logits,
                                         const void *labels, int32_t indexBits,
                                         int64_t ignoreIndex, float smoothing,
                                         float *scratch) {
  crossEntropyRows(begin, end, classes, logits, labels, indexBits, ignoreIndex,
                   smoothing, scratch);
}

TF_VECTOR_CLONES void
crossEntropyGradRowsOf(int64_t begin, int64_t end, int64_t classes,
                       const float *logits, const void *labels,
                       int32_t indexBits, int64_t ignoreIndex, float smoothing,
                       float count, float *grad) {
  crossEntropyGradRows(begin, end, classes, logits, labels, indexBits,
                       ignoreIndex, smoothing, count, grad);
}

/// The number of counted rows, n.
int64_t countedRows(int64_t rows, const void *labels, int32_t indexBits,
                    int64_t ignoreIndex) {
  int64_t count = 0;
  for (int64_t row = 0; row < rows; ++row)
    count += labelCounts(labelAt(labels, indexBits, row), ignoreIndex);
  return count;
}

/// Rows per thread at least: a row of a few thousand classes takes
/// microseconds, about what waking a thread costs.
constexpr int64_t kRowGrain = 4;

} // namespace
} // namespace transfuse::rt

using namespace transfuse::rt;

extern "C" void tfrt_cross_entropy_f32(int64_t rows, int64_t classes,
                                       const float *logits, const void *labels,
                                       int32_t index_bits, int64_t ignore_index,
                                       float label_smoothing, float *loss,
                                       float *scratch) {
  checkArguments("tfrt_cross_entropy_f32", rows, classes, index_bits,
                 label_smoothing);
  parallelFor(rows, kRowGrain, [&](int64_t begin, int64_t end) {
    crossEntropyRowsOf(begin, end, classes, logits, labels, index_bits,
                       ignore_index, label_smoothing, scratch);
  });
  double sum = 0.0;
  int64_t count = 0;
  for (int64_t row = 0; row < rows; ++row)
    if (labelCounts(labelAt(labels, index_bits, row), ignore_index)) {
      sum += scratch[row];
      ++count;
    }
  *loss = meanLoss(sum, count);
}

extern "C" void
tfrt_cross_entropy_grad_f32(int64_t rows, int64_t classes, const float *logits,
                            const void *labels, int32_t index_bits,
                            int64_t ignore_index, float label_smoothing,
                            float *grad, float * /*scratch*/) {
  checkArguments("tfrt_cross_entropy_grad_f32", rows, classes, index_bits,
                 label_smoothing);
  float count =
      static_cast<float>(countedRows(rows, labels, index_bits, ignore_index));
  parallelFor(rows, kRowGrain, [&](int64_t begin, int64_t end) {
    crossEntropyGradRowsOf(begin, end, classes, logits, labels, index_bits,
                           ignore_index, label_smoothing, count, grad);
  });
}
