// Graphs whose results are known in closed form; harness.test checks what
// nn_eval.py prints for each. Parameters take their deterministic inits.

nn.parameter @w : tensor<2x2xf32> init #nn.init<constant(0.5)>
nn.parameter @gamma : tensor<3xf32> init #nn.init<ones>
nn.parameter @beta : tensor<3xf32> init #nn.init<zeros>

// [[1, 2], [3, 4]] x [[1, 0], [0, -1]] = [[1, -2], [3, -4]], then softmax of
// each row: [1/(1+e^-3), 1/(1+e^3)] and [1/(1+e^-7), 1/(1+e^7)].
func.func @matmul_softmax() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[1.0, 0.0], [0.0, -1.0]]> : tensor<2x2xf32>
  %m = nn.matmul %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = nn.softmax %m {axis = 1 : i64} : tensor<2x2xf32>
  %l = nn.log_softmax %m {axis = 0 : i64} : tensor<2x2xf32>
  return %m, %s, %l : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// A parameter with init constant(0.5): [[1, 2], [3, 4]] x w.
func.func @param() -> tensor<2x2xf32> {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %w = nn.param_load @w : tensor<2x2xf32>
  %0 = nn.matmul %a, %w : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Broadcasting binary ops and the unary ops at easy points.
func.func @elementwise() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>) {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %r = arith.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %c = arith.constant dense<[[2.0], [4.0]]> : tensor<2x1xf32>
  %0 = nn.add %a, %r : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = nn.sub %r, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.div %a, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %x = arith.constant dense<[-1.0, 0.0, 1.0, 4.0, 2.718281828459045, 0.25]> : tensor<6xf32>
  %n = nn.neg %x : tensor<6xf32>
  %e = nn.relu %n : tensor<6xf32>
  %t = nn.tanh %e : tensor<6xf32>
  %m = nn.mul %t, %x : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %0, %1, %2, %m : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>
}

func.func @unary() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %x = arith.constant dense<[1.0, 4.0, 0.25, 2.718281828459045]> : tensor<4xf32>
  %0 = nn.sqrt %x : tensor<4xf32>
  %1 = nn.rsqrt %x : tensor<4xf32>
  %2 = nn.log %x : tensor<4xf32>
  %3 = nn.exp %2 : tensor<4xf32>
  %y = arith.constant dense<[1.0, -1.0, 0.0, 2.0]> : tensor<4xf32>
  %4 = nn.gelu %y : tensor<4xf32>
  %5 = nn.gelu %y {approximate_tanh} : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Shape ops on [[0, 1, 2], [3, 4, 5]].
func.func @shapes() -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x5xf32>) {
  %a = arith.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %0 = nn.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = nn.reshape %a [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = nn.slice %a [1, 1] [1, 2] : tensor<2x3xf32> -> tensor<1x2xf32>
  %b = arith.constant dense<[[7.0, 8.0], [9.0, 10.0]]> : tensor<2x2xf32>
  %3 = nn.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x5xf32>
}

func.func @reductions() -> (tensor<2xf32>, tensor<1x3xf32>, tensor<f32>) {
  %a = arith.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 8.0]]> : tensor<2x3xf32>
  %0 = nn.reduce_sum %a [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = nn.reduce_mean %a [0] {keep_dims} : tensor<2x3xf32> -> tensor<1x3xf32>
  %2 = nn.reduce_max %a [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<2xf32>, tensor<1x3xf32>, tensor<f32>
}

// Constants of more than 100 elements print as hex blobs: 0 + ... + 127 and
// the count of true in (true, false, false) x 40.
func.func @hex_constants() -> (tensor<f32>, tensor<f32>) {
  %a = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0]> : tensor<128xf32>
  %0 = nn.reduce_sum %a [0] : tensor<128xf32> -> tensor<f32>
  %m = arith.constant dense<[true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false]> : tensor<120xi1>
  %f = nn.cast %m to f32 : tensor<120xi1> -> tensor<120xf32>
  %1 = nn.reduce_sum %f [0] : tensor<120xf32> -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// Token ids: a pad mask, an embedding lookup, casts.
func.func @tokens() -> (tensor<4xi1>, tensor<4x2xf32>, tensor<4xf32>, tensor<2xi32>) {
  %ids = arith.constant dense<[2, 0, 1, 0]> : tensor<4xi64>
  %pad = arith.constant dense<0> : tensor<i64>
  %0 = nn.compare eq, %ids, %pad : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
  %table = arith.constant dense<[[0.0, 0.5], [1.0, 1.5], [2.0, 2.5]]> : tensor<3x2xf32>
  %1 = nn.embedding %table[%ids] : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  %2 = nn.cast %0 to f32 : tensor<4xi1> -> tensor<4xf32>
  %x = arith.constant dense<[2.75, -1.5]> : tensor<2xf32>
  %3 = nn.cast %x to i32 : tensor<2xf32> -> tensor<2xi32>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4x2xf32>, tensor<4xf32>, tensor<2xi32>
}

// pe[1] = [sin 1, cos 1, sin 0.01, cos 0.01]; the causal mask; -inf fills.
func.func @positions_and_masks() -> (tensor<2x4xf32>, tensor<3x3xi1>, tensor<3x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = nn.sinusoidal_encoding : tensor<2x4xf32>
  %1 = nn.triangular_mask {diagonal = 1 : i64} : tensor<3x3xi1>
  %2 = nn.triangular_mask {diagonal = -1 : i64} : tensor<3x2xi1>
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = nn.triangular_mask {diagonal = 1 : i64} : tensor<2x2xi1>
  %3 = nn.masked_fill %a, %c, 0xFFF0000000000000 : (tensor<2x2xf32>, tensor<2x2xi1>) -> tensor<2x2xf32>
  %4 = nn.dropout %a {rate = 5.000000e-01 : f64} : tensor<2x2xf32>
  return %0, %1, %2, %3, %4 : tensor<2x4xf32>, tensor<3x3xi1>, tensor<3x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>
}

// Zero queries make every visible key equally likely: causal row 0 sees
// v[0] = [1, 2], row 1 the mean [2, 3]. Hiding key 0 too leaves row 0 no
// key: NaN with the default -inf fill; with -1e9 every hidden key, causal
// or masked, takes -1e9, so row 0 is uniform again: [2, 3].
func.func @attention() -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %q = arith.constant dense<0.0> : tensor<1x1x2x2xf32>
  %k = arith.constant dense<[[[[1.0, 0.0], [0.0, 1.0]]]]> : tensor<1x1x2x2xf32>
  %v = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %0 = nn.attention %q, %k, %v {causal, scale = 0.5 : f64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %m = arith.constant dense<[true, false]> : tensor<2xi1>
  %1 = nn.attention %q, %k, %v mask %m {causal, scale = 0.5 : f64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<2xi1>) -> tensor<1x1x2x2xf32>
  %2 = nn.attention %q, %k, %v mask %m {causal, mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<2xi1>) -> tensor<1x1x2x2xf32>
  // An additive mask of ln 3 on key 1: probabilities [1/4, 3/4].
  %f = arith.constant dense<[0.0, 1.0986122886681098]> : tensor<2xf32>
  %3 = nn.attention %q, %k, %v mask %f {scale = 0.5 : f64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x1x2x2xf32>
  return %0, %1, %2, %3 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// [1, 2, 3] has variance 2/3, so with epsilon 1/3 it normalises to
// [-1, 0, 1]; [0, 1, 2] + the residual [1, 1, 1] too. gamma and beta are
// the ones/zeros inits.
func.func @layer_norm() -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %x = arith.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %x0 = arith.constant dense<[[0.0, 1.0, 2.0]]> : tensor<1x3xf32>
  %r = arith.constant dense<1.0> : tensor<1x3xf32>
  %g = nn.param_load @gamma : tensor<3xf32>
  %b = nn.param_load @beta : tensor<3xf32>
  %0 = nn.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 0.3333333333333333 : f64} : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  %1 = nn.layer_norm %x0 + %r, %g, %b {axis = 1 : i64, epsilon = 0.3333333333333333 : f64} : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  return %0, %1 : tensor<1x3xf32>, tensor<1x3xf32>
}

// [1, 2] x [[1, 2], [-1, -2]]^T = [5, -5]; + [1, 1]; relu.
func.func @fused_matmul() -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %x = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %w = arith.constant dense<[[1.0, 2.0], [-1.0, -2.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<1.0> : tensor<2xf32>
  %0 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<relu>, transpose_rhs} : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %1 = nn.fused_matmul %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %0, %1 : tensor<1x2xf32>, tensor<1x2xf32>
}

// Logits [0, 0] (loss ln 2) and [0, ln 3] labelled 1 (loss ln 4/3).
func.func @losses() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %logits = arith.constant dense<[[0.0, 0.0], [0.0, 1.0986122886681098]]> : tensor<2x2xf32>
  %labels = arith.constant dense<[0, 1]> : tensor<2xi64>
  %0 = nn.cross_entropy %logits, %labels {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<f32>
  %1 = nn.cross_entropy %logits, %labels {ignore_index = 1 : i64, label_smoothing = 0.0 : f64} : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<f32>
  %2 = nn.cross_entropy %logits, %labels {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<f32>
  %lp = arith.constant dense<[-1.0, -2.0]> : tensor<2xf32>
  %one = arith.constant dense<1> : tensor<i32>
  %3 = nn.nll_loss %lp, %one {ignore_index = -100 : i64} : (tensor<2xf32>, tensor<i32>) -> tensor<f32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
