// RUN: transfuse-opt %s -split-input-file -nn-unshare-init-tensors | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -nn-unshare-init-tensors \
// RUN:   -one-shot-bufferize -canonicalize | FileCheck %s --check-prefix=BUF

// -nn-unshare-init-tensors: an empty tensor, or a fill of one, that several
// loops take as their init becomes one op per loop, placed right before
// it; an op with a single use stays where it is.

// A shared empty tensor: one copy per loop, just before it.
// CHECK-LABEL: func.func @shared_empty
// CHECK-NOT:     tensor.empty
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:    %[[A:.*]] = linalg.generic {{.*}} outs(%[[E0]] : tensor<8xf32>)
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:    %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<8xf32>) outs(%[[E1]] : tensor<8xf32>)
// CHECK-NOT:     tensor.empty
// CHECK:         return %[[A]], %[[B]]
#id = affine_map<(d0) -> (d0)>
func.func @shared_empty(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %in, %in : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.mulf %in, %in : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// A zero fill shared by two reductions: each gets its own empty tensor and
// fill, so that each accumulates in place. Bufferized, that is two fills
// and no copy of the zeros.
// CHECK-LABEL: func.func @shared_fill
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[F0:.*]] = linalg.fill ins(%[[ZERO:.*]] : f32) outs(%[[E0]] : tensor<f32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%[[F0]] : tensor<f32>)
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[F1:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<f32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%[[F1]] : tensor<f32>)
// CHECK-NOT:     linalg.fill
// BUF-LABEL:   func.func @shared_fill
// BUF-NOT:       memref.copy
// BUF-COUNT-2:   linalg.fill
// BUF-NOT:       memref.copy
// BUF:           return
#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>
func.func @shared_fill(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<f32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sx = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %sy = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%y : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %sx, %sy : tensor<f32>, tensor<f32>
}

// -----

// The empty tensor of a shared fill that another loop also takes: the loop
// gets its own empty tensor and each reduction its own fill. A use inside a
// region gets its copy before the op of the block that holds it.
// CHECK-LABEL: func.func @fill_and_empty_shared
// CHECK:         tensor.empty() : tensor<f32>
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    linalg.generic
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    scf.execute_region
// CHECK-NEXT:      linalg.generic {{.*}} outs(%[[E]] : tensor<f32>)
// CHECK:         tensor.empty() : tensor<f32>
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    linalg.generic
#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>
func.func @fill_and_empty_shared(%x: tensor<8xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s0 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %m = scf.execute_region -> tensor<f32> {
    %r = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
        ins(%x : tensor<8xf32>) outs(%e : tensor<f32>) {
    ^bb0(%in: f32, %acc: f32):
      linalg.yield %in : f32
    } -> tensor<f32>
    scf.yield %r : tensor<f32>
  }
  %s1 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%x : tensor<8xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.mulf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %s0, %m, %s1 : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Left alone: an empty tensor and a fill with one use each, and a shared
// fill of a tensor that is not empty (its contents are not only the fill's).
// CHECK-LABEL: func.func @left_alone
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:    %[[Z:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<8xf32>)
// CHECK-NEXT:    %[[F:.*]] = linalg.fill {{.*}} outs(%arg0 : tensor<8xf32>)
// CHECK-NOT:     tensor.empty
// CHECK-NOT:     linalg.fill
// CHECK:         linalg.add ins(%[[F]], %[[Z]] : {{.*}})
// CHECK-NEXT:    linalg.mul ins(%[[F]], %[[F]] : {{.*}})
func.func @left_alone(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%x : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.add ins(%f, %z : tensor<8xf32>, tensor<8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  %b = linalg.mul ins(%f, %f : tensor<8xf32>, tensor<8xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
