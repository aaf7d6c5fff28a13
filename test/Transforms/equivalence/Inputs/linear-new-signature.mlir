// linear.mlir returning its result flattened to [6, 6].
nn.parameter @fc.weight : tensor<6x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @fc.bias : tensor<6xf32> init #nn.init<uniform(-0.35, 0.35)>

func.func @linear(%x: tensor<2x3x8xf32>) -> tensor<6x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %0 = nn.fused_matmul %x, %w bias %b {transpose_rhs} : (tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  %1 = nn.reshape %0 [6, 6] : tensor<2x3x6xf32> -> tensor<6x6xf32>
  return %1 : tensor<6x6xf32>
}
