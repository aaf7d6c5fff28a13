//===- LayerNormKernels.cpp - layer_norm.cu as C++ ------------------------===//
#include "CudaEmulation.h"

#include "cuda/kernels/layer_norm.cu"

#include "KernelTable.h"

static const transfuse::emu::KernelRegistration layerNormKernels{
    TF_EMU_KERNEL(tf_layer_norm),
    TF_EMU_KERNEL(tf_layer_norm_grad_chunks),
    TF_EMU_KERNEL(tf_layer_norm_grad_columns),
};
