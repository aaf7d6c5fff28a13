// RUN: transfuse-opt %s -split-input-file -nn-lower-owned-deallocs | FileCheck %s

// -nn-lower-owned-deallocs: a bufferization.dealloc that retains nothing,
// frees distinct allocations and owns every one of them becomes one
// memref.dealloc per buffer, in order; any other dealloc is left alone.

// CHECK-LABEL: func.func @distinct_owned
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xi64>
// CHECK-NOT:     bufferization.dealloc
// CHECK:         memref.dealloc %[[A]] : memref<8xf32>
// CHECK-NEXT:    memref.dealloc %[[B]] : memref<4xi64>
// CHECK-NEXT:    return
func.func @distinct_owned() {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<4xi64>
  memref.copy %a, %a : memref<8xf32> to memref<8xf32>
  bufferization.dealloc (%a, %b : memref<8xf32>, memref<4xi64>) if (%true, %true)
  return
}

// -----

// A condition that is not known to be true.
// CHECK-LABEL: func.func @conditional
// CHECK:         bufferization.dealloc
// CHECK-NOT:     memref.dealloc
func.func @conditional(%owned: i1) {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  bufferization.dealloc (%a, %b : memref<8xf32>, memref<8xf32>) if (%true, %owned)
  return
}

// -----

// A buffer that is not an allocation of its own: it may alias another one.
// CHECK-LABEL: func.func @maybe_aliasing
// CHECK:         bufferization.dealloc
// CHECK-NOT:     memref.dealloc
func.func @maybe_aliasing(%arg: memref<8xf32>) {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  bufferization.dealloc (%a, %arg : memref<8xf32>, memref<8xf32>) if (%true, %true)
  return
}

// -----

// The same buffer twice: the op frees it once, so it is left to upstream.
// CHECK-LABEL: func.func @repeated
// CHECK:         bufferization.dealloc
// CHECK-NOT:     memref.dealloc
func.func @repeated() {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  bufferization.dealloc (%a, %a : memref<8xf32>, memref<8xf32>) if (%true, %true)
  return
}

// -----

// Retained values: the op also computes their ownership.
// CHECK-LABEL: func.func @retaining
// CHECK:         bufferization.dealloc
// CHECK-NOT:     memref.dealloc
func.func @retaining(%kept: memref<8xf32>) -> i1 {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %owned = bufferization.dealloc (%a : memref<8xf32>) if (%true) retain (%kept : memref<8xf32>)
  return %owned : i1
}
