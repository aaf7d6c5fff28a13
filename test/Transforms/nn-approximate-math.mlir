// RUN: transfuse-opt %s -nn-approximate-math | FileCheck %s

// f32 exp, log, tanh and erf become arithmetic: no math op of theirs is
// left, and exp's range reduction (multiply by log2(e), floor) shows.
// CHECK-LABEL: func.func @f32_transcendentals
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: arith.constant 1.44269502 : f32
// CHECK: math.floor
// CHECK: return
func.func @f32_transcendentals(%x: f32) -> (f32, f32, f32, f32) {
  %e = math.exp %x : f32
  %l = math.log %x : f32
  %t = math.tanh %x : f32
  %r = math.erf %x : f32
  return %e, %l, %t, %r : f32, f32, f32, f32
}

// Inside a linalg body, as the softmax loops have them.
// CHECK-LABEL: func.func @in_loop_body
// CHECK: linalg.generic
// CHECK-NOT: math.exp
// CHECK: linalg.yield
func.func @in_loop_body(%in: memref<8xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%in : memref<8xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// f64 keeps its exact library calls, and ops without a polynomial here
// (sqrt has an instruction) are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.log %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f32
// CHECK: math.log1p %{{.*}} : f32
func.func @left_alone(%x: f64, %y: f32) -> (f64, f64, f32, f32) {
  %e = math.exp %x : f64
  %l = math.log %x : f64
  %s = math.sqrt %y : f32
  %p = math.log1p %y : f32
  return %e, %l, %s, %p : f64, f64, f32, f32
}
