// RUN: transfuse-opt %s -canonicalize -split-input-file | FileCheck %s

// The folders of nn.transpose, nn.reshape, nn.slice and nn.cast: no-op shape
// changes disappear, chains compose, splat constants fold through; and the
// cases each folder must leave alone.

//===----------------------------------------------------------------------===//
// nn.transpose
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: nn.transpose
// CHECK: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.transpose %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_scalar
// CHECK-SAME: (%[[X:.*]]: tensor<i64>)
// CHECK-NOT: nn.transpose
// CHECK: return %[[X]] : tensor<i64>
func.func @transpose_scalar(%x: tensor<i64>) -> tensor<i64> {
  %0 = nn.transpose %x [] : tensor<i64> -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// A permutation that keeps every size is still a real transpose.
// CHECK-LABEL: func.func @transpose_square
// CHECK-SAME: (%[[X:.*]]: tensor<3x3xf32>)
// CHECK: %[[T:.*]] = nn.transpose %[[X]] [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
// CHECK: return %[[T]]
func.func @transpose_square(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = nn.transpose %x [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_kept
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = nn.transpose %[[X]] [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
// CHECK: return %[[T]]
func.func @transpose_kept(%x: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {
  %0 = nn.transpose %x [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_splat
// CHECK-NOT: nn.transpose
// CHECK: %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<4x2xf32>
// CHECK-NOT: nn.transpose
// CHECK: return %[[C]] : tensor<4x2xf32>
func.func @transpose_splat() -> tensor<4x2xf32> {
  %c = arith.constant dense<1.5> : tensor<2x4xf32>
  %0 = nn.transpose %c [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_splat_bool
// CHECK: %[[C:.*]] = arith.constant dense<true> : tensor<3x1x2xi1>
// CHECK-NOT: nn.transpose
// CHECK: return %[[C]] : tensor<3x1x2xi1>
func.func @transpose_splat_bool() -> tensor<3x1x2xi1> {
  %c = arith.constant dense<true> : tensor<1x2x3xi1>
  %0 = nn.transpose %c [2, 0, 1] : tensor<1x2x3xi1> -> tensor<3x1x2xi1>
  return %0 : tensor<3x1x2xi1>
}

// -----

// A constant that is not a splat is not transposed at compile time.
// CHECK-LABEL: func.func @transpose_dense_kept
// CHECK: %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[T:.*]] = nn.transpose %[[C]] [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
// CHECK: return %[[T]]
func.func @transpose_dense_kept() -> tensor<2x2xf32> {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = nn.transpose %c [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// transpose(transpose(x, [1, 0, 2]), [0, 2, 1]) == transpose(x, [1, 2, 0]).
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = nn.transpose %[[X]] [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NOT: nn.transpose
// CHECK: return %[[T]] : tensor<3x4x2xf32>
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = nn.transpose %x [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = nn.transpose %0 [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// Three transposes of a 4-d tensor compose into one.
// CHECK-LABEL: func.func @transpose_compose_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK: %[[T:.*]] = nn.transpose %[[X]] [3, 1, 0, 2] : tensor<2x3x4x5xf32> -> tensor<5x3x2x4xf32>
// CHECK-NOT: nn.transpose
// CHECK: return %[[T]] : tensor<5x3x2x4xf32>
func.func @transpose_compose_chain(%x: tensor<2x3x4x5xf32>) -> tensor<5x3x2x4xf32> {
  // [2, 3, 4, 5] -> [2, 4, 3, 5] -> [5, 2, 4, 3] -> [5, 3, 2, 4]
  %0 = nn.transpose %x [0, 2, 1, 3] : tensor<2x3x4x5xf32> -> tensor<2x4x3x5xf32>
  %1 = nn.transpose %0 [3, 0, 1, 2] : tensor<2x4x3x5xf32> -> tensor<5x2x4x3xf32>
  %2 = nn.transpose %1 [0, 3, 1, 2] : tensor<5x2x4x3xf32> -> tensor<5x3x2x4xf32>
  return %2 : tensor<5x3x2x4xf32>
}

// -----

// A transpose and its inverse cancel.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: nn.transpose
// CHECK: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = nn.transpose %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = nn.transpose %0 [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// The inner transpose stays while something else reads it.
// CHECK-LABEL: func.func @transpose_compose_shared
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[T:.*]] = nn.transpose %[[X]] [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NOT: nn.transpose
// CHECK: return %[[X]], %[[T]] : tensor<2x3xf32>, tensor<3x2xf32>
func.func @transpose_compose_shared(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %0 = nn.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = nn.transpose %0 [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  return %1, %0 : tensor<2x3xf32>, tensor<3x2xf32>
}

// -----

// A transpose of another op's result stays.
// CHECK-LABEL: func.func @transpose_of_exp
// CHECK: %[[E:.*]] = nn.exp
// CHECK: %[[T:.*]] = nn.transpose %[[E]] [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: return %[[T]]
func.func @transpose_of_exp(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = nn.exp %x : tensor<2x3xf32>
  %1 = nn.transpose %0 [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

//===----------------------------------------------------------------------===//
// nn.reshape
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @reshape_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: nn.reshape
// CHECK: return %[[X]] : tensor<2x3xf32>
func.func @reshape_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.reshape %x [2, 3] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_kept
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[R:.*]] = nn.reshape %[[X]] [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @reshape_kept(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = nn.reshape %x [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_splat
// CHECK: %[[C:.*]] = arith.constant dense<-2.000000e+00> : tensor<2x3x2xf32>
// CHECK-NOT: nn.reshape
// CHECK: return %[[C]] : tensor<2x3x2xf32>
func.func @reshape_splat() -> tensor<2x3x2xf32> {
  %c = arith.constant dense<-2.0> : tensor<12xf32>
  %0 = nn.reshape %c [2, 3, 2] : tensor<12xf32> -> tensor<2x3x2xf32>
  return %0 : tensor<2x3x2xf32>
}

// -----

// A scalar written as a broadcast tensor becomes a rank-0 constant.
// CHECK-LABEL: func.func @reshape_splat_to_scalar
// CHECK: %[[C:.*]] = arith.constant dense<7> : tensor<i64>
// CHECK-NOT: nn.reshape
// CHECK: return %[[C]] : tensor<i64>
func.func @reshape_splat_to_scalar() -> tensor<i64> {
  %c = arith.constant dense<7> : tensor<1x1xi64>
  %0 = nn.reshape %c [] : tensor<1x1xi64> -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @reshape_dense_kept
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK: %[[R:.*]] = nn.reshape %[[C]] [2, 2] : tensor<4xf32> -> tensor<2x2xf32>
// CHECK: return %[[R]]
func.func @reshape_dense_kept() -> tensor<2x2xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = nn.reshape %c [2, 2] : tensor<4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Only the last shape of a reshape chain matters.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = nn.reshape %[[X]] [4, 6] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NOT: nn.reshape
// CHECK: return %[[R]] : tensor<4x6xf32>
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = nn.reshape %x [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = nn.reshape %0 [24] : tensor<6x4xf32> -> tensor<24xf32>
  %2 = nn.reshape %1 [4, 6] : tensor<24xf32> -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}

// -----

// A reshape chain back to the original shape disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi1>)
// CHECK-NOT: nn.reshape
// CHECK: return %[[X]] : tensor<2x3xi1>
func.func @reshape_round_trip(%x: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %0 = nn.reshape %x [6] : tensor<2x3xi1> -> tensor<6xi1>
  %1 = nn.reshape %0 [2, 3] : tensor<6xi1> -> tensor<2x3xi1>
  return %1 : tensor<2x3xi1>
}

// -----

// A reshape of an op other than a reshape stays.
// CHECK-LABEL: func.func @reshape_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[T:.*]] = nn.transpose %[[X]] [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: %[[R:.*]] = nn.reshape %[[T]] [6] : tensor<3x2xf32> -> tensor<6xf32>
// CHECK: return %[[R]]
func.func @reshape_of_transpose(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = nn.transpose %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = nn.reshape %0 [6] : tensor<3x2xf32> -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// -----

// The inner reshape stays while something else reads it.
// CHECK-LABEL: func.func @reshape_collapse_shared
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK-DAG: %[[A:.*]] = nn.reshape %[[X]] [12] : tensor<2x6xf32> -> tensor<12xf32>
// CHECK-DAG: %[[B:.*]] = nn.reshape %[[X]] [3, 4] : tensor<2x6xf32> -> tensor<3x4xf32>
// CHECK: return %[[A]], %[[B]]
func.func @reshape_collapse_shared(%x: tensor<2x6xf32>) -> (tensor<12xf32>, tensor<3x4xf32>) {
  %0 = nn.reshape %x [12] : tensor<2x6xf32> -> tensor<12xf32>
  %1 = nn.reshape %0 [3, 4] : tensor<12xf32> -> tensor<3x4xf32>
  return %0, %1 : tensor<12xf32>, tensor<3x4xf32>
}

//===----------------------------------------------------------------------===//
// nn.slice
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @slice_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK-NOT: nn.slice
// CHECK: return %[[X]] : tensor<4x6xf32>
func.func @slice_identity(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = nn.slice %x [0, 0] [4, 6] : tensor<4x6xf32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @slice_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK: %[[S:.*]] = nn.slice %[[X]] [1, 0] [3, 6] : tensor<4x6xf32> -> tensor<3x6xf32>
// CHECK: return %[[S]]
func.func @slice_kept(%x: tensor<4x6xf32>) -> tensor<3x6xf32> {
  %0 = nn.slice %x [1, 0] [3, 6] : tensor<4x6xf32> -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// CHECK-LABEL: func.func @slice_splat
// CHECK: %[[C:.*]] = arith.constant dense<0.000000e+00> : tensor<2x3xf16>
// CHECK-NOT: nn.slice
// CHECK: return %[[C]] : tensor<2x3xf16>
func.func @slice_splat() -> tensor<2x3xf16> {
  %c = arith.constant dense<0.0> : tensor<8x8xf16>
  %0 = nn.slice %c [5, 1] [2, 3] : tensor<8x8xf16> -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// CHECK-LABEL: func.func @slice_dense_kept
// CHECK: %[[C:.*]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
// CHECK: %[[S:.*]] = nn.slice %[[C]] [1] [2] : tensor<4xi32> -> tensor<2xi32>
// CHECK: return %[[S]]
func.func @slice_dense_kept() -> tensor<2xi32> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = nn.slice %c [1] [2] : tensor<4xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

//===----------------------------------------------------------------------===//
// nn.cast
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @cast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: nn.cast
// CHECK: return %[[X]] : tensor<2x3xf32>
func.func @cast_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nn.cast %x to f32 : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @cast_kept
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi1>)
// CHECK: %[[C:.*]] = nn.cast %[[X]] to f32 : tensor<2x3xi1> -> tensor<2x3xf32>
// CHECK: return %[[C]]
func.func @cast_kept(%x: tensor<2x3xi1>) -> tensor<2x3xf32> {
  %0 = nn.cast %x to f32 : tensor<2x3xi1> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Casts do not fold constants, splat or not, and do not compose.
// CHECK-LABEL: func.func @cast_chain_kept
// CHECK: %[[C:.*]] = arith.constant dense<true> : tensor<4xi1>
// CHECK: %[[A:.*]] = nn.cast %[[C]] to i32 : tensor<4xi1> -> tensor<4xi32>
// CHECK: %[[B:.*]] = nn.cast %[[A]] to f32 : tensor<4xi32> -> tensor<4xf32>
// CHECK: return %[[B]]
func.func @cast_chain_kept() -> tensor<4xf32> {
  %c = arith.constant dense<true> : tensor<4xi1>
  %0 = nn.cast %c to i32 : tensor<4xi1> -> tensor<4xi32>
  %1 = nn.cast %0 to f32 : tensor<4xi32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Folds working together
//===----------------------------------------------------------------------===//

// -----

// Transposes, reshapes, slices and casts that change nothing all vanish,
// the rest compose, and ops without folders are untouched.
// CHECK-LABEL: func.func @mixed
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK: %[[T:.*]] = nn.transpose %[[X]] [1, 0, 2] : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
// CHECK: %[[R:.*]] = nn.reshape %[[T]] [8, 8] : tensor<4x2x8xf32> -> tensor<8x8xf32>
// CHECK: %[[S:.*]] = nn.softmax %[[R]] {axis = 1 : i64} : tensor<8x8xf32>
// CHECK-NOT: nn.
// CHECK: return %[[S]] : tensor<8x8xf32>
func.func @mixed(%x: tensor<2x4x8xf32>) -> tensor<8x8xf32> {
  %0 = nn.slice %x [0, 0, 0] [2, 4, 8] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %1 = nn.transpose %0 [0, 2, 1] : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
  %2 = nn.transpose %1 [2, 0, 1] : tensor<2x8x4xf32> -> tensor<4x2x8xf32>
  %3 = nn.cast %2 to f32 : tensor<4x2x8xf32> -> tensor<4x2x8xf32>
  %4 = nn.reshape %3 [64] : tensor<4x2x8xf32> -> tensor<64xf32>
  %5 = nn.reshape %4 [8, 8] : tensor<64xf32> -> tensor<8x8xf32>
  %6 = nn.softmax %5 {axis = 1 : i64} : tensor<8x8xf32>
  %7 = nn.reshape %6 [8, 8] : tensor<8x8xf32> -> tensor<8x8xf32>
  return %7 : tensor<8x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// nn.add of zero-padded concats
//===----------------------------------------------------------------------===//

// The adjoint of a tensor sliced three ways: each slice's adjoint padded
// with zeros, then summed. It becomes the concat of the adjoints, whatever
// the way the zero pieces are cut.
// CHECK-LABEL: func.func @add_padded_slices
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4xf32>, %[[K:.*]]: tensor<2x4xf32>, %[[V:.*]]: tensor<2x4xf32>)
// CHECK-NOT: nn.add
// CHECK-NOT: arith.constant
// CHECK: %[[C:.*]] = nn.concat %[[Q]], %[[K]], %[[V]] {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT: return %[[C]]
func.func @add_padded_slices(%q: tensor<2x4xf32>, %k: tensor<2x4xf32>,
                             %v: tensor<2x4xf32>) -> tensor<2x12xf32> {
  %z4 = arith.constant dense<0.0> : tensor<2x4xf32>
  %z8 = arith.constant dense<0.0> : tensor<2x8xf32>
  %pv = nn.concat %z8, %v {axis = 1 : i64} : (tensor<2x8xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
  %pk = nn.concat %z4, %k, %z4 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
  %s = nn.add %pv, %pk : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<2x12xf32>
  %pq = nn.concat %q, %z8 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x8xf32>) -> tensor<2x12xf32>
  %r = nn.add %s, %pq : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// -----

// Pieces both sides fill are added; a range zero on both sides stays a zero
// constant of its own extent.
// CHECK-LABEL: func.func @add_overlapping_pieces
// CHECK-SAME: (%[[A:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<3x2xf32>, %[[C:.*]]: tensor<1x2xf32>)
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-DAG: %[[S:.*]] = nn.add %[[A]], %[[B]] : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK: %[[R:.*]] = nn.concat %[[S]], %[[Z]], %[[C]] {axis = 0 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @add_overlapping_pieces(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>,
                                  %c: tensor<1x2xf32>) -> tensor<6x2xf32> {
  %z3 = arith.constant dense<0.0> : tensor<3x2xf32>
  %z2 = arith.constant dense<0.0> : tensor<2x2xf32>
  %l = nn.concat %a, %z3 {axis = 0 : i64} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<6x2xf32>
  %r = nn.concat %b, %z2, %c {axis = 0 : i64} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<6x2xf32>
  %s = nn.add %l, %r : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xf32>
  return %s : tensor<6x2xf32>
}

// -----

// Left alone: a cut of one side falls inside a piece of the other that is
// not zero (splitting it would copy it).
// CHECK-LABEL: func.func @add_concats_cut_inside_nonzero
// CHECK: %[[S:.*]] = nn.add
// CHECK: return %[[S]]
func.func @add_concats_cut_inside_nonzero(%a: tensor<2x8xf32>, %b: tensor<2x4xf32>) -> tensor<2x12xf32> {
  %z4 = arith.constant dense<0.0> : tensor<2x4xf32>
  %z8 = arith.constant dense<0.0> : tensor<2x8xf32>
  %l = nn.concat %a, %z4 {axis = 1 : i64} : (tensor<2x8xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
  %r = nn.concat %b, %z8 {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x8xf32>) -> tensor<2x12xf32>
  %s = nn.add %l, %r : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<2x12xf32>
  return %s : tensor<2x12xf32>
}

// -----

// Left alone: no zero piece (nothing to save), an operand that is no
// concat, a cut inside a constant that is not zero, concats along
// different axes.
// CHECK-LABEL: func.func @add_concats_left_alone
// CHECK-COUNT-4: nn.add
// CHECK: return
func.func @add_concats_left_alone(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>,
                                  %b2: tensor<2x2xf32>, %c: tensor<1x8xf32>)
    -> (tensor<2x8xf32>, tensor<4x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %z = arith.constant dense<0.0> : tensor<2x4xf32>
  %one6 = arith.constant dense<1.0> : tensor<2x6xf32>
  %ab = nn.concat %a, %b {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %ba = nn.concat %b, %a {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %0 = nn.add %ab, %ba : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %rows = nn.concat %a, %z {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %wide = nn.concat %z, %b {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %square = nn.reshape %wide [4, 4] : tensor<2x8xf32> -> tensor<4x4xf32>
  %1 = nn.add %rows, %square : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %ones = nn.concat %b2, %one6 {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x6xf32>) -> tensor<2x8xf32>
  %2 = nn.add %wide, %ones : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %cc = nn.concat %c, %c {axis = 0 : i64} : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %zz = nn.concat %z, %z {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %3 = nn.add %zz, %cc : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0, %1, %2, %3 : tensor<2x8xf32>, tensor<4x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// nn.masked_fill: a ReLU's gradient through the dropout that follows it
//===----------------------------------------------------------------------===//

// masked_fill(dropout(dy), y <= 0, 0) with y = relu(...) and d = dropout(y)
// drawing the same mask becomes masked_fill(dy * 1/(1 - rate), d <= 0, 0):
// no mask drawn again, and y is no longer read.
// CHECK-LABEL: func.func @relu_grad_through_dropout
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32>, %[[DY:.*]]: tensor<2x4xf32>, %[[SEED:.*]]: tensor<i64>)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant dense<1.250000e+00> : tensor<f32>
// CHECK:         %[[Y:.*]] = nn.relu %[[X]]
// CHECK:         %[[D:.*]] = nn.dropout %[[Y]] seed %[[SEED]] {rate = 2.000000e-01 : f64, stream = 3 : i64}
// CHECK-NEXT:    %[[S:.*]] = nn.mul %[[DY]], %[[SCALE]]
// CHECK-NEXT:    %[[OFF:.*]] = nn.compare le, %[[D]], %[[ZERO]]
// CHECK-NEXT:    %[[G:.*]] = nn.masked_fill %[[S]], %[[OFF]], 0.000000e+00
// CHECK-NEXT:    return %[[D]], %[[G]]
func.func @relu_grad_through_dropout(%x: tensor<2x4xf32>, %dy: tensor<2x4xf32>, %seed: tensor<i64>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %y = nn.relu %x : tensor<2x4xf32>
  %d = nn.dropout %y seed %seed {rate = 0.2 : f64, stream = 3 : i64} : tensor<2x4xf32>
  %g = nn.dropout %dy seed %seed {rate = 0.2 : f64, stream = 3 : i64} : tensor<2x4xf32>
  %off = nn.compare le, %y, %zero : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xi1>
  %r = nn.masked_fill %g, %off, 0.0 : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  return %d, %r : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Left alone: the gradient's dropout draws another stream than the forward's;
// the masked value is not a ReLU's output; the filled value is not zero.
// CHECK-LABEL: func.func @relu_grad_not_through_dropout
// CHECK-COUNT-3: nn.masked_fill %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<2x4xi1>)
// CHECK-NOT:     nn.mul
func.func @relu_grad_not_through_dropout(%x: tensor<2x4xf32>, %dy: tensor<2x4xf32>, %seed: tensor<i64>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %y = nn.relu %x : tensor<2x4xf32>
  %d = nn.dropout %y seed %seed {rate = 0.2 : f64, stream = 3 : i64} : tensor<2x4xf32>
  %g = nn.dropout %dy seed %seed {rate = 0.2 : f64, stream = 4 : i64} : tensor<2x4xf32>
  %off = nn.compare le, %y, %zero : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xi1>
  %r = nn.masked_fill %g, %off, 0.0 : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  %dx = nn.dropout %x seed %seed {rate = 0.2 : f64, stream = 3 : i64} : tensor<2x4xf32>
  %g3 = nn.dropout %dy seed %seed {rate = 0.2 : f64, stream = 3 : i64} : tensor<2x4xf32>
  %offx = nn.compare le, %x, %zero : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xi1>
  %rx = nn.masked_fill %g3, %offx, 0.0 : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  %r1 = nn.masked_fill %g3, %off, 1.0 : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
  return %d, %r, %dx, %rx, %r1 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
