//===- LossMath.h - Cross entropy, NLL and their gradients ------*- C++ -*-===//
//
// The per-row and per-element arithmetic of nn.cross_entropy,
// nn.nll_loss and their gradients as their CPU lowering computes them
// (torch.nn.CrossEntropyLoss / NLLLoss with reduction="mean"): a row counts
// unless its label is ignore_index, the loss is the mean over the n counted
// rows (NaN when n = 0, as 0 / 0), and the gradient is that of the mean,
// zero in ignored rows and everywhere when n = 0.
//
// A counted row whose label lies outside [0, classes) cannot be scored: the
// data loader rejects such labels, and should one get through, its loss is
// NaN (so training stops on it) instead of a read outside the row. Its
// gradient is what the CPU lowering gives, where no class equals the label.
//
// Softmax statistics are taken relative to the row's maximum m: sumExp =
// Σ exp(x - m) and shiftedSum = Σ (x - m), so that large logits neither
// overflow exp nor cancel when the mean over classes is taken.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_SHARED_LOSSMATH_H
#define TRANSFUSE_RUNTIME_LIB_SHARED_LOSSMATH_H

#include "HostDevice.h"

#include <cmath>
#include <cstdint>

namespace transfuse::rt {

enum class LabelKind {
  /// The label is ignore_index: the row is not part of the mean.
  Ignored,
  /// A class id in [0, classes).
  Counted,
  /// Neither: the row is part of the mean but has no class to score.
  OutOfRange,
};

/// Whether a row with `label` is part of the mean. Labels compare as
/// int64, whatever their stored width.
TF_HOST_DEVICE bool labelCounts(int64_t label, int64_t ignoreIndex) {
  return label != ignoreIndex;
}

/// What a row with `label` is to a loss over `classes` classes. The
/// comparison with ignore_index comes first: its usual value, -100, is out
/// of range.
TF_HOST_DEVICE LabelKind classifyLabel(int64_t label, int64_t ignoreIndex,
                                       int64_t classes) {
  if (!labelCounts(label, ignoreIndex))
    return LabelKind::Ignored;
  return label >= 0 && label < classes ? LabelKind::Counted
                                       : LabelKind::OutOfRange;
}

/// The score of the row's label, `row[label]`, read only when the label is
/// a class (Counted); NaN when it is out of range, which makes the row's
/// loss NaN.
TF_HOST_DEVICE float labelScore(const float *row, int64_t label,
                                LabelKind kind) {
  return kind == LabelKind::Counted ? row[label] : NAN;
}

/// The smoothed cross entropy of one row with `classes` classes:
///   (1 - ls) · -log_softmax(x)[label] + ls · mean_c(-log_softmax(x)[c])
/// where -log_softmax(x)[c] = m + log(sumExp) - x[c], from the row's
/// maximum m, sumExp = Σ exp(x - m), its label's logit and shiftedSum =
/// Σ (x - m). Without smoothing the mean over classes is left out, as the
/// CPU lowering leaves it out, so that a -inf logit elsewhere in the row
/// does not turn the loss into 0 · inf = NaN.
TF_HOST_DEVICE float smoothedCrossEntropy(float max, float sumExp,
                                          float labelLogit, float shiftedSum,
                                          int64_t classes, float smoothing) {
  float logSumExp = logf(sumExp);
  float hard = logSumExp - (labelLogit - max);
  if (smoothing == 0.0f)
    return hard;
  float soft = logSumExp - shiftedSum / static_cast<float>(classes);
  return (1.0f - smoothing) * hard + smoothing * soft;
}

/// d mean loss / d logit of one element of a counted row:
///   (softmax(x)[c] - (1 - ls) · [c == label] - ls / classes) / count.
TF_HOST_DEVICE float crossEntropyGrad(float logit, float max, float sumExp,
                                      bool isLabel, int64_t classes,
                                      float smoothing, float count) {
  float probability = expf(logit - max) / sumExp;
  float offLabel = smoothing / static_cast<float>(classes);
  float target = isLabel ? (1.0f - smoothing) + offLabel : offLabel;
  return (probability - target) / count;
}

/// d mean NLL / d log-probability at a counted row's label (0 elsewhere).
TF_HOST_DEVICE float nllLossGrad(float count) { return -1.0f / count; }

/// The mean of the counted rows' losses from their sum and count: NaN
/// (0 / 0) when no row counts, as PyTorch's.
TF_HOST_DEVICE float meanLoss(double sum, int64_t count) {
  return static_cast<float>(sum / static_cast<double>(count));
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_SHARED_LOSSMATH_H
