// Equivalence of nn-fuse-layer-norm (alone, and in the whole fuse phase) on
// the ways a layer norm is written: check_equivalence.py runs every function
// before and after the passes on the same random inputs and parameters and
// compares the results to 1e-5.
//
// RUN: %python %pytest_dir/check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-layer-norm" %s
// RUN: %python %pytest_dir/check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-attention --canonicalize --nn-fuse-layer-norm --canonicalize --nn-fuse-qkv-projections --canonicalize --nn-fuse-matmul-epilogue --canonicalize" %s

nn.parameter @norm.weight : tensor<8xf32> init #nn.init<ones>
nn.parameter @norm.bias : tensor<8xf32> init #nn.init<zeros>
nn.parameter @norm2d.weight : tensor<4x8xf32> init #nn.init<ones>
nn.parameter @norm2d.bias : tensor<4x8xf32> init #nn.init<zeros>
nn.parameter @ff.w_1.weight : tensor<16x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @ff.w_1.bias : tensor<16xf32> init #nn.init<uniform(-0.35, 0.35)>

// The importer's form: centred variance, + epsilon, rsqrt, scale, affine.
func.func @centred_rsqrt(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %d = nn.sub %x, %mu : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = nn.reduce_mean %d2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %r = nn.rsqrt %ve : tensor<2x4x1xf32>
  %n = nn.mul %d, %r : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// The variance as mean(x²) - μ²; operands of the commutative ops swapped.
func.func @mean_square_minus_mean_squared(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %x2 = nn.mul %x, %x : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %m2 = nn.reduce_mean %x2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %mu2 = nn.mul %mu, %mu : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %var = nn.sub %m2, %mu2 : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %ve = nn.add %eps, %var : (tensor<f32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %r = nn.rsqrt %ve : tensor<2x4x1xf32>
  %d = nn.sub %x, %mu : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %n = nn.mul %r, %d : (tensor<2x4x1xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %g, %n : (tensor<8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %b, %s : (tensor<8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// sqrt and div instead of rsqrt and mul, with a large epsilon so that a
// wrong one shows.
func.func @sqrt_div(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %d = nn.sub %x, %mu : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = nn.reduce_mean %d2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %eps = arith.constant dense<0.25> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %sd = nn.sqrt %ve : tensor<2x4x1xf32>
  %n = nn.div %d, %sd : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// The post-LN sublayer connection, layer_norm(x + sublayer(x)); the
// sublayer is a Linear to width 16, ReLU, and a slice back to width 8.
func.func @residual(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %w = nn.param_load @ff.w_1.weight : tensor<16x8xf32>
  %bw = nn.param_load @ff.w_1.bias : tensor<16xf32>
  %wt = nn.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %h0 = nn.matmul %x, %wt : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %h1 = nn.add %h0, %bw : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %h = nn.relu %h1 : tensor<2x4x16xf32>
  %sub = nn.slice %h [0, 0, 4] [2, 4, 8] : tensor<2x4x16xf32> -> tensor<2x4x8xf32>
  %z = nn.add %x, %sub : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %z [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %d = nn.sub %z, %mu : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = nn.reduce_mean %d2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %r = nn.rsqrt %ve : tensor<2x4x1xf32>
  %n = nn.mul %d, %r : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// layer_norm(a + b) of two inputs, with mean(x²) - μ².
func.func @residual_of_inputs(%a: tensor<2x4x8xf32>, %c: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %z = nn.add %a, %c : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %z [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %z2 = nn.mul %z, %z : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %m2 = nn.reduce_mean %z2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %mu2 = nn.mul %mu, %mu : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %var = nn.sub %m2, %mu2 : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %r = nn.rsqrt %ve : tensor<2x4x1xf32>
  %d = nn.sub %z, %mu : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %n = nn.mul %d, %r : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// The sum is also returned: a layer norm, but not of the residual form.
func.func @residual_sum_reused(%a: tensor<2x4x8xf32>, %c: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %z = nn.add %a, %c : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %z [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %d = nn.sub %z, %mu : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = nn.reduce_mean %d2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %r = nn.rsqrt %ve : tensor<2x4x1xf32>
  %n = nn.mul %d, %r : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y, %z : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// Over the last two dimensions, with [4, 8] gamma and beta.
func.func @two_trailing_axes(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = nn.param_load @norm2d.weight : tensor<4x8xf32>
  %b = nn.param_load @norm2d.bias : tensor<4x8xf32>
  %mu = nn.reduce_mean %x [1, 2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %d = nn.sub %x, %mu : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = nn.reduce_mean %d2 [1, 2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %r = nn.rsqrt %ve : tensor<2x1x1xf32>
  %n = nn.mul %d, %r : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// Two layer norms in a row (a pre-LN block's final norm), rank 2.
func.func @stacked(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = nn.sub %x, %mu : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %var = nn.reduce_mean %d2 [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %d, %r : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %s = nn.mul %n, %g : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %y = nn.add %s, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %mu1 = nn.reduce_mean %y [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d1 = nn.sub %y, %mu1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %d12 = nn.mul %d1, %d1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %var1 = nn.reduce_mean %d12 [1] {keep_dims} : tensor<4x8xf32> -> tensor<4x1xf32>
  %ve1 = nn.add %var1, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %sd1 = nn.sqrt %ve1 : tensor<4x1xf32>
  %n1 = nn.div %d1, %sd1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %s1 = nn.mul %n1, %g : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %y1 = nn.add %s1, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y1 : tensor<4x8xf32>
}

// Not a layer norm: normalised over a leading axis (the batch). Left alone.
func.func @leading_axis(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [0] {keep_dims} : tensor<2x4x8xf32> -> tensor<1x4x8xf32>
  %d = nn.sub %x, %mu : (tensor<2x4x8xf32>, tensor<1x4x8xf32>) -> tensor<2x4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = nn.reduce_mean %d2 [0] {keep_dims} : tensor<2x4x8xf32> -> tensor<1x4x8xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
  %r = nn.rsqrt %ve : tensor<1x4x8xf32>
  %n = nn.mul %d, %r : (tensor<2x4x8xf32>, tensor<1x4x8xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// Not a layer norm: the variance of another tensor. Left alone.
func.func @variance_of_other(%x: tensor<2x4x8xf32>, %o: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %d = nn.sub %x, %mu : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %muo = nn.reduce_mean %o [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %do = nn.sub %o, %muo : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %d2 = nn.mul %do, %do : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %var = nn.reduce_mean %d2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = nn.add %var, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %r = nn.rsqrt %ve : tensor<2x4x1xf32>
  %n = nn.mul %d, %r : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// The Annotated Transformer's: γ * (x - μ) / (x.std() + ε) + β, the std
// unbiased.
func.func @unbiased_std_plus_epsilon(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %d = nn.sub %x, %mu : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %d2 = nn.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %ss = nn.reduce_sum %d2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %n1 = arith.constant dense<7.0> : tensor<f32>
  %var = nn.div %ss, %n1 : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %std = nn.sqrt %var : tensor<2x4x1xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %se = nn.add %std, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %gd = nn.mul %g, %d : (tensor<8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %n = nn.div %gd, %se : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %n, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// RMSNorm of a residual sum, with a bias.
func.func @rms_norm_residual(%x: tensor<2x4x8xf32>, %r: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %g = nn.param_load @norm.weight : tensor<8xf32>
  %b = nn.param_load @norm.bias : tensor<8xf32>
  %h = nn.add %x, %r : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %h2 = nn.mul %h, %h : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %ms = nn.reduce_mean %h2 [2] {keep_dims} : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %me = nn.add %ms, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %rs = nn.rsqrt %me : tensor<2x4x1xf32>
  %n = nn.mul %h, %rs : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %s = nn.mul %n, %g : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %y = nn.add %s, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}
