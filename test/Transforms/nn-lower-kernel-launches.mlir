// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-lower-kernel-launches | FileCheck %s

// -nn-lower-kernel-launches: each gpu.launch_func becomes
//   tfrt_cuda_launch(kernel, gridX, gridY, gridZ, blockX, blockY, blockZ,
//                    sharedBytes, args)
// where kernel indexes the module's nn.cuda_kernels (the launched kernels'
// names in order of first launch) and args is cuLaunchKernel's array of
// pointers to each argument's value: a buffer's address (offset included),
// an index as i64, another scalar as it is. Two stack arrays per function
// (8-byte value slots and their addresses), as long as its widest launch,
// are allocated once at its entry and reused by every launch; the driver
// copies the values when the launch is queued.

// Kernels are numbered as they are first launched, across functions: @f
// launches "second" (0) then "first" (1), @g "first" again (1) and then
// "third" (2). @f's widest launch has three arguments: a buffer, an index
// and an f32, each stored in its slot, the slot's address in the array.
// CHECK-LABEL: module attributes {gpu.container_module, nn.cuda_kernels = ["second", "first", "third"]}
// CHECK-NEXT:    func.func private @tfrt_cuda_launch(i32, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr)
// CHECK-NOT:     gpu.launch_func
// CHECK-LABEL: func.func @f
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>, %[[N:.*]]: index, %[[S:.*]]: f32)
// CHECK-NEXT:    %[[COUNT:.*]] = arith.constant 3 : i64
// CHECK-NEXT:    %[[SLOTS:.*]] = llvm.alloca %[[COUNT]] x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.alloca %[[COUNT]] x !llvm.ptr {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[SLOT0:.*]] = llvm.getelementptr %[[SLOTS]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[XI:.*]] = memref.extract_aligned_pointer_as_index %[[X]] : memref<4xf32> -> index
// CHECK-NEXT:    %[[XI64:.*]] = arith.index_cast %[[XI]] : index to i64
// CHECK-NEXT:    %[[XP:.*]] = llvm.inttoptr %[[XI64]] : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.store %[[XP]], %[[SLOT0]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[ARG0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[SLOT0]], %[[ARG0]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[SLOT1:.*]] = llvm.getelementptr %[[SLOTS]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-NEXT:    llvm.store %[[N64]], %[[SLOT1]] : i64, !llvm.ptr
// CHECK-NEXT:    %[[ARG1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[SLOT1]], %[[ARG1]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[SLOT2:.*]] = llvm.getelementptr %[[SLOTS]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[S]], %[[SLOT2]] : f32, !llvm.ptr
// CHECK-NEXT:    %[[ARG2:.*]] = llvm.getelementptr %[[ARGS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[SLOT2]], %[[ARG2]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[SHARED:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[K0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[GX:.*]] = arith.index_cast %[[C2]] : index to i64
// CHECK-NEXT:    %[[GY:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    %[[GZ:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    %[[BX:.*]] = arith.index_cast %[[C32]] : index to i64
// CHECK-NEXT:    %[[BY:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    %[[BZ:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    call @tfrt_cuda_launch(%[[K0]], %[[GX]], %[[GY]], %[[GZ]], %[[BX]], %[[BY]], %[[BZ]], %[[SHARED]], %[[ARGS]]) : (i32, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr) -> ()
// The second launch reuses the first slot and the same arrays.
// CHECK-NEXT:    %[[SLOT0B:.*]] = llvm.getelementptr %[[SLOTS]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         llvm.store %[[SLOT0B]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[SHARED2:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[K1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[GX2:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    %[[GY2:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    %[[GZ2:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    %[[BX2:.*]] = arith.index_cast %[[C32]] : index to i64
// CHECK-NEXT:    %[[BY2:.*]] = arith.index_cast %[[C2]] : index to i64
// CHECK-NEXT:    %[[BZ2:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT:    call @tfrt_cuda_launch(%[[K1]], %[[GX2]], %[[GY2]], %[[GZ2]], %[[BX2]], %[[BY2]], %[[BZ2]], %[[SHARED2]], %[[ARGS]])
// CHECK-NEXT:    return
// A strided buffer is passed at its first element (offset 2 floats = 8
// bytes past the aligned pointer); the dynamic shared memory size is
// passed on.
// CHECK-LABEL: func.func @g
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<2x3xf32, strided<[4, 1], offset: 2>>)
// CHECK-NEXT:    %[[COUNT:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[SLOTS:.*]] = llvm.alloca %[[COUNT]] x i64
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.alloca %[[COUNT]] x !llvm.ptr
// CHECK:         %[[BYTES:.*]] = arith.constant 64 : i32
// CHECK-NEXT:    %[[SLOT0:.*]] = llvm.getelementptr %[[SLOTS]][0]
// CHECK-NEXT:    %[[YI:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-NEXT:    %[[BASE:.*]], %[[OFFSET:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[Y]]
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[OB:.*]] = arith.muli %[[OFFSET]], %[[C4]] : index
// CHECK-NEXT:    %[[YA:.*]] = arith.addi %[[YI]], %[[OB]] : index
// CHECK-NEXT:    %[[YA64:.*]] = arith.index_cast %[[YA]] : index to i64
// CHECK-NEXT:    %[[YP:.*]] = llvm.inttoptr %[[YA64]] : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.store %[[YP]], %[[SLOT0]] : !llvm.ptr, !llvm.ptr
// CHECK:         %[[K1:.*]] = arith.constant 1 : i32
// CHECK:         call @tfrt_cuda_launch(%[[K1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BYTES]], %[[ARGS]])
// CHECK:         %[[K2:.*]] = arith.constant 2 : i32
// CHECK:         call @tfrt_cuda_launch(%[[K2]],
// CHECK-NOT:     gpu.launch_func
// A function without launches, and a declaration, are left alone.
// CHECK-LABEL: func.func @none
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @decl()
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  func.func @f(%x: memref<4xf32>, %n: index, %s: f32) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@second blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%x : memref<4xf32>, %n : index, %s : f32)
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c32, %c2, %c1) args(%x : memref<4xf32>)
    return
  }
  func.func @g(%x: memref<4xf32>, %y: memref<2x3xf32, strided<[4, 1], offset: 2>>) {
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 64 : i32
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %bytes args(%y : memref<2x3xf32, strided<[4, 1], offset: 2>>)
    gpu.launch_func @kernels::@third blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  func.func @none() {
    return
  }
  func.func private @decl()
}

// -----

// A launch inside a loop: the argument arrays are allocated once, at the
// function's entry, not once per iteration.
// CHECK-LABEL: func.func @in_a_loop
// CHECK-NEXT:    %[[COUNT:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[SLOTS:.*]] = llvm.alloca %[[COUNT]] x i64
// CHECK-NEXT:    %[[ARGS:.*]] = llvm.alloca %[[COUNT]] x !llvm.ptr
// CHECK:         scf.for
// CHECK-NOT:       llvm.alloca
// CHECK:           call @tfrt_cuda_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ARGS]])
// CHECK-NOT:       gpu.launch_func
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  func.func @in_a_loop(%x: memref<4xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    }
    return
  }
}

// -----

// Without launches there is nothing to declare and no kernel list.
// CHECK-LABEL: module attributes {gpu.container_module} {
// CHECK-NOT:     tfrt_cuda_launch
// CHECK-NOT:     nn.cuda_kernels
module attributes {gpu.container_module} {
  func.func @host(%x: memref<4xf32>) {
    return
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// -----

// The runtime owns the one stream: there are no tokens to wait on.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  func.func @async(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' op asynchronous and clustered launches are not supported}}
    %t = gpu.launch_func async @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  func.func @clusters(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' op asynchronous and clustered launches are not supported}}
    gpu.launch_func @kernels::@k clusters in (%c1, %c1, %c1) blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
}
