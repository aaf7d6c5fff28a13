//===- OptimizerKernels.cpp - optimizer.cu as C++ -------------------------===//
#include "CudaEmulation.h"

#include "cuda/kernels/optimizer.cu"

#include "KernelTable.h"

static const transfuse::emu::KernelRegistration optimizerKernels{
    TF_EMU_KERNEL(tf_sum_squares_f32),
    TF_EMU_KERNEL(tf_global_norm_f32),
    TF_EMU_KERNEL(tf_adam_update_f32),
    TF_EMU_KERNEL(tf_sgd_update_f32),
};
