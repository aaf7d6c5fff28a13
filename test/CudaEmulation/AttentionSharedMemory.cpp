//===- AttentionSharedMemory.cpp - The attention kernels' shared memory ---===//
//
// The storage of `extern __shared__ float4 attentionShared[]`
// (EmulatedAttentionTiles.h): as large as any block may ask for, since a
// launch gives its size.
//===----------------------------------------------------------------------===//
#include "CudaEmulation.h"

namespace transfuse::rt::attn {
float4 attentionShared[transfuse::emu::kMaxDynamicSharedBytes / sizeof(float4)];
} // namespace transfuse::rt::attn

static const transfuse::emu::DynamicSharedMemory
    attentionSharedMemory(transfuse::rt::attn::attentionShared,
                          sizeof transfuse::rt::attn::attentionShared);
