// Near misses of attention-primitive.mlir that harness.test expects the
// harness to reject: the wrong scale, a lost causal mask, and the -inf fill
// where the primitive graph fills with -1e9 (NaN rows instead of uniform).

func.func @plain(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %0 = nn.attention %q, %k, %v {scale = 0.25 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

func.func @causal(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %0 = nn.attention %q, %k, %v {scale = 0.5 : f64} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %0 : tensor<2x2x4x4xf32>
}

func.func @fully_masked(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %m = arith.constant dense<[[[[false, true, false, false, true]]], [[[true, true, true, true, true]]]]> : tensor<2x1x1x5xi1>
  %0 = nn.attention %q, %k, %v mask %m {scale = 0.5 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}
