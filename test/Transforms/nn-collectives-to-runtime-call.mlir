// RUN: transfuse-opt %s -split-input-file -nn-collectives-to-runtime-call -verify-diagnostics | FileCheck %s

// -nn-collectives-to-runtime-call: each buffer of the bucket is added by
// address and element count, the exchange starts where the op stood, and
// the wait comes right before the first op that touches a buffer again
// (here the copy of %a), not before the ops in between.

// CHECK-DAG:   func.func private @tfrt_all_reduce_add(i64, !llvm.ptr, i64)
// CHECK-DAG:   func.func private @tfrt_all_reduce_start(i64, i32)
// CHECK-DAG:   func.func private @tfrt_all_reduce_wait(i64)
// CHECK-LABEL: func.func @step
// CHECK-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<2x3xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK:         %[[BUCKET:.*]] = arith.constant 3 : i64
// CHECK:         %[[PA:.*]] = llvm.inttoptr
// CHECK:         call @tfrt_all_reduce_add(%[[BUCKET]], %[[PA]], %c4_i64)
// CHECK:         %[[PB:.*]] = llvm.inttoptr
// CHECK:         call @tfrt_all_reduce_add(%[[BUCKET]], %[[PB]], %c6_i64)
// CHECK:         %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK:         call @tfrt_all_reduce_start(%[[BUCKET]], %[[MEAN]])
// CHECK-NEXT:    %[[C:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : memref<4xf32>)
// CHECK-NEXT:    call @tfrt_all_reduce_wait(%[[BUCKET]])
// CHECK-NEXT:    memref.copy %[[A]], %[[OUT]]
module {
  func.func @step(%a: memref<4xf32>, %b: memref<2x3xf32>, %out: memref<4xf32>) {
    %zero = arith.constant 0.0 : f32
    nn.all_reduce_into %a, %b {bucket = 3 : i64, reduction = #nn.reduction<mean>} : memref<4xf32>, memref<2x3xf32>
    %c = memref.alloc() : memref<4xf32>
    linalg.fill ins(%zero : f32) outs(%c : memref<4xf32>)
    memref.copy %a, %out : memref<4xf32> to memref<4xf32>
    memref.dealloc %c : memref<4xf32>
    return
  }
}

// -----

// A use inside a loop waits before the loop; a view counts as a use.
// CHECK-LABEL: func.func @nested
// CHECK:         call @tfrt_all_reduce_start(%[[BUCKET:.*]], %{{.*}})
// CHECK-NEXT:    call @tfrt_all_reduce_wait(%[[BUCKET]])
// CHECK-NEXT:    scf.for
// CHECK-LABEL: func.func @viewed
// CHECK:         call @tfrt_all_reduce_start(%[[BUCKET:.*]], %{{.*}})
// CHECK-NEXT:    call @tfrt_all_reduce_wait(%[[BUCKET]])
// CHECK-NEXT:    memref.subview
module {
  func.func @nested(%a: memref<4xf32>, %out: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    nn.all_reduce_into %a {bucket = 0 : i64, reduction = #nn.reduction<sum>} : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.load %a[%i] : memref<4xf32>
      memref.store %x, %out[%i] : memref<4xf32>
    }
    return
  }
  func.func @viewed(%a: memref<4xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    nn.all_reduce_into %a {bucket = 0 : i64, reduction = #nn.reduction<sum>} : memref<4xf32>
    %v = memref.subview %a[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
    %x = memref.load %v[%c0] : memref<2xf32, strided<[1], offset: 1>>
    return %x : f32
  }
}

// -----

// Untouched until the end: the wait is the last thing before the return.
// CHECK-LABEL: func.func @late
// CHECK:         call @tfrt_all_reduce_start
// CHECK-NEXT:    %{{.*}} = arith.addf
// CHECK-NEXT:    call @tfrt_all_reduce_wait
// CHECK-NEXT:    return
module {
  func.func @late(%a: memref<4xf32>, %x: f32) -> f32 {
    nn.all_reduce_into %a {bucket = 0 : i64, reduction = #nn.reduction<mean>} : memref<4xf32>
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
}

// -----

module {
  func.func @strided(%a: memref<2x2xf32, strided<[4, 1]>>) {
    // expected-error @+1 {{needs dense row-major buffers, got 'memref<2x2xf32, strided<[4, 1]>>'}}
    nn.all_reduce_into %a {bucket = 0 : i64, reduction = #nn.reduction<mean>} : memref<2x2xf32, strided<[4, 1]>>
    return
  }
}
