//===- EmulatedAttentionTiles.h - attention_tiles.cuh for g++ ---*- C++ -*-===//
//
// attention_tiles.cuh declares the attention kernels' dynamic shared memory
// `extern __shared__ float4 attentionShared[]`, which CudaEmulation.h's
// static __shared__ would make `extern static`. So the header is compiled
// here, before the kernels that include it, with __shared__ marking a weak
// external instead: the declaration then names the buffer that
// AttentionSharedMemory.cpp defines and hands to the grid, while g++
// rejects a weak local array, so that a static __shared__ added to that
// header fails to compile rather than become per-thread storage.
// reduce.cuh, which it includes, comes first, with the static __shared__ of
// its block reductions.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_CUDAEMULATION_EMULATEDATTENTIONTILES_H
#define TRANSFUSE_TEST_CUDAEMULATION_EMULATEDATTENTIONTILES_H

#include "CudaEmulation.h"

#include "cuda/kernels/reduce.cuh"

#pragma push_macro("__shared__")
#undef __shared__
#define __shared__ __attribute__((weak))
#include "cuda/kernels/attention_tiles.cuh"
#pragma pop_macro("__shared__")

#endif // TRANSFUSE_TEST_CUDAEMULATION_EMULATEDATTENTIONTILES_H
