// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg=expand-attention=1 | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg | FileCheck %s --check-prefix=KEEP

// -convert-nn-to-linalg on nn.attention. By default f32 attention stays
// whole for bufferization into the runtime's fused kernel (KEEP); with
// expand-attention it becomes matmuls, a masking loop and a softmax.

// Causal attention: scores = q kᵀ as a batch_matmul over b·h, the scale and
// the hidden future (a constant, j > i) in one generic, a softmax over the
// keys, then probabilities x v.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG:   #[[SQSK:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @attention_causal
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x2x3x4xf32>, %[[K:.*]]: tensor<1x2x3x4xf32>, %[[V:.*]]: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<1x2x4x3xf32>
// CHECK-NEXT:    %[[KT:.*]] = linalg.transpose ins(%[[K]] : tensor<1x2x3x4xf32>) outs(%[[E0]] : tensor<1x2x4x3xf32>) permutation = [0, 1, 3, 2]
// CHECK:         %[[Q3:.*]] = tensor.expand_shape %{{.*}} output_shape [2, 3, 4] : tensor<24xf32> into tensor<2x3x4xf32>
// CHECK:         %[[KT3:.*]] = tensor.expand_shape %{{.*}} output_shape [2, 4, 3] : tensor<24xf32> into tensor<2x4x3xf32>
// CHECK:         %[[S:.*]] = linalg.batch_matmul ins(%[[Q3]], %[[KT3]] : tensor<2x3x4xf32>, tensor<2x4x3xf32>) outs(%{{.*}} : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
// CHECK:         %[[S4:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 2, 3, 3] : tensor<18xf32> into tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[FUTURE:.*]] = arith.constant dense<{{\[\[}}false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[M:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[SQSK]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S4]], %[[FUTURE]] : tensor<1x2x3x3xf32>, tensor<3x3xi1>) outs(%[[E1]] : tensor<1x2x3x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[H:[^:]+]]: i1, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[SCALE:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[XS:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.select %[[H]], %[[NEGINF]], %[[XS]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<1x2x3x3xf32>
// CHECK:         linalg.reduce { arith.maximumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[M]] : tensor<1x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x3xf32>) dimensions = [3]
// CHECK:         math.exp
// CHECK:         linalg.reduce { arith.addf {fastmath = #arith.fastmath<reassoc>} } ins(%{{.*}} : tensor<1x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x3xf32>) dimensions = [3]
// CHECK:         arith.divf
// CHECK:         %[[P3:.*]] = tensor.expand_shape %{{.*}} output_shape [2, 3, 3] : tensor<18xf32> into tensor<2x3x3xf32>
// CHECK-NEXT:    %[[VF:.*]] = tensor.collapse_shape %[[V]] {{\[\[}}0, 1, 2, 3]] : tensor<1x2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT:    %[[V3:.*]] = tensor.expand_shape %[[VF]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 4] : tensor<24xf32> into tensor<2x3x4xf32>
// CHECK:         %[[O:.*]] = linalg.batch_matmul ins(%[[P3]], %[[V3]] : tensor<2x3x3xf32>, tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[OF:.*]] = tensor.collapse_shape %[[O]] {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[OF]] {{\[\[}}0, 1, 2, 3]] output_shape [1, 2, 3, 4] : tensor<24xf32> into tensor<1x2x3x4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<1x2x3x4xf32>
// KEEP-LABEL: func.func @attention_causal
// KEEP-NEXT:     %[[R:.*]] = nn.attention
// KEEP-NEXT:     return %[[R]]
func.func @attention_causal(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = nn.attention %q, %k, %v {causal, scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// An i1 padding mask [b, 1, 1, sk] hides keys with mask_fill; the scores are
// [b·h, sq, sk] = [4, 3, 5].
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG:   #[[PAD:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
// CHECK-LABEL: func.func @attention_bool_mask
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x2x3x4xf32>, %[[K:.*]]: tensor<2x2x5x4xf32>, %[[V:.*]]: tensor<2x2x5x4xf32>, %[[MASK:.*]]: tensor<2x1x1x5xi1>)
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<4x3x4xf32>, tensor<4x4x5xf32>) outs(%{{.*}} : tensor<4x3x5xf32>)
// CHECK:         %[[S4:.*]] = tensor.expand_shape %{{.*}} output_shape [2, 2, 3, 5] : tensor<60xf32> into tensor<2x2x3x5xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<2x2x3x5xf32>
// CHECK-NEXT:    %[[M:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[PAD]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S4]], %[[MASK]] : tensor<2x2x3x5xf32>, tensor<2x1x1x5xi1>) outs(%[[E1]] : tensor<2x2x3x5xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[H:[^:]+]]: i1, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[SCALE:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[XS:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[FILL:.*]] = arith.constant -1.000000e+09 : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.select %[[H]], %[[FILL]], %[[XS]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<2x2x3x5xf32>
// CHECK:         linalg.reduce { arith.maximumf {fastmath = #arith.fastmath<reassoc>} } ins(%[[M]] : tensor<2x2x3x5xf32>)
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<4x3x5xf32>, tensor<4x5x4xf32>) outs(%{{.*}} : tensor<4x3x4xf32>)
// KEEP-LABEL: func.func @attention_bool_mask
// KEEP-NEXT:     %[[R:.*]] = nn.attention
// KEEP-NEXT:     return %[[R]]
func.func @attention_bool_mask(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %m: tensor<2x1x1x5xi1>) -> tensor<2x2x3x4xf32> {
  %0 = nn.attention %q, %k, %v mask %m {mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// -----

// Causal and an i1 mask: a key is hidden when either says so.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG:   #[[SQSK:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @attention_causal_bool_mask
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x2x3x4xf32>, %[[MASK:.*]]: tensor<3x3xi1>)
// CHECK:         %[[FUTURE:.*]] = arith.constant dense<{{\[\[}}false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<1x2x3x3xf32>
// CHECK-NEXT:    %{{.*}} = linalg.generic {indexing_maps = [#[[ID]], #[[SQSK]], #[[SQSK]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}}, %[[FUTURE]], %[[MASK]] : tensor<1x2x3x3xf32>, tensor<3x3xi1>, tensor<3x3xi1>) outs(%[[E1]] : tensor<1x2x3x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[C:[^:]+]]: i1, %[[B:[^:]+]]: i1, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[SCALE:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[XS:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[H:.*]] = arith.ori %[[C]], %[[B]] : i1
// CHECK-NEXT:      %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.select %[[H]], %[[NEGINF]], %[[XS]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<1x2x3x3xf32>
// KEEP-LABEL: func.func @attention_causal_bool_mask
// KEEP-NEXT:     %[[R:.*]] = nn.attention
// KEEP-NEXT:     return %[[R]]
func.func @attention_causal_bool_mask(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xi1>) -> tensor<1x2x3x4xf32> {
  %0 = nn.attention %q, %q, %q mask %m {causal, scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xi1>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// A float mask is added to the scaled scores; nothing is selected.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG:   #[[SQSK:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @attention_float_mask
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x2x3x4xf32>, %[[MASK:.*]]: tensor<3x3xf32>)
// CHECK:         %[[S4:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 2, 3, 3] : tensor<18xf32> into tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<1x2x3x3xf32>
// CHECK-NEXT:    %{{.*}} = linalg.generic {indexing_maps = [#[[ID]], #[[SQSK]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S4]], %[[MASK]] : tensor<1x2x3x3xf32>, tensor<3x3xf32>) outs(%[[E1]] : tensor<1x2x3x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[A:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[SCALE:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[XS:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.addf %[[XS]], %[[A]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<1x2x3x3xf32>
// CHECK-NOT:     arith.select
// KEEP-LABEL: func.func @attention_float_mask
// KEEP-NEXT:     %[[R:.*]] = nn.attention
// KEEP-NEXT:     return %[[R]]
func.func @attention_float_mask(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xf32>) -> tensor<1x2x3x4xf32> {
  %0 = nn.attention %q, %q, %q mask %m {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xf32>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// Attention in f64 has no runtime kernel: it is expanded either way.
// CHECK-LABEL: func.func @attention_f64
// CHECK:         linalg.batch_matmul
// KEEP-LABEL:  func.func @attention_f64
// KEEP-NOT:      nn.attention
// KEEP:          linalg.batch_matmul
// KEEP-NOT:      nn.attention
// KEEP:          return
func.func @attention_f64(%q: tensor<1x2x3x4xf64>) -> tensor<1x2x3x4xf64> {
  %0 = nn.attention %q, %q, %q {scale = 0.5 : f64} : (tensor<1x2x3x4xf64>, tensor<1x2x3x4xf64>, tensor<1x2x3x4xf64>) -> tensor<1x2x3x4xf64>
  return %0 : tensor<1x2x3x4xf64>
}
