// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg | FileCheck %s

// -convert-nn-to-linalg, shape ops, gathers and constant-shaped ops:
// reshapes collapse to one dimension and expand to the target, transposes
// are linalg.transpose, slices and concatenations tensor slices, embedding a
// gather in a linalg.generic, and sinusoidal_encoding / triangular_mask
// constants. Dropout is the identity.

// CHECK-LABEL: func.func @reshape
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    %[[FLAT:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<6x4xf32>
func.func @reshape(%a: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = nn.reshape %a [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// To rank 1 the collapse is enough.
// CHECK-LABEL: func.func @reshape_flat
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    return %[[R]] : tensor<6xf32>
func.func @reshape_flat(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = nn.reshape %a [6] : tensor<2x3xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Rank 0 in and out: an expand / collapse with no reassociation.
// CHECK-LABEL: func.func @reshape_scalar
// CHECK-SAME:    (%[[S:.*]]: tensor<f32>, %[[O:.*]]: tensor<1x1xf32>) -> (tensor<1x1xf32>, tensor<f32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.expand_shape %[[E1]] {{\[\[}}0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = tensor.collapse_shape %[[O]] {{\[\[}}0, 1]] : tensor<1x1xf32> into tensor<1xf32>
// CHECK-NEXT:    %[[C2:.*]] = tensor.collapse_shape %[[C1]] [] : tensor<1xf32> into tensor<f32>
// CHECK-NEXT:    return %[[E2]], %[[C2]] : tensor<1x1xf32>, tensor<f32>
func.func @reshape_scalar(%s: tensor<f32>, %o: tensor<1x1xf32>) -> (tensor<1x1xf32>, tensor<f32>) {
  %0 = nn.reshape %s [1, 1] : tensor<f32> -> tensor<1x1xf32>
  %1 = nn.reshape %o [] : tensor<1x1xf32> -> tensor<f32>
  return %0, %1 : tensor<1x1xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = linalg.transpose ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK-NEXT:    return %[[T]] : tensor<4x2x3xf32>
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = nn.transpose %a [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME:    (%[[A:.*]]: tensor<4x6xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[S:.*]] = tensor.extract_slice %[[A]][1, 4] [3, 2] [1, 1] : tensor<4x6xf32> to tensor<3x2xf32>
// CHECK-NEXT:    return %[[S]] : tensor<3x2xf32>
func.func @slice(%a: tensor<4x6xf32>) -> tensor<3x2xf32> {
  %0 = nn.slice %a [1, 4] [3, 2] : tensor<4x6xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Each input is inserted at the running offset along the axis.
// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x5xf32>, %[[C:.*]]: tensor<2x1xf32>) -> tensor<2x9xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x9xf32>
// CHECK-NEXT:    %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x9xf32>
// CHECK-NEXT:    %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x9xf32>
// CHECK-NEXT:    %[[I2:.*]] = tensor.insert_slice %[[C]] into %[[I1]][0, 8] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x9xf32>
// CHECK-NEXT:    return %[[I2]] : tensor<2x9xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %c: tensor<2x1xf32>) -> tensor<2x9xf32> {
  %0 = nn.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// Along the first axis.
// CHECK-LABEL: func.func @concat_rows
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<3x4xf32>) -> tensor<5x4xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<5x4xf32>
// CHECK-NEXT:    %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<5x4xf32>
// CHECK-NEXT:    %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][2, 0] [3, 4] [1, 1] : tensor<3x4xf32> into tensor<5x4xf32>
// CHECK-NEXT:    return %[[I1]] : tensor<5x4xf32>
func.func @concat_rows(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = nn.concat %a, %b {axis = 0 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// out[i, j, d] = table[ids[i, j], d]: the ids are the generic's input, the
// column is linalg.index of the last dimension.
// CHECK-DAG:   #[[IDS:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embedding
// CHECK-SAME:    (%[[T:.*]]: tensor<100x16xf32>, %[[I:.*]]: tensor<2x7xi64>) -> tensor<2x7x16xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x7x16xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[IDS]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<2x7xi64>) outs(%[[E]] : tensor<2x7x16xf32>) {
// CHECK-NEXT:    ^bb0(%[[ROW:[^:]+]]: i64, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[R0:.*]] = arith.index_cast %[[ROW]] : i64 to index
// CHECK-NEXT:      %[[C0:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %[[T]][%[[R0]], %[[C0]]] : tensor<100x16xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK-NEXT:    } -> tensor<2x7x16xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x7x16xf32>
func.func @embedding(%t: tensor<100x16xf32>, %ids: tensor<2x7xi64>) -> tensor<2x7x16xf32> {
  %0 = nn.embedding %t[%ids] : (tensor<100x16xf32>, tensor<2x7xi64>) -> tensor<2x7x16xf32>
  return %0 : tensor<2x7x16xf32>
}

// -----

// The table PyTorch's PositionalEncoding computes in float32:
// pe[p, 2i] = sin(p / 10000^(2i/d)), pe[p, 2i+1] = cos(p / 10000^(2i/d)).
// Row 1: sin(1), cos(1), sin(0.01), cos(0.01); row 2: sin(2), cos(2), ...
// CHECK-LABEL: func.func @sinusoidal
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00], [0.841470957, 0.540302277, 0.00999983306, 0.999949991], [0.909297406, -0.416146845, 0.0199986659, 9.998000e-01]]> : tensor<3x4xf32>
// CHECK-NEXT:    return %[[C]] : tensor<3x4xf32>
func.func @sinusoidal() -> tensor<3x4xf32> {
  %0 = nn.sinusoidal_encoding : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// true where col - row >= diagonal: the strict upper triangle for 1, the
// upper triangle with the diagonal for 0, one more band for -1; non-square
// masks too.
// CHECK-LABEL: func.func @triangular_mask
// CHECK-NEXT:    %[[U:.*]] = arith.constant dense<{{\[\[}}false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>
// CHECK-NEXT:    %[[D:.*]] = arith.constant dense<{{\[\[}}true, true, true, true], [false, true, true, true], [false, false, true, true]]> : tensor<3x4xi1>
// CHECK-NEXT:    %[[B:.*]] = arith.constant dense<{{\[\[}}true, true, true], [true, true, true], [false, true, true]]> : tensor<3x3xi1>
// CHECK-NEXT:    return %[[U]], %[[D]], %[[B]] : tensor<3x3xi1>, tensor<3x4xi1>, tensor<3x3xi1>
func.func @triangular_mask() -> (tensor<3x3xi1>, tensor<3x4xi1>, tensor<3x3xi1>) {
  %0 = nn.triangular_mask {diagonal = 1 : i64} : tensor<3x3xi1>
  %1 = nn.triangular_mask {diagonal = 0 : i64} : tensor<3x4xi1>
  %2 = nn.triangular_mask {diagonal = -1 : i64} : tensor<3x3xi1>
  return %0, %1, %2 : tensor<3x3xi1>, tensor<3x4xi1>, tensor<3x3xi1>
}

// -----

// Inference: dropout is the identity, whatever its rate.
// CHECK-LABEL: func.func @dropout
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    return %[[A]] : tensor<2x4xf32>
func.func @dropout(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = nn.dropout %a {rate = 0.1 : f64} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A cache update is a loop over the sequences, each inserting its rows at
// its own start: after bufferization, a copy of the new rows into the
// cache, not of the cache.
// CHECK-LABEL: func.func @cache_update
// CHECK-SAME:    (%[[CACHE:.*]]: tensor<2x4x8x16xf32>, %[[ROWS:.*]]: tensor<2x4x1x16xf32>, %[[START:.*]]: tensor<2xi64>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[R:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[CACHE]]) -> (tensor<2x4x8x16xf32>)
// CHECK-NEXT:      %[[S:.*]] = tensor.extract %[[START]][%[[I]]] : tensor<2xi64>
// CHECK-NEXT:      %[[ROW:.*]] = arith.index_cast %[[S]] : i64 to index
// CHECK-NEXT:      %[[SEQ:.*]] = tensor.extract_slice %[[ROWS]][%[[I]], 0, 0, 0] [1, 4, 1, 16] [1, 1, 1, 1]
// CHECK-NEXT:      %[[NEW:.*]] = tensor.insert_slice %[[SEQ]] into %[[ACC]][%[[I]], 0, %[[ROW]], 0] [1, 4, 1, 16] [1, 1, 1, 1]
// CHECK-NEXT:      scf.yield %[[NEW]]
// CHECK:         return %[[R]]
func.func @cache_update(%c: tensor<2x4x8x16xf32>, %r: tensor<2x4x1x16xf32>, %p: tensor<2xi64>) -> tensor<2x4x8x16xf32> {
  %0 = nn.cache_update %c, %r at %p : tensor<2x4x8x16xf32>, tensor<2x4x1x16xf32>, tensor<2xi64>
  return %0 : tensor<2x4x8x16xf32>
}
