//===- Evaluate.cpp - Loss and accuracy on the held-out examples ----------===//
//
// The loss entry point gives a batch's mean over its counted labels, so
// batches are weighted by their counts: the result is the mean over every
// held-out label, whatever the batch boundaries.
//===----------------------------------------------------------------------===//
#include "Evaluate.h"

#include <algorithm>

namespace transfuse::train {
namespace {

/// Right and counted labels of a batch, and its rows that are all right.
struct Tally {
  int64_t right = 0, counted = 0, exactRows = 0;
};

Tally tally(const TaskInfo &task, const data::Batch &batch,
            const tf_tensor &logits) {
  const float *scores = static_cast<const float *>(logits.data);
  int64_t classes = logits.shape[logits.rank - 1];
  int64_t perRow = batch.labels.size() / task.batchSize;
  Tally result;
  for (int64_t row = 0; row < batch.rows; ++row) {
    bool allRight = true;
    for (int64_t i = row * perRow; i < (row + 1) * perRow; ++i) {
      int64_t label = batch.labels[i];
      if (label == task.ignoreIndex)
        continue;
      const float *score = scores + i * classes;
      bool right = std::max_element(score, score + classes) - score == label;
      result.right += right;
      result.counted += 1;
      allRight &= right;
    }
    result.exactRows += allRight;
  }
  return result;
}

} // namespace

EvalResult evaluate(Session &session, const Artifact &artifact,
                    const TaskInfo &task, const data::Dataset &heldOut,
                    World world) {
  EvalResult result;
  result.examples = static_cast<int64_t>(heldOut.examples.size());
  if (heldOut.examples.empty())
    return result;
  data::BatchOptions shape;
  shape.batchSize = task.batchSize;
  shape.length = task.length;
  shape.targetLength = task.targetLength;
  shape.ignoreIndex = task.ignoreIndex;
  shape.shuffle = false;
  data::Batcher batcher(heldOut, shape);

  double lossSum = 0;
  int64_t lossCount = 0;
  Tally total;
  for (int64_t i = 0, e = batcher.batchesPerEpoch(); i < e; ++i) {
    data::Batch batch = batcher.next();
    if (i % world.size != world.rank)
      continue;
    int64_t counted = countedLabels(task, batch);
    if (task.hasLoss && counted > 0) {
      std::vector<tf_named_tensor> out =
          session.run("loss", bind(task, artifact, "loss", batch));
      lossSum += double(*static_cast<const float *>(out[0].tensor.data)) *
                 double(counted);
      lossCount += counted;
    }
    if (task.hasForward) {
      std::vector<tf_named_tensor> out =
          session.run("forward", bind(task, artifact, "forward", batch));
      Tally part = tally(task, batch, out[0].tensor);
      total.right += part.right;
      total.counted += part.counted;
      total.exactRows += part.exactRows;
    }
  }
  if (world.size > 1) {
    // Counts below 2^53 add exactly in doubles.
    double sums[] = {lossSum, double(lossCount), double(total.right),
                     double(total.counted), double(total.exactRows)};
    worldSum(sums, 5);
    lossSum = sums[0];
    lossCount = static_cast<int64_t>(sums[1]);
    total.right = static_cast<int64_t>(sums[2]);
    total.counted = static_cast<int64_t>(sums[3]);
    total.exactRows = static_cast<int64_t>(sums[4]);
  }
  if (lossCount > 0)
    result.loss = lossSum / double(lossCount);
  if (task.hasForward && total.counted > 0)
    result.accuracy = double(total.right) / double(total.counted);
  if (task.hasForward && task.task == data::Task::Seq2Seq)
    result.exactMatch = double(total.exactRows) / double(result.examples);
  return result;
}

} // namespace transfuse::train
