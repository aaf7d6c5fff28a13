// nn.fused_matmul in each of its forms; harness.test compares every
// function with its namesake in fused-matmul-primitive.mlir: matmul (by the
// transposed weight), + bias, activation.

nn.parameter @fc.weight : tensor<6x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @fc.bias : tensor<6xf32> init #nn.init<uniform(-0.35, 0.35)>

// A Linear: x Wᵀ + b.
func.func @linear(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %0 = nn.fused_matmul %x, %w bias %b {transpose_rhs} : (tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

func.func @relu(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %0 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<relu>, transpose_rhs} : (tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

func.func @gelu(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %0 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<gelu>, transpose_rhs} : (tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

func.func @gelu_tanh(%x: tensor<2x3x8xf32>) -> tensor<2x3x6xf32> {
  %w = nn.param_load @fc.weight : tensor<6x8xf32>
  %b = nn.param_load @fc.bias : tensor<6xf32>
  %0 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<gelu_tanh>, transpose_rhs} : (tensor<2x3x8xf32>, tensor<6x8xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

// No bias, rhs not transposed.
func.func @plain(%x: tensor<2x3x8xf32>, %w: tensor<8x5xf32>) -> tensor<2x3x5xf32> {
  %0 = nn.fused_matmul %x, %w : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// A batched rhs transposed in its last two dimensions; a [3, 5] bias.
func.func @batched(%x: tensor<2x3x8xf32>, %w: tensor<2x5x8xf32>, %b: tensor<3x5xf32>) -> tensor<2x3x5xf32> {
  %0 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<relu>, transpose_rhs} : (tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<3x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
