// RUN: transfuse-opt %s -split-input-file -nn-sink-into-launches | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -nn-sink-into-launches -gpu-kernel-outlining | FileCheck %s --check-prefix=ARGS

// -nn-sink-into-launches: kernels take their buffers as bare pointers,
// which only statically shaped buffers of identity layout have. What a
// gpu.launch reads that is defined outside it and is a strided view
// (subview, transpose), a constant, a constant table (memref.get_global)
// or pure scalar arithmetic is cloned into the launch, with what it is
// computed from, transitively; the launch then captures the roots. An
// identity-layout view (an arena temporary, a reshape of one) stays a
// captured value, so that the same code on other buffers stays one
// kernel. ARGS shows the kernel arguments outlining makes of what is left.

// The subview becomes address arithmetic in the kernel on the argument it
// views; the table, the constants and the row computed from an argument
// move in with it. The arena temporary (%view) and the index argument stay
// outside, captured.
memref.global "private" constant @table : memref<5xf32> = dense<1.0>
// CHECK-LABEL: func.func @sink
// CHECK-SAME:    (%[[X:.*]]: memref<3x10xf32>, %[[ARENA:.*]]: memref<1024xi8>, %[[N:.*]]: index)
// CHECK:         %[[OUT:.*]] = memref.view %[[ARENA]]
// CHECK:         gpu.launch blocks
// CHECK-NEXT:      %[[IN:.*]] = memref.subview %[[X]][0, 5] [3, 5] [1, 1] : memref<3x10xf32> to memref<3x5xf32, strided<[10, 1], offset: 5>>
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.remui %[[N]], %[[C2]] : index
// CHECK-NEXT:      %[[TABLE:.*]] = memref.get_global @table : memref<5xf32>
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[IN]][%[[ROW]], %[[TX:.*]]] : memref<3x5xf32, strided<[10, 1], offset: 5>>
// CHECK-NEXT:      %[[T:.*]] = memref.load %[[TABLE]][%[[TX]]] : memref<5xf32>
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[V]], %[[T]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.addf %[[P]], %[[TWO]] : f32
// CHECK-NEXT:      memref.store %[[Q]], %[[OUT]][%[[ROW]], %[[TX]]] : memref<3x5xf32>
// CHECK-NEXT:      gpu.terminator
// ARGS-LABEL:  func.func @sink
// ARGS:          gpu.launch_func @sink_kernel::@sink_kernel {{.*}} args(%arg0 : memref<3x10xf32>, %arg2 : index, %view : memref<3x5xf32>)
func.func @sink(%x: memref<3x10xf32>, %arena: memref<1024xi8>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c2 = arith.constant 2 : index
  %two = arith.constant 2.0 : f32
  %out = memref.view %arena[%c0][] : memref<1024xi8> to memref<3x5xf32>
  %in = memref.subview %x[0, 5] [3, 5] [1, 1] : memref<3x10xf32> to memref<3x5xf32, strided<[10, 1], offset: 5>>
  %table = memref.get_global @table : memref<5xf32>
  %row = arith.remui %n, %c2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %in[%row, %tx] : memref<3x5xf32, strided<[10, 1], offset: 5>>
    %t = memref.load %table[%tx] : memref<5xf32>
    %p = arith.mulf %v, %t : f32
    %q = arith.addf %p, %two : f32
    memref.store %q, %out[%row, %tx] : memref<3x5xf32>
    gpu.terminator
  }
  return
}

// -----

// A subview of a subview: both move in, the outer one taken of the inner
// clone, down to the argument they view.
// CHECK-LABEL: func.func @view_of_view
// CHECK-SAME:    (%[[X:.*]]: memref<8x8xf32>, %[[Y:.*]]: memref<f32>)
// CHECK:         gpu.launch blocks
// CHECK-NEXT:      %[[S1:.*]] = memref.subview %[[X]][2, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
// CHECK-NEXT:      %[[S2:.*]] = memref.subview %[[S1]][0, 4] [4, 4] [1, 1] : memref<4x8xf32, strided<[8, 1], offset: 16>> to memref<4x4xf32, strided<[8, 1], offset: 20>>
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[S2]]
// CHECK-NEXT:      memref.store %[[V]], %[[Y]]
// CHECK-NEXT:      gpu.terminator
// ARGS-LABEL:  func.func @view_of_view
// ARGS:          gpu.launch_func {{.*}} args(%arg0 : memref<8x8xf32>, %arg1 : memref<f32>)
func.func @view_of_view(%x: memref<8x8xf32>, %y: memref<f32>) {
  %c1 = arith.constant 1 : index
  %s1 = memref.subview %x[2, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  %s2 = memref.subview %s1[0, 4] [4, 4] [1, 1] : memref<4x8xf32, strided<[8, 1], offset: 16>> to memref<4x4xf32, strided<[8, 1], offset: 20>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %s2[%tx, %tx] : memref<4x4xf32, strided<[8, 1], offset: 20>>
    memref.store %v, %y[] : memref<f32>
    gpu.terminator
  }
  return
}

// -----

// A transposed view of an arena temporary (how the attention lowering
// reads heads in place) is strided too: it moves in, and the kernel takes
// the temporary itself.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[ARENA:.*]]: memref<1024xi8>, %[[Y:.*]]: memref<f32>)
// CHECK:         %[[T:.*]] = memref.view %[[ARENA]]
// CHECK:         gpu.launch blocks
// CHECK-NEXT:      %[[TT:.*]] = memref.transpose %[[T]] (d0, d1) -> (d1, d0) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[TT]]
// CHECK-NEXT:      memref.store %[[V]], %[[Y]]
// CHECK-NEXT:      gpu.terminator
// ARGS-LABEL:  func.func @transpose
// ARGS:          gpu.launch_func {{.*}} args(%view : memref<4x8xf32>, %arg1 : memref<f32>)
func.func @transpose(%arena: memref<1024xi8>, %y: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  %tt = memref.transpose %t (d0, d1) -> (d1, d0) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %tt[%tx, %tx] : memref<8x4xf32, strided<[1, 8]>>
    memref.store %v, %y[] : memref<f32>
    gpu.terminator
  }
  return
}

// -----

// A reshape of a temporary has identity layout: the kernel takes it as
// it is, and nothing moves in.
// CHECK-LABEL: func.func @reshape_stays
// CHECK:         %[[T:.*]] = memref.view
// CHECK-NEXT:    %[[FLAT:.*]] = memref.collapse_shape %[[T]]
// CHECK-NEXT:    %[[UP:.*]] = memref.expand_shape %[[T]]
// CHECK-NEXT:    gpu.launch blocks
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[FLAT]]
// CHECK-NEXT:      memref.store %[[V]], %[[UP]]
// CHECK-NEXT:      gpu.terminator
// ARGS-LABEL:  func.func @reshape_stays
// ARGS:          gpu.launch_func {{.*}} args(%collapse_shape : memref<32xf32>, %expand_shape : memref<4x2x4xf32>)
func.func @reshape_stays(%arena: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  %flat = memref.collapse_shape %t [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %up = memref.expand_shape %t [[0], [1, 2]] output_shape [4, 2, 4] : memref<4x8xf32> into memref<4x2x4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %flat[%tx] : memref<32xf32>
    memref.store %v, %up[%tx, %tx, %tx] : memref<4x2x4xf32>
    gpu.terminator
  }
  return
}

// -----

// One view read by two launches is cloned into each: every kernel takes
// the buffer it views.
// CHECK-LABEL: func.func @two_launches
// CHECK-SAME:    (%[[X:.*]]: memref<4x8xf32>, %{{.*}}: memref<f32>)
// CHECK:         gpu.launch blocks
// CHECK-NEXT:      %[[S1:.*]] = memref.subview %[[X]][0, 4] [4, 4] [1, 1]
// CHECK-NEXT:      memref.load %[[S1]]
// CHECK:         gpu.launch blocks
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[S2:.*]] = memref.subview %[[X]][0, 4] [4, 4] [1, 1]
// CHECK-NEXT:      memref.store %[[ZERO]], %[[S2]]
// ARGS-LABEL:  func.func @two_launches
// ARGS:          gpu.launch_func {{.*}} args(%arg0 : memref<4x8xf32>, %arg1 : memref<f32>)
// ARGS:          gpu.launch_func {{.*}} args(%arg0 : memref<4x8xf32>)
func.func @two_launches(%x: memref<4x8xf32>, %y: memref<f32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s = memref.subview %x[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %s[%tx, %tx] : memref<4x4xf32, strided<[8, 1], offset: 4>>
    memref.store %v, %y[] : memref<f32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %zero, %s[%tx, %tx] : memref<4x4xf32, strided<[8, 1], offset: 4>>
    gpu.terminator
  }
  return
}
