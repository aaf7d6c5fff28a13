/*===- fake_train_model.c - Hand-written stand-ins for training code -----===*\
|*                                                                            *|
|* Three small models with the entry points a compiler emits for training    *|
|* (forward, loss, train_step; manifests in FakeTrainManifests.h), so the     *|
|* runtime's training path and transfuse-train can be tested without the     *|
|* compiler. Every loop runs in a fixed order: results are bit-identical run  *|
|* to run.                                                                    *|
|*                                                                            *|
|*  - classifier: logits = weight · bag(tokens) + bias, where bag counts the  *|
|*    non-pad tokens of a row over its length; cross entropy over the rows    *|
|*    whose label is not -100; Adam with a linear warm-up and the global      *|
|*    gradient norm clipped to 1.                                             *|
|*  - lm: a bigram model, logits[t] = weight[tokens[t]] + bias; cross        *|
|*    entropy over the labels that are not -100; SGD with momentum.           *|
|*  - seq2seq: the bigram model over the decoder input (the source is taken  *|
|*    and ignored), its loss ignoring label 0; SGD with momentum.             *|
|*                                                                            *|
|* Buffers: parameters, then state tensors (train_step), inputs, outputs.     *|
\*===----------------------------------------------------------------------===*/

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*===-- Shared pieces -----------------------------------------------------===*/

/* -log softmax(logits)[label]; adds (softmax - onehot(label)) * scale to
   grad when grad is not NULL. */
static float cross_entropy(const float *logits, int n, int64_t label,
                           float scale, float *grad) {
  float max = logits[0];
  for (int i = 1; i < n; ++i)
    max = logits[i] > max ? logits[i] : max;
  float sum = 0;
  for (int i = 0; i < n; ++i)
    sum += expf(logits[i] - max);
  if (grad)
    for (int i = 0; i < n; ++i)
      grad[i] += (expf(logits[i] - max) / sum - (i == label)) * scale;
  return logf(sum) + max - logits[label];
}

static float sum_of_squares(const float *values, int n) {
  float sum = 0;
  for (int i = 0; i < n; ++i)
    sum += values[i] * values[i];
  return sum;
}

/* Adam (beta 0.9, 0.999, eps 1e-8) on gradient * scale, bias-corrected for
   the 1-based `step`. */
static void adam(float *param, float *exp_avg, float *exp_avg_sq,
                 const float *grad, int n, float lr, float scale,
                 int64_t step) {
  const float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float correction1 = 1 - powf(beta1, (float)step);
  float correction2 = 1 - powf(beta2, (float)step);
  for (int i = 0; i < n; ++i) {
    float g = grad[i] * scale;
    exp_avg[i] = beta1 * exp_avg[i] + (1 - beta1) * g;
    exp_avg_sq[i] = beta2 * exp_avg_sq[i] + (1 - beta2) * g * g;
    param[i] -= lr * (exp_avg[i] / correction1) /
                (sqrtf(exp_avg_sq[i] / correction2) + eps);
  }
}

/* SGD with momentum 0.9, as PyTorch's (the buffer starts at zero). */
static void sgd_momentum(float *param, float *buffer, const float *grad, int n,
                         float lr) {
  for (int i = 0; i < n; ++i) {
    buffer[i] = 0.9f * buffer[i] + grad[i];
    param[i] -= lr * buffer[i];
  }
}

/*===-- classifier --------------------------------------------------------===*/

enum { CLS_BATCH = 4, CLS_LENGTH = 8, CLS_VOCAB = 256, CLS_CLASSES = 3 };

static void cls_logits(const float *weight, const float *bias,
                       const int64_t *row, float *logits) {
  for (int c = 0; c < CLS_CLASSES; ++c) {
    logits[c] = bias[c];
    for (int t = 0; t < CLS_LENGTH; ++t)
      if (row[t] != 0)
        logits[c] += weight[c * CLS_VOCAB + row[t]] / CLS_LENGTH;
  }
}

/* The mean loss over the labelled rows; adds its gradients to grad_weight
   and grad_bias when they are not NULL. */
static float cls_loss(const float *weight, const float *bias,
                      const int64_t *tokens, const int64_t *labels,
                      float *grad_weight, float *grad_bias) {
  int count = 0;
  for (int r = 0; r < CLS_BATCH; ++r)
    count += labels[r] != -100;
  float loss = 0;
  for (int r = 0; r < CLS_BATCH; ++r) {
    if (labels[r] == -100)
      continue;
    const int64_t *row = tokens + r * CLS_LENGTH;
    float logits[CLS_CLASSES], grad[CLS_CLASSES] = {0};
    cls_logits(weight, bias, row, logits);
    loss += cross_entropy(logits, CLS_CLASSES, labels[r], 1.0f / count,
                          grad_weight ? grad : NULL) /
            count;
    if (!grad_weight)
      continue;
    for (int c = 0; c < CLS_CLASSES; ++c) {
      grad_bias[c] += grad[c];
      for (int t = 0; t < CLS_LENGTH; ++t)
        if (row[t] != 0)
          grad_weight[c * CLS_VOCAB + row[t]] += grad[c] / CLS_LENGTH;
    }
  }
  return loss;
}

/* forward(weight [3, 256], bias [3]; tokens i64 [4, 8]) -> logits [4, 3] */
int32_t tf_entry_cls_forward(void **buffers) {
  const float *weight = buffers[0], *bias = buffers[1];
  const int64_t *tokens = buffers[2];
  float *logits = buffers[3];
  for (int r = 0; r < CLS_BATCH; ++r)
    cls_logits(weight, bias, tokens + r * CLS_LENGTH, logits + r * CLS_CLASSES);
  return 0;
}

/* loss(weight, bias; tokens, label i64 [4]) -> loss f32 [] */
int32_t tf_entry_cls_loss(void **buffers) {
  *(float *)buffers[4] =
      cls_loss(buffers[0], buffers[1], buffers[2], buffers[3], NULL, NULL);
  return 0;
}

/* train_step(weight, bias; exp_avg.weight, exp_avg_sq.weight, exp_avg.bias,
   exp_avg_sq.bias; tokens, label, step i64 []) -> loss, grad_norm, lr.
   lr = 0.1 · min(1, step / 2); the gradient is clipped to norm 1. */
int32_t tf_entry_cls_train_step(void **buffers) {
  float *weight = buffers[0], *bias = buffers[1];
  int64_t step = *(const int64_t *)buffers[8];
  if (step < 1)
    return 3;
  float grad_weight[CLS_CLASSES * CLS_VOCAB] = {0},
                                  grad_bias[CLS_CLASSES] = {0};
  float loss =
      cls_loss(weight, bias, buffers[6], buffers[7], grad_weight, grad_bias);
  float norm = sqrtf(sum_of_squares(grad_weight, CLS_CLASSES * CLS_VOCAB) +
                     sum_of_squares(grad_bias, CLS_CLASSES));
  float scale = norm > 1.0f ? 1.0f / (norm + 1e-6f) : 1.0f;
  float lr = 0.1f * (step < 2 ? (float)step / 2 : 1.0f);
  adam(weight, buffers[2], buffers[3], grad_weight, CLS_CLASSES * CLS_VOCAB, lr,
       scale, step);
  adam(bias, buffers[4], buffers[5], grad_bias, CLS_CLASSES, lr, scale, step);
  *(float *)buffers[9] = loss;
  *(float *)buffers[10] = norm;
  *(float *)buffers[11] = lr;
  return 0;
}

/*===-- bigram models (lm, seq2seq) ---------------------------------------===*/

struct bigram {
  int vocab, batch, length;
  int64_t ignore_index;
};

static const struct bigram kLanguageModel = {256, 2, 8, -100};
static const struct bigram kSeq2Seq = {16, 2, 6, 0};

static void bigram_row(const struct bigram *m, const float *weight,
                       const float *bias, int64_t token, float *logits) {
  for (int v = 0; v < m->vocab; ++v)
    logits[v] = weight[token * m->vocab + v] + bias[v];
}

static float bigram_loss(const struct bigram *m, const float *weight,
                         const float *bias, const int64_t *tokens,
                         const int64_t *labels, float *grad_weight,
                         float *grad_bias) {
  int positions = m->batch * m->length, count = 0;
  for (int i = 0; i < positions; ++i)
    count += labels[i] != m->ignore_index;
  float loss = 0;
  float *logits = malloc(sizeof(float) * m->vocab);
  float *grad = malloc(sizeof(float) * m->vocab);
  for (int i = 0; i < positions; ++i) {
    if (labels[i] == m->ignore_index)
      continue;
    bigram_row(m, weight, bias, tokens[i], logits);
    memset(grad, 0, sizeof(float) * m->vocab);
    loss += cross_entropy(logits, m->vocab, labels[i], 1.0f / count,
                          grad_weight ? grad : NULL) /
            count;
    if (!grad_weight)
      continue;
    for (int v = 0; v < m->vocab; ++v) {
      grad_weight[tokens[i] * m->vocab + v] += grad[v];
      grad_bias[v] += grad[v];
    }
  }
  free(logits);
  free(grad);
  return loss;
}

static void bigram_forward(const struct bigram *m, const float *weight,
                           const float *bias, const int64_t *tokens,
                           float *logits) {
  for (int i = 0; i < m->batch * m->length; ++i)
    bigram_row(m, weight, bias, tokens[i], logits + i * m->vocab);
}

/* SGD with momentum at lr 0.5, no clipping. */
static void bigram_train_step(const struct bigram *m, void **params,
                              void **state, const int64_t *tokens,
                              const int64_t *labels, float **outputs) {
  int size = m->vocab * m->vocab;
  float *grad_weight = calloc(size, sizeof(float));
  float *grad_bias = calloc(m->vocab, sizeof(float));
  float loss = bigram_loss(m, params[0], params[1], tokens, labels, grad_weight,
                           grad_bias);
  float norm = sqrtf(sum_of_squares(grad_weight, size) +
                     sum_of_squares(grad_bias, m->vocab));
  sgd_momentum(params[0], state[0], grad_weight, size, 0.5f);
  sgd_momentum(params[1], state[1], grad_bias, m->vocab, 0.5f);
  free(grad_weight);
  free(grad_bias);
  *outputs[0] = loss;
  *outputs[1] = norm;
  *outputs[2] = 0.5f;
}

/* forward(weight [256, 256], bias [256]; tokens [2, 8]) -> logits [2, 8, 256]
 */
int32_t tf_entry_lm_forward(void **buffers) {
  bigram_forward(&kLanguageModel, buffers[0], buffers[1], buffers[2],
                 buffers[3]);
  return 0;
}

/* loss(weight, bias; tokens, targets [2, 8]) -> loss [] */
int32_t tf_entry_lm_loss(void **buffers) {
  *(float *)buffers[4] = bigram_loss(&kLanguageModel, buffers[0], buffers[1],
                                     buffers[2], buffers[3], NULL, NULL);
  return 0;
}

/* train_step(weight, bias; momentum.weight, momentum.bias; tokens, targets,
   step) -> loss, grad_norm, lr */
int32_t tf_entry_lm_train_step(void **buffers) {
  float *outputs[3] = {buffers[7], buffers[8], buffers[9]};
  bigram_train_step(&kLanguageModel, buffers, buffers + 2, buffers[4],
                    buffers[5], outputs);
  return 0;
}

/* forward(weight [16, 16], bias [16]; src [2, 6], tgt [2, 6])
     -> logits [2, 6, 16] */
int32_t tf_entry_s2s_forward(void **buffers) {
  bigram_forward(&kSeq2Seq, buffers[0], buffers[1], buffers[3], buffers[4]);
  return 0;
}

/* loss(weight, bias; src, tgt, tgt_y [2, 6]) -> loss [] */
int32_t tf_entry_s2s_loss(void **buffers) {
  *(float *)buffers[5] = bigram_loss(&kSeq2Seq, buffers[0], buffers[1],
                                     buffers[3], buffers[4], NULL, NULL);
  return 0;
}

/* train_step(weight, bias; momentum.weight, momentum.bias; src, tgt, tgt_y,
   step) -> loss, grad_norm, lr */
int32_t tf_entry_s2s_train_step(void **buffers) {
  float *outputs[3] = {buffers[8], buffers[9], buffers[10]};
  bigram_train_step(&kSeq2Seq, buffers, buffers + 2, buffers[5], buffers[6],
                    outputs);
  return 0;
}
