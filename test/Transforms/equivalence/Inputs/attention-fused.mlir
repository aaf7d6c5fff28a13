// nn.attention in each of its forms. harness.test compares every function
// with its namesake in attention-primitive.mlir, the same attention written
// in primitive ops as the importer expands it, so that the evaluator's
// reading of nn.attention is checked against docs/dialect/nn.md rather than
// against itself.

// softmax(0.5 q kᵀ) v, with a cross-attention shape (sq 3, sk 5).
func.func @plain(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %0 = nn.attention %q, %k, %v {scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

func.func @causal(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %0 = nn.attention %q, %k, %v {causal, scale = 0.5 : f64} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %0 : tensor<2x2x4x4xf32>
}

// Causal with sq != sk hides j > i, as triangular_mask {diagonal = 1} does.
func.func @causal_cross(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %0 = nn.attention %q, %k, %v {causal, scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// A key-padding mask from token ids, hidden keys at -inf.
func.func @key_padding(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x2x3x4xf32> {
  %pad = arith.constant dense<0> : tensor<i64>
  %eq = nn.compare eq, %tokens, %pad : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %m = nn.reshape %eq [2, 1, 1, 5] : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %0 = nn.attention %q, %k, %v mask %m {scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// The same with the finite fill of masked_fill(-1e9).
func.func @key_padding_fill(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x2x3x4xf32> {
  %pad = arith.constant dense<0> : tensor<i64>
  %eq = nn.compare eq, %tokens, %pad : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %m = nn.reshape %eq [2, 1, 1, 5] : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %0 = nn.attention %q, %k, %v mask %m {mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// Every key of batch 1 hidden: -1e9 leaves its rows uniform, not NaN.
func.func @fully_masked(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %m = arith.constant dense<[[[[false, true, false, false, true]]], [[[true, true, true, true, true]]]]> : tensor<2x1x1x5xi1>
  %0 = nn.attention %q, %k, %v mask %m {mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// An additive float mask of lower rank, broadcast over batch and heads.
func.func @additive(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %bias: tensor<3x5xf32>) -> tensor<2x2x3x4xf32> {
  %0 = nn.attention %q, %k, %v mask %bias {scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<3x5xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// Causal and a key-padding mask with a finite fill: causal hides first,
// then the mask overwrites the keys it hides with -1e9.
func.func @causal_padding(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>, %tokens: tensor<2x4xi64>) -> tensor<2x2x4x4xf32> {
  %pad = arith.constant dense<0> : tensor<i64>
  %eq = nn.compare eq, %tokens, %pad : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %m = nn.reshape %eq [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %0 = nn.attention %q, %k, %v mask %m {causal, mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  return %0 : tensor<2x2x4x4xf32>
}

// Attention dropout is the identity in inference; dv may differ from dk.
func.func @dropout(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32> {
  %0 = nn.attention %q, %k, %v {dropout = 0.1 : f64, scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32>
  return %0 : tensor<2x2x3x6xf32>
}
