// RUN: transfuse-opt %s -split-input-file -nn-dealloc-after-last-use | FileCheck %s

// -nn-dealloc-after-last-use: a temporary freed at the end of the function
// is freed right after its last use instead, so that a later allocation
// can take its memory.

// The first temporary's last reader is the second loop; the second
// temporary's is the copy into the result.
// CHECK-LABEL: func.func @two_temporaries
// CHECK:         %[[T0:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[T0]] : memref<64xf32>)
// CHECK-NEXT:    %[[T1:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[T0]] : memref<64xf32>) outs(%[[T1]] : memref<64xf32>)
// CHECK:         }
// CHECK-NEXT:    memref.dealloc %[[T0]] : memref<64xf32>
// CHECK-NEXT:    memref.copy %[[T1]], %{{.*}}
// CHECK-NEXT:    memref.dealloc %[[T1]] : memref<64xf32>
// CHECK-NEXT:    return
#id = affine_map<(d0) -> (d0)>
func.func @two_temporaries(%out: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %t0 = memref.alloc() : memref<64xf32>
  linalg.fill ins(%one : f32) outs(%t0 : memref<64xf32>)
  %t1 = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t0 : memref<64xf32>) outs(%t1 : memref<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  }
  memref.copy %t1, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %t0 : memref<64xf32>
  memref.dealloc %t1 : memref<64xf32>
  return
}

// -----

// A buffer a runtime kernel reads through a view's raw pointer is live until
// that call, not until the view.
// CHECK-LABEL: func.func @pointer_into_call
// CHECK:         %[[T:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK:         call @kernel(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK-NEXT:    memref.dealloc %[[T]] : memref<4x16xf32>
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    return
func.func private @kernel(!llvm.ptr)
func.func @pointer_into_call(%out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x16xf32>
  %view = memref.subview %t[1, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: 16>>
  %base = memref.extract_aligned_pointer_as_index %view : memref<16xf32, strided<[1], offset: 16>> -> index
  %c64 = arith.constant 64 : index
  %address = arith.addi %base, %c64 : index
  %i = arith.index_cast %address : index to i64
  %p = llvm.inttoptr %i : i64 to !llvm.ptr
  call @kernel(%p) : (!llvm.ptr) -> ()
  linalg.fill ins(%zero : f32) outs(%out : memref<8xf32>)
  memref.dealloc %t : memref<4x16xf32>
  return
}

// -----

// A use inside a loop's body keeps the buffer until the loop ends.
// CHECK-LABEL: func.func @used_in_a_loop
// CHECK:         %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         scf.parallel
// CHECK:           memref.load %[[T]]
// CHECK:         }
// CHECK-NEXT:    memref.dealloc %[[T]] : memref<16xf32>
// CHECK-NEXT:    linalg.fill
func.func @used_in_a_loop(%in: memref<16xf32>, %out: memref<16xf32>, %other: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %t = memref.alloc() : memref<16xf32>
  memref.copy %in, %t : memref<16xf32> to memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %x = memref.load %t[%i] : memref<16xf32>
    memref.store %x, %out[%i] : memref<16xf32>
    scf.reduce
  }
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  memref.dealloc %t : memref<16xf32>
  return
}

// -----

// Already right after its last use, or not an allocation of this block:
// nothing moves.
// CHECK-LABEL: func.func @left_alone
// CHECK:         linalg.fill {{.*}} outs(%[[T:.*]] : memref<16xf32>)
// CHECK-NEXT:    memref.dealloc %[[T]]
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    memref.dealloc %arg0
// CHECK-NEXT:    return
func.func @left_alone(%arg0: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<16xf32>)
  memref.dealloc %t : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%arg0 : memref<8xf32>)
  memref.dealloc %arg0 : memref<8xf32>
  return
}
