// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-kernel-ops-to-runtime-call | FileCheck %s

// -nn-kernel-ops-to-runtime-call for the CPU target (the default): cross
// entropy and its gradient, the layers the CPU pipeline keeps whole
// (convert-nn-to-linalg{keep-cross-entropy}), each become one call of the
// CPU runtime's kernel (runtime/lib/Losses.cpp), with the CUDA kernels'
// arguments:
//   tfrt_cross_entropy{,_grad}_f32(rows, classes, logits, labels,
//       index_bits, ignore_index, label_smoothing, out, scratch)
// Every other layer has no CPU kernel: an error, not a CUDA call.

// [2, 3, 10] logits are 6 rows of 10 classes; labels go with their width.
// CHECK-DAG:   func.func private @tfrt_cross_entropy_f32(i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, f32, !llvm.ptr, !llvm.ptr)
// CHECK-DAG:   func.func private @tfrt_cross_entropy_grad_f32(i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, f32, !llvm.ptr, !llvm.ptr)
// CHECK-NOT:   tfrt_cuda
// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME:    (%[[L:.*]]: memref<2x3x10xf32>, %[[Y:.*]]: memref<2x3xi64>, %[[Y32:.*]]: memref<2x3xi32>, %[[LOSS:.*]]: memref<f32>, %[[DL:.*]]: memref<2x3x10xf32>)
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 6 : i64
// CHECK-NEXT:    %[[CLASSES:.*]] = arith.constant 10 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[L]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[LP:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[YP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[BITS64:.*]] = arith.constant 64 : i32
// CHECK-NEXT:    %[[IGNORE:.*]] = arith.constant -100 : i64
// CHECK-NEXT:    %[[LS:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[LOSS]] : memref<f32> -> index
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[LOSSP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[SCRATCH:.*]] = memref.alloc() : memref<6xf32>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[SCRATCH]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[SP:.*]] = llvm.inttoptr
// CHECK-NEXT:    call @tfrt_cross_entropy_f32(%[[ROWS]], %[[CLASSES]], %[[LP]], %[[YP]], %[[BITS64]], %[[IGNORE]], %[[LS]], %[[LOSSP]], %[[SP]]) : (i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, f32, !llvm.ptr, !llvm.ptr) -> ()
// CHECK:         %[[BITS32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:    %[[IGNORE2:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[LS2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         call @tfrt_cross_entropy_grad_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BITS32]], %[[IGNORE2]], %[[LS2]], %{{.*}}, %{{.*}}) : (i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, f32, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    return
func.func @cross_entropy(%logits: memref<2x3x10xf32>, %labels: memref<2x3xi64>, %labels32: memref<2x3xi32>, %loss: memref<f32>, %dl: memref<2x3x10xf32>) {
  nn.cross_entropy_into %logits, %labels into %loss {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<f32>) -> ()
  nn.cross_entropy_grad_into %logits, %labels32 into %dl {ignore_index = 0 : i64, label_smoothing = 0.0 : f64} : (memref<2x3x10xf32>, memref<2x3xi32>, memref<2x3x10xf32>) -> ()
  return
}

// -----

// Logits that are a strided view are copied into a dense buffer first.
// CHECK-LABEL: func.func @strided_logits
// CHECK:         %[[DENSE:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    memref.copy %{{.*}}, %[[DENSE]] : memref<4x8xf32, strided<[16, 1]>> to memref<4x8xf32>
// CHECK:         call @tfrt_cross_entropy_f32
func.func @strided_logits(%l: memref<4x8xf32, strided<[16, 1]>>, %y: memref<4xi64>, %o: memref<f32>) {
  nn.cross_entropy_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (memref<4x8xf32, strided<[16, 1]>>, memref<4xi64>, memref<f32>) -> ()
  return
}

// -----

func.func @layer_norm(%x: memref<2x16xf32>, %g: memref<16xf32>, %o: memref<2x16xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op has no kernel in the CPU runtime (the CUDA target's only)}}
  nn.layer_norm_into %x, %g, %g into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x16xf32>) -> ()
  return
}

// -----

func.func @nll_loss(%l: memref<3x10xf32>, %y: memref<3xi64>, %o: memref<f32>) {
  // expected-error @+1 {{'nn.nll_loss_into' op has no kernel in the CPU runtime (the CUDA target's only)}}
  nn.nll_loss_into %l, %y into %o {ignore_index = -1 : i64} : (memref<3x10xf32>, memref<3xi64>, memref<f32>) -> ()
  return
}

// -----

func.func @adam(%p: memref<6xf32>, %g: memref<6xf32>, %s: memref<f32>) {
  // expected-error @+1 {{'nn.adam_update_into' op has no kernel in the CPU runtime (the CUDA target's only)}}
  nn.adam_update_into %p, %g, %g, %g step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  return
}
