// RUN: transfuse-opt %s -pass-pipeline='builtin.module(nn-buffer-deallocation)' | FileCheck %s

// nn-buffer-deallocation: upstream's deallocation pipeline, with the final
// dealloc of a straight-line function's own buffers lowered by
// -nn-lower-owned-deallocs. Every temporary is freed once, at the end.

// CHECK-LABEL: func.func @temporaries
// CHECK-SAME:    (%[[OUT:.*]]: memref<8xf32>)
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         memref.copy %[[B]], %[[OUT]]
// CHECK-NOT:     bufferization.dealloc
// CHECK-DAG:     memref.dealloc %[[A]] : memref<8xf32>
// CHECK-DAG:     memref.dealloc %[[B]] : memref<8xf32>
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @temporaries(%out: memref<8xf32>) {
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<8xf32>)
  %b = memref.alloc() : memref<8xf32>
  linalg.add ins(%a, %a : memref<8xf32>, memref<8xf32>) outs(%b : memref<8xf32>)
  memref.copy %b, %out : memref<8xf32> to memref<8xf32>
  return
}
