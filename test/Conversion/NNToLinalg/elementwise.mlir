// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg | FileCheck %s

// -convert-nn-to-linalg, elementwise ops: one linalg.generic each, writing
// a tensor.empty, with every operand read through a NumPy broadcast map
// (leading dimensions dropped, size-1 dimensions read at index 0).

// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_row
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x3xf32>
func.func @add_row(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = nn.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The operands swapped: the map follows the operand, not its position.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_row_lhs
// CHECK-SAME:    (%[[B:.*]]: tensor<3xf32>, %[[A:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[ROW]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[B]], %[[A]] : tensor<3xf32>, tensor<2x3xf32>)
// CHECK:           arith.addf
func.func @add_row_lhs(%b: tensor<3xf32>, %a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.add %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A rank-0 operand is read through a map with no results.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @scalar
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[S]] : tensor<2x3xf32>, tensor<f32>) outs(%[[E0]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X0:[^:]+]]: f32, %[[Y0:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %[[X0]], %[[Y0]] : f32
// CHECK-NEXT:      linalg.yield %[[S0]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[PROD:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[S]], %[[SUM]] : tensor<f32>, tensor<2x3xf32>) outs(%[[E1]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X1:[^:]+]]: f32, %[[Y1:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[P1:.*]] = arith.mulf %[[X1]], %[[Y1]] : f32
// CHECK-NEXT:      linalg.yield %[[P1]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[PROD]] : tensor<2x3xf32>
func.func @scalar(%a: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %0 = nn.add %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = nn.mul %s, %0 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A size-1 dimension is read at index 0; so is one of the result's leading
// dimensions that the operand has as 1.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[COL:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG:   #[[FIRST:map[0-9]*]] = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK-LABEL: func.func @sub_size_one
// CHECK-SAME:    (%[[A:.*]]: tensor<1x3x4xf32>, %[[B:.*]]: tensor<3x1xf32>, %[[C:.*]]: tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<1x3x4xf32>
// CHECK-NEXT:    %[[D:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<1x3x4xf32>, tensor<3x1xf32>) outs(%[[E0]] : tensor<1x3x4xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<1x3x4xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK-NEXT:    %[[Q:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[FIRST]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[C]], %[[D]] : tensor<2x3x4xf32>, tensor<1x3x4xf32>) outs(%[[E1]] : tensor<2x3x4xf32>) {
// CHECK-NEXT:    ^bb0(%[[U:[^:]+]]: f32, %[[V:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[DV:.*]] = arith.divf %[[U]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[DV]] : f32
// CHECK-NEXT:    } -> tensor<2x3x4xf32>
// CHECK-NEXT:    return %[[Q]] : tensor<2x3x4xf32>
func.func @sub_size_one(%a: tensor<1x3x4xf32>, %b: tensor<3x1xf32>, %c: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.sub %a, %b : (tensor<1x3x4xf32>, tensor<3x1xf32>) -> tensor<1x3x4xf32>
  %1 = nn.div %c, %0 : (tensor<2x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Unary ops: one generic each, identity maps, the math / arith op inside.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @unary
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[NEG:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%[[X0:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y0:.*]] = arith.negf %[[X0]] : f32
// CHECK-NEXT:      linalg.yield %[[Y0]] : f32
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[NEG]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X1:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y1:.*]] = math.exp %[[X1]] : f32
// CHECK-NEXT:      linalg.yield %[[Y1]] : f32
// CHECK:         %[[LOG:.*]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X2:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y2:.*]] = math.log %[[X2]] : f32
// CHECK-NEXT:      linalg.yield %[[Y2]] : f32
// CHECK:         %[[SQRT:.*]] = linalg.generic {{.*}} ins(%[[LOG]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X3:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y3:.*]] = math.sqrt %[[X3]] : f32
// CHECK-NEXT:      linalg.yield %[[Y3]] : f32
// CHECK:         %[[RSQRT:.*]] = linalg.generic {{.*}} ins(%[[SQRT]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X4:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y4:.*]] = math.rsqrt %[[X4]] : f32
// CHECK-NEXT:      linalg.yield %[[Y4]] : f32
// CHECK:         %[[TANH:.*]] = linalg.generic {{.*}} ins(%[[RSQRT]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X5:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y5:.*]] = math.tanh %[[X5]] : f32
// CHECK-NEXT:      linalg.yield %[[Y5]] : f32
// CHECK:         %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[TANH]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X6:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[Y6:.*]] = arith.maximumf %[[X6]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[Y6]] : f32
// CHECK:         return %[[RELU]] : tensor<4xf32>
func.func @unary(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.neg %a : tensor<4xf32>
  %1 = nn.exp %0 : tensor<4xf32>
  %2 = nn.log %1 : tensor<4xf32>
  %3 = nn.sqrt %2 : tensor<4xf32>
  %4 = nn.rsqrt %3 : tensor<4xf32>
  %5 = nn.tanh %4 : tensor<4xf32>
  %6 = nn.relu %5 : tensor<4xf32>
  return %6 : tensor<4xf32>
}

// -----

// Float predicates are ordered except ne (true for NaN, as torch's !=);
// integer ones are signed. The result is i1.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @compare
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<2x4xi64>, %[[J:.*]]: tensor<2x4xi64>)
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<2x4xi1>
// CHECK-NEXT:    %[[LT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x4xf32>, tensor<4xf32>) outs(%[[E0]] : tensor<2x4xi1>) {
// CHECK-NEXT:    ^bb0(%[[X0:[^:]+]]: f32, %[[Y0:[^:]+]]: f32, %{{[^:]+}}: i1):
// CHECK-NEXT:      %[[C0:.*]] = arith.cmpf olt, %[[X0]], %[[Y0]] : f32
// CHECK-NEXT:      linalg.yield %[[C0]] : i1
// CHECK-NEXT:    } -> tensor<2x4xi1>
// CHECK:         %[[NE:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<2x4xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X1:[^:]+]]: f32, %[[Y1:[^:]+]]: f32, %{{[^:]+}}: i1):
// CHECK-NEXT:      %[[C1:.*]] = arith.cmpf une, %[[X1]], %[[Y1]] : f32
// CHECK-NEXT:      linalg.yield %[[C1]] : i1
// CHECK:         %[[GE:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[I]], %[[J]] : tensor<2x4xi64>, tensor<2x4xi64>) outs(%{{.*}} : tensor<2x4xi1>) {
// CHECK-NEXT:    ^bb0(%[[X2:[^:]+]]: i64, %[[Y2:[^:]+]]: i64, %{{[^:]+}}: i1):
// CHECK-NEXT:      %[[C2:.*]] = arith.cmpi sge, %[[X2]], %[[Y2]] : i64
// CHECK-NEXT:      linalg.yield %[[C2]] : i1
// CHECK:         %[[EQ:.*]] = linalg.generic {{.*}} ins(%[[I]], %[[J]] : tensor<2x4xi64>, tensor<2x4xi64>)
// CHECK-NEXT:    ^bb0(%[[X3:[^:]+]]: i64, %[[Y3:[^:]+]]: i64, %{{[^:]+}}: i1):
// CHECK-NEXT:      %[[C3:.*]] = arith.cmpi eq, %[[X3]], %[[Y3]] : i64
// CHECK-NEXT:      linalg.yield %[[C3]] : i1
// CHECK:         return %[[LT]], %[[NE]], %[[GE]], %[[EQ]] : tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
func.func @compare(%a: tensor<2x4xf32>, %b: tensor<4xf32>, %i: tensor<2x4xi64>, %j: tensor<2x4xi64>) -> (tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>) {
  %0 = nn.compare lt, %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %1 = nn.compare ne, %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %2 = nn.compare ge, %i, %j : (tensor<2x4xi64>, tensor<2x4xi64>) -> tensor<2x4xi1>
  %3 = nn.compare eq, %i, %j : (tensor<2x4xi64>, tensor<2x4xi64>) -> tensor<2x4xi1>
  return %0, %1, %2, %3 : tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
}

// -----

// masked_fill: select(mask, value, x), the [4, 4] mask broadcast over the
// leading dimension; -inf is the f32 -inf.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[TAIL:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @masked_fill
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4x4xf32>, %[[M:.*]]: tensor<4x4xi1>) -> tensor<2x4x4xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x4x4xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[TAIL]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[M]] : tensor<2x4x4xf32>, tensor<4x4xi1>) outs(%[[E]] : tensor<2x4x4xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[H:[^:]+]]: i1, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:      %[[S:.*]] = arith.select %[[H]], %[[NEGINF]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<2x4x4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x4x4xf32>
func.func @masked_fill(%a: tensor<2x4x4xf32>, %m: tensor<4x4xi1>) -> tensor<2x4x4xf32> {
  %0 = nn.masked_fill %a, %m, 0xFFF0000000000000 : (tensor<2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// A finite fill value.
// CHECK-LABEL: func.func @masked_fill_finite
// CHECK:         ^bb0(%[[X:[^:]+]]: f32, %[[H:[^:]+]]: i1, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[V:.*]] = arith.constant -1.000000e+09 : f32
// CHECK-NEXT:      %[[S:.*]] = arith.select %[[H]], %[[V]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @masked_fill_finite(%a: tensor<4xf32>, %m: tensor<4xi1>) -> tensor<4xf32> {
  %0 = nn.masked_fill %a, %m, -1.0e9 : (tensor<4xf32>, tensor<4xi1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// nn.cast: bool to float is 0/1 (unsigned), ints are signed, to bool is
// "not zero", floats extend or truncate.
// CHECK-LABEL: func.func @casts
// CHECK-SAME:    (%[[B:.*]]: tensor<4xi1>, %[[I:.*]]: tensor<4xi64>, %[[F:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf64>, %[[N:.*]]: tensor<4xi32>)
// CHECK:         ins(%[[B]] : tensor<4xi1>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X0:[^:]+]]: i1, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y0:.*]] = arith.uitofp %[[X0]] : i1 to f32
// CHECK-NEXT:      linalg.yield %[[Y0]] : f32
// CHECK:         ins(%[[I]] : tensor<4xi64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X1:[^:]+]]: i64, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y1:.*]] = arith.sitofp %[[X1]] : i64 to f32
// CHECK-NEXT:      linalg.yield %[[Y1]] : f32
// CHECK:         ins(%[[F]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[X2:[^:]+]]: f32, %{{[^:]+}}: i1):
// CHECK-NEXT:      %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[Y2:.*]] = arith.cmpf une, %[[X2]], %[[Z2]] : f32
// CHECK-NEXT:      linalg.yield %[[Y2]] : i1
// CHECK:         ins(%[[I]] : tensor<4xi64>) outs(%{{.*}} : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[X3:[^:]+]]: i64, %{{[^:]+}}: i1):
// CHECK-NEXT:      %[[Z3:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[Y3:.*]] = arith.cmpi ne, %[[X3]], %[[Z3]] : i64
// CHECK-NEXT:      linalg.yield %[[Y3]] : i1
// CHECK:         ins(%[[I]] : tensor<4xi64>) outs(%{{.*}} : tensor<4xi32>)
// CHECK-NEXT:    ^bb0(%[[X4:[^:]+]]: i64, %{{[^:]+}}: i32):
// CHECK-NEXT:      %[[Y4:.*]] = arith.trunci %[[X4]] : i64 to i32
// CHECK-NEXT:      linalg.yield %[[Y4]] : i32
// CHECK:         ins(%[[N]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xi64>)
// CHECK-NEXT:    ^bb0(%[[X5:[^:]+]]: i32, %{{[^:]+}}: i64):
// CHECK-NEXT:      %[[Y5:.*]] = arith.extsi %[[X5]] : i32 to i64
// CHECK-NEXT:      linalg.yield %[[Y5]] : i64
// CHECK:         ins(%[[B]] : tensor<4xi1>) outs(%{{.*}} : tensor<4xi64>)
// CHECK-NEXT:    ^bb0(%[[X6:[^:]+]]: i1, %{{[^:]+}}: i64):
// CHECK-NEXT:      %[[Y6:.*]] = arith.extui %[[X6]] : i1 to i64
// CHECK-NEXT:      linalg.yield %[[Y6]] : i64
// CHECK:         ins(%[[F]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xi64>)
// CHECK-NEXT:    ^bb0(%[[X7:[^:]+]]: f32, %{{[^:]+}}: i64):
// CHECK-NEXT:      %[[Y7:.*]] = arith.fptosi %[[X7]] : f32 to i64
// CHECK-NEXT:      linalg.yield %[[Y7]] : i64
// CHECK:         ins(%[[F]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf64>)
// CHECK-NEXT:    ^bb0(%[[X8:[^:]+]]: f32, %{{[^:]+}}: f64):
// CHECK-NEXT:      %[[Y8:.*]] = arith.extf %[[X8]] : f32 to f64
// CHECK-NEXT:      linalg.yield %[[Y8]] : f64
// CHECK:         ins(%[[D]] : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[X9:[^:]+]]: f64, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y9:.*]] = arith.truncf %[[X9]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[Y9]] : f32
func.func @casts(%b: tensor<4xi1>, %i: tensor<4xi64>, %f: tensor<4xf32>, %d: tensor<4xf64>, %n: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xf64>, tensor<4xf32>) {
  %0 = nn.cast %b to f32 : tensor<4xi1> -> tensor<4xf32>
  %1 = nn.cast %i to f32 : tensor<4xi64> -> tensor<4xf32>
  %2 = nn.cast %f to i1 : tensor<4xf32> -> tensor<4xi1>
  %3 = nn.cast %i to i1 : tensor<4xi64> -> tensor<4xi1>
  %4 = nn.cast %i to i32 : tensor<4xi64> -> tensor<4xi32>
  %5 = nn.cast %n to i64 : tensor<4xi32> -> tensor<4xi64>
  %6 = nn.cast %b to i64 : tensor<4xi1> -> tensor<4xi64>
  %7 = nn.cast %f to i64 : tensor<4xf32> -> tensor<4xi64>
  %8 = nn.cast %f to f64 : tensor<4xf32> -> tensor<4xf64>
  %9 = nn.cast %d to f32 : tensor<4xf64> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xf64>, tensor<4xf32>
}

// -----

// GELU, exact: x * 0.5 * (1 + erf(x / sqrt(2))).
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @gelu_erf
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[RSQRT2:.*]] = arith.constant 0.707106769 : f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[X]], %[[RSQRT2]] : f32
// CHECK-NEXT:      %[[ERF:.*]] = math.erf %[[S]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK-NEXT:      %[[G:.*]] = arith.mulf %[[HALF]], %[[P]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[X]], %[[G]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<4xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4xf32>
func.func @gelu_erf(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.gelu %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// GELU, tanh approximation: x * 0.5 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK:         ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT:      %[[X3:.*]] = arith.mulf %[[X]], %[[X2]] : f32
// CHECK-NEXT:      %[[C:.*]] = arith.constant 4.471500e-02 : f32
// CHECK-NEXT:      %[[CX3:.*]] = arith.mulf %[[C]], %[[X3]] : f32
// CHECK-NEXT:      %[[POLY:.*]] = arith.addf %[[X]], %[[CX3]] : f32
// CHECK-NEXT:      %[[K:.*]] = arith.constant 0.797884583 : f32
// CHECK-NEXT:      %[[ARG:.*]] = arith.mulf %[[K]], %[[POLY]] : f32
// CHECK-NEXT:      %[[T:.*]] = math.tanh %[[ARG]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.addf %[[ONE]], %[[T]] : f32
// CHECK-NEXT:      %[[G:.*]] = arith.mulf %[[HALF]], %[[P]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[X]], %[[G]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NOT:     math.erf
func.func @gelu_tanh(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nn.gelu %a {approximate_tanh} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
