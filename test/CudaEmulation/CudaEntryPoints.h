//===- CudaEntryPoints.h - The tfrt_cuda_* functions under test -*- C++ -*-===//
//
// Generated code declares these itself; the tests call them through this
// header, which the launchers are also compiled with (-include), so that a
// declaration that no longer matches its definition fails to compile.
// Documented where they are defined, in runtime/lib/cuda/.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_CUDAEMULATION_CUDAENTRYPOINTS_H
#define TRANSFUSE_TEST_CUDAEMULATION_CUDAENTRYPOINTS_H

#include <cstdint>

extern "C" {

void tfrt_cuda_attention_f32(int64_t batch, int64_t heads, int64_t sq,
                             int64_t sk, int64_t dk, int64_t dv, const float *q,
                             int64_t q_sb, int64_t q_sh, int64_t q_ss,
                             const float *k, int64_t k_sb, int64_t k_sh,
                             int64_t k_ss, const float *v, int64_t v_sb,
                             int64_t v_sh, int64_t v_ss, const void *mask,
                             int32_t mask_kind, int64_t m_sb, int64_t m_sh,
                             int64_t m_sq, int64_t m_sk, float scale,
                             int32_t causal, float mask_fill, float *out,
                             int64_t o_sb, int64_t o_sh, int64_t o_ss);

void tfrt_cuda_attention_stats_f32(
    int64_t batch, int64_t heads, int64_t sq, int64_t sk, int64_t dk,
    int64_t dv, const float *q, int64_t q_sb, int64_t q_sh, int64_t q_ss,
    const float *k, int64_t k_sb, int64_t k_sh, int64_t k_ss, const float *v,
    int64_t v_sb, int64_t v_sh, int64_t v_ss, const void *mask,
    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk,
    float scale, int32_t causal, float mask_fill, float *out, int64_t o_sb,
    int64_t o_sh, int64_t o_ss, float *lse, float dropout,
    const uint64_t *dropout_key, int64_t dropout_stream);

void tfrt_cuda_attention_backward_f32(
    int64_t batch, int64_t heads, int64_t sq, int64_t sk, int64_t dk,
    int64_t dv, const float *q, int64_t q_sb, int64_t q_sh, int64_t q_ss,
    const float *k, int64_t k_sb, int64_t k_sh, int64_t k_ss, const float *v,
    int64_t v_sb, int64_t v_sh, int64_t v_ss, const void *mask,
    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk,
    float scale, int32_t causal, float mask_fill, const float *out,
    int64_t o_sb, int64_t o_sh, int64_t o_ss, const float *lse,
    const float *grad_out, int64_t go_sb, int64_t go_sh, int64_t go_ss,
    float *grad_q, int64_t gq_sb, int64_t gq_sh, int64_t gq_ss, float *grad_k,
    int64_t gk_sb, int64_t gk_sh, int64_t gk_ss, float *grad_v, int64_t gv_sb,
    int64_t gv_sh, int64_t gv_ss, float dropout, const uint64_t *dropout_key,
    int64_t dropout_stream, float *scratch);

void tfrt_cuda_layer_norm_f32(int64_t rows, int64_t cols, const float *input,
                              const float *residual, const float *gamma,
                              const float *beta, float epsilon, int32_t form,
                              float *out);

void tfrt_cuda_layer_norm_grad_f32(int64_t rows, int64_t cols,
                                   const float *grad, const float *input,
                                   const float *gamma, float epsilon,
                                   int32_t form, float *grad_input,
                                   float *grad_gamma, float *grad_beta,
                                   float *partials, int64_t row_chunk);

void tfrt_cuda_cross_entropy_f32(int64_t rows, int64_t classes,
                                 const float *logits, const void *labels,
                                 int32_t index_bits, int64_t ignore_index,
                                 float label_smoothing, float *loss,
                                 float *scratch);

void tfrt_cuda_cross_entropy_grad_f32(int64_t rows, int64_t classes,
                                      const float *logits, const void *labels,
                                      int32_t index_bits, int64_t ignore_index,
                                      float label_smoothing, float *grad,
                                      float *scratch);

void tfrt_cuda_nll_loss_f32(int64_t rows, int64_t classes,
                            const float *log_probs, const void *labels,
                            int32_t index_bits, int64_t ignore_index,
                            float *loss, float *scratch);

void tfrt_cuda_nll_loss_grad_f32(int64_t rows, int64_t classes,
                                 const float *log_probs, const void *labels,
                                 int32_t index_bits, int64_t ignore_index,
                                 float *grad, float *scratch);

void tfrt_cuda_embedding_grad_f32(int64_t positions, int64_t width,
                                  int64_t rows, const float *grad,
                                  const void *ids, int32_t index_bits,
                                  float *table, void *scratch);

void tfrt_cuda_sum_squares_f32(int64_t count, const int64_t *sizes,
                               const float *const *tensors, int64_t slots,
                               double *partials);

void tfrt_cuda_global_norm_f32(int64_t count, const double *partials,
                               float *out);

void tfrt_cuda_adam_update_f32(
    int64_t count, const int64_t *sizes, float *const *params,
    const float *const *grads, float *const *exp_avgs,
    float *const *exp_avg_sqs, float beta1, float one_minus_beta1, float beta2,
    float one_minus_beta2, float eps, float weight_decay,
    const float *step_size, const float *bias_correction2_sqrt,
    const float *clip_factor, const float *decay_factor);

void tfrt_cuda_sgd_update_f32(int64_t count, const int64_t *sizes,
                              float *const *params, const float *const *grads,
                              float *const *momentum_buffers, float momentum,
                              float weight_decay, int32_t nesterov,
                              const float *lr, const float *clip_factor);

} // extern "C"

#endif // TRANSFUSE_TEST_CUDAEMULATION_CUDAENTRYPOINTS_H
