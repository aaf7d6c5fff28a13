// RUN: transfuse-opt %s -split-input-file -nn-matmul-to-runtime-call | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -nn-matmul-to-runtime-call=target=cuda | FileCheck %s --check-prefix=CUDA

// -nn-matmul-to-runtime-call: after bufferization, a linalg.matmul or
// linalg.batch_matmul of contiguous row-major f32 buffers whose output was
// just zeroed becomes one call to the runtime's
//   tfrt_matmul_f32(batch, m, n, k, a, stride_a, b, stride_b, trans_a,
//                   trans_b, bias, activation, c, stride_c)
// (docs/artifact.md) on the buffers' aligned pointers, and the zeroing goes
// away. Anything else is left for the generic lowering. With target=cuda
// (CUDA) the call is of tfrt_cuda_matmul_f32, the same arguments on device
// pointers (runtime/lib/cuda/Gemm.cpp, on cuBLASLt); what is left alone is
// left alone the same way.

// Two matmuls, one declaration. A [m, k] x [k, n] product is batch 1 with
// strides 0, no transpose, no bias, no activation.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @tfrt_matmul_f32(i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr, i64)
// CHECK-NOT:     func.func private @tfrt_matmul_f32
// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<4x8xf32>, %[[D:.*]]: memref<2x3xf32>, %[[E:.*]]: memref<3x5xf32>, %[[F:.*]]: memref<2x5xf32>)
// CHECK-NOT:     linalg.fill
// CHECK-DAG:     %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG:     %[[AI:.*]] = memref.extract_aligned_pointer_as_index %[[A]] : memref<4x16xf32> -> index
// CHECK-DAG:     %[[AI64:.*]] = arith.index_cast %[[AI]] : index to i64
// CHECK-DAG:     %[[AP:.*]] = llvm.inttoptr %[[AI64]] : i64 to !llvm.ptr
// CHECK-DAG:     %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[B]] : memref<16x8xf32> -> index
// CHECK-DAG:     %[[BI64:.*]] = arith.index_cast %[[BI]] : index to i64
// CHECK-DAG:     %[[BP:.*]] = llvm.inttoptr %[[BI64]] : i64 to !llvm.ptr
// CHECK-DAG:     %[[CI:.*]] = memref.extract_aligned_pointer_as_index %[[C]] : memref<4x8xf32> -> index
// CHECK-DAG:     %[[CI64:.*]] = arith.index_cast %[[CI]] : index to i64
// CHECK-DAG:     %[[CP:.*]] = llvm.inttoptr %[[CI64]] : i64 to !llvm.ptr
// CHECK-DAG:     %c1_i64 = arith.constant 1 : i64
// CHECK-DAG:     %c4_i64 = arith.constant 4 : i64
// CHECK-DAG:     %c8_i64 = arith.constant 8 : i64
// CHECK-DAG:     %c16_i64 = arith.constant 16 : i64
// CHECK-DAG:     %c0_i64 = arith.constant 0 : i64
// CHECK-DAG:     %c0_i32 = arith.constant 0 : i32
// CHECK:         call @tfrt_matmul_f32(%c1_i64, %c4_i64, %c8_i64, %c16_i64, %[[AP]], %c0_i64{{[_0-9]*}}, %[[BP]], %c0_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %[[NULL]], %c0_i32{{[_0-9]*}}, %[[CP]], %c0_i64{{[_0-9]*}}) : (i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr, i64) -> ()
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     linalg.fill
// CHECK:         %[[DI:.*]] = memref.extract_aligned_pointer_as_index %[[D]] : memref<2x3xf32> -> index
// CHECK:         %[[EI:.*]] = memref.extract_aligned_pointer_as_index %[[E]] : memref<3x5xf32> -> index
// CHECK:         %[[FI:.*]] = memref.extract_aligned_pointer_as_index %[[F]] : memref<2x5xf32> -> index
// CHECK:         call @tfrt_matmul_f32(%c1_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c5_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}})
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     linalg.fill
// CHECK:         return
// CUDA-LABEL: module {
// CUDA-NEXT:    func.func private @tfrt_cuda_matmul_f32(i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr, i64)
// CUDA-NOT:     @tfrt_matmul_f32
// CUDA-LABEL: func.func @matmul
// CUDA-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<4x8xf32>,
// CUDA-NOT:     linalg.fill
// CUDA-DAG:     %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CUDA-DAG:     %[[AI:.*]] = memref.extract_aligned_pointer_as_index %[[A]] : memref<4x16xf32> -> index
// CUDA-DAG:     %[[AI64:.*]] = arith.index_cast %[[AI]] : index to i64
// CUDA-DAG:     %[[AP:.*]] = llvm.inttoptr %[[AI64]] : i64 to !llvm.ptr
// CUDA-DAG:     %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[B]] : memref<16x8xf32> -> index
// CUDA-DAG:     %[[BI64:.*]] = arith.index_cast %[[BI]] : index to i64
// CUDA-DAG:     %[[BP:.*]] = llvm.inttoptr %[[BI64]] : i64 to !llvm.ptr
// CUDA-DAG:     %[[CI:.*]] = memref.extract_aligned_pointer_as_index %[[C]] : memref<4x8xf32> -> index
// CUDA-DAG:     %[[CI64:.*]] = arith.index_cast %[[CI]] : index to i64
// CUDA-DAG:     %[[CP:.*]] = llvm.inttoptr %[[CI64]] : i64 to !llvm.ptr
// CUDA:         call @tfrt_cuda_matmul_f32(%c1_i64, %c4_i64, %c8_i64, %c16_i64, %[[AP]], %c0_i64{{[_0-9]*}}, %[[BP]], %c0_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %[[NULL]], %c0_i32{{[_0-9]*}}, %[[CP]], %c0_i64{{[_0-9]*}}) : (i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr, i64) -> ()
// CUDA:         call @tfrt_cuda_matmul_f32(%c1_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c5_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}},
// CUDA-NOT:     linalg.matmul
// CUDA:         return
func.func @matmul(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>,
                  %d: memref<2x3xf32>, %e: memref<3x5xf32>, %f: memref<2x5xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.fill ins(%zero : f32) outs(%f : memref<2x5xf32>)
  linalg.matmul ins(%d, %e : memref<2x3xf32>, memref<3x5xf32>) outs(%f : memref<2x5xf32>)
  return
}

// -----

// batch_matmul: the batch, and strides m·k, k·n and m·n between entries.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME:    (%[[A:.*]]: memref<2x4x16xf32>, %[[B:.*]]: memref<2x16x8xf32>, %[[C:.*]]: memref<2x4x8xf32>)
// CHECK-NOT:     linalg.fill
// CHECK-DAG:     %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG:     %[[AI:.*]] = memref.extract_aligned_pointer_as_index %[[A]] : memref<2x4x16xf32> -> index
// CHECK-DAG:     %[[AI64:.*]] = arith.index_cast %[[AI]] : index to i64
// CHECK-DAG:     %[[AP:.*]] = llvm.inttoptr %[[AI64]] : i64 to !llvm.ptr
// CHECK-DAG:     %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[B]] : memref<2x16x8xf32> -> index
// CHECK-DAG:     %[[BI64:.*]] = arith.index_cast %[[BI]] : index to i64
// CHECK-DAG:     %[[BP:.*]] = llvm.inttoptr %[[BI64]] : i64 to !llvm.ptr
// CHECK-DAG:     %[[CI:.*]] = memref.extract_aligned_pointer_as_index %[[C]] : memref<2x4x8xf32> -> index
// CHECK-DAG:     %[[CI64:.*]] = arith.index_cast %[[CI]] : index to i64
// CHECK-DAG:     %[[CP:.*]] = llvm.inttoptr %[[CI64]] : i64 to !llvm.ptr
// CHECK-DAG:     %c2_i64 = arith.constant 2 : i64
// CHECK-DAG:     %c4_i64 = arith.constant 4 : i64
// CHECK-DAG:     %c8_i64 = arith.constant 8 : i64
// CHECK-DAG:     %c16_i64 = arith.constant 16 : i64
// CHECK-DAG:     %c64_i64 = arith.constant 64 : i64
// CHECK-DAG:     %c128_i64 = arith.constant 128 : i64
// CHECK-DAG:     %c32_i64 = arith.constant 32 : i64
// CHECK:         call @tfrt_matmul_f32(%c2_i64, %c4_i64, %c8_i64, %c16_i64, %[[AP]], %c64_i64, %[[BP]], %c128_i64, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %[[NULL]], %c0_i32{{[_0-9]*}}, %[[CP]], %c32_i64) : (i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr, i64) -> ()
// CHECK-NEXT:    return
// CUDA-LABEL: func.func @batch_matmul
// CUDA:         call @tfrt_cuda_matmul_f32(%c2_i64, %c4_i64, %c8_i64, %c16_i64, %{{.*}}, %c64_i64, %{{.*}}, %c128_i64, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i32{{[_0-9]*}}, %{{.*}}, %c32_i64)
// CUDA-NEXT:    return
func.func @batch_matmul(%a: memref<2x4x16xf32>, %b: memref<2x16x8xf32>, %c: memref<2x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4x8xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x4x16xf32>, memref<2x16x8xf32>) outs(%c : memref<2x4x8xf32>)
  return
}

// -----

// An existing declaration is reused, not repeated.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @tfrt_matmul_f32(i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr, i64)
// CHECK-NEXT:    func.func @declared(
// CHECK-NOT:     func.func private @tfrt_matmul_f32
// CHECK:         call @tfrt_matmul_f32(%c1_i64, %c4_i64, %c8_i64, %c16_i64,
// The CPU kernel's declaration is no declaration of the CUDA one.
// CUDA-LABEL: module {
// CUDA-NEXT:    func.func private @tfrt_cuda_matmul_f32(
// CUDA-NEXT:    func.func private @tfrt_matmul_f32(
// CUDA-NEXT:    func.func @declared(
// CUDA:         call @tfrt_cuda_matmul_f32(%c1_i64, %c4_i64, %c8_i64, %c16_i64,
func.func private @tfrt_matmul_f32(i64, i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr, i64)
func.func @declared(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// Bufferization zeroes an output by copying a buffer that holds zeros (one
// fill shared by several matmuls): the copy goes away, the fill stays for
// the copies that still read it.
// CHECK-LABEL: func.func @copy_of_zeros
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[Z:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[Z]] : memref<4x8xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         %[[CI:.*]] = memref.extract_aligned_pointer_as_index %[[C]] : memref<4x8xf32> -> index
// CHECK-NEXT:    %[[CI64:.*]] = arith.index_cast %[[CI]] : index to i64
// CHECK-NEXT:    %[[CP:.*]] = llvm.inttoptr %[[CI64]] : i64 to !llvm.ptr
// CHECK:         call @tfrt_matmul_f32(%c1_i64, %c4_i64, %c8_i64, %c16_i64, %{{.*}}, %c0_i64{{[_0-9]*}}, %{{.*}}, %c0_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %{{.*}}, %c0_i32{{[_0-9]*}}, %[[CP]], %c0_i64{{[_0-9]*}})
// CHECK-NEXT:    memref.dealloc %[[Z]] : memref<4x8xf32>
// CHECK-NEXT:    return
func.func @copy_of_zeros(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  memref.copy %z, %c : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  memref.dealloc %z : memref<4x8xf32>
  return
}

// -----

// The pattern bufferization leaves for one zero fill used by three matmuls:
// two copies of it, then the last matmul in place. All three become calls;
// once the copies are gone nothing reads the zeros, and the fill goes too.
// CHECK-LABEL: func.func @shared_zeros
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<4x8xf32>, %[[D:.*]]: memref<4x8xf32>)
// CHECK-NEXT:    %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[Z:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     memref.copy
// CHECK:         memref.extract_aligned_pointer_as_index %[[C]] : memref<4x8xf32> -> index
// CHECK:         call @tfrt_matmul_f32(
// CHECK:         memref.extract_aligned_pointer_as_index %[[D]] : memref<4x8xf32> -> index
// CHECK:         call @tfrt_matmul_f32(
// CHECK:         memref.extract_aligned_pointer_as_index %[[Z]] : memref<4x8xf32> -> index
// CHECK:         call @tfrt_matmul_f32(
// CHECK-NEXT:    memref.dealloc %[[Z]] : memref<4x8xf32>
// CHECK-NEXT:    return
func.func @shared_zeros(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>, %d: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  memref.copy %z, %c : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  memref.copy %z, %d : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%z : memref<4x8xf32>)
  memref.dealloc %z : memref<4x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Left alone
//===----------------------------------------------------------------------===//

// -----

// The output starts at ones: C += A B is not what the GEMM computes.
// CHECK-LABEL: func.func @nonzero_fill
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    linalg.fill ins(%[[ONE]] : f32) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B]] : memref<4x16xf32>, memref<16x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    return
func.func @nonzero_fill(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// Nothing zeroes the output: it accumulates into whatever the caller passed.
// CHECK-LABEL: func.func @no_fill
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B]] : memref<4x16xf32>, memref<16x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    return
func.func @no_fill(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// A strided operand (rows 32 apart, a subview of a wider buffer): the GEMM
// takes dense row-major buffers only.
// CHECK-LABEL: func.func @strided_operand
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32, strided<[32, 1]>>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B]] : memref<4x16xf32, strided<[32, 1]>>, memref<16x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    return
func.func @strided_operand(%a: memref<4x16xf32, strided<[32, 1]>>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32, strided<[32, 1]>>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// f64: the runtime's GEMM is f32 only.
// CHECK-LABEL: func.func @f64
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf64>, %[[B:.*]]: memref<16x8xf64>, %[[C:.*]]: memref<4x8xf64>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f64) outs(%[[C]] : memref<4x8xf64>)
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B]] : memref<4x16xf64>, memref<16x8xf64>) outs(%[[C]] : memref<4x8xf64>)
// CHECK-NEXT:    return
// CUDA-LABEL: func.func @f64
// CUDA:         linalg.fill
// CUDA-NEXT:    linalg.matmul
// CUDA-NOT:     call
func.func @f64(%a: memref<4x16xf64>, %b: memref<16x8xf64>, %c: memref<4x8xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<4x8xf64>)
  linalg.matmul ins(%a, %b : memref<4x16xf64>, memref<16x8xf64>) outs(%c : memref<4x8xf64>)
  return
}

// -----

// The zeros are read between the fill and the matmul: the fill must stay,
// and so does the matmul.
// CHECK-LABEL: func.func @read_between
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[C:.*]]: memref<4x8xf32>, %[[D:.*]]: memref<4x8xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    memref.copy %[[C]], %[[D]] : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B]] : memref<4x16xf32>, memref<16x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    return
func.func @read_between(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>, %d: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  memref.copy %c, %d : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// The copied buffer was zero-filled, then overwritten by a generic before
// the copy: the output does not start at zero.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @copy_of_overwritten
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[X:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[Z:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[Z]] : memref<4x8xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : memref<4x8xf32>) outs(%[[Z]] : memref<4x8xf32>)
// CHECK:         memref.copy %[[Z]], %[[C]] : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B]] : memref<4x16xf32>, memref<16x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    memref.dealloc %[[Z]] : memref<4x8xf32>
// CHECK-NEXT:    return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @copy_of_overwritten(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %x: memref<4x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%z : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.copy %z, %c : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  memref.dealloc %z : memref<4x8xf32>
  return
}

// -----

// The same, overwritten by a copy into it.
// CHECK-LABEL: func.func @copy_of_copied_over
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<16x8xf32>, %[[X:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[Z:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[Z]] : memref<4x8xf32>)
// CHECK-NEXT:    memref.copy %[[X]], %[[Z]] : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT:    memref.copy %[[Z]], %[[C]] : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B]] : memref<4x16xf32>, memref<16x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    memref.dealloc %[[Z]] : memref<4x8xf32>
// CHECK-NEXT:    return
func.func @copy_of_copied_over(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %x: memref<4x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  memref.copy %x, %z : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %z, %c : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  memref.dealloc %z : memref<4x8xf32>
  return
}

// -----

// A matmul reading B as [n, k] (a Linear weight) is the call with trans_b.
// CHECK-LABEL: func.func @transposed_b
// CHECK-SAME:    (%[[A:.*]]: memref<4x16xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NOT:     linalg.fill
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK-DAG:     %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK-DAG:     %[[SIXTEEN:.*]] = arith.constant 16 : i64
// CHECK-DAG:     %[[TRANS:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[NOTRANS:.*]] = arith.constant 0 : i32
// CHECK:         call @tfrt_matmul_f32(%[[ONE]], %[[FOUR]], %[[EIGHT]], %[[SIXTEEN]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NOTRANS]], %[[TRANS]],
// CHECK-NOT:     linalg.matmul
// CUDA-LABEL: func.func @transposed_b
// CUDA-DAG:     %[[TRANS:.*]] = arith.constant 1 : i32
// CUDA-DAG:     %[[NOTRANS:.*]] = arith.constant 0 : i32
// CUDA:         call @tfrt_cuda_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NOTRANS]], %[[TRANS]],
#ma = affine_map<(d0, d1, d2) -> (d0, d2)>
#mb = affine_map<(d0, d1, d2) -> (d1, d2)>
#mc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @transposed_b(%a: memref<4x16xf32>, %b: memref<8x16xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul indexing_maps = [#ma, #mb, #mc] ins(%a, %b : memref<4x16xf32>, memref<8x16xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// A matmul reading A as [k, m] (a weight gradient's Xᵀ dY) is the call
// with trans_a: m and k are read off C and A's rows, and A is passed where
// it lies.
// CHECK-LABEL: func.func @transposed_a
// CHECK-SAME:    (%[[A:.*]]: memref<16x4xf32>,
// CHECK-NOT:     linalg.fill
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK-DAG:     %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK-DAG:     %[[SIXTEEN:.*]] = arith.constant 16 : i64
// CHECK-DAG:     %[[TRANS:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[NOTRANS:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[AI:.*]] = memref.extract_aligned_pointer_as_index %[[A]] : memref<16x4xf32> -> index
// CHECK-DAG:     %[[AI64:.*]] = arith.index_cast %[[AI]] : index to i64
// CHECK-DAG:     %[[AP:.*]] = llvm.inttoptr %[[AI64]] : i64 to !llvm.ptr
// CHECK:         call @tfrt_matmul_f32(%[[ONE]], %[[FOUR]], %[[EIGHT]], %[[SIXTEEN]], %[[AP]], %{{.*}}, %{{.*}}, %{{.*}}, %[[TRANS]], %[[NOTRANS]],
// CHECK-NOT:     linalg.matmul
// CUDA-LABEL: func.func @transposed_a
// CUDA-DAG:     %[[TRANS:.*]] = arith.constant 1 : i32
// CUDA-DAG:     %[[NOTRANS:.*]] = arith.constant 0 : i32
// CUDA:         call @tfrt_cuda_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TRANS]], %[[NOTRANS]],
#ta = affine_map<(d0, d1, d2) -> (d2, d0)>
#tb = affine_map<(d0, d1, d2) -> (d2, d1)>
#tc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @transposed_a(%a: memref<16x4xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul indexing_maps = [#ta, #tb, #tc] ins(%a, %b : memref<16x4xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// Both read transposed: both flags.
// CHECK-LABEL: func.func @transposed_both
// CHECK:         call @tfrt_matmul_f32(%c1_i64, %c4_i64, %c8_i64, %c16_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}},
// CHECK-NOT:     linalg.matmul
#ba = affine_map<(d0, d1, d2) -> (d2, d0)>
#bb = affine_map<(d0, d1, d2) -> (d1, d2)>
#bc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @transposed_both(%a: memref<16x4xf32>, %b: memref<8x16xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul indexing_maps = [#ba, #bb, #bc] ins(%a, %b : memref<16x4xf32>, memref<8x16xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// A matmul of other maps (an lhs broadcast over the rows) is not a product
// the call computes.
// CHECK-DAG:   #[[MA:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @broadcast_a
// CHECK:         linalg.fill
// CHECK-NEXT:    linalg.matmul indexing_maps = [#[[MA]], {{.*}}] ins(%{{.*}}, %{{.*}} : memref<16xf32>, memref<16x8xf32>) outs(%{{.*}} : memref<4x8xf32>)
// CHECK-NOT:     call @tfrt_matmul_f32
#va = affine_map<(d0, d1, d2) -> (d2)>
#vb = affine_map<(d0, d1, d2) -> (d2, d1)>
#vc = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @broadcast_a(%a: memref<16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul indexing_maps = [#va, #vb, #vc] ins(%a, %b : memref<16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// Tensors: only bufferized matmuls are rewritten.
// CHECK-LABEL: func.func @tensors
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NOT:     call @tfrt_matmul_f32
func.func @tensors(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// Must not rewrite: after the zero fill, a view of the output is written,
// so the output no longer holds zeros when the matmul accumulates into it.
// CHECK-LABEL: func.func @view_written_after_fill
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<4x8xf32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<2x8xf32, strided<[8, 1]>>)
// CHECK:         linalg.matmul
// CHECK-NOT:     call @tfrt_matmul_f32
func.func @view_written_after_fill(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  %top = memref.subview %c[0, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  linalg.fill ins(%one : f32) outs(%top : memref<2x8xf32, strided<[8, 1]>>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// Must not rewrite: the zero buffer copied into the output was written
// through a view after its fill.
// CHECK-LABEL: func.func @source_view_written
// CHECK:         memref.copy
// CHECK:         linalg.matmul
// CHECK-NOT:     call @tfrt_matmul_f32
func.func @source_view_written(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %z = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  %flat = memref.collapse_shape %z [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  linalg.fill ins(%one : f32) outs(%flat : memref<32xf32>)
  memref.copy %z, %c : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  memref.dealloc %z : memref<4x8xf32>
  return
}
