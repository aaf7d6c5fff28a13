// RUN: transfuse-opt %s -nn-fuse-elementwise-loops=max-body-ops=2 | FileCheck %s

// A chain longer than max-body-ops becomes several loops, each with at most
// that many operations in its body and each reading the one before; the
// five single-op loops here become three.

// CHECK-LABEL: func.func @long_chain
// CHECK-SAME:    (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[L0:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] :
// CHECK-NEXT:    ^bb0(%[[X0:[^:]+]]: f32, %[[Y0:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X0]], %[[Y0]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[L1:.*]] = linalg.generic {{.*}} ins(%[[L0]], %[[B]] :
// CHECK-NEXT:    ^bb0(%[[X1:[^:]+]]: f32, %[[Y1:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[X1]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[E]], %[[Y1]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK:         %[[L2:.*]] = linalg.generic {{.*}} ins(%[[L1]] :
// CHECK-NEXT:    ^bb0(%[[X2:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[X2]] : f32
// CHECK-NEXT:      %[[T:.*]] = math.tanh %[[N]] : f32
// CHECK-NEXT:      linalg.yield %[[T]] : f32
// CHECK:         return %[[L2]] : tensor<8xf32>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @long_chain(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%1, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%2 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%3 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %4 : tensor<8xf32>
}
