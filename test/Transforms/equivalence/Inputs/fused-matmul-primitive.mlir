// The functions of fused-matmul-fused.mlir written in primitive ops.

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

func.func @relu(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %wt = nn.transpose %w [1, 0] : tensor<6x8xf32> -> tensor<8x6xf32>
  %m = nn.matmul %x, %wt : (tensor<2x3x8xf32>, tensor<8x6xf32>) -> tensor<2x3x6xf32>
  %a = nn.add %m, %b : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  %0 = nn.relu %a : tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

func.func @gelu(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %wt = nn.transpose %w [1, 0] : tensor<6x8xf32> -> tensor<8x6xf32>
  %m = nn.matmul %x, %wt : (tensor<2x3x8xf32>, tensor<8x6xf32>) -> tensor<2x3x6xf32>
  %a = nn.add %m, %b : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  %0 = nn.gelu %a : tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

func.func @gelu_tanh(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %wt = nn.transpose %w [1, 0] : tensor<6x8xf32> -> tensor<8x6xf32>
  %m = nn.matmul %x, %wt : (tensor<2x3x8xf32>, tensor<8x6xf32>) -> tensor<2x3x6xf32>
  %a = nn.add %m, %b : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  %0 = nn.gelu %a {approximate_tanh} : tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

func.func @plain(%x: tensor<2x3x8xf32>, %w: tensor<8x5xf32>) -> tensor<2x3x5xf32> {
  %0 = nn.matmul %x, %w : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

func.func @batched(%x: tensor<2x3x8xf32>, %w: tensor<2x5x8xf32>, %b: tensor<3x5xf32>) -> tensor<2x3x5xf32> {
  %wt = nn.transpose %w [0, 2, 1] : tensor<2x5x8xf32> -> tensor<2x8x5xf32>
  %m = nn.matmul %x, %wt : (tensor<2x3x8xf32>, tensor<2x8x5xf32>) -> tensor<2x3x5xf32>
  %a = nn.add %m, %b : (tensor<2x3x5xf32>, tensor<3x5xf32>) -> tensor<2x3x5xf32>
  %0 = nn.relu %a : tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
