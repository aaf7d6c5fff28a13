// A Linear layer; harness.test compares it with linear-new-param.mlir and
// linear-new-signature.mlir, which differ in their parameters and in the
// function's type.
nn.parameter @fc.weight : tensor<6x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @fc.bias : tensor<6xf32> init #nn.init<uniform(-0.35, 0.35)>

func.func @linear(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %wt = nn.transpose %w [1, 0] : tensor<6x8xf32> -> tensor<8x6xf32>
  %m = nn.matmul %x, %wt : (tensor<2x3x8xf32>, tensor<8x6xf32>) -> tensor<2x3x6xf32>
  %0 = nn.add %m, %b : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}
