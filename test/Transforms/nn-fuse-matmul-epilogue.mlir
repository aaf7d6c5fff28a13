// RUN: transfuse-opt %s -split-input-file -nn-fuse-matmul-epilogue | FileCheck %s

// -nn-fuse-matmul-epilogue: a transposed Linear weight, a bias along the
// last axis and a following ReLU / GELU fold into one nn.fused_matmul; each
// is absorbed only when the product has no other user.

//===----------------------------------------------------------------------===//
// Fused
//===----------------------------------------------------------------------===//

// A Linear weight [out, in] read through transpose [1, 0]: the transpose
// becomes transpose_rhs and the op reads W itself.
// CHECK-LABEL: func.func @transposed_weight
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<32x16xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] {transpose_rhs} : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @transposed_weight(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>) -> tensor<4x32xf32> {
  %wt = nn.transpose %w [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %y = nn.matmul %x, %wt : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A bias [N] along the last axis of the product.
// CHECK-LABEL: func.func @bias
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] bias %[[B]] : (tensor<4x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @bias(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %y = nn.add %p, %b : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The bias on the left of the add.
// CHECK-LABEL: func.func @bias_lhs
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] bias %[[B]] : (tensor<4x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @bias_lhs(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %y = nn.add %b, %p : (tensor<32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A bias [1, N] is reshaped to [N].
// CHECK-LABEL: func.func @bias_row
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<1x32xf32>)
// CHECK-NEXT:    %[[BR:.*]] = nn.reshape %[[B]] [32] : tensor<1x32xf32> -> tensor<32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] bias %[[BR]] : (tensor<4x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @bias_row(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>, %b: tensor<1x32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %y = nn.add %p, %b : (tensor<4x32xf32>, tensor<1x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// CHECK-LABEL: func.func @relu
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] {activation = #nn.activation<relu>} : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @relu(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %y = nn.relu %p : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The exact (erf) GELU.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] {activation = #nn.activation<gelu>} : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @gelu(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %y = nn.gelu %p : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The tanh approximation of GELU.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] {activation = #nn.activation<gelu_tanh>} : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @gelu_tanh(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %y = nn.gelu %p {approximate_tanh} : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// nn.Linear then ReLU: transpose, matmul, bias and activation are one op.
// CHECK-LABEL: func.func @linear_relu
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] bias %[[B]] {activation = #nn.activation<relu>, transpose_rhs} : (tensor<4x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @linear_relu(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  %wt = nn.transpose %w [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %p = nn.matmul %x, %wt : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %h = nn.add %p, %b : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %y = nn.relu %h : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A [batch, seq, d] activation, the bias on the left, then GELU.
// CHECK-LABEL: func.func @sequence_input
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[W:.*]]: tensor<64x16xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] bias %[[B]] {activation = #nn.activation<gelu>, transpose_rhs} : (tensor<2x5x16xf32>, tensor<64x16xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x64xf32>
func.func @sequence_input(%x: tensor<2x5x16xf32>, %w: tensor<64x16xf32>, %b: tensor<64xf32>) -> tensor<2x5x64xf32> {
  %wt = nn.transpose %w [1, 0] : tensor<64x16xf32> -> tensor<16x64xf32>
  %p = nn.matmul %x, %wt : (tensor<2x5x16xf32>, tensor<16x64xf32>) -> tensor<2x5x64xf32>
  %h = nn.add %b, %p : (tensor<64xf32>, tensor<2x5x64xf32>) -> tensor<2x5x64xf32>
  %y = nn.gelu %h : tensor<2x5x64xf32>
  return %y : tensor<2x5x64xf32>
}

// -----

// A bias [1, 1, N] on a [batch, seq, N] product is reshaped to [N].
// CHECK-LABEL: func.func @sequence_bias_row
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[W:.*]]: tensor<64x16xf32>, %[[B:.*]]: tensor<1x1x64xf32>)
// CHECK-NEXT:    %[[BR:.*]] = nn.reshape %[[B]] [64] : tensor<1x1x64xf32> -> tensor<64xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] bias %[[BR]] {transpose_rhs} : (tensor<2x5x16xf32>, tensor<64x16xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x64xf32>
func.func @sequence_bias_row(%x: tensor<2x5x16xf32>, %w: tensor<64x16xf32>, %b: tensor<1x1x64xf32>) -> tensor<2x5x64xf32> {
  %wt = nn.transpose %w [1, 0] : tensor<64x16xf32> -> tensor<16x64xf32>
  %p = nn.matmul %x, %wt : (tensor<2x5x16xf32>, tensor<16x64xf32>) -> tensor<2x5x64xf32>
  %y = nn.add %p, %b : (tensor<2x5x64xf32>, tensor<1x1x64xf32>) -> tensor<2x5x64xf32>
  return %y : tensor<2x5x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Left alone, or fused only in part
//===----------------------------------------------------------------------===//

// A [M, 1] term broadcasts along the rows, not along N: not a bias.
// CHECK-LABEL: func.func @bias_column
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<4x1xf32>)
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[X]], %[[W]] : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[P]], %[[B]] : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
// CHECK-NOT:     nn.fused_matmul
func.func @bias_column(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>, %b: tensor<4x1xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %y = nn.add %p, %b : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// A full [M, N] addend is not a bias either.
// CHECK-LABEL: func.func @bias_full
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<4x32xf32>)
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[X]], %[[W]] : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[P]], %[[B]] : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
// CHECK-NOT:     nn.fused_matmul
func.func @bias_full(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>, %b: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %y = nn.add %p, %b : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The first bias is absorbed; the op has room for one, so the second add
// stays.
// CHECK-LABEL: func.func @second_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B1:.*]]: tensor<32xf32>, %[[B2:.*]]: tensor<32xf32>)
// CHECK-NEXT:    %[[P:.*]] = nn.fused_matmul %[[X]], %[[W]] bias %[[B1]] : (tensor<4x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[P]], %[[B2]] : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @second_bias(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>, %b1: tensor<32xf32>, %b2: tensor<32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %h = nn.add %p, %b1 : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %y = nn.add %h, %b2 : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The product feeds both an add and a ReLU: neither is absorbed, since the
// product itself is still needed.
// CHECK-LABEL: func.func @product_other_user
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[X]], %[[W]] : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[H:.*]] = nn.add %[[P]], %[[B]] : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.relu %[[P]] : tensor<4x32xf32>
// CHECK-NEXT:    return %[[H]], %[[Y]] : tensor<4x32xf32>, tensor<4x32xf32>
// CHECK-NOT:     nn.fused_matmul
func.func @product_other_user(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %h = nn.add %p, %b : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %y = nn.relu %p : tensor<4x32xf32>
  return %h, %y : tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// x Wᵀ is also returned: the transpose is still absorbed (the op replaces
// the matmul in place), but the bias and the ReLU stay outside.
// CHECK-LABEL: func.func @linear_other_user
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NEXT:    %[[P:.*]] = nn.fused_matmul %[[X]], %[[W]] {transpose_rhs} : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[H:.*]] = nn.add %[[P]], %[[B]] : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.relu %[[H]] : tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]], %[[P]] : tensor<4x32xf32>, tensor<4x32xf32>
func.func @linear_other_user(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %wt = nn.transpose %w [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %p = nn.matmul %x, %wt : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %h = nn.add %p, %b : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %y = nn.relu %h : tensor<4x32xf32>
  return %y, %p : tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// A transpose of a rank-3 tensor (keys, not a Linear weight) is not
// absorbed.
// CHECK-LABEL: func.func @batched_transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[K:.*]]: tensor<2x8x16xf32>)
// CHECK-NEXT:    %[[KT:.*]] = nn.transpose %[[K]] [0, 2, 1] : tensor<2x8x16xf32> -> tensor<2x16x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.matmul %[[X]], %[[KT]] : (tensor<2x5x16xf32>, tensor<2x16x8xf32>) -> tensor<2x5x8xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x8xf32>
// CHECK-NOT:     nn.fused_matmul
func.func @batched_transpose(%x: tensor<2x5x16xf32>, %k: tensor<2x8x16xf32>) -> tensor<2x5x8xf32> {
  %kt = nn.transpose %k [0, 2, 1] : tensor<2x8x16xf32> -> tensor<2x16x8xf32>
  %y = nn.matmul %x, %kt : (tensor<2x5x16xf32>, tensor<2x16x8xf32>) -> tensor<2x5x8xf32>
  return %y : tensor<2x5x8xf32>
}

// -----

// gelu(relu(x w)): the ReLU is absorbed, the GELU on the activated product
// is not.
// CHECK-LABEL: func.func @second_activation
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>)
// CHECK-NEXT:    %[[P:.*]] = nn.fused_matmul %[[X]], %[[W]] {activation = #nn.activation<relu>} : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.gelu %[[P]] : tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @second_activation(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %r = nn.relu %p : tensor<4x32xf32>
  %y = nn.gelu %r : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// ReLU of a fused_matmul that already applies GELU stays.
// CHECK-LABEL: func.func @activated_fused
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<32x16xf32>)
// CHECK-NEXT:    %[[P:.*]] = nn.fused_matmul %[[X]], %[[W]] {activation = #nn.activation<gelu>, transpose_rhs} : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.relu %[[P]] : tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @activated_fused(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>) -> tensor<4x32xf32> {
  %p = nn.fused_matmul %x, %w {activation = #nn.activation<gelu>, transpose_rhs} : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
  %y = nn.relu %p : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// relu(x w) + b: the bias comes after the activation, so it is not the
// op's bias.
// CHECK-LABEL: func.func @bias_after_activation
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NEXT:    %[[P:.*]] = nn.fused_matmul %[[X]], %[[W]] {activation = #nn.activation<relu>} : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[P]], %[[B]] : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x32xf32>
func.func @bias_after_activation(%x: tensor<4x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  %p = nn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %r = nn.relu %p : tensor<4x32xf32>
  %y = nn.add %r, %b : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
