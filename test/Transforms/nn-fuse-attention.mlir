// RUN: transfuse-opt %s -split-input-file -nn-fuse-attention | FileCheck %s

// Scale on the scores, as a division by sqrt(d): scale = 1/sqrt(8).
// CHECK-LABEL: func.func @scores_div
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x4x5x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK-NEXT:    %[[O:.*]] = nn.attention %[[Q]], %[[K]], %[[V]] {scale = 0.35355339{{[0-9]*}} : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
// CHECK-NEXT:    return %[[O]]
func.func @scores_div(%q: tensor<2x4x5x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32> {
  %c = arith.constant dense<2.82842712> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x4x5x8xf32> -> tensor<2x4x8x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x4x5x8xf32>, tensor<2x4x8x5xf32>) -> tensor<2x4x5x5xf32>
  %d = nn.div %s, %c : (tensor<2x4x5x5xf32>, tensor<f32>) -> tensor<2x4x5x5xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x4x5x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x4x5x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
  return %o : tensor<2x4x5x8xf32>
}

// -----

// Scale on the scores as a product with 1/sqrt(d), constant on the left.
// CHECK-LABEL: func.func @scores_mul
// CHECK:         nn.attention %{{.*}} {scale = 1.250000e-01 : f64}
// CHECK-NOT:     nn.softmax
func.func @scores_mul(%q: tensor<1x2x3x64xf32>, %k: tensor<1x2x3x64xf32>, %v: tensor<1x2x3x64xf32>) -> tensor<1x2x3x64xf32> {
  %c = arith.constant dense<0.125> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x2x3x64xf32> -> tensor<1x2x64x3xf32>
  %s = nn.matmul %q, %kt : (tensor<1x2x3x64xf32>, tensor<1x2x64x3xf32>) -> tensor<1x2x3x3xf32>
  %d = nn.mul %c, %s : (tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<1x2x3x3xf32>
  %o = nn.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x64xf32>) -> tensor<1x2x3x64xf32>
  return %o : tensor<1x2x3x64xf32>
}

// -----

// q and k each divided by d^(1/4) = 2 (d = 16, settable independently of the
// head width): the product scale is 1/4.
// CHECK-LABEL: func.func @qk_fourth_root
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x4x5x8xf32>, %[[K:.*]]: tensor<2x4x5x8xf32>, %[[V:.*]]: tensor<2x4x5x8xf32>)
// CHECK-NEXT:    nn.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f64}
// CHECK-NOT:     nn.div
func.func @qk_fourth_root(%q: tensor<2x4x5x8xf32>, %k: tensor<2x4x5x8xf32>, %v: tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %qs = nn.div %q, %c : (tensor<2x4x5x8xf32>, tensor<f32>) -> tensor<2x4x5x8xf32>
  %ks = nn.div %k, %c : (tensor<2x4x5x8xf32>, tensor<f32>) -> tensor<2x4x5x8xf32>
  %kt = nn.transpose %ks [0, 1, 3, 2] : tensor<2x4x5x8xf32> -> tensor<2x4x8x5xf32>
  %s = nn.matmul %qs, %kt : (tensor<2x4x5x8xf32>, tensor<2x4x8x5xf32>) -> tensor<2x4x5x5xf32>
  %p = nn.softmax %s {axis = 3 : i64} : tensor<2x4x5x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x4x5x5xf32>, tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32>
  return %o : tensor<2x4x5x8xf32>
}

// -----

// The d^(1/4) scales applied before the heads are split by reshape and
// transpose: the split is rebuilt on the unscaled projections.
// CHECK-LABEL: func.func @qk_scaled_before_split
// CHECK-SAME:    (%[[XQ:.*]]: tensor<2x5x8xf32>, %[[XK:.*]]: tensor<2x5x8xf32>, %[[V:.*]]: tensor<2x2x5x4xf32>)
// CHECK-DAG:     %[[QR:.*]] = nn.reshape %[[XQ]] [2, 5, 2, 4]
// CHECK-DAG:     %[[Q:.*]] = nn.transpose %[[QR]] [0, 2, 1, 3]
// CHECK-DAG:     %[[KR:.*]] = nn.reshape %[[XK]] [2, 5, 2, 4]
// CHECK-DAG:     %[[K:.*]] = nn.transpose %[[KR]] [0, 2, 1, 3]
// CHECK:         nn.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f64}
// CHECK-NOT:     nn.div
func.func @qk_scaled_before_split(%xq: tensor<2x5x8xf32>, %xk: tensor<2x5x8xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x5x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %qs = nn.div %xq, %c : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %ks = nn.div %xk, %c : (tensor<2x5x8xf32>, tensor<f32>) -> tensor<2x5x8xf32>
  %qr = nn.reshape %qs [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %q = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %kr = nn.reshape %ks [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %kt = nn.transpose %kr [0, 2, 3, 1] : tensor<2x5x2x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x5x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x5x5xf32>
  %p = nn.softmax %s {axis = 3 : i64} : tensor<2x2x5x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x5x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x5x4xf32>
  return %o : tensor<2x2x5x4xf32>
}

// -----

// Causal masking with masked_fill of a triangular mask and -1e9, after the
// scale: the mask becomes the causal flag, not an operand.
// CHECK-LABEL: func.func @causal_triangular_mask
// CHECK:         nn.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 5.000000e-01 : f64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NOT:     nn.triangular_mask
// CHECK-NOT:     nn.masked_fill
func.func @causal_triangular_mask(%q: tensor<1x2x4x4xf32>, %k: tensor<1x2x4x4xf32>, %v: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %m = nn.masked_fill %d, %future, -1.0e9 : (tensor<1x2x4x4xf32>, tensor<4x4xi1>) -> tensor<1x2x4x4xf32>
  %p = nn.softmax %m {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %o : tensor<1x2x4x4xf32>
}

// -----

// A causal mask written as a boolean constant broadcast from [1, 1, 3, 3].
// CHECK-LABEL: func.func @causal_bool_constant
// CHECK:         nn.attention {{.*}} {causal, scale = 1.000000e+00 : f64}
// CHECK-NOT:     nn.masked_fill
func.func @causal_bool_constant(%q: tensor<2x1x3x4xf32>, %k: tensor<2x1x3x4xf32>, %v: tensor<2x1x3x4xf32>) -> tensor<2x1x3x4xf32> {
  %future = arith.constant dense<[[[[false, true, true], [false, false, true], [false, false, false]]]]> : tensor<1x1x3x3xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x1x3x4xf32> -> tensor<2x1x4x3xf32>
  %s = nn.matmul %q, %kt : (tensor<2x1x3x4xf32>, tensor<2x1x4x3xf32>) -> tensor<2x1x3x3xf32>
  %m = nn.masked_fill %s, %future, 0xFFF0000000000000 : (tensor<2x1x3x3xf32>, tensor<1x1x3x3xi1>) -> tensor<2x1x3x3xf32>
  %p = nn.softmax %m {axis = 3 : i64} : tensor<2x1x3x3xf32>
  %o = nn.matmul %p, %v : (tensor<2x1x3x3xf32>, tensor<2x1x3x4xf32>) -> tensor<2x1x3x4xf32>
  return %o : tensor<2x1x3x4xf32>
}

// -----

// A causal mask as an additive -inf constant.
// CHECK-LABEL: func.func @causal_additive_constant
// CHECK:         nn.attention {{.*}} {causal, scale = 1.000000e+00 : f64}
// CHECK-NOT:     nn.add
func.func @causal_additive_constant(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %future = arith.constant dense<[[0.0, 0xFF800000], [0.0, 0.0]]> : tensor<2x2xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %m = nn.add %s, %future : (tensor<1x1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %m {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----

// Key padding from `tokens == pad`, reshaped to [b, 1, 1, sk], filled with
// -1e9 before the scale of 1/8: the fill the softmax sees is -1.25e8.
// CHECK-LABEL: func.func @key_padding_mask
// CHECK-SAME:    %[[TOKENS:[a-z0-9_]+]]: tensor<2x6xi64>
// CHECK:         %[[PAD:.*]] = nn.compare eq, %[[TOKENS]], %{{.*}} : (tensor<2x6xi64>, tensor<i64>) -> tensor<2x6xi1>
// CHECK:         %[[MASK:.*]] = nn.reshape %[[PAD]] [2, 1, 1, 6]
// CHECK:         nn.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[MASK]] {mask_fill = -1.250000e+08 : f64, scale = 1.250000e-01 : f64} : (tensor<2x4x3x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x3x8xf32>
func.func @key_padding_mask(%q: tensor<2x4x3x8xf32>, %k: tensor<2x4x6x8xf32>, %v: tensor<2x4x6x8xf32>, %tokens: tensor<2x6xi64>) -> tensor<2x4x3x8xf32> {
  %zero = arith.constant dense<0> : tensor<i64>
  %c = arith.constant dense<8.0> : tensor<f32>
  %pad = nn.compare eq, %tokens, %zero : (tensor<2x6xi64>, tensor<i64>) -> tensor<2x6xi1>
  %mask = nn.reshape %pad [2, 1, 1, 6] : tensor<2x6xi1> -> tensor<2x1x1x6xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x4x6x8xf32> -> tensor<2x4x8x6xf32>
  %s = nn.matmul %q, %kt : (tensor<2x4x3x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x3x6xf32>
  %m = nn.masked_fill %s, %mask, -1.0e9 : (tensor<2x4x3x6xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x3x6xf32>
  %d = nn.div %m, %c : (tensor<2x4x3x6xf32>, tensor<f32>) -> tensor<2x4x3x6xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x4x3x6xf32>
  %o = nn.matmul %p, %v : (tensor<2x4x3x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x3x8xf32>
  return %o : tensor<2x4x3x8xf32>
}

// -----

// Causal and key padding together (the decoder's self-attention), both
// filled with -1e9: every hidden key takes the one mask_fill.
// CHECK-LABEL: func.func @causal_and_padding
// CHECK-SAME:    %[[PAD:[a-z0-9_]+]]: tensor<2x1x1x4xi1>
// CHECK:         nn.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[PAD]] {causal, mask_fill = -1.000000e+09 : f64, scale = 1.000000e+00 : f64}
func.func @causal_and_padding(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %pad: tensor<2x1x1x4xi1>) -> tensor<2x2x4x8xf32> {
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x8xf32> -> tensor<2x2x8x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32>) -> tensor<2x2x4x4xf32>
  %m1 = nn.masked_fill %s, %future, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %m2 = nn.masked_fill %m1, %pad, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m2 {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// Must not fuse: causal hidden with -1e9 but padding with -inf. A query
// whose visible keys are all padding sees the future keys at -1e9 here; one
// fill cannot express that.
// CHECK-LABEL: func.func @causal_and_padding_fills_differ
// CHECK-COUNT-2: nn.masked_fill
// CHECK-NOT:     nn.attention
func.func @causal_and_padding_fills_differ(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>, %pad: tensor<2x1x1x4xi1>) -> tensor<2x2x4x8xf32> {
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x8xf32> -> tensor<2x2x8x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x8xf32>, tensor<2x2x8x4xf32>) -> tensor<2x2x4x4xf32>
  %m1 = nn.masked_fill %s, %future, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %m2 = nn.masked_fill %m1, %pad, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m2 {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

// Causal as an additive -inf constant next to an additive padding mask:
// -inf plus anything stays -inf, so the flag is exact.
// CHECK-LABEL: func.func @causal_inf_and_additive_mask
// CHECK-SAME:    %[[M:[a-z0-9_]+]]: tensor<1x1x1x2xf32>
// CHECK:         nn.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[M]] {causal, scale = 1.000000e+00 : f64}
func.func @causal_inf_and_additive_mask(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>, %m: tensor<1x1x1x2xf32>) -> tensor<1x1x2x4xf32> {
  %future = arith.constant dense<[[0.0, 0xFF800000], [0.0, 0.0]]> : tensor<2x2xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %a = nn.add %s, %future : (tensor<1x1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x1x2x2xf32>
  %b = nn.add %a, %m : (tensor<1x1x2x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %b {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----

// Must not fuse: a finite (-1e9) additive causal mask next to an additive
// padding mask differs from the flag on rows that see no key.
// CHECK-LABEL: func.func @causal_finite_and_additive_mask
// CHECK-COUNT-2: nn.add
// CHECK-NOT:     nn.attention
func.func @causal_finite_and_additive_mask(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>, %m: tensor<1x1x1x2xf32>) -> tensor<1x1x2x4xf32> {
  %future = arith.constant dense<[[0.0, -1.0e9], [0.0, 0.0]]> : tensor<2x2xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %a = nn.add %s, %future : (tensor<1x1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x1x2x2xf32>
  %b = nn.add %a, %m : (tensor<1x1x2x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %b {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----

// An additive float mask (here -1e9 where a 0/1 mask is 0, computed in the
// graph) stays an operand; a scale after it is applied to it.
// CHECK-LABEL: func.func @additive_mask_from_01
// CHECK-SAME:    %[[KEEP:[a-z0-9_]+]]: tensor<2x1x1x3xf32>
// CHECK:         %[[INV:.*]] = nn.sub %{{.*}}, %[[KEEP]]
// CHECK:         %[[ADD:.*]] = nn.mul %[[INV]], %{{.*}}
// CHECK:         %[[SCALED:.*]] = nn.mul %[[ADD]], %[[HALF:.*]] : (tensor<2x1x1x3xf32>, tensor<f32>) -> tensor<2x1x1x3xf32>
// CHECK:         nn.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[SCALED]] {scale = 5.000000e-01 : f64} : ({{.*}}, tensor<2x1x1x3xf32>) -> tensor<2x2x3x4xf32>
func.func @additive_mask_from_01(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x3x4xf32>, %v: tensor<2x2x3x4xf32>, %keep: tensor<2x1x1x3xf32>) -> tensor<2x2x3x4xf32> {
  %one = arith.constant dense<1.0> : tensor<f32>
  %big = arith.constant dense<-1.0e9> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %inv = nn.sub %one, %keep : (tensor<f32>, tensor<2x1x1x3xf32>) -> tensor<2x1x1x3xf32>
  %add = nn.mul %inv, %big : (tensor<2x1x1x3xf32>, tensor<f32>) -> tensor<2x1x1x3xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x3x4xf32> -> tensor<2x2x4x3xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x3xf32>) -> tensor<2x2x3x3xf32>
  %m = nn.add %s, %add : (tensor<2x2x3x3xf32>, tensor<2x1x1x3xf32>) -> tensor<2x2x3x3xf32>
  %d = nn.div %m, %two : (tensor<2x2x3x3xf32>, tensor<f32>) -> tensor<2x2x3x3xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x2x3x3xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x3x3xf32>, tensor<2x2x3x4xf32>) -> tensor<2x2x3x4xf32>
  return %o : tensor<2x2x3x4xf32>
}

// -----

// Heads folded into the batch ([b*h, s, d]): reshaped to [b*h, 1, s, d]
// around the fused op, the mask too.
// CHECK-LABEL: func.func @heads_in_batch
// CHECK-SAME:    (%[[Q:.*]]: tensor<6x3x4xf32>, %[[K:.*]]: tensor<6x5x4xf32>, %[[V:.*]]: tensor<6x5x2xf32>, %[[M:.*]]: tensor<6x1x5xi1>)
// CHECK-DAG:     %[[Q4:.*]] = nn.reshape %[[Q]] [6, 1, 3, 4]
// CHECK-DAG:     %[[K4:.*]] = nn.reshape %[[K]] [6, 1, 5, 4]
// CHECK-DAG:     %[[V4:.*]] = nn.reshape %[[V]] [6, 1, 5, 2]
// CHECK-DAG:     %[[M4:.*]] = nn.reshape %[[M]] [6, 1, 1, 5]
// CHECK:         %[[A:.*]] = nn.attention %[[Q4]], %[[K4]], %[[V4]] mask %[[M4]] {mask_fill = -1.000000e+09 : f64, scale = 5.000000e-01 : f64}
// CHECK:         %[[O:.*]] = nn.reshape %[[A]] [6, 3, 2] : tensor<6x1x3x2xf32> -> tensor<6x3x2xf32>
// CHECK:         return %[[O]]
func.func @heads_in_batch(%q: tensor<6x3x4xf32>, %k: tensor<6x5x4xf32>, %v: tensor<6x5x2xf32>, %mask: tensor<6x1x5xi1>) -> tensor<6x3x2xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 2, 1] : tensor<6x5x4xf32> -> tensor<6x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<6x3x4xf32>, tensor<6x4x5xf32>) -> tensor<6x3x5xf32>
  %d = nn.div %s, %c : (tensor<6x3x5xf32>, tensor<f32>) -> tensor<6x3x5xf32>
  %m = nn.masked_fill %d, %mask, -1.0e9 : (tensor<6x3x5xf32>, tensor<6x1x5xi1>) -> tensor<6x3x5xf32>
  %p = nn.softmax %m {axis = 2 : i64} : tensor<6x3x5xf32>
  %o = nn.matmul %p, %v : (tensor<6x3x5xf32>, tensor<6x5x2xf32>) -> tensor<6x3x2xf32>
  return %o : tensor<6x3x2xf32>
}

// -----

// Dropout on the probabilities becomes the op's dropout rate.
// CHECK-LABEL: func.func @dropout_on_probabilities
// CHECK:         nn.attention {{.*}} {dropout = 1.000000e-01 : f64, scale = 1.000000e+00 : f64}
// CHECK-NOT:     nn.dropout
func.func @dropout_on_probabilities(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %s {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %dp = nn.dropout %p {rate = 0.1 : f64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %dp, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----

// Must not fuse: the softmax runs over the queries, not the keys.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK:         nn.softmax %{{.*}} {axis = 2 : i64}
// CHECK-NOT:     nn.attention
func.func @softmax_over_queries(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %s {axis = 2 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----

// Must not fuse: the scale is a runtime value, not a constant.
// CHECK-LABEL: func.func @scale_not_constant
// CHECK:         nn.div
// CHECK:         nn.softmax
// CHECK-NOT:     nn.attention
func.func @scale_not_constant(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>, %t: tensor<f32>) -> tensor<1x1x2x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %d = nn.div %s, %t : (tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----

// Must not fuse: the attention weights are also returned.
// CHECK-LABEL: func.func @probabilities_returned
// CHECK:         %[[P:.*]] = nn.softmax
// CHECK:         nn.matmul %[[P]]
// CHECK-NOT:     nn.attention
func.func @probabilities_returned(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> (tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32>) {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %s {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o, %p : tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32>
}

// -----

// Must not fuse: the raw scores have another user.
// CHECK-LABEL: func.func @scores_reused
// CHECK:         nn.softmax
// CHECK-NOT:     nn.attention
func.func @scores_reused(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> (tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32>) {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %s {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o, %s : tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32>
}

// -----

// Must not fuse: an additive mask that broadcasts the scores to a larger
// shape is not a mask of these scores.
// CHECK-LABEL: func.func @mask_does_not_broadcast_to_scores
// CHECK:         nn.add
// CHECK:         nn.softmax
// CHECK-NOT:     nn.attention
func.func @mask_does_not_broadcast_to_scores(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<3x1x2x4xf32>, %m: tensor<3x1x2x2xf32>) -> tensor<3x1x2x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %a = nn.add %s, %m : (tensor<1x1x2x2xf32>, tensor<3x1x2x2xf32>) -> tensor<3x1x2x2xf32>
  %p = nn.softmax %a {axis = 3 : i64} : tensor<3x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<3x1x2x2xf32>, tensor<3x1x2x4xf32>) -> tensor<3x1x2x4xf32>
  return %o : tensor<3x1x2x4xf32>
}

// -----

// Must not fuse: two masks that are not causal (the op keeps one).
// CHECK-LABEL: func.func @two_padding_masks
// CHECK-COUNT-2: nn.masked_fill
// CHECK-NOT:     nn.attention
func.func @two_padding_masks(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>, %m1: tensor<1x1x1x2xi1>, %m2: tensor<1x1x2x1xi1>) -> tensor<1x1x2x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %a = nn.masked_fill %s, %m1, -1.0e9 : (tensor<1x1x2x2xf32>, tensor<1x1x1x2xi1>) -> tensor<1x1x2x2xf32>
  %b = nn.masked_fill %a, %m2, -1.0e9 : (tensor<1x1x2x2xf32>, tensor<1x1x2x1xi1>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %b {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----

// A triangular mask that is not the causal one (diagonal 0 also hides the
// query's own key) fuses as a mask operand, not as the causal flag.
// CHECK-LABEL: func.func @not_causal_diagonal
// CHECK:         nn.attention {{.*}} mask %{{.*}} {mask_fill = -1.000000e+09 : f64, scale = 1.000000e+00 : f64}
// CHECK-NOT:     causal
func.func @not_causal_diagonal(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %tri = nn.triangular_mask {diagonal = 0 : i64} : tensor<2x2xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %a = nn.masked_fill %s, %tri, -1.0e9 : (tensor<1x1x2x2xf32>, tensor<2x2xi1>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %a {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %o = nn.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----

// Must not fuse: the probabilities pass through something other than
// dropout before meeting v.
// CHECK-LABEL: func.func @probabilities_transformed
// CHECK:         nn.softmax
// CHECK:         nn.exp
// CHECK-NOT:     nn.attention
func.func @probabilities_transformed(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<1x1x2x4xf32> -> tensor<1x1x4x2xf32>
  %s = nn.matmul %q, %kt : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %p = nn.softmax %s {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %e = nn.exp %p : tensor<1x1x2x2xf32>
  %o = nn.matmul %e, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}
