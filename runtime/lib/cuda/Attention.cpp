//===- Attention.cpp - tfrt_cuda_attention{,_stats,_backward}_f32 ---------===//
//
// The CUDA twins of tfrt_attention_f32, tfrt_attention_stats_f32 and
// tfrt_attention_backward_f32 (docs/artifact.md), with their arguments but
// for two: the dropout key is the device address of the 64-bit key (step
// keys live in device memory so that a captured graph replays with new
// ones; it may be null when dropout is 0), and the backward takes scratch
// memory. The kernels (kernels/attention_forward.cu,
// kernels/attention_backward.cu) are instantiated for head widths up to 32,
// 64, 128 and 256; the launch shapes come from shared/AttentionTiling.h,
// which the kernels lay their tiles out by.
//===----------------------------------------------------------------------===//
#include "Arguments.h"
#include "Execution.h"

#include "../shared/AttentionTiling.h"

#include <cstdint>
#include <string>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;
using namespace transfuse::rt::attn;

namespace {

/// The kernels decode their block indices and rows in 32 bits.
constexpr int64_t kMaxRows = INT32_MAX;

/// Throws unless batch · heads · seq, the rows of a [batch, heads, seq, ·]
/// operand, stays within kMaxRows (all three non-negative).
void requireRowsFit(const char *what, int64_t batch, int64_t heads,
                    int64_t seq) {
  bool fits = batch == 0 || heads == 0 || seq == 0 ||
              (heads <= kMaxRows / batch && seq <= kMaxRows / (batch * heads));
  if (!fits)
    fail(TF_ERROR_EXECUTION, std::string("batch · heads · ") + what + " = " +
                                 std::to_string(batch) + " · " +
                                 std::to_string(heads) + " · " +
                                 std::to_string(seq) + " rows exceed 2^31 - 1");
}

/// Checks the arguments both directions share and gathers them.
Problem makeProblem(int64_t batch, int64_t heads, int64_t sq, int64_t sk,
                    int64_t dk, int64_t dv, const float *q, int64_t q_sb,
                    int64_t q_sh, int64_t q_ss, const float *k, int64_t k_sb,
                    int64_t k_sh, int64_t k_ss, const float *v, int64_t v_sb,
                    int64_t v_sh, int64_t v_ss, const void *mask,
                    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq,
                    int64_t m_sk, float scale, int32_t causal, float mask_fill,
                    float dropout, const uint64_t *dropout_key,
                    int64_t dropout_stream) {
  requireNonNegative("batch", batch);
  requireNonNegative("heads", heads);
  requireNonNegative("sq", sq);
  requireNonNegative("sk", sk);
  requireNonNegative("dk", dk);
  requireNonNegative("dv", dv);
  if (headDimBucket(dk, dv) == 0)
    fail(TF_ERROR_EXECUTION, "head widths dk = " + std::to_string(dk) +
                                 ", dv = " + std::to_string(dv) +
                                 ": the CUDA attention kernels take up to " +
                                 std::to_string(kMaxHeadDim));
  requireRowsFit("sq", batch, heads, sq);
  requireRowsFit("sk", batch, heads, sk);
  if (mask_kind < kNoMask || mask_kind > kFloatMask)
    fail(TF_ERROR_EXECUTION,
         "mask_kind must be 0 (none), 1 (bytes) or 2 (floats), got " +
             std::to_string(mask_kind));
  if (mask_kind != kNoMask && !mask)
    fail(TF_ERROR_EXECUTION,
         "mask_kind " + std::to_string(mask_kind) + " without a mask");
  // Written to reject NaN too.
  if (!(dropout >= 0.0f && dropout <= 1.0f))
    fail(TF_ERROR_EXECUTION,
         "dropout must lie in [0, 1], got " + std::to_string(dropout));
  if (dropout > 0.0f && !dropout_key)
    fail(TF_ERROR_EXECUTION,
         "dropout " + std::to_string(dropout) + " without a dropout key");
  DropoutSite site =
      dropoutSite(static_cast<uint64_t>(dropout_stream),
                  static_cast<uint64_t>(batch * heads * sq * sk));
  return {batch,
          heads,
          sq,
          sk,
          dk,
          dv,
          {q, q_sb, q_sh, q_ss},
          {k, k_sb, k_sh, k_ss},
          {v, v_sb, v_sh, v_ss},
          mask,
          {m_sb, m_sh, m_sq, m_sk},
          mask_kind,
          causal != 0 ? 1 : 0,
          scale,
          mask_fill,
          dropout,
          // A rate of 1 keeps nothing: zeros, not 0 · inf.
          dropout < 1.0f ? 1.0f / (1.0f - dropout) : 0.0f,
          dropout_key,
          site.stream,
          site.firstElement};
}

/// The symbol of kernel `base` instantiated for the problem's head widths.
std::string kernelFor(const char *base, const Problem &p) {
  return std::string(base) + "_d" + std::to_string(headDimBucket(p.dk, p.dv));
}

/// A grid with one block per tile of `tileRows` of `length` rows of each
/// (batch, head) pair; below 2^31 blocks, as the rows are.
Dim3 tileGrid(const Problem &p, int64_t length, int tileRows) {
  return {static_cast<unsigned>(p.batch * p.heads * ceilDiv(length, tileRows))};
}

unsigned sharedBytes(int floats) {
  return static_cast<unsigned>(floats * sizeof(float));
}

void forward(Execution &execution, const Problem &p, const ForwardOutputs &o) {
  // Without keys the kernel still writes out (0) and the lse (-inf).
  if (p.batch == 0 || p.heads == 0 || p.sq == 0)
    return;
  int headDim = headDimBucket(p.dk, p.dv);
  launch(execution, kernelFor("tf_attention_forward", p).c_str(),
         tileGrid(p, p.sq, forwardTile(headDim).rows), {kThreads},
         sharedBytes(forwardLayout(headDim).total), p, o);
}

void backward(Execution &execution, const Problem &p,
              const BackwardOperands &g) {
  if (p.batch == 0 || p.heads == 0)
    return;
  int headDim = headDimBucket(p.dk, p.dv);
  // The scratch first: both gradient kernels read it. Each gradient kernel
  // runs whenever its rows exist, writing zeros when the other side is
  // empty (no queries: dk and dv are 0; no keys: dq is).
  if (p.sq > 0)
    launch(execution, "tf_attention_backward_rows",
           {static_cast<unsigned>(ceilDiv(p.batch * p.heads * p.sq, kThreads))},
           {kThreads}, 0, p, g);
  if (p.sk > 0)
    launch(execution, kernelFor("tf_attention_backward_kv", p).c_str(),
           tileGrid(p, p.sk, keyGradTile(headDim).rows), {kThreads},
           sharedBytes(keyGradLayout(headDim).total), p, g);
  if (p.sq > 0)
    launch(execution, kernelFor("tf_attention_backward_q", p).c_str(),
           tileGrid(p, p.sq, queryGradTile(headDim).rows), {kThreads},
           sharedBytes(queryGradLayout(headDim).total), p, g);
}

} // namespace

/// tfrt_attention_stats_f32 on device pointers; dropout_key is the device
/// address of the key (null allowed when dropout is 0).
extern "C" TF_API void tfrt_cuda_attention_stats_f32(
    int64_t batch, int64_t heads, int64_t sq, int64_t sk, int64_t dk,
    int64_t dv, const float *q, int64_t q_sb, int64_t q_sh, int64_t q_ss,
    const float *k, int64_t k_sb, int64_t k_sh, int64_t k_ss, const float *v,
    int64_t v_sb, int64_t v_sh, int64_t v_ss, const void *mask,
    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk,
    float scale, int32_t causal, float mask_fill, float *out, int64_t o_sb,
    int64_t o_sh, int64_t o_ss, float *lse, float dropout,
    const uint64_t *dropout_key, int64_t dropout_stream) {
  onDevice("tfrt_cuda_attention_stats_f32", [&](Execution &execution) {
    Problem p = makeProblem(batch, heads, sq, sk, dk, dv, q, q_sb, q_sh, q_ss,
                            k, k_sb, k_sh, k_ss, v, v_sb, v_sh, v_ss, mask,
                            mask_kind, m_sb, m_sh, m_sq, m_sk, scale, causal,
                            mask_fill, dropout, dropout_key, dropout_stream);
    forward(execution, p, {{out, o_sb, o_sh, o_ss}, lse});
  });
}

/// tfrt_attention_f32 on device pointers.
extern "C" TF_API void tfrt_cuda_attention_f32(
    int64_t batch, int64_t heads, int64_t sq, int64_t sk, int64_t dk,
    int64_t dv, const float *q, int64_t q_sb, int64_t q_sh, int64_t q_ss,
    const float *k, int64_t k_sb, int64_t k_sh, int64_t k_ss, const float *v,
    int64_t v_sb, int64_t v_sh, int64_t v_ss, const void *mask,
    int32_t mask_kind, int64_t m_sb, int64_t m_sh, int64_t m_sq, int64_t m_sk,
    float scale, int32_t causal, float mask_fill, float *out, int64_t o_sb,
    int64_t o_sh, int64_t o_ss) {
  onDevice("tfrt_cuda_attention_f32", [&](Execution &execution) {
    Problem p = makeProblem(batch, heads, sq, sk, dk, dv, q, q_sb, q_sh, q_ss,
                            k, k_sb, k_sh, k_ss, v, v_sb, v_sh, v_ss, mask,
                            mask_kind, m_sb, m_sh, m_sq, m_sk, scale, causal,
                            mask_fill, 0.0f, nullptr, 0);
    forward(execution, p, {{out, o_sb, o_sh, o_ss}, nullptr});
  });
}

/// tfrt_attention_backward_f32 on device pointers; dropout_key as in
/// tfrt_cuda_attention_stats_f32. `scratch` holds batch · heads · sq floats
/// of device memory, dense [batch, heads, sq], that the call overwrites:
/// each query row's dout · out, or for a row whose |lse| is 1024 or more,
/// the part of its log-sum-exp the float lse lost (shared/OnlineSoftmax.h).
extern "C" TF_API void tfrt_cuda_attention_backward_f32(
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
    int64_t dropout_stream, float *scratch) {
  onDevice("tfrt_cuda_attention_backward_f32", [&](Execution &execution) {
    Problem p = makeProblem(batch, heads, sq, sk, dk, dv, q, q_sb, q_sh, q_ss,
                            k, k_sb, k_sh, k_ss, v, v_sb, v_sh, v_ss, mask,
                            mask_kind, m_sb, m_sh, m_sq, m_sk, scale, causal,
                            mask_fill, dropout, dropout_key, dropout_stream);
    if (!scratch && batch * heads * sq > 0)
      fail(TF_ERROR_EXECUTION, "no scratch memory (batch · heads · sq floats)");
    backward(execution, p,
             {{out, o_sb, o_sh, o_ss},
              {grad_out, go_sb, go_sh, go_ss},
              lse,
              scratch,
              {grad_q, gq_sb, gq_sh, gq_ss},
              {grad_k, gk_sb, gk_sh, gk_ss},
              {grad_v, gv_sb, gv_sh, gv_ss}});
  });
}
