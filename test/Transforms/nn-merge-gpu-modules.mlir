// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-merge-gpu-modules | FileCheck %s

// -nn-merge-gpu-modules: after gpu-kernel-outlining every launch has a
// gpu.module of its own, and the same glue in every layer is the same
// kernel many times over. All of them go into one module, @kernels: a
// kernel whose text (under a fixed name) was seen before is not copied
// again and its launches go to the first copy; names that clash are made
// unique; constant tables are kept once by name. One module is one PTX
// file and one ptxas run per architecture.

// f's first two launches run the same code on other buffers: one kernel.
// The third reads a table and is another kernel, whose name clashes with
// the first and is renamed; g's launch has its code under another name and
// goes to it. The table is kept once; no other gpu.module is left.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @f
// CHECK-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
// CHECK:         gpu.launch_func @kernels::@f_kernel blocks in {{.*}} args(%[[A]] : memref<4xf32>, %[[B]] : memref<4xf32>)
// CHECK-NEXT:    gpu.launch_func @kernels::@f_kernel blocks in {{.*}} args(%[[B]] : memref<4xf32>, %[[A]] : memref<4xf32>)
// CHECK-NEXT:    gpu.launch_func @kernels::@[[OTHER:f_kernel_[0-9]+]] blocks in {{.*}} args(%[[A]] : memref<4xf32>, %[[B]] : memref<4xf32>)
// CHECK-LABEL: func.func @g
// CHECK:         gpu.launch_func @kernels::@[[OTHER]] blocks in
// CHECK-NOT:     gpu.module
// CHECK:         gpu.module @kernels {
// CHECK-NEXT:      gpu.func @f_kernel(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) kernel {
// CHECK-NEXT:        %[[I:.*]] = gpu.thread_id x
// CHECK-NEXT:        %[[X:.*]] = memref.load %{{.*}}[%[[I]]] : memref<4xf32>
// CHECK-NEXT:        %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:        memref.store %[[E]], %{{.*}}[%[[I]]] : memref<4xf32>
// CHECK-NEXT:        gpu.return
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.func @[[OTHER]](%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) kernel {
// CHECK:             memref.get_global @table : memref<4xf32>
// CHECK:             gpu.return
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.global "private" constant @table : memref<4xf32> = dense<1.000000e+00>
// CHECK-NEXT:    }
// CHECK-NOT:     gpu.module
// CHECK-NOT:     gpu.func
// CHECK-NOT:     memref.global "private" constant @table
module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<4xf32> = dense<1.0>
  func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>, %b : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%b : memref<4xf32>, %a : memref<4xf32>)
    gpu.launch_func @f_kernel_1::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>, %b : memref<4xf32>)
    return
  }
  func.func @g(%a: memref<4xf32>, %b: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @g_kernel::@g_kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>, %b : memref<4xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<4xf32>
      %e = math.exp %v : f32
      memref.store %e, %y[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<4xf32>
      %e = math.exp %v : f32
      memref.store %e, %y[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_1 {
    gpu.func @f_kernel(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %t = memref.get_global @table : memref<4xf32>
      %v = memref.load %x[%i] : memref<4xf32>
      %w = memref.load %t[%i] : memref<4xf32>
      %s = arith.addf %v, %w : f32
      memref.store %s, %y[%i] : memref<4xf32>
      gpu.return
    }
    memref.global "private" constant @table : memref<4xf32> = dense<1.0>
  }
  gpu.module @g_kernel {
    gpu.func @g_kernel(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %t = memref.get_global @table : memref<4xf32>
      %v = memref.load %x[%i] : memref<4xf32>
      %w = memref.load %t[%i] : memref<4xf32>
      %s = arith.addf %v, %w : f32
      memref.store %s, %y[%i] : memref<4xf32>
      gpu.return
    }
    memref.global "private" constant @table : memref<4xf32> = dense<1.0>
  }
}

// -----

// The same body compiled for other block sizes is not the same kernel:
// the text compared includes the kernel's attributes. Different argument
// types are different code too.
// CHECK-LABEL: func.func @distinct
// CHECK:         gpu.launch_func @kernels::@a blocks in
// CHECK-NEXT:    gpu.launch_func @kernels::@b blocks in
// CHECK-NEXT:    gpu.launch_func @kernels::@c blocks in
// CHECK:         gpu.module @kernels {
// CHECK-NEXT:      gpu.func @a(%{{.*}}: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>}
// CHECK:           gpu.func @b(%{{.*}}: memref<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>}
// CHECK:           gpu.func @c(%{{.*}}: memref<8xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>}
module attributes {gpu.container_module} {
  func.func @distinct(%x: memref<4xf32>, %y: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @a::@a blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @b::@b blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @c::@c blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%y : memref<8xf32>)
    return
  }
  gpu.module @a {
    gpu.func @a(%x: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %i = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %x[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @b(%x: memref<4xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %i = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %x[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @c {
    gpu.func @c(%x: memref<8xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %i = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %x[%i] : memref<8xf32>
      gpu.return
    }
  }
}

// -----


// Without GPU modules there is nothing to merge, and a symbol already
// named @kernels is in nobody's way.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NEXT:    func.func private @kernels()
// CHECK-NOT:     gpu.module
module attributes {gpu.container_module} {
  func.func private @kernels()
}

// -----

// expected-error @+1 {{a symbol is already named 'kernels'}}
module attributes {gpu.container_module} {
  func.func private @kernels()
  gpu.module @k {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// A launch of a kernel that is already a binary is no launch of an
// outlined module: it stays as it is.
// CHECK-LABEL: func.func @prebuilt
// CHECK:         gpu.launch_func @kernels::@k blocks in
// CHECK-NEXT:    gpu.launch_func @library::@other blocks in
module attributes {gpu.container_module} {
  gpu.binary @library [#gpu.object<#nvvm.target, "">]
  func.func @prebuilt(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @outlined::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @library::@other blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
  gpu.module @outlined {
    gpu.func @k(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
