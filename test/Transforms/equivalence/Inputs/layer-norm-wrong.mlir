// Near misses of layer-norm-primitive.mlir that harness.test expects the
// harness to reject: the unbiased variance (n - 1), epsilon outside the
// square root, and the residual left out.

nn.parameter @norm.weight : tensor<8xf32> init #nn.init<ones>
nn.parameter @norm.bias : tensor<8xf32> init #nn.init<zeros>
nn.parameter @norm2.weight : tensor<3x8xf32> init #nn.init<ones>
nn.parameter @norm2.bias : tensor<3x8xf32> init #nn.init<zeros>

func.func @last_axis(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %d = nn.sub %x, %mu : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %ss = nn.reduce_sum %d2 [2] {keep_dims} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %n1 = arith.constant dense<7.0> : tensor<f32>
  %var = nn.div %ss, %n1 : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %r = nn.rsqrt %ve : tensor<2x3x1xf32>
  %n = nn.mul %d, %r : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %s = nn.mul %n, %g : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %0 = nn.add %s, %b : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

func.func @residual(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %0 = nn.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-6 : f64} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

func.func @large_epsilon(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = nn.sub %x, %mu : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %var = nn.reduce_mean %d2 [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %sd = nn.sqrt %var : tensor<4x1xf32>
  %eps = arith.constant dense<0.5> : tensor<f32>
  %se = nn.add %sd, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %n = nn.div %d, %se : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %s = nn.mul %n, %g : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = nn.add %s, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
