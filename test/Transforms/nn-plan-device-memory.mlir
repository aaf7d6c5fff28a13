// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-plan-device-memory | FileCheck %s

// -nn-plan-device-memory: nothing is allocated on the GPU while a step runs.
// Each function with a body gets a last argument, the arena (memref<Nxi8>
// {nn.arena}), and every memref.alloc becomes a memref.view of it at a
// planned offset. A temporary lives from its allocation to its dealloc
// (which goes) or to the end of the function; temporaries alive at the same
// time get disjoint bytes, others may share them. Sizes are rounded up to
// 256 bytes and placed largest first, each at the lowest offset clear of
// the placed ones it overlaps. nn.arena_bytes records N. A constant whose
// address reaches a runtime call is copied into a temporary first.

// b is allocated first but a is larger, so a is placed first, at 0; b
// lives at the same time and goes after it. c and d come after a's
// dealloc: c reuses a's bytes, and d, alive with b and c, takes the hole
// between them rather than the end. 1536 bytes in all, where the sum of
// the temporaries is 2048.
// CHECK-LABEL: func.func @lifetimes
// CHECK-SAME:    (%[[OUT:.*]]: memref<10xf32>, %[[ARENA:.*]]: memref<1536xi8> {nn.arena}) attributes {nn.arena_bytes = 1536 : i64}
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[OFF_B:.*]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[ARENA]][%[[OFF_B]]][] : memref<1536xi8> to memref<128xf32>
// CHECK-NEXT:    %[[OFF_A:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[ARENA]][%[[OFF_A]]][] : memref<1536xi8> to memref<256xf32>
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[A]] : memref<256xf32>)
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[B]] : memref<128xf32>)
// CHECK-NEXT:    %[[OFF_C:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C:.*]] = memref.view %[[ARENA]][%[[OFF_C]]][] : memref<1536xi8> to memref<64xf32>
// CHECK-NEXT:    %[[OFF_D:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[D:.*]] = memref.view %[[ARENA]][%[[OFF_D]]][] : memref<1536xi8> to memref<10xf32>
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[C]] : memref<64xf32>)
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[D]] : memref<10xf32>)
// CHECK-NEXT:    memref.copy %[[D]], %[[OUT]]
// CHECK-NEXT:    return
func.func @lifetimes(%out: memref<10xf32>) {
  %zero = arith.constant 0.0 : f32
  %b = memref.alloc() : memref<128xf32>
  %a = memref.alloc() : memref<256xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<256xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<128xf32>)
  memref.dealloc %a : memref<256xf32>
  %c = memref.alloc() : memref<64xf32>
  %d = memref.alloc() {alignment = 64 : i64} : memref<10xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<10xf32>)
  memref.copy %d, %out : memref<10xf32> to memref<10xf32>
  return
}

// -----

// Sizes are rounded up to a multiple of 256 bytes, so that every buffer
// starts 256-byte aligned: 65 floats (260 bytes) take 512, 64 floats
// exactly 256, an i1 a byte per element, and an empty buffer still a slot
// of its own. All four are alive together; the 256-byte ones follow the
// large one in the order they are allocated.
// CHECK-LABEL: func.func @alignment
// CHECK-SAME:    (%[[ARENA:.*]]: memref<1280xi8> {nn.arena}) attributes {nn.arena_bytes = 1280 : i64}
// CHECK-NEXT:    %[[O1:.*]] = arith.constant 512 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[O1]]][] : memref<1280xi8> to memref<3xi1>
// CHECK-NEXT:    %[[O2:.*]] = arith.constant 768 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[O2]]][] : memref<1280xi8> to memref<0xf32>
// CHECK-NEXT:    %[[O3:.*]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[O3]]][] : memref<1280xi8> to memref<65xf32>
// CHECK-NEXT:    %[[O4:.*]] = arith.constant 1024 : index
// CHECK-NEXT:    memref.view %[[ARENA]][%[[O4]]][] : memref<1280xi8> to memref<64xf32>
// CHECK-NEXT:    call @use(
func.func private @use(memref<3xi1>, memref<0xf32>, memref<65xf32>, memref<64xf32>)
func.func @alignment() {
  %flags = memref.alloc() : memref<3xi1>
  %empty = memref.alloc() : memref<0xf32>
  %odd = memref.alloc() : memref<65xf32>
  %even = memref.alloc() : memref<64xf32>
  call @use(%flags, %empty, %odd, %even) : (memref<3xi1>, memref<0xf32>, memref<65xf32>, memref<64xf32>) -> ()
  return
}

// -----

// Without temporaries the arena is empty, and still passed: the runtime
// calls every entry point the same way. A declaration gets nothing.
// CHECK-LABEL: func.func private @kernel(!llvm.ptr){{$}}
// CHECK-LABEL: func.func @no_temporaries
// CHECK-SAME:    (%{{.*}}: memref<8xf32>, %{{.*}}: memref<0xi8> {nn.arena}) attributes {nn.arena_bytes = 0 : i64}
func.func private @kernel(!llvm.ptr)
func.func @no_temporaries(%x: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%x : memref<8xf32>)
  return
}

// -----

// Each function has an arena of its own, sized for its temporaries.
// CHECK-LABEL: func.func @small
// CHECK-SAME:    memref<256xi8> {nn.arena}) attributes {nn.arena_bytes = 256 : i64}
// CHECK-LABEL: func.func @large
// CHECK-SAME:    memref<4096xi8> {nn.arena}) attributes {nn.arena_bytes = 4096 : i64}
func.func @small(%x: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  return
}
func.func @large(%x: memref<4xf32>) {
  %t = memref.alloc() : memref<1024xf32>
  %u = memref.subview %t[0] [4] [1] : memref<1024xf32> to memref<4xf32, strided<[1]>>
  memref.copy %x, %u : memref<4xf32> to memref<4xf32, strided<[1]>>
  return
}

// -----

// Constants live with the generated kernels in device memory only they
// can read. One read by a copy, or through a view by a linalg op, stays a
// constant; one whose address reaches a runtime call (here through a
// view) is copied into a temporary right where it is taken, and every use
// reads the temporary.
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @kernel(!llvm.ptr)
// CHECK-LABEL: func.func @constants
// CHECK-SAME:    (%[[OUT:.*]]: memref<4xf32>, %[[OUT2:.*]]: memref<2xf32>, %[[ARENA:.*]]: memref<256xi8> {nn.arena}) attributes {nn.arena_bytes = 256 : i64}
// CHECK-NEXT:    %[[T:.*]] = memref.get_global @table : memref<4xf32>
// CHECK-NEXT:    memref.copy %[[T]], %[[OUT]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:    %[[V:.*]] = memref.get_global @table : memref<4xf32>
// CHECK-NEXT:    %[[VH:.*]] = memref.subview %[[V]][2] [2] [1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[VH]] : memref<2xf32, strided<[1], offset: 2>>) outs(%[[OUT2]] : memref<2xf32>)
// CHECK:         %[[U:.*]] = memref.get_global @table : memref<4xf32>
// CHECK-NEXT:    %[[OFF:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[COPY:.*]] = memref.view %[[ARENA]][%[[OFF]]][] : memref<256xi8> to memref<4xf32>
// CHECK-NEXT:    memref.copy %[[U]], %[[COPY]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:    %[[UH:.*]] = memref.subview %[[COPY]][2] [2] [1]
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[UH]]
// CHECK-NOT:     memref.get_global
// CHECK:         call @kernel(
#id = affine_map<(d0) -> (d0)>
func.func @constants(%out: memref<4xf32>, %out2: memref<2xf32>) {
  %t = memref.get_global @table : memref<4xf32>
  memref.copy %t, %out : memref<4xf32> to memref<4xf32>
  %v = memref.get_global @table : memref<4xf32>
  %vh = memref.subview %v[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%vh : memref<2xf32, strided<[1], offset: 2>>) outs(%out2 : memref<2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %u = memref.get_global @table : memref<4xf32>
  %uh = memref.subview %u[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  %i = memref.extract_aligned_pointer_as_index %uh : memref<2xf32, strided<[1], offset: 2>> -> index
  %i64 = arith.index_cast %i : index to i64
  %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
  call @kernel(%p) : (!llvm.ptr) -> ()
  return
}

// -----

// The copy of a constant is a temporary like any other: it lives to the
// end of the function, here alongside a temporary freed before it is made,
// whose bytes it reuses.
memref.global "private" constant @bias : memref<8xf32> = dense<0.5>
func.func private @kernel(!llvm.ptr)
// CHECK-LABEL: func.func @constant_copy_planned
// CHECK-SAME:    memref<1024xi8> {nn.arena}) attributes {nn.arena_bytes = 1024 : i64}
// CHECK:         memref.view %{{.*}}[%[[A:.*]]][] : memref<1024xi8> to memref<256xf32>
// CHECK:         %[[G:.*]] = memref.get_global @bias
// CHECK-NEXT:    %[[OFF:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[COPY:.*]] = memref.view %{{.*}}[%[[OFF]]][] : memref<1024xi8> to memref<8xf32>
// CHECK-NEXT:    memref.copy %[[G]], %[[COPY]]
func.func @constant_copy_planned(%out: memref<256xf32>) {
  %t = memref.alloc() : memref<256xf32>
  memref.copy %out, %t : memref<256xf32> to memref<256xf32>
  memref.copy %t, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %t : memref<256xf32>
  %g = memref.get_global @bias : memref<8xf32>
  %i = memref.extract_aligned_pointer_as_index %g : memref<8xf32> -> index
  %i64 = arith.index_cast %i : index to i64
  %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
  call @kernel(%p) : (!llvm.ptr) -> ()
  return
}

// -----

// The deallocation pipeline frees a buffer under a condition when whether
// the function owns it is only known at run time. Such a free must go as
// well: arena memory is never handed to the allocator.
// CHECK-LABEL: func.func @conditional_free
// CHECK-SAME:    memref<512xi8> {nn.arena}) attributes {nn.arena_bytes = 512 : i64}
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @conditional_free(%own: i1) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<100xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<100xf32>)
  scf.if %own {
    memref.dealloc %t : memref<100xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// -----

func.func private @use(memref<4xf32>)
func.func @alloc_in_region(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'memref.alloc' op cannot be placed in the device arena: only statically shaped buffers allocated in the function's body can}}
    %t = memref.alloc() : memref<4xf32>
    func.call @use(%t) : (memref<4xf32>) -> ()
  }
  return
}

// -----

func.func private @use(memref<?xf32>)
func.func @dynamic_alloc(%n: index) {
  // expected-error @+1 {{'memref.alloc' op cannot be placed in the device arena: only statically shaped buffers allocated in the function's body can}}
  %t = memref.alloc(%n) : memref<?xf32>
  call @use(%t) : (memref<?xf32>) -> ()
  return
}

// -----

func.func private @use(memref<4xf32, strided<[2]>>)
func.func @strided_alloc() {
  // expected-error @+1 {{'memref.alloc' op cannot be placed in the device arena: only statically shaped buffers allocated in the function's body can}}
  %t = memref.alloc() : memref<4xf32, strided<[2]>>
  call @use(%t) : (memref<4xf32, strided<[2]>>) -> ()
  return
}

// -----

// The callee would get an arena of its own, which the call does not pass.
func.func @helper(%x: memref<4xf32>) {
  return
}
func.func @caller(%x: memref<4xf32>) {
  // expected-error @+1 {{'func.call' op calls a function with a body: the device memory plan needs every entry point inlined}}
  call @helper(%x) : (memref<4xf32>) -> ()
  return
}
