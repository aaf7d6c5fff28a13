// Equivalence of nn-fuse-matmul-epilogue (alone, and in the whole fuse
// phase): Linear layers with and without a bias and a ReLU / GELU become
// nn.fused_matmul. check_equivalence.py runs every function before and
// after the passes on the same random inputs and parameters and compares
// the results to 1e-5.
//
// RUN: %python %pytest_dir/check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-matmul-epilogue" %s
// RUN: %python %pytest_dir/check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-attention --canonicalize --nn-fuse-layer-norm --canonicalize --nn-fuse-qkv-projections --canonicalize --nn-fuse-matmul-epilogue --canonicalize" %s

nn.parameter @ff.w_1.weight : tensor<16x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @ff.w_1.bias : tensor<16xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @ff.w_2.weight : tensor<8x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @ff.w_2.bias : tensor<8xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @proj.weight : tensor<8x4xf32> init #nn.init<uniform(-0.35, 0.35)>

// A Linear: add(matmul(x, transpose(W, [1, 0])), b).
func.func @linear_bias(%x: tensor<2x4x8xf32>) -> tensor<2x4x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %b = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %y = nn.add %m, %b : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// The bias on the left of the add, no activation, rank-2 input.
func.func @bias_on_left(%x: tensor<6x8xf32>) -> tensor<6x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %b = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<6x8xf32>, tensor<8x16xf32>) -> tensor<6x16xf32>
  %y = nn.add %b, %m : (tensor<16xf32>, tensor<6x16xf32>) -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}

func.func @bias_relu(%x: tensor<2x4x8xf32>) -> tensor<2x4x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %b = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a = nn.add %m, %b : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %y = nn.relu %a : tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

func.func @bias_gelu(%x: tensor<2x4x8xf32>) -> tensor<2x4x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %b = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a = nn.add %m, %b : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %y = nn.gelu %a : tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// GELU with the tanh approximation: a fused exact GELU would be off by
// up to ~5e-4, which the 1e-5 tolerance catches.
func.func @bias_gelu_tanh(%x: tensor<2x4x8xf32>) -> tensor<2x4x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %b = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a = nn.add %m, %b : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %y = nn.gelu %a {approximate_tanh} : tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// ReLU without a bias.
func.func @no_bias_relu(%x: tensor<2x4x8xf32>) -> tensor<2x4x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %y = nn.relu %m : tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// The feed-forward block: Linear, ReLU, dropout, Linear.
func.func @feed_forward(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %w1 = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %b1 = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %w2 = nn.param_load @ff.w_2.weight : tensor<8x16xf32>
  %b2 = nn.param_load @ff.w_2.bias : tensor<8xf32>
  %w1t = nn.transpose %w1 [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m1 = nn.matmul %x, %w1t : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a1 = nn.add %m1, %b1 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %h = nn.relu %a1 : tensor<2x4x16xf32>
  %hd = nn.dropout %h {rate = 0.1 : f64} : tensor<2x4x16xf32>
  %w2t = nn.transpose %w2 [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %m2 = nn.matmul %hd, %w2t : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %m2, %b2 : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// A weight used untransposed, [in, out].
func.func @weight_in_out(%x: tensor<2x4x8xf32>) -> tensor<2x4x4xf32> {
  %w = nn.param_load @proj.weight : tensor<8x4xf32>
  %m = nn.matmul %x, %w : (tensor<2x4x8xf32>, tensor<8x4xf32>) -> tensor<2x4x4xf32>
  %y = nn.relu %m : tensor<2x4x4xf32>
  return %y : tensor<2x4x4xf32>
}

// The product has another user (returned): the bias and ReLU stay apart.
func.func @product_reused(%x: tensor<2x4x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %b = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a = nn.add %m, %b : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %y = nn.relu %a : tensor<2x4x16xf32>
  return %y, %m : tensor<2x4x16xf32>, tensor<2x4x16xf32>
}

// The biased sum has another user: the ReLU stays apart.
func.func @sum_reused(%x: tensor<2x4x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %b = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a = nn.add %m, %b : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %y = nn.relu %a : tensor<2x4x16xf32>
  return %y, %a : tensor<2x4x16xf32>, tensor<2x4x16xf32>
}

// A bias that does not run along the last axis ([4, 1]): not a Linear
// bias, it must not be absorbed as one.
func.func @bias_not_last_axis(%x: tensor<2x4x8xf32>, %c: tensor<4x1xf32>) -> tensor<2x4x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a = nn.add %m, %c : (tensor<2x4x16xf32>, tensor<4x1xf32>) -> tensor<2x4x16xf32>
  %y = nn.relu %a : tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// A full-shape addend (a residual, not a bias).
func.func @residual_addend(%x: tensor<2x4x8xf32>, %r: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a = nn.add %m, %r : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %y = nn.gelu %a : tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// A bias of the product's full trailing shape [4, 16].
func.func @bias_2d(%x: tensor<2x4x8xf32>, %c: tensor<4x16xf32>) -> tensor<2x4x16xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %a = nn.add %m, %c : (tensor<2x4x16xf32>, tensor<4x16xf32>) -> tensor<2x4x16xf32>
  %y = nn.relu %a : tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// A batched product of two activations (as in attention): not a Linear.
func.func @batched_activations(%a: tensor<2x4x8xf32>, %b: tensor<2x5x8xf32>) -> tensor<2x4x5xf32> {
  %bt = nn.transpose %b [0, 2, 1] : tensor<2x5x8xf32> -> tensor<2x8x5xf32>
  %m = nn.matmul %a, %bt : (tensor<2x4x8xf32>, tensor<2x8x5xf32>) -> tensor<2x4x5xf32>
  %y = nn.relu %m : tensor<2x4x5xf32>
  return %y : tensor<2x4x5xf32>
}
