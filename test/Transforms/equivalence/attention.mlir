// Equivalence of nn-fuse-attention (alone, and in the whole fuse phase) on
// the forms of attention it must fuse and on some it must leave alone:
// check_equivalence.py runs every function before and after the passes on
// the same random inputs and parameters and compares the results to 1e-5.
//
// RUN: %python %pytest_dir/check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-attention" %s
// RUN: %python %pytest_dir/check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-attention --canonicalize --nn-fuse-layer-norm --canonicalize --nn-fuse-qkv-projections --canonicalize --nn-fuse-matmul-epilogue --canonicalize" %s

nn.parameter @mha.w_q.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @mha.w_q.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @mha.w_k.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @mha.w_k.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @mha.w_v.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @mha.w_v.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @mha.w_o.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @mha.w_o.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>

//===----------------------------------------------------------------------===//
// Scales
//===----------------------------------------------------------------------===//

// Scores divided by sqrt(d) = 2.
func.func @scores_div_sqrt_d(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// Scores multiplied by 1/sqrt(d), the constant on the left and broadcast
// from a [1, 1, 1, 1] splat.
func.func @scores_mul_inv_sqrt_d(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<0.5> : tensor<1x1x1x1xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.mul %c, %s : (tensor<1x1x1x1xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// q and k each divided by d^(1/4) = sqrt(2).
func.func @qk_div_fourth_root(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<1.41421354> : tensor<f32>
  %qs = nn.div %q, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %ks = nn.div %k, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %kt = nn.transpose %ks [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %qs, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %s {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// The d^(1/4) scales applied to [b, s, h*d] projections, before the heads
// are split; k is transposed to [b, h, d, s] in one permutation.
func.func @qk_scaled_before_split(%xq: tensor<2x4x8xf32>, %xk: tensor<2x4x8xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<1.41421354> : tensor<f32>
  %qs = nn.div %xq, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %ks = nn.div %xk, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %qr = nn.reshape %qs [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = nn.transpose %qr [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %kr = nn.reshape %ks [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %kt = nn.transpose %kr [0, 2, 3, 1] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %s {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// Scale applied after the mask: the fill is scaled with the scores.
func.func @scale_after_mask(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>, %tokens: tensor<2x4xi64>) -> tensor<2x2x4x4xf32> {
  %zero = arith.constant dense<0> : tensor<i64>
  %pad = nn.compare eq, %tokens, %zero : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %m = nn.reshape %pad [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %f = nn.masked_fill %s, %m, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %d = nn.div %f, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

//===----------------------------------------------------------------------===//
// Causal masks
//===----------------------------------------------------------------------===//

// masked_fill of nn.triangular_mask with -inf.
func.func @causal_triangular_inf(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %m = nn.masked_fill %d, %future, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// masked_fill of nn.triangular_mask with -1e9.
func.func @causal_triangular_1e9(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<0.5> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.mul %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %m = nn.masked_fill %d, %future, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// An additive -inf causal constant.
func.func @causal_additive_inf(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %bias = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %m = nn.add %d, %bias : (tensor<2x2x4x4xf32>, tensor<4x4xf32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// An additive -1e9 causal constant, on the left of the add.
func.func @causal_additive_1e9(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %bias = arith.constant dense<[[[[0.0, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %m = nn.add %bias, %d : (tensor<1x1x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// A triangular mask whose diagonal is 2 is not causal: it stays a mask.
func.func @not_causal_diagonal_2(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %far = nn.triangular_mask {diagonal = 2 : i64} : tensor<4x4xi1>
  %m = nn.masked_fill %s, %far, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

//===----------------------------------------------------------------------===//
// Padding and float masks
//===----------------------------------------------------------------------===//

// Key padding: compare eq(tokens, 0) reshaped to [b, 1, 1, sk], -inf.
func.func @key_padding_inf(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x2x4x4xf32> {
  %zero = arith.constant dense<0> : tensor<i64>
  %pad = nn.compare eq, %tokens, %zero : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %m = nn.reshape %pad [2, 1, 1, 5] : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x4x5xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x5xf32>, tensor<f32>) -> tensor<2x2x4x5xf32>
  %f = nn.masked_fill %d, %m, 0xFFF0000000000000 : (tensor<2x2x4x5xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x4x5xf32>
  %p = nn.softmax %f {axis = 3 : i64} : tensor<2x2x4x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// Key padding filled with -1e9; batch 1 is all padding, so its rows are
// uniform (NaN with an -inf fill): the fill must be kept.
func.func @key_padding_1e9(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<1x5xi64>) -> tensor<2x2x4x4xf32> {
  %zero = arith.constant dense<0> : tensor<1x5xi64>
  %all = nn.concat %tokens, %zero {axis = 0 : i64} : (tensor<1x5xi64>, tensor<1x5xi64>) -> tensor<2x5xi64>
  %zs = arith.constant dense<0> : tensor<i64>
  %pad = nn.compare eq, %all, %zs : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %m = nn.reshape %pad [2, 1, 1, 5] : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x4x5xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x5xf32>, tensor<f32>) -> tensor<2x2x4x5xf32>
  %f = nn.masked_fill %d, %m, -1.0e9 : (tensor<2x2x4x5xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x4x5xf32>
  %p = nn.softmax %f {axis = 3 : i64} : tensor<2x2x4x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// An additive -1e9 padding mask: cast(tokens == 0) * -1e9.
func.func @additive_padding_1e9(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x2x4x4xf32> {
  %zero = arith.constant dense<0> : tensor<i64>
  %pad = nn.compare eq, %tokens, %zero : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %padf = nn.cast %pad to f32 : tensor<2x5xi1> -> tensor<2x5xf32>
  %big = arith.constant dense<-1.0e9> : tensor<f32>
  %add = nn.mul %padf, %big : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x5xf32>
  %m = nn.reshape %add [2, 1, 1, 5] : tensor<2x5xf32> -> tensor<2x1x1x5xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x4x5xf32>
  %c = arith.constant dense<0.5> : tensor<f32>
  %d = nn.mul %s, %c : (tensor<2x2x4x5xf32>, tensor<f32>) -> tensor<2x2x4x5xf32>
  %f = nn.add %d, %m : (tensor<2x2x4x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x2x4x5xf32>
  %p = nn.softmax %f {axis = 3 : i64} : tensor<2x2x4x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// An additive -inf padding mask from a where-like masked_fill of zeros.
func.func @additive_padding_inf(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x2x4x4xf32> {
  %zero = arith.constant dense<0> : tensor<i64>
  %pad = nn.compare eq, %tokens, %zero : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %zeros = arith.constant dense<0.0> : tensor<2x5xf32>
  %add = nn.masked_fill %zeros, %pad, 0xFFF0000000000000 : (tensor<2x5xf32>, tensor<2x5xi1>) -> tensor<2x5xf32>
  %m = nn.reshape %add [2, 1, 1, 5] : tensor<2x5xf32> -> tensor<2x1x1x5xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x4x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %d = nn.div %s, %c : (tensor<2x2x4x5xf32>, tensor<f32>) -> tensor<2x2x4x5xf32>
  %f = nn.add %m, %d : (tensor<2x1x1x5xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x4x5xf32>
  %p = nn.softmax %f {axis = 3 : i64} : tensor<2x2x4x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// A 0/1 float keep-mask turned additive: (1 - m) * -1e9, then scaled.
func.func @float_01_mask(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x2x4x4xf32> {
  %zero = arith.constant dense<0> : tensor<i64>
  %real = nn.compare ne, %tokens, %zero : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %keep = nn.cast %real to f32 : tensor<2x5xi1> -> tensor<2x5xf32>
  %keep4 = nn.reshape %keep [2, 1, 1, 5] : tensor<2x5xf32> -> tensor<2x1x1x5xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %inv = nn.sub %one, %keep4 : (tensor<f32>, tensor<2x1x1x5xf32>) -> tensor<2x1x1x5xf32>
  %big = arith.constant dense<-1.0e9> : tensor<f32>
  %add = nn.mul %inv, %big : (tensor<2x1x1x5xf32>, tensor<f32>) -> tensor<2x1x1x5xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x4x5xf32>
  %f = nn.add %s, %add : (tensor<2x2x4x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x2x4x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %d = nn.div %f, %c : (tensor<2x2x4x5xf32>, tensor<f32>) -> tensor<2x2x4x5xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x2x4x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// A random additive float mask of lower rank.
func.func @additive_float_input(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %bias: tensor<4x5xf32>) -> tensor<2x2x4x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x4x5xf32>
  %f = nn.add %s, %bias : (tensor<2x2x4x5xf32>, tensor<4x5xf32>) -> tensor<2x2x4x5xf32>
  %p = nn.softmax %f {axis = 3 : i64} : tensor<2x2x4x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// Causal masking and key padding together, the decoder's self-attention.
// Every sequence starts with a pad token (left padding), so query 0 sees
// no key but padding: whether such a row ends up uniform, NaN, or on key 0
// depends on each fill and on the order of the two masked_fills, which the
// fused op must reproduce.

// Causal at -1e9, then padding at -inf.
func.func @causal_1e9_then_padding_inf(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>, %tokens: tensor<2x3xi64>) -> tensor<2x2x4x4xf32> {
  %bos = arith.constant dense<0> : tensor<2x1xi64>
  %all = nn.concat %bos, %tokens {axis = 1 : i64} : (tensor<2x1xi64>, tensor<2x3xi64>) -> tensor<2x4xi64>
  %zero = arith.constant dense<0> : tensor<i64>
  %padt = nn.compare eq, %all, %zero : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %pad = nn.reshape %padt [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %m1 = nn.masked_fill %s, %future, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %m2 = nn.masked_fill %m1, %pad, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m2 {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// Causal then padding, both at -1e9 (the Annotated Transformer's decoder).
func.func @causal_then_padding_1e9(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>, %tokens: tensor<2x3xi64>) -> tensor<2x2x4x4xf32> {
  %bos = arith.constant dense<0> : tensor<2x1xi64>
  %all = nn.concat %bos, %tokens {axis = 1 : i64} : (tensor<2x1xi64>, tensor<2x3xi64>) -> tensor<2x4xi64>
  %zero = arith.constant dense<0> : tensor<i64>
  %padt = nn.compare eq, %all, %zero : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %pad = nn.reshape %padt [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %m1 = nn.masked_fill %d, %future, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %m2 = nn.masked_fill %m1, %pad, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m2 {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// Padding at -1e9 first, then causal at -inf.
func.func @padding_1e9_then_causal_inf(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>, %tokens: tensor<2x3xi64>) -> tensor<2x2x4x4xf32> {
  %bos = arith.constant dense<0> : tensor<2x1xi64>
  %all = nn.concat %bos, %tokens {axis = 1 : i64} : (tensor<2x1xi64>, tensor<2x3xi64>) -> tensor<2x4xi64>
  %zero = arith.constant dense<0> : tensor<i64>
  %padt = nn.compare eq, %all, %zero : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %pad = nn.reshape %padt [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %m1 = nn.masked_fill %d, %pad, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %m2 = nn.masked_fill %m1, %future, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m2 {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// Padding then causal, both at -inf: rows with no visible key are NaN on
// both sides.
func.func @padding_then_causal_inf(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>, %tokens: tensor<2x3xi64>) -> tensor<2x2x4x4xf32> {
  %bos = arith.constant dense<0> : tensor<2x1xi64>
  %all = nn.concat %bos, %tokens {axis = 1 : i64} : (tensor<2x1xi64>, tensor<2x3xi64>) -> tensor<2x4xi64>
  %zero = arith.constant dense<0> : tensor<i64>
  %padt = nn.compare eq, %all, %zero : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %pad = nn.reshape %padt [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %m1 = nn.masked_fill %d, %pad, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %m2 = nn.masked_fill %m1, %future, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m2 {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

// Causal and padding from random tokens: most sequences do not start with
// a pad, as in right-padded batches.
func.func @causal_and_padding_right(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>, %tokens: tensor<2x4xi64>) -> tensor<2x2x4x4xf32> {
  %zero = arith.constant dense<0> : tensor<i64>
  %padt = nn.compare eq, %tokens, %zero : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %pad = nn.reshape %padt [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %m1 = nn.masked_fill %d, %future, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %m2 = nn.masked_fill %m1, %pad, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %m2 {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

//===----------------------------------------------------------------------===//
// Head layouts, cross attention, dropout
//===----------------------------------------------------------------------===//

// Multi-head self-attention as the importer writes it: Linear q/k/v, heads
// split by reshape + transpose, scale, key padding, softmax, heads merged,
// output Linear.
func.func @mha_heads_split(%x: tensor<2x4x8xf32>, %tokens: tensor<2x4xi64>) -> tensor<2x4x8xf32> {
  %wq = nn.param_load @mha.w_q.weight : tensor<8x8xf32>
  %bq = nn.param_load @mha.w_q.bias : tensor<8xf32>
  %wk = nn.param_load @mha.w_k.weight : tensor<8x8xf32>
  %bk = nn.param_load @mha.w_k.bias : tensor<8xf32>
  %wv = nn.param_load @mha.w_v.weight : tensor<8x8xf32>
  %bv = nn.param_load @mha.w_v.bias : tensor<8xf32>
  %wo = nn.param_load @mha.w_o.weight : tensor<8x8xf32>
  %bo = nn.param_load @mha.w_o.bias : tensor<8xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q0 = nn.matmul %x, %wqt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q1 = nn.add %q0, %bq : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k0 = nn.matmul %x, %wkt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %k1 = nn.add %k0, %bk : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v0 = nn.matmul %x, %wvt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %v1 = nn.add %v0, %bv : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %qr = nn.reshape %q1 [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = nn.transpose %qr [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %kr = nn.reshape %k1 [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k = nn.transpose %kr [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %vr = nn.reshape %v1 [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = nn.transpose %vr [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %zero = arith.constant dense<0> : tensor<i64>
  %padt = nn.compare eq, %tokens, %zero : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %pad = nn.reshape %padt [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %f = nn.masked_fill %d, %pad, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %f {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %pd = nn.dropout %p {rate = 0.1 : f64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %pd, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %ot = nn.transpose %o [0, 2, 1, 3] : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %om = nn.reshape %ot [2, 4, 8] : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
  %wot = nn.transpose %wo [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %y0 = nn.matmul %om, %wot : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %y0, %bo : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// Heads folded into the batch: [b*h, s, d], causal.
func.func @heads_folded_causal(%q: tensor<4x4x4xf32>, %k: tensor<4x4x4xf32>, %v: tensor<4x4x4xf32>) -> tensor<4x4x4xf32> {
  %kt = nn.transpose %k [0, 2, 1] : tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %d = nn.div %s, %c : (tensor<4x4x4xf32>, tensor<f32>) -> tensor<4x4x4xf32>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %m = nn.masked_fill %d, %future, 0xFFF0000000000000 : (tensor<4x4x4xf32>, tensor<4x4xi1>) -> tensor<4x4x4xf32>
  %p = nn.softmax %m {axis = 2 : i64} : tensor<4x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<4x4x4xf32>, tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  return %o : tensor<4x4x4xf32>
}

// Heads folded into the batch, cross attention (sq 3, sk 5), a [b*h, 1, sk]
// padding mask, dv 2.
func.func @heads_folded_padding(%q: tensor<4x3x4xf32>, %k: tensor<4x5x4xf32>, %v: tensor<4x5x2xf32>, %mask: tensor<4x1x5xi1>) -> tensor<4x3x2xf32> {
  %kt = nn.transpose %k [0, 2, 1] : tensor<4x5x4xf32> -> tensor<4x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<4x3x4xf32>, tensor<4x4x5xf32>) -> tensor<4x3x5xf32>
  %c = arith.constant dense<0.5> : tensor<f32>
  %d = nn.mul %s, %c : (tensor<4x3x5xf32>, tensor<f32>) -> tensor<4x3x5xf32>
  %m = nn.masked_fill %d, %mask, -1.0e9 : (tensor<4x3x5xf32>, tensor<4x1x5xi1>) -> tensor<4x3x5xf32>
  %p = nn.softmax %m {axis = 2 : i64} : tensor<4x3x5xf32>
  %o = nn.matmul %p, %v : (tensor<4x3x5xf32>, tensor<4x5x2xf32>) -> tensor<4x3x2xf32>
  return %o : tensor<4x3x2xf32>
}

// Cross attention: queries from the decoder (sq 3), keys and values from
// the encoder's memory (sk 5), the memory's padding mask.
func.func @cross_attention(%x: tensor<2x3x8xf32>, %memory: tensor<2x5x8xf32>, %src: tensor<2x5xi64>) -> tensor<2x3x8xf32> {
  %wq = nn.param_load @mha.w_q.weight : tensor<8x8xf32>
  %bq = nn.param_load @mha.w_q.bias : tensor<8xf32>
  %wk = nn.param_load @mha.w_k.weight : tensor<8x8xf32>
  %bk = nn.param_load @mha.w_k.bias : tensor<8xf32>
  %wv = nn.param_load @mha.w_v.weight : tensor<8x8xf32>
  %bv = nn.param_load @mha.w_v.bias : tensor<8xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q0 = nn.matmul %x, %wqt : (tensor<2x3x8xf32>, tensor<8x8xf32>) -> tensor<2x3x8xf32>
  %q1 = nn.add %q0, %bq : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k0 = nn.matmul %memory, %wkt : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %k1 = nn.add %k0, %bk : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v0 = nn.matmul %memory, %wvt : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %v1 = nn.add %v0, %bv : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %qr = nn.reshape %q1 [2, 3, 2, 4] : tensor<2x3x8xf32> -> tensor<2x3x2x4xf32>
  %q = nn.transpose %qr [0, 2, 1, 3] : tensor<2x3x2x4xf32> -> tensor<2x2x3x4xf32>
  %kr = nn.reshape %k1 [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %kt = nn.transpose %kr [0, 2, 3, 1] : tensor<2x5x2x4xf32> -> tensor<2x2x4x5xf32>
  %vr = nn.reshape %v1 [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %v = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %d = nn.div %s, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %zero = arith.constant dense<0> : tensor<i64>
  %padt = nn.compare eq, %src, %zero : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %pad = nn.reshape %padt [2, 1, 1, 5] : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %f = nn.masked_fill %d, %pad, 0xFFF0000000000000 : (tensor<2x2x3x5xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x5xf32>
  %p = nn.softmax %f {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  %ot = nn.transpose %o [0, 2, 1, 3] : tensor<2x2x3x4xf32> -> tensor<2x3x2x4xf32>
  %om = nn.reshape %ot [2, 3, 8] : tensor<2x3x2x4xf32> -> tensor<2x3x8xf32>
  return %om : tensor<2x3x8xf32>
}

// Dropout on the probabilities, before the product with v.
func.func @attention_dropout(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %pd = nn.dropout %p {rate = 0.1 : f64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %pd, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}

//===----------------------------------------------------------------------===//
// Forms to leave alone (still equivalent, trivially)
//===----------------------------------------------------------------------===//

// The attention weights are returned too.
func.func @probabilities_returned(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) {
  %c = arith.constant dense<2.0> : tensor<f32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %d {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o, %p : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
}

// A softmax over the queries.
func.func @softmax_over_queries(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %s {axis = 2 : i64} : tensor<2x2x4x4xf32>
  %o = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %o : tensor<2x2x4x4xf32>
}
