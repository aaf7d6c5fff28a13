// RUN: transfuse-opt %s -split-input-file -nn-matmul-to-runtime-call | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -nn-matmul-to-runtime-call=target=cuda | FileCheck %s --check-prefix=CUDA

// -nn-matmul-to-runtime-call, the epilogue (compiler/lib/Transforms/
// GemmEpilogue.h): when the op after a matmul computes act(C + bias) with a
// bias [n] broadcast over C's rows and act nothing or ReLU, and C dies
// there, the CPU call takes the bias and the activation (1 for ReLU) and
// writes that op's output; the op goes. Anything else keeps the op, and the
// call has no bias. The CUDA target keeps it always (its cuBLASLt epilogue
// has not been run on a GPU).

// The product seen through a reshape, as nn.fused_matmul's lowering leaves
// it, and the output allocated after the matmul: the allocation moves up.
// CHECK-LABEL: func.func @bias
// CHECK-SAME:    (%[[A:.*]]: memref<6x16xf32>, %[[W:.*]]: memref<8x16xf32>, %[[BIAS:.*]]: memref<8xf32>)
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<2x3x8xf32>
// CHECK-DAG:     %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK-DAG:     %[[BI64:.*]] = arith.index_cast %[[BI]] : index to i64
// CHECK-DAG:     %[[BP:.*]] = llvm.inttoptr %[[BI64]] : i64 to !llvm.ptr
// CHECK-DAG:     %[[OI:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK-DAG:     %[[OI64:.*]] = arith.index_cast %[[OI]] : index to i64
// CHECK-DAG:     %[[OP:.*]] = llvm.inttoptr %[[OI64]] : i64 to !llvm.ptr
// CHECK:         call @tfrt_matmul_f32(%c1_i64, %c6_i64, %c8_i64, %c16_i64, %{{.*}}, %c0_i64{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %[[BP]], %c0_i32{{[_0-9]*}}, %[[OP]], %c0_i64{{[_0-9]*}})
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[OUT]]
// CUDA-LABEL: func.func @bias
// CUDA:         call @tfrt_cuda_matmul_f32({{.*}}, %{{.*}}, %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}})
// CUDA:         linalg.generic
#identity = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d2)>
func.func @bias(%a: memref<6x16xf32>, %w: memref<8x16xf32>, %bias: memref<8xf32>) -> memref<2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<6x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<6x8xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %w : memref<6x16xf32>, memref<8x16xf32>) outs(%c : memref<6x8xf32>)
  %view = memref.expand_shape %c [[0, 1], [2]] output_shape [2, 3, 8] : memref<6x8xf32> into memref<2x3x8xf32>
  %out = memref.alloc() : memref<2x3x8xf32>
  linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%view, %bias : memref<2x3x8xf32>, memref<8xf32>) outs(%out : memref<2x3x8xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<6x8xf32>
  return %out : memref<2x3x8xf32>
}

// -----

// ReLU (maximumf with +0, either side), the bias first in the sum, into an
// output argument: activation 1.
// CHECK-LABEL: func.func @relu
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[BIAS:.*]]: memref<8xf32>, %[[OUT:.*]]: memref<4x8xf32>)
// CHECK:         call @tfrt_matmul_f32(%c1_i64, %c4_i64, %c8_i64, %c16_i64, %{{.*}}, %c0_i64{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{[0-9]+}}, %c1_i32{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT:     linalg.generic
// CHECK:         return
#identity = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @relu(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<8xf32>, %out: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#row, #identity, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %c : memref<8xf32>, memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%bi: f32, %x: f32, %o: f32):
    %s = arith.addf %bi, %x : f32
    %r = arith.maximumf %zero, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<4x8xf32>
  return
}

// -----

// Left alone: the product is read again after the op (a ReLU's gradient
// needs it), the op adds a residual too, the op adds a column vector, the
// activation is not ReLU, the output is written between the two ops.
// CHECK-LABEL: func.func @kept
// CHECK:         %[[NULL1:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_matmul_f32({{.*}}, %[[NULL1]], %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT:     call
// CHECK:         linalg.generic
// CHECK:         %[[NULL2:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_matmul_f32({{.*}}, %[[NULL2]], %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT:     call
// CHECK:         linalg.generic
// CHECK:         %[[NULL3:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_matmul_f32({{.*}}, %[[NULL3]], %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT:     call
// CHECK:         linalg.generic
// CHECK:         %[[NULL4:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_matmul_f32({{.*}}, %[[NULL4]], %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT:     call
// CHECK:         linalg.generic
// CHECK:         %[[NULL5:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_matmul_f32({{.*}}, %[[NULL5]], %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT:     call
// CHECK:         linalg.generic
// CHECK-NOT:     linalg.generic
#identity = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#column = affine_map<(d0, d1) -> (d0)>
func.func @kept(%a: memref<4x16xf32>, %b: memref<16x4xf32>, %bias: memref<4xf32>,
                %res: memref<4x4xf32>, %o1: memref<4x4xf32>, %o2: memref<4x4xf32>,
                %o3: memref<4x4xf32>, %o4: memref<4x4xf32>, %o5: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c1 = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c1 : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x4xf32>) outs(%c1 : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%c1, %bias : memref<4x4xf32>, memref<4xf32>) outs(%o1 : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.copy %c1, %res : memref<4x4xf32> to memref<4x4xf32>

  %c2 = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c2 : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x4xf32>) outs(%c2 : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#identity, #row, #identity, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%c2, %bias, %res : memref<4x4xf32>, memref<4xf32>, memref<4x4xf32>) outs(%o2 : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %r : f32
    linalg.yield %t : f32
  }

  %c3 = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c3 : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x4xf32>) outs(%c3 : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#identity, #column, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%c3, %bias : memref<4x4xf32>, memref<4xf32>) outs(%o3 : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }

  %c4 = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c4 : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x4xf32>) outs(%c4 : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%c4, %bias : memref<4x4xf32>, memref<4xf32>) outs(%o4 : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %one : f32
    linalg.yield %r : f32
  }

  %c5 = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%c5 : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x4xf32>) outs(%c5 : memref<4x4xf32>)
  linalg.fill ins(%one : f32) outs(%o5 : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#identity, #row, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%c5, %bias : memref<4x4xf32>, memref<4xf32>) outs(%o5 : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
