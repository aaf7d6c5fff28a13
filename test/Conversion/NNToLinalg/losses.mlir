// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg | FileCheck %s

// -convert-nn-to-linalg, losses, as PyTorch's reduction="mean": one generic
// picks -logp[i, y_i] and a weight of 1 for every label that is not
// ignore_index (0 for both otherwise); the loss is the sum of one over the
// sum of the other.

// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:   #[[SCALAR:map[0-9]*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @nll_loss
// CHECK-SAME:    (%[[LP:.*]]: tensor<3x10xf32>, %[[Y:.*]]: tensor<3xi64>) -> tensor<f32>
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %[[PICK:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[Y]] : tensor<3xi64>) outs(%[[E0]], %[[E1]] : tensor<3xf32>, tensor<3xf32>) {
// CHECK-NEXT:    ^bb0(%[[L:[^:]+]]: i64, %{{[^:]+}}: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[IGN:.*]] = arith.constant -100 : i64
// CHECK-NEXT:      %[[VALID:.*]] = arith.cmpi ne, %[[L]], %[[IGN]] : i64
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[SAFE:.*]] = arith.select %[[VALID]], %[[L]], %[[Z]] : i64
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %[[SAFE]] : i64 to index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %[[LP]][%[[I]], %[[C]]] : tensor<3x10xf32>
// CHECK-NEXT:      %[[ZF:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[V]] : f32
// CHECK-NEXT:      %[[PICKED:.*]] = arith.select %[[VALID]], %[[NEG]], %[[ZF]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[W:.*]] = arith.select %[[VALID]], %[[ONE]], %[[ZF]] : f32
// CHECK-NEXT:      linalg.yield %[[PICKED]], %[[W]] : f32, f32
// CHECK-NEXT:    } -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[F2:.*]] = linalg.fill ins(%[[Z2]] : f32) outs(%[[E2]] : tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[COUNT:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[PICK]]#1 : tensor<3xf32>) outs(%[[F2]] : tensor<f32>) dimensions = [0]
// CHECK-NEXT:    %[[E3:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[Z3:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[F3:.*]] = linalg.fill ins(%[[Z3]] : f32) outs(%[[E3]] : tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[NLL:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[PICK]]#0 : tensor<3xf32>) outs(%[[F3]] : tensor<f32>) dimensions = [0]
// CHECK-NEXT:    %[[E4:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins(%[[NLL]], %[[COUNT]] : tensor<f32>, tensor<f32>) outs(%[[E4]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[N:[^:]+]]: f32, %[[D:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[N]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    return %[[R]] : tensor<f32>
func.func @nll_loss(%l: tensor<3x10xf32>, %y: tensor<3xi64>) -> tensor<f32> {
  %0 = nn.nll_loss %l, %y {ignore_index = -100 : i64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// cross_entropy: log_softmax over the classes, then the same pick over the
// [2, 3] labels (ignore_index 0 here) and a sum over both label axes.
// CHECK-DAG:   #[[ID3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[KEEP:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG:   #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[SCALAR:map[0-9]*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME:    (%[[LOGITS:.*]]: tensor<2x3x10xf32>, %[[Y:.*]]: tensor<2x3xi64>) -> tensor<f32>
// CHECK:         %[[MAX:.*]] = linalg.reduce { arith.maximumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[LOGITS]] : tensor<2x3x10xf32>) outs(%{{.*}} : tensor<2x3xf32>) dimensions = [2]
// CHECK:         %[[SHIFT:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[KEEP]], #[[ID3]]], {{.*}} ins(%[[LOGITS]], %{{.*}} : tensor<2x3x10xf32>, tensor<2x3x1xf32>)
// CHECK:           arith.subf
// CHECK:         math.exp
// CHECK:         linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%{{.*}} : tensor<2x3x10xf32>) outs(%{{.*}} : tensor<2x3xf32>) dimensions = [2]
// CHECK:         %[[LOGP:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[KEEP]], #[[ID3]]], {{.*}} ins(%[[SHIFT]], %{{.*}} : tensor<2x3x10xf32>, tensor<2x3x1xf32>)
// CHECK:           math.log
// CHECK:           arith.subf
// CHECK:         %[[PICK:.*]]:2 = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[Y]] : tensor<2x3xi64>) outs(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[L:[^:]+]]: i64, %{{[^:]+}}: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[IGN:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[VALID:.*]] = arith.cmpi ne, %[[L]], %[[IGN]] : i64
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[SAFE:.*]] = arith.select %[[VALID]], %[[L]], %[[Z]] : i64
// CHECK-NEXT:      %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %[[SAFE]] : i64 to index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %[[LOGP]][%[[I0]], %[[I1]], %[[C]]] : tensor<2x3x10xf32>
// CHECK:         %[[COUNT:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[PICK]]#1 : tensor<2x3xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK:         %[[NLL:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[PICK]]#0 : tensor<2x3xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins(%[[NLL]], %[[COUNT]] : tensor<f32>, tensor<f32>) outs(%[[E]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[N:[^:]+]]: f32, %[[D:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[N]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    return %[[R]] : tensor<f32>
func.func @cross_entropy(%l: tensor<2x3x10xf32>, %y: tensor<2x3xi64>) -> tensor<f32> {
  %0 = nn.cross_entropy %l, %y {ignore_index = 0 : i64, label_smoothing = 0.0 : f64} : (tensor<2x3x10xf32>, tensor<2x3xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Label smoothing e = 0.1 over C = 10 classes:
// ((1 - e) * nll + e * sum_i(-sum_c logp[i, c] / C * w_i)) / sum_i(w_i).
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:   #[[SCALAR:map[0-9]*]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @cross_entropy_smoothing
// CHECK-SAME:    (%[[LOGITS:.*]]: tensor<3x10xf32>, %[[Y:.*]]: tensor<3xi64>) -> tensor<f32>
// CHECK:         math.exp
// CHECK:         %[[LOGP:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x10xf32>, tensor<3x1xf32>)
// CHECK-NEXT:    ^bb0(%{{[^:]+}}: f32, %[[SUMEXP:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      math.log %[[SUMEXP]] : f32
// CHECK:         %[[PICK:.*]]:2 = linalg.generic {{.*}} ins(%[[Y]] : tensor<3xi64>)
// CHECK:           tensor.extract %[[LOGP]]
// CHECK:         %[[COUNT:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[PICK]]#1 : tensor<3xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0]
// CHECK:         %[[NLL:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[PICK]]#0 : tensor<3xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0]
// CHECK:         %[[ROWS:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[LOGP]] : tensor<3x10xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [1]
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %[[SMOOTH:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[ROWS]], %[[PICK]]#1 : tensor<3xf32>, tensor<3xf32>) outs(%[[E0]] : tensor<3xf32>) {
// CHECK-NEXT:    ^bb0(%[[S:[^:]+]]: f32, %[[W:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[S]], %[[C]] : f32
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[MEAN]] : f32
// CHECK-NEXT:      %[[SW:.*]] = arith.mulf %[[NEG]], %[[W]] : f32
// CHECK-NEXT:      linalg.yield %[[SW]] : f32
// CHECK-NEXT:    } -> tensor<3xf32>
// CHECK:         %[[SMOOTHSUM:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[SMOOTH]] : tensor<3xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0]
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[MIX:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins(%[[NLL]], %[[SMOOTHSUM]] : tensor<f32>, tensor<f32>) outs(%[[E1]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[H:[^:]+]]: f32, %[[SO:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[KEEP:.*]] = arith.constant 0.899999976 : f32
// CHECK-NEXT:      %[[HARD:.*]] = arith.mulf %[[H]], %[[KEEP]] : f32
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT:      %[[SOFT:.*]] = arith.mulf %[[SO]], %[[EPS]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[HARD]], %[[SOFT]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins(%[[MIX]], %[[COUNT]] : tensor<f32>, tensor<f32>) outs(%[[E2]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[N:[^:]+]]: f32, %[[D:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[N]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    return %[[R]] : tensor<f32>
func.func @cross_entropy_smoothing(%l: tensor<3x10xf32>, %y: tensor<3xi64>) -> tensor<f32> {
  %0 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}
