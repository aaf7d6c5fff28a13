//===- AttentionBackwardKernels.cpp - attention_backward.cu as C++ --------===//
#include "EmulatedAttentionTiles.h"

#include "cuda/kernels/attention_backward.cu"

#include "KernelTable.h"

static const transfuse::emu::KernelRegistration attentionBackwardKernels{
    TF_EMU_KERNEL(tf_attention_backward_rows),
    TF_EMU_KERNEL(tf_attention_backward_kv_d32),
    TF_EMU_KERNEL(tf_attention_backward_kv_d64),
    TF_EMU_KERNEL(tf_attention_backward_kv_d128),
    TF_EMU_KERNEL(tf_attention_backward_kv_d256),
    TF_EMU_KERNEL(tf_attention_backward_q_d32),
    TF_EMU_KERNEL(tf_attention_backward_q_d64),
    TF_EMU_KERNEL(tf_attention_backward_q_d128),
    TF_EMU_KERNEL(tf_attention_backward_q_d256),
};
