//===- EmbeddingKernels.cpp - embedding.cu as C++ -------------------------===//
#include "CudaEmulation.h"

#include "cuda/kernels/embedding.cu"

#include "KernelTable.h"

static const transfuse::emu::KernelRegistration embeddingKernels{
    TF_EMU_KERNEL(tf_embedding_next_occurrence_i64),
    TF_EMU_KERNEL(tf_embedding_next_occurrence_i32),
    TF_EMU_KERNEL(tf_embedding_sum_chains_i64),
    TF_EMU_KERNEL(tf_embedding_sum_chains_i32),
};
