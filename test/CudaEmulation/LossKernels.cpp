//===- LossKernels.cpp - losses.cu as C++ ---------------------------------===//
#include "CudaEmulation.h"

#include "cuda/kernels/losses.cu"

#include "KernelTable.h"

static const transfuse::emu::KernelRegistration lossKernels{
    TF_EMU_KERNEL(tf_cross_entropy_rows_i64),
    TF_EMU_KERNEL(tf_cross_entropy_rows_i32),
    TF_EMU_KERNEL(tf_cross_entropy_grad_rows_i64),
    TF_EMU_KERNEL(tf_cross_entropy_grad_rows_i32),
    TF_EMU_KERNEL(tf_nll_loss_rows_i64),
    TF_EMU_KERNEL(tf_nll_loss_rows_i32),
    TF_EMU_KERNEL(tf_nll_loss_grad_rows_i64),
    TF_EMU_KERNEL(tf_nll_loss_grad_rows_i32),
    TF_EMU_KERNEL(tf_loss_mean_i64),
    TF_EMU_KERNEL(tf_loss_mean_i32),
    TF_EMU_KERNEL(tf_loss_count_i64),
    TF_EMU_KERNEL(tf_loss_count_i32),
};
