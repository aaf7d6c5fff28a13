// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-scalars-to-tensors -canonicalize | FileCheck %s

// -nn-scalars-to-tensors: on the CUDA target tensors live on the device,
// so host code may not read their elements. Every tensor.extract at the top
// of a function, and every scalar op computed from one, becomes a
// linalg.generic on 0-d tensors (a kernel). Uses then read the 0-d tensor:
// a 0-d tensor.from_elements is the tensor itself, a use inside a region
// extracts it there, and a linalg.fill becomes a broadcast. The host ops
// left without uses go with the canonicalizer, as in the pipeline.

// The optimizer's pattern: the step read from a 0-d tensor, converted and
// scaled by a host constant, times an element of a rank-1 tensor at a
// constant index (a 0-d slice of it). Each op is its own 0-d kernel, the
// constant captured from the host; the result is the last kernel's tensor.
// CHECK-DAG:   #[[S:map[0-9]*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[STEP:.*]]: tensor<i64>, %[[LR:.*]]: tensor<4xf32>) -> tensor<f32>
// CHECK-NEXT:    %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    %[[L:.*]] = tensor.extract_slice %[[LR]][2] [1] [1] : tensor<4xf32> to tensor<f32>
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[SF:.*]] = linalg.generic {indexing_maps = [#[[S]], #[[S]]], iterator_types = []} ins(%[[STEP]] : tensor<i64>) outs(%[[E0]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[IN0:[^:]+]]: i64, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[V0:.*]] = arith.sitofp %[[IN0]] : i64 to f32
// CHECK-NEXT:      linalg.yield %[[V0]] : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = linalg.generic {indexing_maps = [#[[S]], #[[S]]], iterator_types = []} ins(%[[SF]] : tensor<f32>) outs(%[[E1]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[IN1:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[V1:.*]] = arith.mulf %[[IN1]], %[[HALF]] : f32
// CHECK-NEXT:      linalg.yield %[[V1]] : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[P:.*]] = linalg.generic {indexing_maps = [#[[S]], #[[S]], #[[S]]], iterator_types = []} ins(%[[M]], %[[L]] : tensor<f32>, tensor<f32>) outs(%[[E2]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[A:[^:]+]]: f32, %[[B:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[V2:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V2]] : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    return %[[P]] : tensor<f32>
func.func @chain(%step: tensor<i64>, %lr: tensor<4xf32>) -> tensor<f32> {
  %c2 = arith.constant 2 : index
  %s = tensor.extract %step[] : tensor<i64>
  %l = tensor.extract %lr[%c2] : tensor<4xf32>
  %sf = arith.sitofp %s : i64 to f32
  %half = arith.constant 0.5 : f32
  %m = arith.mulf %sf, %half : f32
  %p = arith.mulf %m, %l : f32
  %t = tensor.from_elements %p : tensor<f32>
  return %t : tensor<f32>
}

// -----

// An element of a rank-2 tensor is a [1, 1] slice reduced to 0-d; a cast to
// index is scalar arithmetic like any other (a tensor<index> kernel).
// CHECK-DAG:   #[[S:map[0-9]*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @rank_two
// CHECK-SAME:    (%[[U:.*]]: tensor<2x3xi32>) -> tensor<index>
// CHECK-NEXT:    %[[Q:.*]] = tensor.extract_slice %[[U]][1, 0] [1, 1] [1, 1] : tensor<2x3xi32> to tensor<i32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<index>
// CHECK-NEXT:    %[[I:.*]] = linalg.generic {indexing_maps = [#[[S]], #[[S]]], iterator_types = []} ins(%[[Q]] : tensor<i32>) outs(%[[E]] : tensor<index>) {
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: i32, %{{[^:]+}}: index):
// CHECK-NEXT:      %[[V:.*]] = arith.index_cast %[[IN]] : i32 to index
// CHECK-NEXT:      linalg.yield %[[V]] : index
// CHECK-NEXT:    } -> tensor<index>
// CHECK-NEXT:    return %[[I]] : tensor<index>
func.func @rank_two(%u: tensor<2x3xi32>) -> tensor<index> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = tensor.extract %u[%c1, %c0] : tensor<2x3xi32>
  %i = arith.index_cast %q : i32 to index
  %t = tensor.from_elements %i : tensor<index>
  return %t : tensor<index>
}

// -----

// A 0-d tensor rebuilt from its own element is that tensor: no kernel.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME:    (%[[T:.*]]: tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    return %[[T]] : tensor<f32>
func.func @round_trip(%t: tensor<f32>) -> tensor<f32> {
  %x = tensor.extract %t[] : tensor<f32>
  %y = tensor.from_elements %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// A scalar read twice by one op: the op's kernel takes its tensor for each
// operand, and both operands of the clone read it.
// CHECK-LABEL: func.func @square
// CHECK-SAME:    (%[[A:.*]]: tensor<f32>) -> tensor<f32>
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[A]] : tensor<f32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.mulf %[[X:.*]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @square(%a: tensor<f32>) -> tensor<f32> {
  %x = tensor.extract %a[] : tensor<f32>
  %y = arith.mulf %x, %x : f32
  %t = tensor.from_elements %y : tensor<f32>
  return %t : tensor<f32>
}

// -----

// Filling with a device scalar is a broadcast of its 0-d tensor.
// CHECK-DAG:   #[[SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @fill
// CHECK-SAME:    (%[[LR:.*]]: tensor<f32>) -> tensor<2x3xf32>
// CHECK:         %[[N:.*]] = linalg.generic {{.*}} ins(%[[LR]] : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK:           arith.negf
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[B:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[N]] : tensor<f32>) outs(%[[E]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[B]]
func.func @fill(%lr: tensor<f32>) -> tensor<2x3xf32> {
  %l = tensor.extract %lr[] : tensor<f32>
  %n = arith.negf %l : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%n : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %f : tensor<2x3xf32>
}

// -----

// Inside a region (the kernel of a linalg.generic) each use extracts the
// 0-d tensor right before it. Two scalars read by one op are both
// extracted before it.
// CHECK-LABEL: func.func @in_region
// CHECK-SAME:    (%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %[[C:.*]]: tensor<f32>, %[[X:.*]]: tensor<8xf32>) -> tensor<8xf32>
// CHECK-NOT:     tensor.extract
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-DAG:       %[[SA:.*]] = tensor.extract %[[A]][] : tensor<f32>
// CHECK-DAG:       %[[SB:.*]] = tensor.extract %[[B]][] : tensor<f32>
// CHECK-NEXT:      %[[AB:.*]] = arith.addf %[[SA]], %[[SB]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[IN]], %[[AB]] : f32
// CHECK-NEXT:      %[[SC:.*]] = tensor.extract %[[C]][] : tensor<f32>
// CHECK-NEXT:      %[[Z:.*]] = arith.subf %[[Y]], %[[SC]] : f32
// CHECK-NEXT:      linalg.yield %[[Z]] : f32
#id = affine_map<(d0) -> (d0)>
func.func @in_region(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %sa = tensor.extract %a[] : tensor<f32>
  %sb = tensor.extract %b[] : tensor<f32>
  %sc = tensor.extract %c[] : tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %ab = arith.addf %sa, %sb : f32
    %y = arith.mulf %in, %ab : f32
    %z = arith.subf %y, %sc : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  return %g : tensor<8xf32>
}

// -----

// Computed in a kernel, used in another: the first is a 0-d kernel, the
// second extracts its tensor.
// CHECK-LABEL: func.func @computed_then_read
// CHECK-SAME:    (%[[T:.*]]: tensor<f32>, %[[X:.*]]: tensor<8xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<f32>)
// CHECK:           math.sqrt
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = tensor.extract %[[R]][] : tensor<f32>
// CHECK-NEXT:      arith.divf %[[IN]], %[[S]] : f32
#id = affine_map<(d0) -> (d0)>
func.func @computed_then_read(%t: tensor<f32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %v = tensor.extract %t[] : tensor<f32>
  %r = math.sqrt %v : f32
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.divf %in, %r : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %g : tensor<8xf32>
}

//===----------------------------------------------------------------------===//
// Left alone
//===----------------------------------------------------------------------===//

// -----

// Host arithmetic that reads no tensor stays on the host, and an extract
// inside a kernel, even at a computed index, is the kernel's own read.
// CHECK-LABEL: func.func @left_alone
// CHECK-SAME:    (%[[T:.*]]: tensor<4xf32>, %[[X:.*]]: tensor<8xf32>, %[[K:.*]]: index, %[[F:.*]]: f32) -> (tensor<8xf32>, f32)
// CHECK:         linalg.generic
// CHECK:           %[[J:.*]] = arith.remui %{{.*}}, %[[K]] : index
// CHECK-NEXT:      tensor.extract %[[T]][%[[J]]] : tensor<4xf32>
// CHECK:         } -> tensor<8xf32>
// CHECK-NEXT:    %[[D:.*]] = arith.addf %[[F]], %[[F]] : f32
// CHECK-NEXT:    return %{{.*}}, %[[D]]
#id = affine_map<(d0) -> (d0)>
func.func @left_alone(%t: tensor<4xf32>, %x: tensor<8xf32>, %k: index, %f: f32) -> (tensor<8xf32>, f32) {
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = arith.remui %i, %k : index
    %v = tensor.extract %t[%j] : tensor<4xf32>
    %y = arith.mulf %in, %v : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %d = arith.addf %f, %f : f32
  return %g, %d : tensor<8xf32>, f32
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// -----

func.func @computed_index(%t: tensor<4xf32>, %i: index) -> tensor<f32> {
  // expected-error @+1 {{'tensor.extract' op reads a tensor element at a computed index on the host: the CUDA target keeps tensors on the device}}
  %s = tensor.extract %t[%i] : tensor<4xf32>
  %r = tensor.from_elements %s : tensor<f32>
  return %r : tensor<f32>
}
