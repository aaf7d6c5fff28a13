// The functions of attention-fused.mlir written in primitive ops.

func.func @plain(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %ss = nn.div %s, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %p = nn.softmax %ss {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %0 = nn.matmul %p, %v : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

func.func @causal(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %c = arith.constant dense<0.5> : tensor<f32>
  %ss = nn.mul %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %tri = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %sm = nn.masked_fill %ss, %tri, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %sm {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %0 = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %0 : tensor<2x2x4x4xf32>
}

func.func @causal_cross(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %ss = nn.div %s, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %tri = nn.triangular_mask {diagonal = 1 : i64} : tensor<3x5xi1>
  %sm = nn.masked_fill %ss, %tri, 0xFFF0000000000000 : (tensor<2x2x3x5xf32>, tensor<3x5xi1>) -> tensor<2x2x3x5xf32>
  %p = nn.softmax %sm {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %0 = nn.matmul %p, %v : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

func.func @key_padding(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x2x3x4xf32> {
  %pad = arith.constant dense<0> : tensor<i64>
  %eq = nn.compare eq, %tokens, %pad : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %m = nn.reshape %eq [2, 1, 1, 5] : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %ss = nn.div %s, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %sm = nn.masked_fill %ss, %m, 0xFFF0000000000000 : (tensor<2x2x3x5xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x5xf32>
  %p = nn.softmax %sm {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %0 = nn.matmul %p, %v : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

func.func @key_padding_fill(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x2x3x4xf32> {
  %pad = arith.constant dense<0> : tensor<i64>
  %eq = nn.compare eq, %tokens, %pad : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %m = nn.reshape %eq [2, 1, 1, 5] : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %ss = nn.div %s, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %sm = nn.masked_fill %ss, %m, -1.0e9 : (tensor<2x2x3x5xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x5xf32>
  %p = nn.softmax %sm {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %0 = nn.matmul %p, %v : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

func.func @fully_masked(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %m = arith.constant dense<[[[[false, true, false, false, true]]], [[[true, true, true, true, true]]]]> : tensor<2x1x1x5xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %ss = nn.div %s, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %sm = nn.masked_fill %ss, %m, -1.0e9 : (tensor<2x2x3x5xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x5xf32>
  %p = nn.softmax %sm {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %0 = nn.matmul %p, %v : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

func.func @additive(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x4xf32>, %bias: tensor<3x5xf32>) -> tensor<2x2x3x4xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %ss = nn.div %s, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %sm = nn.add %ss, %bias : (tensor<2x2x3x5xf32>, tensor<3x5xf32>) -> tensor<2x2x3x5xf32>
  %p = nn.softmax %sm {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %0 = nn.matmul %p, %v : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

func.func @causal_padding(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>, %tokens: tensor<2x4xi64>) -> tensor<2x2x4x4xf32> {
  %pad = arith.constant dense<0> : tensor<i64>
  %eq = nn.compare eq, %tokens, %pad : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
  %m = nn.reshape %eq [2, 1, 1, 4] : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %ss = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %tri = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %s1 = nn.masked_fill %ss, %tri, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %s2 = nn.masked_fill %s1, %m, -1.0e9 : (tensor<2x2x4x4xf32>, tensor<2x1x1x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %s2 {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %0 = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  return %0 : tensor<2x2x4x4xf32>
}

func.func @dropout(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32> {
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %ss = nn.div %s, %c : (tensor<2x2x3x5xf32>, tensor<f32>) -> tensor<2x2x3x5xf32>
  %p = nn.softmax %ss {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %pd = nn.dropout %p {rate = 0.1 : f64} : tensor<2x2x3x5xf32>
  %0 = nn.matmul %pd, %v : (tensor<2x2x3x5xf32>, tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32>
  return %0 : tensor<2x2x3x6xf32>
}
