// RUN: transfuse-opt %s -nn-outline-loops -split-input-file | FileCheck %s

// Each top-level loop nest moves into a private function called (never
// inlined) in its place. The constants and views it uses are cloned in,
// so its bounds stay constant; the buffers become arguments.
// CHECK-LABEL: func.func @two_loops
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8xf32>)
// CHECK-NEXT: call @two_loops.loop0(%[[A]], %[[B]]) {no_inline}
// CHECK-NEXT: call @two_loops.loop1(%[[B]]) {no_inline}
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @two_loops.loop0
// CHECK-SAME: (%[[A0:.*]]: memref<4x8xf32>, %[[B0:.*]]: memref<8xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[ROW:.*]] = memref.subview %[[A0]][1, 0] [1, 8] [1, 1]
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C8]]
// CHECK: memref.load %[[ROW]]
// CHECK: memref.store {{.*}}, %[[B0]]
// CHECK: return
// CHECK-LABEL: func.func private @two_loops.loop1
// CHECK: scf.for
// CHECK: return
func.func @two_loops(%a: memref<4x8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %row = memref.subview %a[1, 0] [1, 8] [1, 1]
      : memref<4x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %row[%i] : memref<8xf32, strided<[1], offset: 8>>
    memref.store %x, %b[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %b[%i] : memref<8xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %b[%i] : memref<8xf32>
  }
  return
}

// -----

// Left alone: a loop with results, and one that would need a buffer of
// dynamic shape as an argument. A scalar computed with side effects is
// passed as an argument; the constants the other loops still use stay.
// CHECK-LABEL: func.func @left_alone
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for
// CHECK: %[[V:.*]] = memref.load
// CHECK: call @left_alone.loop0(%[[V]], %{{.*}}) {no_inline}
// CHECK-LABEL: func.func private @left_alone.loop0
// CHECK-SAME: (%{{.*}}: f32, %{{.*}}: memref<8xf32>)
func.func @left_alone(%b: memref<8xf32>, %d: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %b[%i] : memref<8xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %sum, %d[%i] : memref<?xf32>
  }
  %v = memref.load %b[%c0] : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %v, %b[%i] : memref<8xf32>
  }
  return %sum : f32
}
