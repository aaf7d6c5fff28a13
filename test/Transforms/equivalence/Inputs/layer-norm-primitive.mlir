// The functions of layer-norm-fused.mlir written in primitive ops:
// mean, centre, mean of squares (the biased variance), + epsilon, rsqrt,
// scale, affine.

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
  %var = nn.reduce_mean %d2 [2] {keep_dims} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
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
  %z = nn.add %x, %y : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %mu = nn.reduce_mean %z [2] {keep_dims} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %d = nn.sub %z, %mu : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %var = nn.reduce_mean %d2 [2] {keep_dims} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %sd = nn.sqrt %ve : tensor<2x3x1xf32>
  %n = nn.div %d, %sd : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %s = nn.mul %g, %n : (tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %0 = nn.add %s, %b : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

func.func @two_axes(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %g = nn.param_load @norm2.weight : tensor<3x8xf32>
  %b = nn.param_load @norm2.bias : tensor<3x8xf32>
  %mu = nn.reduce_mean %x [1, 2] {keep_dims} : tensor<2x3x8xf32> -> tensor<2x1x1xf32>
  %d = nn.sub %x, %mu : (tensor<2x3x8xf32>, tensor<2x1x1xf32>) -> tensor<2x3x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %var = nn.reduce_mean %d2 [1, 2] {keep_dims} : tensor<2x3x8xf32> -> tensor<2x1x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %r = nn.rsqrt %ve : tensor<2x1x1xf32>
  %n = nn.mul %d, %r : (tensor<2x3x8xf32>, tensor<2x1x1xf32>) -> tensor<2x3x8xf32>
  %s = nn.mul %n, %g : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  %0 = nn.add %s, %b : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// The variance as mean(x²) - mean(x)².
func.func @large_epsilon(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %x2 = nn.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %m2 = nn.reduce_mean %x2 [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %mu2 = nn.mul %mu, %mu : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %var = nn.sub %m2, %mu2 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %eps = arith.constant dense<0.5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %d = nn.sub %x, %mu : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %n = nn.mul %d, %r : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %s = nn.mul %n, %g : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = nn.add %s, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
