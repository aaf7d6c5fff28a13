// linear.mlir with its weight pre-transposed into a new parameter: what a
// pass may not do (it may only add views such as concat/slice of the
// existing parameters).
nn.parameter @fc.weight : tensor<6x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @fc.bias : tensor<6xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @fc.weight_t : tensor<8x6xf32> init #nn.init<uniform(-0.35, 0.35)>

func.func @linear(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %wt = nn.param_load @fc.weight_t : tensor<8x6xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %m = nn.matmul %x, %wt : (tensor<2x3x8xf32>, tensor<8x6xf32>) -> tensor<2x3x6xf32>
  %0 = nn.add %m, %b : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}
