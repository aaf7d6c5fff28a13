// RUN: transfuse-opt %s -split-input-file -nn-promote-accumulators | FileCheck %s

// -nn-promote-accumulators: an element an scf.for loads and then stores,
// at a buffer and indices fixed across the loop, with nothing else in the
// loop able to touch that buffer, is loaded once before the loop, carried
// in an iter_arg and stored once after it. Inner loops first, so a column
// sum's whole nest ends up on a register: the same additions, in order.

// CHECK-LABEL: func.func @column_sum
// CHECK-SAME:    (%[[X:.*]]: memref<6x5x8xf32>, %[[ACC:.*]]: memref<8xf32>, %[[J:.*]]: index)
// CHECK:         %[[A0:.*]] = memref.load %[[ACC]][%[[J]]] : memref<8xf32>
// CHECK-NEXT:    %[[OUT:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A1:.*]] = %[[A0]]) -> (f32) {
// CHECK-NEXT:      %[[IN:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A2:.*]] = %[[A1]]) -> (f32) {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[X]][%[[I]], %[[K]], %[[J]]] : memref<6x5x8xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A2]], %[[V]] : f32
// CHECK-NEXT:        scf.yield %[[S]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[IN]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.store %[[OUT]], %[[ACC]][%[[J]]] : memref<8xf32>
// CHECK-NEXT:    return
func.func @column_sum(%x: memref<6x5x8xf32>, %acc: memref<8xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    scf.for %k = %c0 to %c5 step %c1 {
      %v = memref.load %x[%i, %k, %j] : memref<6x5x8xf32>
      %a = memref.load %acc[%j] : memref<8xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %acc[%j] : memref<8xf32>
    }
  }
  return
}

// -----

// The loop lowering of linalg ops indexes through identity maps, a fresh
// affine.apply for every access: the element is still the same one.
// CHECK-LABEL: func.func @identity_maps
// CHECK-SAME:    (%[[X:.*]]: memref<5x8xf32>, %[[ACC:.*]]: memref<8xf32>, %[[J:.*]]: index)
// CHECK:         %[[A0:.*]] = memref.load %[[ACC]][%[[J]]] : memref<8xf32>
// CHECK-NEXT:    %[[R:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[A0]]) -> (f32) {
// CHECK:           %[[S:.*]] = arith.addf %[[A]], %{{.*}} : f32
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK:         memref.store %[[R]], %[[ACC]][%[[J]]] : memref<8xf32>
#id = affine_map<(d0) -> (d0)>
func.func @identity_maps(%x: memref<5x8xf32>, %acc: memref<8xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  scf.for %k = %c0 to %c5 step %c1 {
    %0 = affine.apply #id(%k)
    %1 = affine.apply #id(%j)
    %v = memref.load %x[%0, %1] : memref<5x8xf32>
    %2 = affine.apply #id(%j)
    %a = memref.load %acc[%2] : memref<8xf32>
    %3 = affine.apply #id(%j)
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%3] : memref<8xf32>
  }
  return
}

// -----

// Two slices of one arena whose bytes do not overlap are told apart; the
// loop inside a thread's guard is promoted there.
// CHECK-LABEL: func.func @arena_slices
// CHECK:         scf.if
// CHECK:           %[[A0:.*]] = memref.load %[[SUM:.*]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:      %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[A0]]) -> (f32)
// CHECK:           memref.store %[[R]], %[[SUM]][%{{.*}}] : memref<4xf32>
func.func @arena_slices(%arena: memref<1024xi8>, %i: index, %go: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %in = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  %sum = memref.view %arena[%c128][] : memref<1024xi8> to memref<4xf32>
  scf.if %go {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %in[%i, %k] : memref<4x8xf32>
      %a = memref.load %sum[%i] : memref<4xf32>
      %s = arith.maximumf %a, %v : f32
      memref.store %s, %sum[%i] : memref<4xf32>
    }
  }
  return
}

// -----

// Left alone: a slice of a slice, whose offset (0) is not the root's (250):
// its bytes [250, 350) meet the element's [300, 304).
// CHECK-LABEL: func.func @slice_of_slice
// CHECK-NOT:     iter_args
// CHECK:         return
func.func @slice_of_slice(%arena: memref<1024xi8>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c25 = arith.constant 25 : index
  %c250 = arith.constant 250 : index
  %c300 = arith.constant 300 : index
  %outer = memref.view %arena[%c250][] : memref<1024xi8> to memref<512xi8>
  %in = memref.view %outer[%c0][] : memref<512xi8> to memref<25xf32>
  %sum = memref.view %arena[%c300][] : memref<1024xi8> to memref<1xf32>
  scf.for %k = %c0 to %c25 step %c1 {
    %v = memref.load %in[%k] : memref<25xf32>
    %a = memref.load %sum[%c0] : memref<1xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %sum[%c0] : memref<1xf32>
  }
  return
}

// -----

// Left alone: slices whose bytes overlap (the loads may read the element),
// an element that moves with the loop, a second access to the buffer, a
// read of a view of the same argument, and a call that may write anything.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     iter_args
// CHECK:         return
func.func @left_alone(%arena: memref<1024xi8>, %x: memref<8xf32>,
                      %acc: memref<8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %in = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  %sum = memref.view %arena[%c16][] : memref<1024xi8> to memref<4xf32>
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %in[%i, %k] : memref<4x8xf32>
    %a = memref.load %sum[%i] : memref<4xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %sum[%i] : memref<4xf32>
  }
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %x[%k] : memref<8xf32>
    %a = memref.load %acc[%k] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%k] : memref<8xf32>
  }
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %acc[%k] : memref<8xf32>
    %a = memref.load %acc[%i] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%i] : memref<8xf32>
  }
  %view = memref.subview %acc[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %view[%c1] : memref<4xf32, strided<[1]>>
    %a = memref.load %acc[%i] : memref<8xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%i] : memref<8xf32>
  }
  scf.for %k = %c0 to %c8 step %c1 {
    %a = memref.load %acc[%i] : memref<8xf32>
    func.call @opaque(%x) : (memref<8xf32>) -> ()
    memref.store %a, %acc[%i] : memref<8xf32>
  }
  return
}
func.func private @opaque(memref<8xf32>)
