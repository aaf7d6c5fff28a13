// Near misses of fused-matmul-primitive.mlir that harness.test expects the
// harness to reject: the tanh approximation for the exact GELU (a 1e-4
// difference), and the activation applied before the bias.

nn.parameter @fc.weight : tensor<6x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @fc.bias : tensor<6xf32> init #nn.init<uniform(-0.35, 0.35)>

func.func @gelu(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %0 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<gelu_tanh>, transpose_rhs} : (tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

func.func @relu(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %m = nn.fused_matmul %x, %w {activation = #nn.activation<relu>, transpose_rhs} : (tensor<2x3x8xf32>, tensor<6x8xf32>) -> tensor<2x3x6xf32>
  %0 = nn.add %m, %b : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}
