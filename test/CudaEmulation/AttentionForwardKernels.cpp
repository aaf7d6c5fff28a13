//===- AttentionForwardKernels.cpp - attention_forward.cu as C++ ----------===//
#include "EmulatedAttentionTiles.h"

#include "cuda/kernels/attention_forward.cu"

#include "KernelTable.h"

static const transfuse::emu::KernelRegistration attentionForwardKernels{
    TF_EMU_KERNEL(tf_attention_forward_d32),
    TF_EMU_KERNEL(tf_attention_forward_d64),
    TF_EMU_KERNEL(tf_attention_forward_d128),
    TF_EMU_KERNEL(tf_attention_forward_d256),
};
