// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg | FileCheck %s

// -convert-nn-to-linalg, reductions, normalisations and contractions:
// linalg.reduce into a linalg.fill of the identity, matmuls as
// linalg.matmul / linalg.batch_matmul into a zero fill, and the fused ops
// expanded into those building blocks.

// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>) dimensions = [1]
// CHECK-NEXT:    return %[[R]] : tensor<2x4xf32>
func.func @reduce_sum(%a: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = nn.reduce_sum %a [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Mean: the sum, reshaped back to rank 3 for keep_dims, divided by the
// number of reduced elements.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @reduce_mean_keep_dims
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x3xf32>) dimensions = [2]
// CHECK-NEXT:    %[[FLAT:.*]] = tensor.collapse_shape %[[SUM]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    %[[KEPT:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 1] : tensor<6xf32> into tensor<2x3x1xf32>
// CHECK-NEXT:    %[[COUNT:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<2x3x1xf32>
// CHECK-NEXT:    %[[MEAN:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[KEPT]] : tensor<2x3x1xf32>) outs(%[[E2]] : tensor<2x3x1xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[X]], %[[COUNT]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK-NEXT:    } -> tensor<2x3x1xf32>
// CHECK-NEXT:    return %[[MEAN]] : tensor<2x3x1xf32>
func.func @reduce_mean_keep_dims(%a: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  %0 = nn.reduce_mean %a [2] {keep_dims} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

// Over two axes the divisor is their product.
// CHECK-LABEL: func.func @reduce_mean_two_axes
// CHECK:         %[[SUM:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [0, 2]
// CHECK-NEXT:    %[[COUNT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK:         arith.divf %{{.*}}, %[[COUNT]] : f32
func.func @reduce_mean_two_axes(%a: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = nn.reduce_mean %a [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Max starts from -inf; over every axis it gives a rank-0 tensor.
// CHECK-LABEL: func.func @reduce_max_all
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x4xf32>) -> tensor<f32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%[[E]] : tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = linalg.reduce { arith.maximumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<f32>) dimensions = [0, 1, 2]
// CHECK-NEXT:    return %[[R]] : tensor<f32>
func.func @reduce_max_all(%a: tensor<2x3x4xf32>) -> tensor<f32> {
  %0 = nn.reduce_max %a [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// softmax = exp(x - max) / sum(exp(x - max)), the max and the sum kept as
// [2, 1] and broadcast back along the axis.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[KEEP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    %[[MINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%[[E0]] : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[MAX:.*]] = linalg.reduce { arith.maximumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[A]] : tensor<2x3xf32>) outs(%[[MINIT]] : tensor<2xf32>) dimensions = [1]
// CHECK-NEXT:    %[[MAXK:.*]] = tensor.expand_shape %[[MAX]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[SHIFT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[MAXK]] : tensor<2x3xf32>, tensor<2x1xf32>) outs(%[[E1]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X0:[^:]+]]: f32, %[[Y0:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[X0]], %[[Y0]] : f32
// CHECK-NEXT:      linalg.yield %[[D]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[SHIFT]] : tensor<2x3xf32>) outs(%[[E2]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X1:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[X1E:.*]] = math.exp %[[X1]] : f32
// CHECK-NEXT:      linalg.yield %[[X1E]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E3:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[SINIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E3]] : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[EXP]] : tensor<2x3xf32>) outs(%[[SINIT]] : tensor<2xf32>) dimensions = [1]
// CHECK-NEXT:    %[[SUMK:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK-NEXT:    %[[E4:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[EXP]], %[[SUMK]] : tensor<2x3xf32>, tensor<2x1xf32>) outs(%[[E4]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X2:[^:]+]]: f32, %[[Y2:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[X2]], %[[Y2]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[P]] : tensor<2x3xf32>
func.func @softmax(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.softmax %a {axis = 1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// log_softmax = (x - max) - log(sum(exp(x - max))), here over axis 0.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[KEEP:map[0-9]*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[MAX:.*]] = linalg.reduce { arith.maximumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[A]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [0]
// CHECK-NEXT:    %[[MAXK:.*]] = tensor.expand_shape %[[MAX]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         %[[SHIFT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]], #[[ID]]], {{.*}} ins(%[[A]], %[[MAXK]] : tensor<2x3xf32>, tensor<1x3xf32>)
// CHECK:           arith.subf
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[SHIFT]] : tensor<2x3xf32>)
// CHECK:           math.exp
// CHECK:         %[[SUM:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[EXP]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [0]
// CHECK-NEXT:    %[[SUMK:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]], #[[ID]]], {{.*}} ins(%[[SHIFT]], %[[SUMK]] : tensor<2x3xf32>, tensor<1x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[S:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[LOG:.*]] = math.log %[[S]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.subf %[[X]], %[[LOG]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x3xf32>
func.func @log_softmax(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.log_softmax %a {axis = 0 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// (x - mean) * rsqrt(Σ(x - mean)² / N + eps) * gamma + beta over the
// trailing axes: the mean, the centred squares summed in the same pass as
// the centring, the scale per row, then one elementwise pass with gamma and
// beta broadcast along the rows.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[KEEP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[ROWS:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[X]] : tensor<2x8xf32>) outs(%[[INIT]] : tensor<2xf32>) dimensions = [1]
// CHECK-NEXT:    %[[SUMK:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUMK]] : tensor<2x1xf32>)
// CHECK:           arith.divf %{{.*}}, %[[N]] : f32
// CHECK:         %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<2x8xf32>, tensor<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[SX:[^:]+]]: f32, %[[SM:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[SC:.*]] = arith.subf %[[SX]], %[[SM]] : f32
// CHECK-NEXT:      %[[SS:.*]] = arith.mulf %[[SC]], %[[SC]] : f32
// CHECK-NEXT:      %[[SA:.*]] = arith.addf %[[ACC]], %[[SS]] fastmath<reassoc> : f32
// CHECK:         %[[SQK:.*]] = tensor.expand_shape %[[SQ]]
// CHECK:         %[[INV:.*]] = linalg.generic {{.*}} ins(%[[SQK]] : tensor<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[N2:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[VAR:.*]] = arith.divf %[[V]], %[[N2]] : f32
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:      %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK-NEXT:      %[[RS:.*]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT:      linalg.yield %[[RS]] : f32
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[KEEP]], #[[KEEP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[G]], %[[B]], %[[MEAN]], %[[INV]] : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x1xf32>, tensor<2x1xf32>) outs(%{{.*}} : tensor<2x8xf32>) {
// CHECK-NEXT:    ^bb0(%[[X0:[^:]+]]: f32, %[[G0:[^:]+]]: f32, %[[B0:[^:]+]]: f32, %[[M0:[^:]+]]: f32, %[[I0:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[C0:.*]] = arith.subf %[[X0]], %[[M0]] : f32
// CHECK-NEXT:      %[[H0:.*]] = arith.mulf %[[C0]], %[[I0]] : f32
// CHECK-NEXT:      %[[S0:.*]] = arith.mulf %[[H0]], %[[G0]] : f32
// CHECK-NEXT:      %[[A0:.*]] = arith.addf %[[S0]], %[[B0]] : f32
// CHECK-NEXT:      linalg.yield %[[A0]] : f32
// CHECK-NEXT:    } -> tensor<2x8xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x8xf32>
func.func @layer_norm(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = nn.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// The unbiased variance divides the centred squares by N - 1, and with
// epsilon_on_std the scale is 1 / (sqrt(var) + eps).
// CHECK-LABEL: func.func @layer_norm_unbiased_epsilon_on_std
// CHECK:         linalg.reduce
// CHECK:         linalg.generic
// CHECK:           arith.subf
// CHECK-NEXT:      arith.mulf
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[V:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.constant 7.000000e+00 : f32
// CHECK-NEXT:      %[[VAR:.*]] = arith.divf %[[V]], %[[M]] : f32
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK-NEXT:      %[[STD:.*]] = math.sqrt %[[VAR]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.addf %[[STD]], %[[EPS]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[S:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic
// CHECK:           arith.subf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.addf
func.func @layer_norm_unbiased_epsilon_on_std(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = nn.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<unbiased_variance>, epsilon_on_std} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// RMSNorm: no mean, the squares of x itself, and no beta to add.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[KEEP:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8xf32>, %[[G:.*]]: tensor<8xf32>)
// CHECK-NOT:     linalg.reduce
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<2x8xf32>)
// CHECK-NEXT:    ^bb0(%[[SX:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[SS:.*]] = arith.mulf %[[SX]], %[[SX]] : f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[SS]] fastmath<reassoc> : f32
// CHECK:         %[[INV:.*]] = linalg.generic
// CHECK:           arith.constant 8.000000e+00 : f32
// CHECK:           math.rsqrt
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[KEEP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[G]], %[[INV]] : tensor<2x8xf32>, tensor<8xf32>, tensor<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[X0:[^:]+]]: f32, %[[G0:[^:]+]]: f32, %[[I0:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[H0:.*]] = arith.mulf %[[X0]], %[[I0]] : f32
// CHECK-NEXT:      %[[S0:.*]] = arith.mulf %[[H0]], %[[G0]] : f32
// CHECK-NEXT:      linalg.yield %[[S0]] : f32
func.func @rms_norm(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = nn.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<mean_square>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// With a residual, the sum is what gets normalised.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @layer_norm_residual
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8xf32>, %[[R:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x4x8xf32>
// CHECK-NEXT:    %[[H:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[R]] : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%[[E]] : tensor<2x4x8xf32>) {
// CHECK-NEXT:    ^bb0(%[[P:[^:]+]]: f32, %[[Q:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[P]], %[[Q]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<2x4x8xf32>
// CHECK:         linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[H]] : tensor<2x4x8xf32>) outs(%{{.*}} : tensor<2x4xf32>) dimensions = [2]
// CHECK:         linalg.generic {{.*}} ins(%[[H]], %{{.*}} : tensor<2x4x8xf32>, tensor<2x4x1xf32>)
// CHECK:           arith.subf
// CHECK:           math.rsqrt
// CHECK:         ins(%[[H]], %[[G]], %[[B]], %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
func.func @layer_norm_residual(%x: tensor<2x4x8xf32>, %r: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = nn.layer_norm %x + %r, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Over the last two axes: gamma [4, 8], a count of 32.
// CHECK-DAG:   #[[TAIL:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm_two_axes
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK:         linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[X]] : tensor<2x4x8xf32>) outs(%{{.*}} : tensor<2xf32>) dimensions = [1, 2]
// CHECK:         arith.constant 3.200000e+01 : f32
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[TAIL]], #[[TAIL]], #{{.*}}, #{{.*}}, #{{.*}}], {{.*}} ins(%[[X]], %[[G]], %[[B]], %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
func.func @layer_norm_two_axes(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = nn.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4x8xf32>
func.func @matmul(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = nn.matmul %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A weight gradient's Xᵀ x dY: the matmul reads X as [k, m] where it lies
// (indexing maps). The transpose is left without a use, for the
// canonicalizer that follows in the pipeline to drop.
// CHECK-DAG:   #[[KM:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[KN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[MN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transposed_lhs
// CHECK-SAME:    (%[[X:.*]]: tensor<16x4xf32>, %[[DY:.*]]: tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]]
// CHECK-NOT:     %[[T]]
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul indexing_maps = [#[[KM]], #[[KN]], #[[MN]]] ins(%[[X]], %[[DY]] : tensor<16x4xf32>, tensor<16x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4x8xf32>
func.func @matmul_transposed_lhs(%x: tensor<16x4xf32>, %dy: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %t = nn.transpose %x [1, 0] : tensor<16x4xf32> -> tensor<4x16xf32>
  %0 = nn.matmul %t, %dy : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A transpose with another use is still made for it; the matmul reads the
// stored operand all the same.
// CHECK-LABEL: func.func @matmul_transposed_lhs_used_elsewhere
// CHECK-SAME:    (%[[X:.*]]: tensor<16x4xf32>, %[[DY:.*]]: tensor<16x8xf32>)
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<16x4xf32>)
// CHECK:         %[[R:.*]] = linalg.matmul indexing_maps = [{{.*}}] ins(%[[X]], %[[DY]] : tensor<16x4xf32>, tensor<16x8xf32>)
// CHECK:         return %[[R]], %[[T]]
func.func @matmul_transposed_lhs_used_elsewhere(%x: tensor<16x4xf32>, %dy: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  %t = nn.transpose %x [1, 0] : tensor<16x4xf32> -> tensor<4x16xf32>
  %0 = nn.matmul %t, %dy : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0, %t : tensor<4x8xf32>, tensor<4x16xf32>
}

// -----

// Must not read in place: a batched transposed lhs (the transpose is made,
// then a batch_matmul), and a transposed lhs against a batched rhs.
// CHECK-LABEL: func.func @matmul_transposed_batched
// CHECK:         linalg.transpose
// CHECK:         linalg.batch_matmul
// CHECK:         linalg.transpose
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     indexing_maps
func.func @matmul_transposed_batched(%x: tensor<2x16x4xf32>, %dy: tensor<2x16x8xf32>, %y: tensor<16x4xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %t = nn.transpose %x [0, 2, 1] : tensor<2x16x4xf32> -> tensor<2x4x16xf32>
  %0 = nn.matmul %t, %dy : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
  %u = nn.transpose %y [1, 0] : tensor<16x4xf32> -> tensor<4x16xf32>
  %1 = nn.matmul %u, %dy : (tensor<4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
  return %0, %1 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

// A rank-2 rhs shared by the batch: the lhs rows are folded into one
// [8, 16] x [16, 8] linalg.matmul and the result unfolded.
// CHECK-LABEL: func.func @matmul_shared_rhs
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4x16xf32>, %[[B:.*]]: tensor<16x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[AF:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1, 2]] : tensor<2x4x16xf32> into tensor<128xf32>
// CHECK-NEXT:    %[[A2:.*]] = tensor.expand_shape %[[AF]] {{\[\[}}0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.matmul ins(%[[A2]], %[[B]] : tensor<8x16xf32>, tensor<16x8xf32>) outs(%[[INIT]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[PF:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1]] : tensor<8x8xf32> into tensor<64xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[PF]] {{\[\[}}0, 1, 2]] output_shape [2, 4, 8] : tensor<64xf32> into tensor<2x4x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x4x8xf32>
// CHECK-NOT:     linalg.batch_matmul
func.func @matmul_shared_rhs(%a: tensor<2x4x16xf32>, %b: tensor<16x8xf32>) -> tensor<2x4x8xf32> {
  %0 = nn.matmul %a, %b : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Equal batches: linalg.batch_matmul on the operands as they are.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4x16xf32>, %[[B:.*]]: tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x4x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x4x16xf32>, tensor<2x16x8xf32>) outs(%[[INIT]] : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x4x8xf32>
func.func @batch_matmul(%a: tensor<2x4x16xf32>, %b: tensor<2x16x8xf32>) -> tensor<2x4x8xf32> {
  %0 = nn.matmul %a, %b : (tensor<2x4x16xf32>, tensor<2x16x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Broadcast batches: the rhs [3, 16, 8] is repeated to the joint batch
// [2, 3] by a generic copy, both batches flattened to 6, one
// linalg.batch_matmul, and the result unflattened.
// CHECK-DAG:   #[[BATCH:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x4x16xf32>, %[[B:.*]]: tensor<3x16x8xf32>) -> tensor<2x3x4x8xf32>
// CHECK-NEXT:    %[[AF:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1, 2, 3]] : tensor<2x3x4x16xf32> into tensor<384xf32>
// CHECK-NEXT:    %[[A3:.*]] = tensor.expand_shape %[[AF]] {{\[\[}}0, 1, 2]] output_shape [6, 4, 16] : tensor<384xf32> into tensor<6x4x16xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3x16x8xf32>
// CHECK-NEXT:    %[[BB:.*]] = linalg.generic {indexing_maps = [#[[BATCH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]] : tensor<3x16x8xf32>) outs(%[[E]] : tensor<2x3x16x8xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      linalg.yield %[[X]] : f32
// CHECK-NEXT:    } -> tensor<2x3x16x8xf32>
// CHECK-NEXT:    %[[BF:.*]] = tensor.collapse_shape %[[BB]] {{\[\[}}0, 1, 2, 3]] : tensor<2x3x16x8xf32> into tensor<768xf32>
// CHECK-NEXT:    %[[B3:.*]] = tensor.expand_shape %[[BF]] {{\[\[}}0, 1, 2]] output_shape [6, 16, 8] : tensor<768xf32> into tensor<6x16x8xf32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<6x4x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E2]] : tensor<6x4x8xf32>) -> tensor<6x4x8xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.batch_matmul ins(%[[A3]], %[[B3]] : tensor<6x4x16xf32>, tensor<6x16x8xf32>) outs(%[[INIT]] : tensor<6x4x8xf32>) -> tensor<6x4x8xf32>
// CHECK-NEXT:    %[[PF:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1, 2]] : tensor<6x4x8xf32> into tensor<192xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[PF]] {{\[\[}}0, 1, 2, 3]] output_shape [2, 3, 4, 8] : tensor<192xf32> into tensor<2x3x4x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x3x4x8xf32>
func.func @matmul_broadcast_batch(%a: tensor<2x3x4x16xf32>, %b: tensor<3x16x8xf32>) -> tensor<2x3x4x8xf32> {
  %0 = nn.matmul %a, %b : (tensor<2x3x4x16xf32>, tensor<3x16x8xf32>) -> tensor<2x3x4x8xf32>
  return %0 : tensor<2x3x4x8xf32>
}

// -----

// transpose_rhs (a Linear weight [out, in]) is read as [n, k] by the
// matmul's indexing maps, never copied; the bias and the activation are one
// generic after the product.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[LAST:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG:   #[[MK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[NK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[MN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @fused_matmul
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x16xf32>, %[[W:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK-NOT:     linalg.transpose
// CHECK-NEXT:    %[[XF:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : tensor<2x4x16xf32> into tensor<128xf32>
// CHECK-NEXT:    %[[X2:.*]] = tensor.expand_shape %[[XF]] {{\[\[}}0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.matmul indexing_maps = [#[[MK]], #[[NK]], #[[MN]]] ins(%[[X2]], %[[W]] : tensor<8x16xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT:    %[[PF:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1]] : tensor<8x8xf32> into tensor<64xf32>
// CHECK-NEXT:    %[[P3:.*]] = tensor.expand_shape %[[PF]] {{\[\[}}0, 1, 2]] output_shape [2, 4, 8] : tensor<64xf32> into tensor<2x4x8xf32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<2x4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[P3]], %[[B]] : tensor<2x4x8xf32>, tensor<8xf32>) outs(%[[E2]] : tensor<2x4x8xf32>) {
// CHECK-NEXT:    ^bb0(%[[V:[^:]+]]: f32, %[[BV:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[V]], %[[BV]] : f32
// CHECK:           %[[T:.*]] = math.tanh %{{.*}} : f32
// CHECK:           %[[Y:.*]] = arith.mulf %[[S]], %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<2x4x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x4x8xf32>
func.func @fused_matmul(%x: tensor<2x4x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<gelu_tanh>, transpose_rhs} : (tensor<2x4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// ReLU without a bias: max(x, 0) on the product alone.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @fused_matmul_relu
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[P:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<4x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[P]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>) {
// CHECK-NEXT:    ^bb0(%[[V:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.maximumf %[[V]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4x8xf32>
func.func @fused_matmul_relu(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = nn.fused_matmul %x, %w {activation = #nn.activation<relu>} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The exact GELU after a bias on a rank-2 product.
// CHECK-LABEL: func.func @fused_matmul_gelu
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[P:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<4x16xf32>, tensor<16x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]+]]: f32, %[[BV:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[V]], %[[BV]] : f32
// CHECK:           math.erf
// CHECK-NOT:       math.tanh
// CHECK:           linalg.yield
func.func @fused_matmul_gelu(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<gelu>} : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// No epilogue: the product is the result, no generic after it.
// CHECK-DAG:   #[[MK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[NK:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[MN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @fused_matmul_transpose_only
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<8x16xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.matmul indexing_maps = [#[[MK]], #[[NK]], #[[MN]]] ins(%[[X]], %[[W]] : tensor<4x16xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[P]] : tensor<4x8xf32>
func.func @fused_matmul_transpose_only(%x: tensor<4x16xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %0 = nn.fused_matmul %x, %w {transpose_rhs} : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
