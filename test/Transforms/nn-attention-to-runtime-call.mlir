// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-attention-to-runtime-call -canonicalize -cse | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-attention-to-runtime-call=target=cuda -canonicalize -cse | FileCheck %s --check-prefix=CUDA

// -nn-attention-to-runtime-call: every nn.attention_into becomes one call
//   tfrt_attention_f32(batch, heads, sq, sk, dk, dv,
//                      q, q strides[3], k, k strides[3], v, v strides[3],
//                      mask, mask kind, mask strides[4],
//                      scale, causal, fill, out, out strides[3])
// (docs/artifact.md). Transposes keeping the last dim that only feed it, or
// only copy its result, become views. With target=cuda (CUDA) the calls are
// of the CUDA runtime's twins, tfrt_cuda_* (runtime/lib/cuda/Attention.cpp),
// with the same arguments but for two: the dropout seed is passed by its
// address (it lives in device memory), and the backward takes a scratch
// buffer of one float per query row.

// Dense buffers: strides are the row-major ones, no mask (null, kind 0),
// fill -inf.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @tfrt_attention_f32(i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i32, i64, i64, i64, i64, f32, i32, f32, !llvm.ptr, i64, i64, i64)
// CHECK-LABEL: func.func @plain
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_attention_f32(%c2_i64, %c4_i64, %c3_i64, %c5_i64, %c8_i64, %c16_i64, %{{.*}}, %c96_i64, %c24_i64, %c8_i64, %{{.*}}, %c160_i64, %c40_i64, %c8_i64, %{{.*}}, %c320_i64, %c80_i64, %c16_i64, %[[NULL]], %c0_i32, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %[[HALF]], %c0_i32, %[[NEGINF]], %{{.*}}, %c192_i64, %c48_i64, %c16_i64)
// CHECK-NOT:     nn.attention_into
// CUDA-LABEL:  module {
// CUDA-NEXT:     func.func private @tfrt_cuda_attention_f32(i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i32, i64, i64, i64, i64, f32, i32, f32, !llvm.ptr, i64, i64, i64)
// CUDA-NOT:      @tfrt_attention_f32
// CUDA-LABEL:  func.func @plain
// CUDA-DAG:      %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CUDA-DAG:      %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CUDA-DAG:      %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CUDA:          call @tfrt_cuda_attention_f32(%c2_i64, %c4_i64, %c3_i64, %c5_i64, %c8_i64, %c16_i64, %{{.*}}, %c96_i64, %c24_i64, %c8_i64, %{{.*}}, %c160_i64, %c40_i64, %c8_i64, %{{.*}}, %c320_i64, %c80_i64, %c16_i64, %[[NULL]], %c0_i32, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %[[HALF]], %c0_i32, %[[NEGINF]], %{{.*}}, %c192_i64, %c48_i64, %c16_i64)
// CUDA-NOT:      nn.attention_into
func.func @plain(%q: memref<2x4x3x8xf32>, %k: memref<2x4x5x8xf32>, %v: memref<2x4x5x16xf32>, %out: memref<2x4x3x16xf32>) {
  nn.attention_into %q, %k, %v into %out {scale = 0.5 : f64} : memref<2x4x3x8xf32>, memref<2x4x5x8xf32>, memref<2x4x5x16xf32> into memref<2x4x3x16xf32>
  return
}

// -----

// The head split and merge around attention: q is transposed out of a
// [b, s, h, d] slice of a projection (offset 8 elements = 32 bytes), the
// result transposed back into a fresh buffer. Both copies go: q is read
// with strides (s·h·d·2, d, h·d·2) and the kernel writes the final buffer
// with strides (s·h·d, d, h·d). The destination's allocation moves up.
// CHECK-LABEL: func.func @head_split
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[FINAL:.*]] = memref.alloc() : memref<1x3x2x8xf32>
// CHECK-NEXT:    memref.transpose %[[FINAL]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x3x2x8xf32> to memref<1x2x3x8xf32, strided<[48, 8, 16, 1]>>
// CHECK-NEXT:    %[[QIDX:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<1x2x3x8xf32, strided<[96, 8, 32, 1], offset: 8>> -> index
// CHECK-NEXT:    %[[QADDR:.*]] = arith.addi %[[QIDX]], %c32 : index
// CHECK:         call @tfrt_attention_f32(%c1_i64, %c2_i64, %c3_i64, %c3_i64, %c8_i64, %c8_i64, %{{.*}}, %c96_i64, %c8_i64, %c32_i64, %{{.*}}, %c48_i64, %c24_i64, %c8_i64, %{{.*}}, %c48_i64, %c24_i64, %c8_i64, %{{.*}}, %c0_i32, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %{{.*}}, %c1_i32, %{{.*}}, %{{.*}}, %c48_i64, %c8_i64, %c16_i64)
// CHECK-NEXT:    return %[[FINAL]]
func.func @head_split(%proj: memref<1x3x32xf32>, %kv: memref<1x2x3x8xf32>) -> memref<1x3x2x8xf32> {
  %slice = memref.subview %proj[0, 0, 8] [1, 3, 16] [1, 1, 1] : memref<1x3x32xf32> to memref<1x3x16xf32, strided<[96, 32, 1], offset: 8>>
  %heads = memref.expand_shape %slice [[0], [1], [2, 3]] output_shape [1, 3, 2, 8] : memref<1x3x16xf32, strided<[96, 32, 1], offset: 8>> into memref<1x3x2x8xf32, strided<[96, 32, 8, 1], offset: 8>>
  %q = memref.alloc() : memref<1x2x3x8xf32>
  linalg.transpose ins(%heads : memref<1x3x2x8xf32, strided<[96, 32, 8, 1], offset: 8>>) outs(%q : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %o = memref.alloc() : memref<1x2x3x8xf32>
  nn.attention_into %q, %kv, %kv into %o {causal, scale = 0.5 : f64} : memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32> into memref<1x2x3x8xf32>
  %final = memref.alloc() : memref<1x3x2x8xf32>
  linalg.transpose ins(%o : memref<1x2x3x8xf32>) outs(%final : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  return %final : memref<1x3x2x8xf32>
}

// -----

// Copies that must stay. The source of q's transpose is overwritten before
// attention reads it; k's transposed buffer is read again afterwards; the
// result is read before it is transposed.
// CHECK-LABEL: func.func @copies_needed
// CHECK:         linalg.transpose ins(%{{.*}} : memref<1x3x2x8xf32>) outs(%[[Q:.*]] : memref<1x2x3x8xf32>)
// CHECK:         linalg.fill
// CHECK:         linalg.transpose ins(%{{.*}} : memref<1x3x2x8xf32>) outs(%[[K:.*]] : memref<1x2x3x8xf32>)
// CHECK:         call @tfrt_attention_f32
// CHECK:         memref.copy %[[K]]
// CHECK:         memref.copy %[[O:.*]], %{{.*}}
// CHECK:         linalg.transpose ins(%[[O]] : memref<1x2x3x8xf32>)
func.func @copies_needed(%x: memref<1x3x2x8xf32>, %y: memref<1x3x2x8xf32>, %saved: memref<1x2x3x8xf32>, %peek: memref<1x2x3x8xf32>, %final: memref<1x3x2x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %q = memref.alloc() : memref<1x2x3x8xf32>
  linalg.transpose ins(%x : memref<1x3x2x8xf32>) outs(%q : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  linalg.fill ins(%zero : f32) outs(%x : memref<1x3x2x8xf32>)
  %k = memref.alloc() : memref<1x2x3x8xf32>
  linalg.transpose ins(%y : memref<1x3x2x8xf32>) outs(%k : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %o = memref.alloc() : memref<1x2x3x8xf32>
  nn.attention_into %q, %k, %k into %o {scale = 0.5 : f64} : memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32> into memref<1x2x3x8xf32>
  memref.copy %k, %saved : memref<1x2x3x8xf32> to memref<1x2x3x8xf32>
  memref.copy %o, %peek : memref<1x2x3x8xf32> to memref<1x2x3x8xf32>
  linalg.transpose ins(%o : memref<1x2x3x8xf32>) outs(%final : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  return
}

// -----

// Masks broadcast through zero strides. An i1 key-padding mask [b, 1, 1, sk]
// is kind 1 with strides (sk, 0, 0, 1); a float mask [sq, sk] is kind 2 with
// strides (0, 0, sk, 1). The fill is mask_fill.
// CHECK-LABEL: func.func @masks
// CHECK-DAG:     %[[FILL:.*]] = arith.constant -1.000000e+09 : f32
// CHECK:         call @tfrt_attention_f32(%c2_i64, %c4_i64, %c3_i64, %c5_i64, %c8_i64, %c8_i64, {{.*}}, %c1_i32, %c5_i64, %c0_i64, %c0_i64, %c1_i64, %{{.*}}, %c0_i32, %[[FILL]], {{.*}})
// CHECK:         call @tfrt_attention_f32(%c2_i64, %c4_i64, %c3_i64, %c5_i64, %c8_i64, %c8_i64, {{.*}}, %c2_i32, %c0_i64, %c0_i64, %c5_i64, %c1_i64, {{.*}})
func.func @masks(%q: memref<2x4x3x8xf32>, %k: memref<2x4x5x8xf32>, %pad: memref<2x1x1x5xi1>, %bias: memref<3x5xf32>, %out: memref<2x4x3x8xf32>) {
  nn.attention_into %q, %k, %k mask %pad into %out {mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : memref<2x4x3x8xf32>, memref<2x4x5x8xf32>, memref<2x4x5x8xf32>, memref<2x1x1x5xi1> into memref<2x4x3x8xf32>
  nn.attention_into %q, %k, %k mask %bias into %out {scale = 0.5 : f64} : memref<2x4x3x8xf32>, memref<2x4x5x8xf32>, memref<2x4x5x8xf32>, memref<3x5xf32> into memref<2x4x3x8xf32>
  return
}

// -----

func.func @f64(%q: memref<1x2x3x4xf64>) {
  // expected-error @+1 {{'nn.attention_into' op the runtime kernel takes rank-4 f32 buffers, got 'memref<1x2x3x4xf64>'}}
  nn.attention_into %q, %q, %q into %q {scale = 0.5 : f64} : memref<1x2x3x4xf64>, memref<1x2x3x4xf64>, memref<1x2x3x4xf64> into memref<1x2x3x4xf64>
  return
}

// -----

func.func @strided_last_dim(%q: memref<1x2x3x4xf32>, %k: memref<1x2x3x4xf32, strided<[24, 12, 4, 2]>>) {
  // expected-error @+1 {{'nn.attention_into' op the runtime kernel needs a contiguous last dimension, got 'memref<1x2x3x4xf32, strided<[24, 12, 4, 2]>>'}}
  nn.attention_into %q, %k, %q into %q {scale = 0.5 : f64} : memref<1x2x3x4xf32>, memref<1x2x3x4xf32, strided<[24, 12, 4, 2]>>, memref<1x2x3x4xf32> into memref<1x2x3x4xf32>
  return
}

// -----

// Training: nn.attention_stats_into calls tfrt_attention_stats_f32, which
// also writes the row log-sum-exp, and nn.attention_grad_into calls
// tfrt_attention_backward_f32; both end with the dropout rate, the seed
// (loaded from its buffer) and the stream.
// CHECK-DAG:   func.func private @tfrt_attention_stats_f32(i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i32, i64, i64, i64, i64, f32, i32, f32, !llvm.ptr, i64, i64, i64, !llvm.ptr, f32, i64, i64)
// CHECK-DAG:   func.func private @tfrt_attention_backward_f32(i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i32, i64, i64, i64, i64, f32, i32, f32, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, f32, i64, i64)
// CHECK-LABEL: func.func @training
// CHECK-SAME:    (%[[Q:.*]]: memref<1x2x3x8xf32>, %[[SEED:.*]]: memref<i64>, %[[O:.*]]: memref<1x2x3x8xf32>, %[[L:.*]]: memref<1x2x3xf32>, %[[DQ:.*]]: memref<1x2x3x8xf32>)
// CHECK:         %[[KEY:.*]] = memref.load %[[SEED]][] : memref<i64>
// CHECK:         call @tfrt_attention_stats_f32(%c1_i64, %c2_i64, %c3_i64, %c3_i64, %c8_i64, %c8_i64, {{.*}}, %[[LP:.*]], %[[RATE:.*]], %[[KEY]], %c5_i64)
// CHECK:         %[[KEY2:.*]] = memref.load %[[SEED]][] : memref<i64>
// CHECK:         call @tfrt_attention_backward_f32(%c1_i64, %c2_i64, %c3_i64, %c3_i64, %c8_i64, %c8_i64, {{.*}}, %[[RATE]], %[[KEY2]], %c5_i64)
func.func @training(%q: memref<1x2x3x8xf32>, %seed: memref<i64>, %o: memref<1x2x3x8xf32>, %lse: memref<1x2x3xf32>, %dq: memref<1x2x3x8xf32>) {
  nn.attention_stats_into %q, %q, %q seed %seed into %o, %lse {causal, dropout = 0.25 : f64, scale = 0.5 : f64, stream = 5 : i64} : (memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<i64>, memref<1x2x3x8xf32>, memref<1x2x3xf32>) -> ()
  nn.attention_grad_into %q, %q, %q out %o lse %lse grad %o seed %seed into %dq, %dq, %dq {causal, dropout = 0.25 : f64, scale = 0.5 : f64, stream = 5 : i64} : (memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3xf32>, memref<1x2x3x8xf32>, memref<i64>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>) -> ()
  return
}

// -----

// Training on the GPU: the seed is the address of its buffer (never loaded
// on the host), after the dropout rate and before the stream; the backward
// ends with a fresh scratch buffer of batch * heads * sq = 8 floats. The
// CPU kernels take the seed's value and no scratch.
// CUDA-DAG:    func.func private @tfrt_cuda_attention_stats_f32(i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i32, i64, i64, i64, i64, f32, i32, f32, !llvm.ptr, i64, i64, i64, !llvm.ptr, f32, !llvm.ptr, i64)
// CUDA-DAG:    func.func private @tfrt_cuda_attention_backward_f32(i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i32, i64, i64, i64, i64, f32, i32, f32, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, f32, !llvm.ptr, i64, !llvm.ptr)
// CUDA-LABEL:  func.func @training_cuda
// CUDA-SAME:     (%[[Q:.*]]: memref<1x2x4x8xf32>, %[[K:.*]]: memref<1x2x6x8xf32>, %[[V:.*]]: memref<1x2x6x8xf32>, %[[SEED:.*]]: memref<i64>, %[[O:.*]]: memref<1x2x4x8xf32>, %[[L:.*]]: memref<1x2x4xf32>, %[[DO:.*]]: memref<1x2x4x8xf32>, %[[DQ:.*]]: memref<1x2x4x8xf32>, %[[DK:.*]]: memref<1x2x6x8xf32>, %[[DV:.*]]: memref<1x2x6x8xf32>)
// CUDA-DAG:      %[[RATE:.*]] = arith.constant 2.500000e-01 : f32
// CUDA-DAG:      %[[STREAM:.*]] = arith.constant 3 : i64
// CUDA-NOT:      memref.load
// CUDA:          memref.extract_aligned_pointer_as_index %[[Q]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[QP:.*]] = llvm.inttoptr
// CUDA-NEXT:     memref.extract_aligned_pointer_as_index %[[K]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[KP:.*]] = llvm.inttoptr
// CUDA-NEXT:     memref.extract_aligned_pointer_as_index %[[V]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[VP:.*]] = llvm.inttoptr
// CUDA-NEXT:     memref.extract_aligned_pointer_as_index %[[O]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[OP:.*]] = llvm.inttoptr
// CUDA-NEXT:     memref.extract_aligned_pointer_as_index %[[L]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[LP:.*]] = llvm.inttoptr
// CUDA-NEXT:     %[[SI:.*]] = memref.extract_aligned_pointer_as_index %[[SEED]] : memref<i64> -> index
// CUDA-NEXT:     %[[SI64:.*]] = arith.index_cast %[[SI]] : index to i64
// CUDA-NEXT:     %[[SP:.*]] = llvm.inttoptr %[[SI64]] : i64 to !llvm.ptr
// CUDA-NEXT:     call @tfrt_cuda_attention_stats_f32(%c1_i64, %c2_i64, %c4_i64, %c6_i64, %c8_i64, %c8_i64, %[[QP]], %c64_i64, %c32_i64, %c8_i64, %[[KP]], %c96_i64, %c48_i64, %c8_i64, %[[VP]], %c96_i64, %c48_i64, %c8_i64, %{{.*}}, %c0_i32, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %{{.*}}, %c0_i32, %{{.*}}, %[[OP]], %c64_i64, %c32_i64, %c8_i64, %[[LP]], %[[RATE]], %[[SP]], %[[STREAM]])
// CUDA-NEXT:     memref.extract_aligned_pointer_as_index %[[DO]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[DOP:.*]] = llvm.inttoptr
// CUDA-NEXT:     memref.extract_aligned_pointer_as_index %[[DQ]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[DQP:.*]] = llvm.inttoptr
// CUDA-NEXT:     memref.extract_aligned_pointer_as_index %[[DK]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[DKP:.*]] = llvm.inttoptr
// CUDA-NEXT:     memref.extract_aligned_pointer_as_index %[[DV]]
// CUDA-NEXT:     arith.index_cast
// CUDA-NEXT:     %[[DVP:.*]] = llvm.inttoptr
// CUDA-NEXT:     %[[SCRATCH:.*]] = memref.alloc() : memref<8xf32>
// CUDA-NEXT:     %[[XI:.*]] = memref.extract_aligned_pointer_as_index %[[SCRATCH]] : memref<8xf32> -> index
// CUDA-NEXT:     %[[XI64:.*]] = arith.index_cast %[[XI]] : index to i64
// CUDA-NEXT:     %[[XP:.*]] = llvm.inttoptr %[[XI64]] : i64 to !llvm.ptr
// CUDA-NEXT:     call @tfrt_cuda_attention_backward_f32(%c1_i64, %c2_i64, %c4_i64, %c6_i64, %c8_i64, %c8_i64, %[[QP]], %c64_i64, %c32_i64, %c8_i64, %[[KP]], %c96_i64, %c48_i64, %c8_i64, %[[VP]], %c96_i64, %c48_i64, %c8_i64, %{{.*}}, %c0_i32, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %{{.*}}, %c0_i32, %{{.*}}, %[[OP]], %c64_i64, %c32_i64, %c8_i64, %[[LP]], %[[DOP]], %c64_i64, %c32_i64, %c8_i64, %[[DQP]], %c64_i64, %c32_i64, %c8_i64, %[[DKP]], %c96_i64, %c48_i64, %c8_i64, %[[DVP]], %c96_i64, %c48_i64, %c8_i64, %[[RATE]], %[[SP]], %[[STREAM]], %[[XP]])
// CUDA-NEXT:     return
// CHECK-LABEL: func.func @training_cuda
// CHECK-SAME:    %[[SEED:[^:]+]]: memref<i64>
// CHECK:         %[[KEY:.*]] = memref.load %[[SEED]][] : memref<i64>
// CHECK:         call @tfrt_attention_stats_f32({{.*}}, %[[KEY]], %c3_i64)
// CHECK-NOT:     memref.alloc
// CHECK:         call @tfrt_attention_backward_f32({{.*}}, %{{.*}}, %c3_i64)
// CHECK-NEXT:    return
func.func @training_cuda(%q: memref<1x2x4x8xf32>, %k: memref<1x2x6x8xf32>, %v: memref<1x2x6x8xf32>, %seed: memref<i64>,
                         %o: memref<1x2x4x8xf32>, %lse: memref<1x2x4xf32>, %do: memref<1x2x4x8xf32>,
                         %dq: memref<1x2x4x8xf32>, %dk: memref<1x2x6x8xf32>, %dv: memref<1x2x6x8xf32>) {
  nn.attention_stats_into %q, %k, %v seed %seed into %o, %lse {dropout = 0.25 : f64, scale = 0.5 : f64, stream = 3 : i64} : (memref<1x2x4x8xf32>, memref<1x2x6x8xf32>, memref<1x2x6x8xf32>, memref<i64>, memref<1x2x4x8xf32>, memref<1x2x4xf32>) -> ()
  nn.attention_grad_into %q, %k, %v out %o lse %lse grad %do seed %seed into %dq, %dk, %dv {dropout = 0.25 : f64, scale = 0.5 : f64, stream = 3 : i64} : (memref<1x2x4x8xf32>, memref<1x2x6x8xf32>, memref<1x2x6x8xf32>, memref<1x2x4x8xf32>, memref<1x2x4xf32>, memref<1x2x4x8xf32>, memref<i64>, memref<1x2x4x8xf32>, memref<1x2x6x8xf32>, memref<1x2x6x8xf32>) -> ()
  return
}

// -----

// The backward's gradients of q, k and v, each transposed back to
// [b, s, h, d]: the kernel writes dq and dk straight into their final
// buffers through transposed views (strides s·h·d, d, h·d), and those
// copies go. dv's buffer is read again after its transpose, so its copy
// stays.
// CHECK-LABEL: func.func @grad_head_merge
// CHECK-SAME:    (%[[Q:.*]]: memref<1x2x3x8xf32>, %[[SEED:.*]]: memref<i64>, %[[DQF:.*]]: memref<1x3x2x8xf32>, %[[DKF:.*]]: memref<1x3x2x8xf32>, %[[DVF:.*]]: memref<1x3x2x8xf32>)
// CHECK-DAG:     memref.transpose %[[DQF]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x3x2x8xf32> to memref<1x2x3x8xf32, strided<[48, 8, 16, 1]>>
// CHECK-DAG:     memref.transpose %[[DKF]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x3x2x8xf32> to memref<1x2x3x8xf32, strided<[48, 8, 16, 1]>>
// CHECK:         call @tfrt_attention_backward_f32({{.*}}, %{{.*}}, %c48_i64, %c8_i64, %c16_i64, %{{.*}}, %c48_i64, %c8_i64, %c16_i64, %[[DV:.*]], %c48_i64, %c24_i64, %c8_i64, %{{.*}}, %{{.*}}, %c5_i64)
// CHECK-NEXT:    linalg.transpose ins(%[[DVB:.*]] : memref<1x2x3x8xf32>) outs(%[[DVF]] : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
// CHECK-NEXT:    call @use(%[[DVB]])
// CHECK-NOT:     linalg.transpose
func.func private @use(memref<1x2x3x8xf32>)
func.func @grad_head_merge(%q: memref<1x2x3x8xf32>, %seed: memref<i64>, %dq_final: memref<1x3x2x8xf32>, %dk_final: memref<1x3x2x8xf32>, %dv_final: memref<1x3x2x8xf32>) {
  %o = memref.alloc() : memref<1x2x3x8xf32>
  %lse = memref.alloc() : memref<1x2x3xf32>
  nn.attention_stats_into %q, %q, %q seed %seed into %o, %lse {scale = 0.5 : f64, stream = 5 : i64} : (memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<i64>, memref<1x2x3x8xf32>, memref<1x2x3xf32>) -> ()
  %dq = memref.alloc() : memref<1x2x3x8xf32>
  %dk = memref.alloc() : memref<1x2x3x8xf32>
  %dv = memref.alloc() : memref<1x2x3x8xf32>
  nn.attention_grad_into %q, %q, %q out %o lse %lse grad %o seed %seed into %dq, %dk, %dv {scale = 0.5 : f64, stream = 5 : i64} : (memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3xf32>, memref<1x2x3x8xf32>, memref<i64>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>) -> ()
  linalg.transpose ins(%dq : memref<1x2x3x8xf32>) outs(%dq_final : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  linalg.transpose ins(%dk : memref<1x2x3x8xf32>) outs(%dk_final : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  linalg.transpose ins(%dv : memref<1x2x3x8xf32>) outs(%dv_final : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  call @use(%dv) : (memref<1x2x3x8xf32>) -> ()
  return
}

// -----

// Training reads q, k and v twice, in the forward and again in the
// backward, and the backward reads the forward's result: every head split
// and merge is still a view. q, k and v are read out of the projection with
// strides (s·3·h·d, d, 3·h·d) by both kernels, the forward writes its result
// through a view of the merged buffer (strides s·h·d, d, h·d) and the
// backward reads it there, and dO is read out of the incoming gradient.
// CHECK-LABEL: func.func @training_head_split
// CHECK-SAME:    (%[[PROJ:.*]]: memref<1x3x48xf32>, %[[DY:.*]]: memref<1x3x16xf32>, %[[SEED:.*]]: memref<i64>, %[[DQ:.*]]: memref<1x2x3x8xf32>) -> memref<1x3x2x8xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[MERGED:.*]] = memref.alloc() : memref<1x3x2x8xf32>
// CHECK:         memref.transpose %[[MERGED]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x3x2x8xf32> to memref<1x2x3x8xf32, strided<[48, 8, 16, 1]>>
// CHECK:         call @tfrt_attention_stats_f32(%c1_i64, %c2_i64, %c3_i64, %c3_i64, %c8_i64, %c8_i64, %{{.*}}, %c144_i64, %c8_i64, %c48_i64, %{{.*}}, %c144_i64, %c8_i64, %c48_i64, %{{.*}}, %c144_i64, %c8_i64, %c48_i64, {{.*}}, %{{.*}}, %c48_i64, %c8_i64, %c16_i64, %{{.*}})
// CHECK:         call @tfrt_attention_backward_f32(%c1_i64, %c2_i64, %c3_i64, %c3_i64, %c8_i64, %c8_i64, %{{.*}}, %c144_i64, %c8_i64, %c48_i64, %{{.*}}, %c144_i64, %c8_i64, %c48_i64, %{{.*}}, %c144_i64, %c8_i64, %c48_i64, {{.*}}, %{{.*}}, %c48_i64, %c8_i64, %c16_i64, %{{.*}}, %{{.*}}, %c48_i64, %c8_i64, %c16_i64, %{{.*}}, %c48_i64, %c24_i64, %c8_i64,
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[MERGED]]
#heads = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @training_head_split(%proj: memref<1x3x48xf32>, %dy: memref<1x3x16xf32>, %seed: memref<i64>, %dq: memref<1x2x3x8xf32>) -> memref<1x3x2x8xf32> {
  %qs = memref.subview %proj[0, 0, 0] [1, 3, 16] [1, 1, 1] : memref<1x3x48xf32> to memref<1x3x16xf32, strided<[144, 48, 1]>>
  %ks = memref.subview %proj[0, 0, 16] [1, 3, 16] [1, 1, 1] : memref<1x3x48xf32> to memref<1x3x16xf32, strided<[144, 48, 1], offset: 16>>
  %vs = memref.subview %proj[0, 0, 32] [1, 3, 16] [1, 1, 1] : memref<1x3x48xf32> to memref<1x3x16xf32, strided<[144, 48, 1], offset: 32>>
  %qh = memref.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 3, 2, 8] : memref<1x3x16xf32, strided<[144, 48, 1]>> into memref<1x3x2x8xf32, strided<[144, 48, 8, 1]>>
  %kh = memref.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 3, 2, 8] : memref<1x3x16xf32, strided<[144, 48, 1], offset: 16>> into memref<1x3x2x8xf32, strided<[144, 48, 8, 1], offset: 16>>
  %vh = memref.expand_shape %vs [[0], [1], [2, 3]] output_shape [1, 3, 2, 8] : memref<1x3x16xf32, strided<[144, 48, 1], offset: 32>> into memref<1x3x2x8xf32, strided<[144, 48, 8, 1], offset: 32>>
  %q = memref.alloc() : memref<1x2x3x8xf32>
  linalg.transpose ins(%qh : memref<1x3x2x8xf32, strided<[144, 48, 8, 1]>>) outs(%q : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %k = memref.alloc() : memref<1x2x3x8xf32>
  linalg.transpose ins(%kh : memref<1x3x2x8xf32, strided<[144, 48, 8, 1], offset: 16>>) outs(%k : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %v = memref.alloc() : memref<1x2x3x8xf32>
  linalg.transpose ins(%vh : memref<1x3x2x8xf32, strided<[144, 48, 8, 1], offset: 32>>) outs(%v : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %o = memref.alloc() : memref<1x2x3x8xf32>
  %lse = memref.alloc() : memref<1x2x3xf32>
  nn.attention_stats_into %q, %k, %v seed %seed into %o, %lse {causal, scale = 0.5 : f64, stream = 5 : i64} : (memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<i64>, memref<1x2x3x8xf32>, memref<1x2x3xf32>) -> ()
  %merged = memref.alloc() : memref<1x3x2x8xf32>
  linalg.transpose ins(%o : memref<1x2x3x8xf32>) outs(%merged : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  %dyh = memref.expand_shape %dy [[0], [1], [2, 3]] output_shape [1, 3, 2, 8] : memref<1x3x16xf32> into memref<1x3x2x8xf32>
  %do = memref.alloc() : memref<1x2x3x8xf32>
  linalg.transpose ins(%dyh : memref<1x3x2x8xf32>) outs(%do : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %dk = memref.alloc() : memref<1x2x3x8xf32>
  %dv = memref.alloc() : memref<1x2x3x8xf32>
  nn.attention_grad_into %q, %k, %v out %o lse %lse grad %do seed %seed into %dq, %dk, %dv {causal, scale = 0.5 : f64, stream = 5 : i64} : (memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3xf32>, memref<1x2x3x8xf32>, memref<i64>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>) -> ()
  return %merged : memref<1x3x2x8xf32>
}

// -----

// Copies that training needs: the projection is overwritten between the
// forward and the backward, so q's transposed copy stays for both kernels;
// the merged result is written between them, so the backward reads the
// forward's own buffer and that transpose stays too.
// CHECK-LABEL: func.func @training_copies_needed
// CHECK:         linalg.transpose ins(%{{.*}} : memref<1x3x2x8xf32>) outs(%[[Q:.*]] : memref<1x2x3x8xf32>)
// CHECK:         call @tfrt_attention_stats_f32
// CHECK:         linalg.transpose ins(%[[O:.*]] : memref<1x2x3x8xf32>) outs(%[[MERGED:.*]] : memref<1x3x2x8xf32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x3x2x8xf32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[MERGED]] : memref<1x3x2x8xf32>)
// CHECK:         call @tfrt_attention_backward_f32
func.func @training_copies_needed(%x: memref<1x3x2x8xf32>, %seed: memref<i64>, %dq: memref<1x2x3x8xf32>) -> memref<1x3x2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %q = memref.alloc() : memref<1x2x3x8xf32>
  linalg.transpose ins(%x : memref<1x3x2x8xf32>) outs(%q : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %o = memref.alloc() : memref<1x2x3x8xf32>
  %lse = memref.alloc() : memref<1x2x3xf32>
  nn.attention_stats_into %q, %q, %q seed %seed into %o, %lse {scale = 0.5 : f64, stream = 5 : i64} : (memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<i64>, memref<1x2x3x8xf32>, memref<1x2x3xf32>) -> ()
  %merged = memref.alloc() : memref<1x3x2x8xf32>
  linalg.transpose ins(%o : memref<1x2x3x8xf32>) outs(%merged : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  linalg.fill ins(%zero : f32) outs(%x : memref<1x3x2x8xf32>)
  linalg.fill ins(%zero : f32) outs(%merged : memref<1x3x2x8xf32>)
  %dk = memref.alloc() : memref<1x2x3x8xf32>
  %dv = memref.alloc() : memref<1x2x3x8xf32>
  nn.attention_grad_into %q, %q, %q out %o lse %lse grad %o seed %seed into %dq, %dk, %dv {scale = 0.5 : f64, stream = 5 : i64} : (memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3xf32>, memref<1x2x3x8xf32>, memref<i64>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>) -> ()
  return %merged : memref<1x3x2x8xf32>
}
