// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg | FileCheck %s --check-prefix=ONCE
// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg -canonicalize -cse -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -canonicalize | FileCheck %s --check-prefix=BUF

// -convert-nn-to-linalg, backward ops: each is a few passes over its largest
// operand, one per reduction a later element needs, then one elementwise
// pass.

// layer_norm_grad over [3, 8]: the mean (a sum and a per-row divide), the
// sum of squared deviations, a per-row rstd; then one pass summing g and
// g·x̂ per row, one elementwise pass for dx and one pass summing dy·x̂ and
// dy over the rows for dgamma and dbeta. Five passes over [3, 8] in all.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[ROWS:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[COL:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-SAME:    (%[[DY:.*]]: tensor<3x8xf32>, %[[X:.*]]: tensor<3x8xf32>, %[[G:.*]]: tensor<8xf32>)
// CHECK:         %[[SUMX:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[X]] : tensor<3x8xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [1]
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<3x1xf32>)
// CHECK:           arith.divf
// CHECK:         %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<3x8xf32>, tensor<3x1xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[XE:[^:]+]]: f32, %[[ME:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.subf %[[XE]], %[[ME]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.mulf %[[C]], %[[C]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[C2]] fastmath<reassoc> : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[SQK:.*]] = tensor.expand_shape %[[SQ]] {{\[\[}}0, 1]] output_shape [3, 1]
// CHECK:         %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[SQK]] : tensor<3x1xf32>) outs(%{{.*}} : tensor<3x1xf32>)
// CHECK:           %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[VAR:.*]] = arith.divf %{{.*}}, %[[N]] : f32
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:      %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK-NEXT:      math.rsqrt %[[VE]] : f32
// CHECK:         %[[RS:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]], #[[ROW]], #[[ROW]], #[[ROWS]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]} ins(%[[DY]], %[[G]], %[[X]], %[[MEAN]], %[[RSTD]] : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[DYE:[^:]+]]: f32, %[[GE:[^:]+]]: f32, %[[XE:[^:]+]]: f32, %[[ME:[^:]+]]: f32, %[[RE:[^:]+]]: f32, %[[A0:[^:]+]]: f32, %[[A1:[^:]+]]: f32):
// CHECK-NEXT:      %[[GD:.*]] = arith.mulf %[[DYE]], %[[GE]] : f32
// CHECK-NEXT:      %[[CE:.*]] = arith.subf %[[XE]], %[[ME]] : f32
// CHECK-NEXT:      %[[XHAT:.*]] = arith.mulf %[[CE]], %[[RE]] : f32
// CHECK-NEXT:      %[[GX:.*]] = arith.mulf %[[GD]], %[[XHAT]] : f32
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %[[A0]], %[[GD]] fastmath<reassoc> : f32
// CHECK-NEXT:      %[[S1:.*]] = arith.addf %[[A1]], %[[GX]] fastmath<reassoc> : f32
// CHECK-NEXT:      linalg.yield %[[S0]], %[[S1]] : f32, f32
// CHECK:         %[[SG:.*]] = tensor.expand_shape %[[RS]]#0
// CHECK:         %[[SGX:.*]] = tensor.expand_shape %[[RS]]#1
// CHECK:         %[[DX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]], #[[ROW]], #[[ROW]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[DY]], %[[G]], %[[X]], %[[SGX]], %[[SG]], %[[MEAN]], %[[RSTD]] : {{.*}}) outs(%{{.*}} : tensor<3x8xf32>)
// CHECK-NEXT:    ^bb0(%[[DYE:[^:]+]]: f32, %[[GE:[^:]+]]: f32, %[[XE:[^:]+]]: f32, %[[SGXE:[^:]+]]: f32, %[[SGE:[^:]+]]: f32, %[[ME:[^:]+]]: f32, %[[RE:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[GD:.*]] = arith.mulf %[[DYE]], %[[GE]] : f32
// CHECK-NEXT:      %[[CE:.*]] = arith.subf %[[XE]], %[[ME]] : f32
// CHECK-NEXT:      %[[XHAT:.*]] = arith.mulf %[[CE]], %[[RE]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[MG:.*]] = arith.divf %[[SGE]], %[[N]] : f32
// CHECK-NEXT:      %[[D0:.*]] = arith.subf %[[GD]], %[[MG]] : f32
// CHECK-NEXT:      %[[MGX:.*]] = arith.divf %[[SGXE]], %[[D]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.mulf %[[XHAT]], %[[MGX]] : f32
// CHECK-NEXT:      %[[D1:.*]] = arith.subf %[[D0]], %[[T]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[RE]], %[[D1]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK:         %[[PG:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ROW]], #[[ROW]], #[[COL]], #[[COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[DYE:[^:]+]]: f32, %[[XE:[^:]+]]: f32, %[[ME:[^:]+]]: f32, %[[RE:[^:]+]]: f32, %[[A0:[^:]+]]: f32, %[[A1:[^:]+]]: f32):
// CHECK-NEXT:      %[[CE:.*]] = arith.subf %[[XE]], %[[ME]] : f32
// CHECK-NEXT:      %[[XHAT:.*]] = arith.mulf %[[CE]], %[[RE]] : f32
// CHECK-NEXT:      %[[DG:.*]] = arith.mulf %[[DYE]], %[[XHAT]] : f32
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %[[A0]], %[[DG]] fastmath<reassoc> : f32
// CHECK-NEXT:      %[[S1:.*]] = arith.addf %[[A1]], %[[DYE]] fastmath<reassoc> : f32
// CHECK-NEXT:      linalg.yield %[[S0]], %[[S1]] : f32, f32
// CHECK:         return %[[DX]], %[[PG]]#0, %[[PG]]#1 : tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>
func.func @layer_norm_grad(%dy: tensor<3x8xf32>, %x: tensor<3x8xf32>, %g: tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// The unbiased variance with epsilon on the std: s = 1 / (sqrt(Σ/7) + ε)
// and the x̂ term divided by D = 7 · sqrt(Σ/7) · s, read from the row's
// Σ(x - mean)² passed to the dx pass.
// CHECK-LABEL: func.func @layer_norm_grad_unbiased_epsilon_on_std
// CHECK:           arith.subf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK:         %[[SQ:.*]] = tensor.expand_shape
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<3x1xf32>)
// CHECK:           math.sqrt
// CHECK:         %[[RS:.*]]:2 = linalg.generic
// CHECK:         %[[SG:.*]] = tensor.expand_shape %[[RS]]#0
// CHECK:         %[[SGX:.*]] = tensor.expand_shape %[[RS]]#1
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[SGX]], %[[SG]], %[[SQ]], %{{.*}}, %[[S]] : {{.*}})
// CHECK-NEXT:    ^bb0(%{{[^:]+}}: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32, %[[SGXE:[^:]+]]: f32, %{{[^:]+}}: f32, %[[SQE:[^:]+]]: f32, %{{[^:]+}}: f32, %[[SE:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK:           %[[M:.*]] = arith.constant 7.000000e+00 : f32
// CHECK-NEXT:      %[[VAR:.*]] = arith.divf %[[SQE]], %[[M]] : f32
// CHECK-NEXT:      %[[STD:.*]] = math.sqrt %[[VAR]] : f32
// CHECK-NEXT:      %[[MS:.*]] = arith.mulf %[[M]], %[[STD]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.mulf %[[MS]], %[[SE]] : f32
// CHECK:           arith.divf %[[SGXE]], %[[D]] : f32
func.func @layer_norm_grad_unbiased_epsilon_on_std(%dy: tensor<3x8xf32>, %x: tensor<3x8xf32>, %g: tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<unbiased_variance>, epsilon_on_std} : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// RMSNorm: no mean and no Σ g, so one row sum (Σ g · x̂) and dx =
// s · (g - x̂ · Σ(g · x̂) / 8).
// CHECK-LABEL: func.func @layer_norm_grad_mean_square
// CHECK-SAME:    (%[[DY:.*]]: tensor<3x8xf32>, %[[X:.*]]: tensor<3x8xf32>, %[[G:.*]]: tensor<8xf32>)
// CHECK-NOT:     linalg.reduce
// CHECK:           arith.mulf %[[XS:.*]], %[[XS]] : f32
// CHECK:         %[[S:.*]] = linalg.generic
// CHECK:           math.rsqrt
// CHECK:         %[[RS:.*]] = linalg.generic {{.*}} ins(%[[DY]], %[[G]], %[[X]], %[[S]] : {{.*}}) outs(%{{.*}} : tensor<3xf32>)
// CHECK:         %[[SGX:.*]] = tensor.expand_shape %[[RS]]
// CHECK:         linalg.generic {{.*}} ins(%[[DY]], %[[G]], %[[X]], %[[SGX]], %[[S]] : {{.*}})
// CHECK-NEXT:    ^bb0(%[[DYE:[^:]+]]: f32, %[[GE:[^:]+]]: f32, %[[XE:[^:]+]]: f32, %[[SGXE:[^:]+]]: f32, %[[SE:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[GD:.*]] = arith.mulf %[[DYE]], %[[GE]] : f32
// CHECK-NEXT:      %[[XHAT:.*]] = arith.mulf %[[XE]], %[[SE]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[MGX:.*]] = arith.divf %[[SGXE]], %[[N]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.mulf %[[XHAT]], %[[MGX]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[GD]], %[[T]] : f32
// CHECK-NEXT:      arith.mulf %[[SE]], %[[D]] : f32
func.func @layer_norm_grad_mean_square(%dy: tensor<3x8xf32>, %x: tensor<3x8xf32>, %g: tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<mean_square>} : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Over the last two of [2, 3, 4] the rows are dimension 0: the per-row sums
// reduce dimensions 1 and 2, the parameter gradients dimension 0.
// CHECK-LABEL: func.func @layer_norm_grad_two_axes
// CHECK:         linalg.reduce {{.*}} outs(%{{.*}} : tensor<2xf32>) dimensions = [1, 2]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]{{.*}} outs(%{{.*}} : tensor<2xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]{{.*}} outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]{{.*}} outs(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<3x4xf32>)
func.func @layer_norm_grad_two_axes(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x4xf32>, %g: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// embedding_grad: a zero table, then one scf.for over the 10 flattened
// index positions that adds each gradient row into the row its id names,
// the table carried through the loop (no loop over the 7 table rows).
// CHECK-DAG:   #[[ID1:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @embedding_grad
// CHECK-SAME:    (%[[DY:.*]]: tensor<2x5x6xf32>, %[[IDS:.*]]: tensor<2x5xi64>) -> tensor<7x6xf32>
// CHECK:         %[[FLATIDS:.*]] = tensor.collapse_shape %[[IDS]] {{\[\[}}0, 1]] : tensor<2x5xi64> into tensor<10xi64>
// CHECK:         %[[ROWS:.*]] = tensor.expand_shape %{{.*}} output_shape [10, 6] : tensor<60xf32> into tensor<10x6xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<7x6xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ZEROS:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<7x6xf32>) -> tensor<7x6xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[R:.*]] = scf.for %[[T:.*]] = %[[C0]] to %[[C10]] step %[[C1]] iter_args(%[[TABLE:.*]] = %[[ZEROS]]) -> (tensor<7x6xf32>) {
// CHECK-NEXT:      %[[ID:.*]] = tensor.extract %[[FLATIDS]][%[[T]]] : tensor<10xi64>
// CHECK-NEXT:      %[[ROW:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK-NEXT:      %[[GRAD:.*]] = tensor.extract_slice %[[ROWS]][%[[T]], 0] [1, 6] [1, 1] : tensor<10x6xf32> to tensor<6xf32>
// CHECK-NEXT:      %[[OLD:.*]] = tensor.extract_slice %[[TABLE]][%[[ROW]], 0] [1, 6] [1, 1] : tensor<7x6xf32> to tensor<6xf32>
// CHECK-NEXT:      %[[NEW:.*]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[GRAD]] : tensor<6xf32>) outs(%[[OLD]] : tensor<6xf32>) {
// CHECK-NEXT:      ^bb0(%[[IN:[^:]+]]: f32, %[[OUT:[^:]+]]: f32):
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[OUT]], %[[IN]] : f32
// CHECK-NEXT:        linalg.yield %[[SUM]] : f32
// CHECK-NEXT:      } -> tensor<6xf32>
// CHECK-NEXT:      %[[INS:.*]] = tensor.insert_slice %[[NEW]] into %[[TABLE]][%[[ROW]], 0] [1, 6] [1, 1] : tensor<6xf32> into tensor<7x6xf32>
// CHECK-NEXT:      scf.yield %[[INS]] : tensor<7x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]] : tensor<7x6xf32>
// Bufferized, the loop updates the one table buffer in place: each step
// adds into a subview of it, allocating and copying nothing.
// BUF-LABEL:   func.func @embedding_grad
// BUF:           %[[TABLE:.*]] = memref.alloc() {{.*}} : memref<7x6xf32>
// BUF-NEXT:      linalg.fill ins(%{{.*}} : f32) outs(%[[TABLE]] : memref<7x6xf32>)
// BUF-NEXT:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// BUF-NOT:         memref.alloc
// BUF:             %[[ROW:.*]] = memref.subview %[[TABLE]][%{{.*}}, 0] [1, 6] [1, 1]
// BUF-NOT:         memref.alloc
// BUF:             linalg.generic {{.*}} outs(%[[ROW]] :
// BUF-NOT:         memref.alloc
// BUF-NOT:         memref<7x6xf32> to memref<7x6xf32>
// BUF:           return %[[TABLE]] : memref<7x6xf32>
func.func @embedding_grad(%dy: tensor<2x5x6xf32>, %ids: tensor<2x5xi64>) -> tensor<7x6xf32> {
  %0 = nn.embedding_grad %dy, %ids {num_rows = 7 : i64} : (tensor<2x5x6xf32>, tensor<2x5xi64>) -> tensor<7x6xf32>
  return %0 : tensor<7x6xf32>
}

// -----

// A single id: its [d] gradient is one row, the loop runs once.
// CHECK-LABEL: func.func @embedding_grad_one_id
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK:         scf.for
// CHECK:           tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi32>
// CHECK:           arith.index_cast %{{.*}} : i32 to index
func.func @embedding_grad_one_id(%dy: tensor<4xf32>, %id: tensor<i32>) -> tensor<3x4xf32> {
  %0 = nn.embedding_grad %dy, %id {num_rows = 3 : i64} : (tensor<4xf32>, tensor<i32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// cross_entropy_grad with label smoothing 0.1 over C = 10: the softmax once
// (a max, one pass of exp(x - max), its sum), the count of labels that are
// not ignore_index, then one elementwise pass:
// select(counted, (e / Σe - (label ? 0.91 : 0.01)) / n, 0).
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[ALL:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG:   #[[LAB:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:   #[[CNT:map[0-9]*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @cross_entropy_grad
// CHECK-SAME:    (%[[L:.*]]: tensor<3x10xf32>, %[[Y:.*]]: tensor<3xi64>) -> tensor<3x10xf32>
// CHECK:         %[[MAX:.*]] = linalg.reduce { arith.maximumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[L]] : tensor<3x10xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [1]
// CHECK:         %[[MAXK:.*]] = tensor.expand_shape %[[MAX]]
// CHECK:         %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[L]], %[[MAXK]] : tensor<3x10xf32>, tensor<3x1xf32>)
// CHECK-NEXT:    ^bb0(%[[LE:[^:]+]]: f32, %[[ME:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[SH:.*]] = arith.subf %[[LE]], %[[ME]] : f32
// CHECK-NEXT:      %[[EE:.*]] = math.exp %[[SH]] : f32
// CHECK-NEXT:      linalg.yield %[[EE]] : f32
// CHECK:         %[[SUM:.*]] = linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%[[EXP]] : tensor<3x10xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [1]
// CHECK:         %[[SUMK:.*]] = tensor.expand_shape %[[SUM]]
// CHECK:         %[[YK:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
// CHECK:         %[[COUNT:.*]] = linalg.generic {indexing_maps = [#[[LAB]], #[[CNT]]], iterator_types = ["reduction"]} ins(%[[Y]] : tensor<3xi64>) outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[YE:[^:]+]]: i64, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[IGN:.*]] = arith.constant -100 : i64
// CHECK-NEXT:      %[[VALID:.*]] = arith.cmpi ne, %[[YE]], %[[IGN]] : i64
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[W:.*]] = arith.select %[[VALID]], %[[ONE]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.addf %[[ACC]], %[[W]] fastmath<reassoc> : f32
// CHECK-NEXT:      linalg.yield %[[N]] : f32
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ALL]], #[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[YK]], %[[COUNT]], %[[EXP]], %[[SUMK]] : tensor<3x1xi64>, tensor<f32>, tensor<3x10xf32>, tensor<3x1xf32>)
// CHECK-NEXT:    ^bb0(%[[YE:[^:]+]]: i64, %[[NE:[^:]+]]: f32, %[[EE:[^:]+]]: f32, %[[SE:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[IGN:.*]] = arith.constant -100 : i64
// CHECK-NEXT:      %[[VALID:.*]] = arith.cmpi ne, %[[YE]], %[[IGN]] : i64
// CHECK-NEXT:      %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[CLS:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[HIT:.*]] = arith.cmpi eq, %[[CLS]], %[[YE]] : i64
// CHECK-NEXT:      %[[P:.*]] = arith.divf %[[EE]], %[[SE]] : f32
// CHECK-NEXT:      %[[OFF:.*]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT:      %[[ON:.*]] = arith.constant 9.100000e-01 : f32
// CHECK-NEXT:      %[[TGT:.*]] = arith.select %[[HIT]], %[[ON]], %[[OFF]] : f32
// CHECK-NEXT:      %[[DIFF:.*]] = arith.subf %[[P]], %[[TGT]] : f32
// CHECK-NEXT:      %[[G:.*]] = arith.divf %[[DIFF]], %[[NE]] : f32
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[OUT:.*]] = arith.select %[[VALID]], %[[G]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[OUT]] : f32
// CHECK:         return %[[R]] : tensor<3x10xf32>
// The logits are normalised once: one exp, then the probabilities' division
// by the exp-sum and the division by n.
// ONCE-LABEL:  func.func @cross_entropy_grad(
// ONCE:          math.exp
// ONCE-NOT:      math.exp
// ONCE:          arith.divf
// ONCE-NOT:      math.exp
// ONCE-NOT:      arith.divf
// ONCE:          arith.divf
// ONCE-NOT:      math.exp
// ONCE-NOT:      arith.divf
func.func @cross_entropy_grad(%l: tensor<3x10xf32>, %y: tensor<3xi64>) -> tensor<3x10xf32> {
  %0 = nn.cross_entropy_grad %l, %y {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<3x10xf32>
  return %0 : tensor<3x10xf32>
}

// -----

// Without smoothing the target is exactly the one-hot label.
// CHECK-LABEL: func.func @cross_entropy_grad_hard
// CHECK:         math.exp
// CHECK:         %[[P:.*]] = arith.divf
// CHECK-NEXT:    %[[OFF:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ON:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[TGT:.*]] = arith.select %{{.*}}, %[[ON]], %[[OFF]] : f32
// CHECK-NEXT:    arith.subf %[[P]], %[[TGT]] : f32
// ONCE-LABEL:  func.func @cross_entropy_grad_hard
// ONCE:          math.exp
// ONCE-NOT:      math.exp
func.func @cross_entropy_grad_hard(%l: tensor<2x4x10xf32>, %y: tensor<2x4xi32>) -> tensor<2x4x10xf32> {
  %0 = nn.cross_entropy_grad %l, %y {ignore_index = 0 : i64, label_smoothing = 0.0 : f64} : (tensor<2x4x10xf32>, tensor<2x4xi32>) -> tensor<2x4x10xf32>
  return %0 : tensor<2x4x10xf32>
}

// -----

// nll_loss_grad: the count, then -1/n at each counted row's label.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[ALL:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @nll_loss_grad
// CHECK-SAME:    (%[[LP:.*]]: tensor<3x10xf32>, %[[Y:.*]]: tensor<3xi64>) -> tensor<3x10xf32>
// CHECK:         %[[YK:.*]] = tensor.expand_shape %[[Y]]
// CHECK:         %[[COUNT:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[Y]] : tensor<3xi64>) outs(%{{.*}} : tensor<f32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<3x10xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ALL]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[YK]], %[[COUNT]] : tensor<3x1xi64>, tensor<f32>) outs(%[[E]] : tensor<3x10xf32>) {
// CHECK-NEXT:    ^bb0(%[[YE:[^:]+]]: i64, %[[NE:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[IGN:.*]] = arith.constant -100 : i64
// CHECK-NEXT:      %[[VALID:.*]] = arith.cmpi ne, %[[YE]], %[[IGN]] : i64
// CHECK-NEXT:      %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[CLS:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[HIT:.*]] = arith.cmpi eq, %[[CLS]], %[[YE]] : i64
// CHECK-NEXT:      %[[M1:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      %[[W:.*]] = arith.divf %[[M1]], %[[NE]] : f32
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[PICK:.*]] = arith.select %[[HIT]], %[[W]], %[[Z]] : f32
// CHECK-NEXT:      %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[OUT:.*]] = arith.select %[[VALID]], %[[PICK]], %[[Z2]] : f32
// CHECK-NEXT:      linalg.yield %[[OUT]] : f32
// CHECK-NEXT:    } -> tensor<3x10xf32>
// CHECK-NEXT:    return %[[R]] : tensor<3x10xf32>
func.func @nll_loss_grad(%l: tensor<3x10xf32>, %y: tensor<3xi64>) -> tensor<3x10xf32> {
  %0 = nn.nll_loss_grad %l, %y {ignore_index = -100 : i64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<3x10xf32>
  return %0 : tensor<3x10xf32>
}
