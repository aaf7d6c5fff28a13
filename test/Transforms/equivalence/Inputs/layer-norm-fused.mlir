// nn.layer_norm in each of its forms; harness.test compares every function
// with its namesake in layer-norm-primitive.mlir, the normalisation written
// in primitive ops as the importer expands it.

nn.parameter @norm.weight : tensor<8xf32> init #nn.init<ones>
nn.parameter @norm.bias : tensor<8xf32> init #nn.init<zeros>
nn.parameter @norm2.weight : tensor<3x8xf32> init #nn.init<ones>
nn.parameter @norm2.bias : tensor<3x8xf32> init #nn.init<zeros>

func.func @last_axis(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %0 = nn.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// The post-LN sublayer connection: the residual is added first.
func.func @residual(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %0 = nn.layer_norm %x + %y, %g, %b {axis = 2 : i64, epsilon = 1.0e-6 : f64} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// Over the last two dimensions, with [3, 8] gamma and beta.
func.func @two_axes(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %g = nn.param_load @norm2.weight : tensor<3x8xf32>
  %b = nn.param_load @norm2.bias : tensor<3x8xf32>
  %0 = nn.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// A large epsilon, so that getting it wrong shows.
func.func @large_epsilon(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %0 = nn.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 0.5 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
