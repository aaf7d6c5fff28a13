// Equivalence of nn-fuse-qkv-projections (alone, and in the whole fuse
// phase): the q, k and v Linears of each nn.attention that read one input
// become one matmul on concatenated parameters and slices of it.
// check_equivalence.py runs every function before and after the passes on
// the same random inputs and parameters and compares the results to 1e-5;
// it also checks that the parameters keep their names (the concatenation
// is a view, not a new parameter).
//
// RUN: %python %pytest_dir/check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-qkv-projections" %s
// RUN: %python %pytest_dir/check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-attention --canonicalize --nn-fuse-layer-norm --canonicalize --nn-fuse-qkv-projections --canonicalize --nn-fuse-matmul-epilogue --canonicalize" %s

nn.parameter @self_attn.w_q.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @self_attn.w_q.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @self_attn.w_k.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @self_attn.w_k.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @self_attn.w_v.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @self_attn.w_v.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @self_attn.w_o.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @self_attn.w_o.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @cross_attn.w_q.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @cross_attn.w_q.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @cross_attn.w_k.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @cross_attn.w_k.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @cross_attn.w_v.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @cross_attn.w_v.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @cross_attn.w_o.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @cross_attn.w_o.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec0.w_q.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec0.w_q.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec0.w_k.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec0.w_k.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec0.w_v.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec0.w_v.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec0.w_o.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec0.w_o.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec1.w_q.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec1.w_q.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec1.w_k.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec1.w_k.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec1.w_v.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec1.w_v.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec1.w_o.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @dec1.w_o.bias : tensor<8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @nobias.w_q.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @nobias.w_k.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @nobias.w_v.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>
nn.parameter @nobias.w_o.weight : tensor<8x8xf32> init #nn.init<uniform(-0.35, 0.35)>

// Self-attention: the q, k and v Linears read the same x and become one
// product with the concatenated weights and biases, sliced three ways.
func.func @self_attention(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %q_w = nn.param_load @self_attn.w_q.weight : tensor<8x8xf32>
  %q_wt = nn.transpose %q_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q_mm = nn.matmul %x, %q_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q_b = nn.param_load @self_attn.w_q.bias : tensor<8xf32>
  %qp = nn.add %q_mm, %q_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %qs_r = nn.reshape %qp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = nn.transpose %qs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %k_w = nn.param_load @self_attn.w_k.weight : tensor<8x8xf32>
  %k_wt = nn.transpose %k_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k_mm = nn.matmul %x, %k_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %k_b = nn.param_load @self_attn.w_k.bias : tensor<8xf32>
  %kp = nn.add %k_mm, %k_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %ks_r = nn.reshape %kp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k = nn.transpose %ks_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v_w = nn.param_load @self_attn.w_v.weight : tensor<8x8xf32>
  %v_wt = nn.transpose %v_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v_mm = nn.matmul %x, %v_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %v_b = nn.param_load @self_attn.w_v.bias : tensor<8xf32>
  %vp = nn.add %v_mm, %v_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %vs_r = nn.reshape %vp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = nn.transpose %vs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %a = nn.attention %q, %k, %v {causal, scale = 5.000000e-01 : f64} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %m_t = nn.transpose %a [0, 2, 1, 3] : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %am = nn.reshape %m_t [2, 4, 8] : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
  %o_w = nn.param_load @self_attn.w_o.weight : tensor<8x8xf32>
  %o_wt = nn.transpose %o_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %o_mm = nn.matmul %am, %o_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %o_b = nn.param_load @self_attn.w_o.bias : tensor<8xf32>
  %y = nn.add %o_mm, %o_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// Cross-attention: k and v are projected from the encoder's memory (one
// product, two slices), q from the decoder's x (sq 3, sk 5).
func.func @cross_attention(%x: tensor<2x3x8xf32>, %memory: tensor<2x5x8xf32>, %src: tensor<2x5xi64>) -> tensor<2x3x8xf32> {
  %q_w = nn.param_load @cross_attn.w_q.weight : tensor<8x8xf32>
  %q_wt = nn.transpose %q_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q_mm = nn.matmul %x, %q_wt : (tensor<2x3x8xf32>, tensor<8x8xf32>) -> tensor<2x3x8xf32>
  %q_b = nn.param_load @cross_attn.w_q.bias : tensor<8xf32>
  %qp = nn.add %q_mm, %q_b : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %qs_r = nn.reshape %qp [2, 3, 2, 4] : tensor<2x3x8xf32> -> tensor<2x3x2x4xf32>
  %q = nn.transpose %qs_r [0, 2, 1, 3] : tensor<2x3x2x4xf32> -> tensor<2x2x3x4xf32>
  %k_w = nn.param_load @cross_attn.w_k.weight : tensor<8x8xf32>
  %k_wt = nn.transpose %k_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k_mm = nn.matmul %memory, %k_wt : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %k_b = nn.param_load @cross_attn.w_k.bias : tensor<8xf32>
  %kp = nn.add %k_mm, %k_b : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %ks_r = nn.reshape %kp [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %k = nn.transpose %ks_r [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %v_w = nn.param_load @cross_attn.w_v.weight : tensor<8x8xf32>
  %v_wt = nn.transpose %v_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v_mm = nn.matmul %memory, %v_wt : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %v_b = nn.param_load @cross_attn.w_v.bias : tensor<8xf32>
  %vp = nn.add %v_mm, %v_b : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %vs_r = nn.reshape %vp [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %v = nn.transpose %vs_r [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %zero = arith.constant dense<0> : tensor<i64>
  %padt = nn.compare eq, %src, %zero : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %pad = nn.reshape %padt [2, 1, 1, 5] : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %a = nn.attention %q, %k, %v mask %pad {mask_fill = -1.000000e+09 : f64, scale = 5.000000e-01 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x1x1x5xi1>) -> tensor<2x2x3x4xf32>
  %m_t = nn.transpose %a [0, 2, 1, 3] : tensor<2x2x3x4xf32> -> tensor<2x3x2x4xf32>
  %am = nn.reshape %m_t [2, 3, 8] : tensor<2x3x2x4xf32> -> tensor<2x3x8xf32>
  %o_w = nn.param_load @cross_attn.w_o.weight : tensor<8x8xf32>
  %o_wt = nn.transpose %o_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %o_mm = nn.matmul %am, %o_wt : (tensor<2x3x8xf32>, tensor<8x8xf32>) -> tensor<2x3x8xf32>
  %o_b = nn.param_load @cross_attn.w_o.bias : tensor<8xf32>
  %y = nn.add %o_mm, %o_b : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// Projections without biases.
func.func @no_bias(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %q_w = nn.param_load @nobias.w_q.weight : tensor<8x8xf32>
  %q_wt = nn.transpose %q_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %qp = nn.matmul %x, %q_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %qs_r = nn.reshape %qp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = nn.transpose %qs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %k_w = nn.param_load @nobias.w_k.weight : tensor<8x8xf32>
  %k_wt = nn.transpose %k_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %kp = nn.matmul %x, %k_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %ks_r = nn.reshape %kp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k = nn.transpose %ks_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v_w = nn.param_load @nobias.w_v.weight : tensor<8x8xf32>
  %v_wt = nn.transpose %v_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %vp = nn.matmul %x, %v_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %vs_r = nn.reshape %vp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = nn.transpose %vs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %a = nn.attention %q, %k, %v {scale = 5.000000e-01 : f64} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %m_t = nn.transpose %a [0, 2, 1, 3] : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %y = nn.reshape %m_t [2, 4, 8] : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// Two decoder layers' cross-attentions over the same memory: projections
// are grouped per attention, each layer's k/v with its own weights.
func.func @two_layers_shared_memory(%x: tensor<2x3x8xf32>, %memory: tensor<2x5x8xf32>) -> tensor<2x3x8xf32> {
  %q0_w = nn.param_load @dec0.w_q.weight : tensor<8x8xf32>
  %q0_wt = nn.transpose %q0_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q0_mm = nn.matmul %x, %q0_wt : (tensor<2x3x8xf32>, tensor<8x8xf32>) -> tensor<2x3x8xf32>
  %q0_b = nn.param_load @dec0.w_q.bias : tensor<8xf32>
  %q0p = nn.add %q0_mm, %q0_b : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %q0s_r = nn.reshape %q0p [2, 3, 2, 4] : tensor<2x3x8xf32> -> tensor<2x3x2x4xf32>
  %q0 = nn.transpose %q0s_r [0, 2, 1, 3] : tensor<2x3x2x4xf32> -> tensor<2x2x3x4xf32>
  %k0_w = nn.param_load @dec0.w_k.weight : tensor<8x8xf32>
  %k0_wt = nn.transpose %k0_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k0_mm = nn.matmul %memory, %k0_wt : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %k0_b = nn.param_load @dec0.w_k.bias : tensor<8xf32>
  %k0p = nn.add %k0_mm, %k0_b : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %k0s_r = nn.reshape %k0p [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %k0 = nn.transpose %k0s_r [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %v0_w = nn.param_load @dec0.w_v.weight : tensor<8x8xf32>
  %v0_wt = nn.transpose %v0_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v0_mm = nn.matmul %memory, %v0_wt : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %v0_b = nn.param_load @dec0.w_v.bias : tensor<8xf32>
  %v0p = nn.add %v0_mm, %v0_b : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %v0s_r = nn.reshape %v0p [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %v0 = nn.transpose %v0s_r [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %a0 = nn.attention %q0, %k0, %v0 {scale = 5.000000e-01 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  %m0_t = nn.transpose %a0 [0, 2, 1, 3] : tensor<2x2x3x4xf32> -> tensor<2x3x2x4xf32>
  %y0 = nn.reshape %m0_t [2, 3, 8] : tensor<2x3x2x4xf32> -> tensor<2x3x8xf32>
  %q1_w = nn.param_load @dec1.w_q.weight : tensor<8x8xf32>
  %q1_wt = nn.transpose %q1_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q1_mm = nn.matmul %y0, %q1_wt : (tensor<2x3x8xf32>, tensor<8x8xf32>) -> tensor<2x3x8xf32>
  %q1_b = nn.param_load @dec1.w_q.bias : tensor<8xf32>
  %q1p = nn.add %q1_mm, %q1_b : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
  %q1s_r = nn.reshape %q1p [2, 3, 2, 4] : tensor<2x3x8xf32> -> tensor<2x3x2x4xf32>
  %q1 = nn.transpose %q1s_r [0, 2, 1, 3] : tensor<2x3x2x4xf32> -> tensor<2x2x3x4xf32>
  %k1_w = nn.param_load @dec1.w_k.weight : tensor<8x8xf32>
  %k1_wt = nn.transpose %k1_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k1_mm = nn.matmul %memory, %k1_wt : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %k1_b = nn.param_load @dec1.w_k.bias : tensor<8xf32>
  %k1p = nn.add %k1_mm, %k1_b : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %k1s_r = nn.reshape %k1p [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %k1 = nn.transpose %k1s_r [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %v1_w = nn.param_load @dec1.w_v.weight : tensor<8x8xf32>
  %v1_wt = nn.transpose %v1_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v1_mm = nn.matmul %memory, %v1_wt : (tensor<2x5x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %v1_b = nn.param_load @dec1.w_v.bias : tensor<8xf32>
  %v1p = nn.add %v1_mm, %v1_b : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %v1s_r = nn.reshape %v1p [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %v1 = nn.transpose %v1s_r [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %a1 = nn.attention %q1, %k1, %v1 {scale = 5.000000e-01 : f64} : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  %m1_t = nn.transpose %a1 [0, 2, 1, 3] : tensor<2x2x3x4xf32> -> tensor<2x3x2x4xf32>
  %y1 = nn.reshape %m1_t [2, 3, 8] : tensor<2x3x2x4xf32> -> tensor<2x3x8xf32>
  return %y1 : tensor<2x3x8xf32>
}

// The k projection has another user: it is returned as well.
func.func @projection_reused(%x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %q_w = nn.param_load @self_attn.w_q.weight : tensor<8x8xf32>
  %q_wt = nn.transpose %q_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q_mm = nn.matmul %x, %q_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q_b = nn.param_load @self_attn.w_q.bias : tensor<8xf32>
  %qp = nn.add %q_mm, %q_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %qs_r = nn.reshape %qp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = nn.transpose %qs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %k_w = nn.param_load @self_attn.w_k.weight : tensor<8x8xf32>
  %k_wt = nn.transpose %k_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k_mm = nn.matmul %x, %k_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %k_b = nn.param_load @self_attn.w_k.bias : tensor<8xf32>
  %kp = nn.add %k_mm, %k_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %ks_r = nn.reshape %kp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k = nn.transpose %ks_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v_w = nn.param_load @self_attn.w_v.weight : tensor<8x8xf32>
  %v_wt = nn.transpose %v_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v_mm = nn.matmul %x, %v_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %v_b = nn.param_load @self_attn.w_v.bias : tensor<8xf32>
  %vp = nn.add %v_mm, %v_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %vs_r = nn.reshape %vp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = nn.transpose %vs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %a = nn.attention %q, %k, %v {scale = 5.000000e-01 : f64} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %m_t = nn.transpose %a [0, 2, 1, 3] : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %y = nn.reshape %m_t [2, 4, 8] : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
  return %y, %kp : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// q and k projected with the same (tied) parameters.
func.func @tied_weights(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %q_w = nn.param_load @self_attn.w_q.weight : tensor<8x8xf32>
  %q_wt = nn.transpose %q_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q_mm = nn.matmul %x, %q_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q_b = nn.param_load @self_attn.w_q.bias : tensor<8xf32>
  %qp = nn.add %q_mm, %q_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %qs_r = nn.reshape %qp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = nn.transpose %qs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %k_w = nn.param_load @self_attn.w_q.weight : tensor<8x8xf32>
  %k_wt = nn.transpose %k_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k_mm = nn.matmul %x, %k_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %k_b = nn.param_load @self_attn.w_q.bias : tensor<8xf32>
  %kp = nn.add %k_mm, %k_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %ks_r = nn.reshape %kp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k = nn.transpose %ks_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v_w = nn.param_load @self_attn.w_v.weight : tensor<8x8xf32>
  %v_wt = nn.transpose %v_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v_mm = nn.matmul %x, %v_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %v_b = nn.param_load @self_attn.w_v.bias : tensor<8xf32>
  %vp = nn.add %v_mm, %v_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %vs_r = nn.reshape %vp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = nn.transpose %vs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %a = nn.attention %q, %k, %v {scale = 5.000000e-01 : f64} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %m_t = nn.transpose %a [0, 2, 1, 3] : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %y = nn.reshape %m_t [2, 4, 8] : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// q from a second input of the same shape: only k and v share theirs.
func.func @q_from_other_input(%x: tensor<2x4x8xf32>, %x2: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %q_w = nn.param_load @self_attn.w_q.weight : tensor<8x8xf32>
  %q_wt = nn.transpose %q_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q_mm = nn.matmul %x2, %q_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q_b = nn.param_load @self_attn.w_q.bias : tensor<8xf32>
  %qp = nn.add %q_mm, %q_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %qs_r = nn.reshape %qp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = nn.transpose %qs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %k_w = nn.param_load @self_attn.w_k.weight : tensor<8x8xf32>
  %k_wt = nn.transpose %k_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k_mm = nn.matmul %x, %k_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %k_b = nn.param_load @self_attn.w_k.bias : tensor<8xf32>
  %kp = nn.add %k_mm, %k_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %ks_r = nn.reshape %kp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k = nn.transpose %ks_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v_w = nn.param_load @self_attn.w_v.weight : tensor<8x8xf32>
  %v_wt = nn.transpose %v_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v_mm = nn.matmul %x, %v_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %v_b = nn.param_load @self_attn.w_v.bias : tensor<8xf32>
  %vp = nn.add %v_mm, %v_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %vs_r = nn.reshape %vp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = nn.transpose %vs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %a = nn.attention %q, %k, %v {scale = 5.000000e-01 : f64} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %m_t = nn.transpose %a [0, 2, 1, 3] : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %y = nn.reshape %m_t [2, 4, 8] : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// Self-attention written in primitives: nn-fuse-attention must run first
// for the projections to be grouped (the full phase).
func.func @primitive_self_attention(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %q_w = nn.param_load @self_attn.w_q.weight : tensor<8x8xf32>
  %q_wt = nn.transpose %q_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q_mm = nn.matmul %x, %q_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q_b = nn.param_load @self_attn.w_q.bias : tensor<8xf32>
  %qp = nn.add %q_mm, %q_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %qs_r = nn.reshape %qp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = nn.transpose %qs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %k_w = nn.param_load @self_attn.w_k.weight : tensor<8x8xf32>
  %k_wt = nn.transpose %k_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %k_mm = nn.matmul %x, %k_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %k_b = nn.param_load @self_attn.w_k.bias : tensor<8xf32>
  %kp = nn.add %k_mm, %k_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %ks_r = nn.reshape %kp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k = nn.transpose %ks_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v_w = nn.param_load @self_attn.w_v.weight : tensor<8x8xf32>
  %v_wt = nn.transpose %v_w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %v_mm = nn.matmul %x, %v_wt : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %v_b = nn.param_load @self_attn.w_v.bias : tensor<8xf32>
  %vp = nn.add %v_mm, %v_b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %vs_r = nn.reshape %vp [2, 4, 2, 4] : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = nn.transpose %vs_r [0, 2, 1, 3] : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %kt = nn.transpose %k [0, 1, 3, 2] : tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %s = nn.matmul %q, %kt : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %d = nn.div %s, %c : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %future = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xi1>
  %f = nn.masked_fill %d, %future, 0xFFF0000000000000 : (tensor<2x2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x2x4x4xf32>
  %p = nn.softmax %f {axis = 3 : i64} : tensor<2x2x4x4xf32>
  %a = nn.matmul %p, %v : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %m_t = nn.transpose %a [0, 2, 1, 3] : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %y = nn.reshape %m_t [2, 4, 8] : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}
