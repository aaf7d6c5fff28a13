// A graph that --canonicalize rewrites (transpose and reshape chains
// compose, identity shape ops vanish, splat constants fold through shape
// ops) without changing what it computes. Its token ids index a 3-row
// table through a reshape, and its labels a 5-class loss: the harness must
// draw them in range, or the evaluator stops on an out-of-range id.

nn.parameter @emb.weight : tensor<3x4xf32> init #nn.init<normal(0.0, 1.0)>
nn.parameter @out.weight : tensor<5x4xf32> init #nn.init<uniform(-0.5, 0.5)>

func.func @folds(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>) {
  %t1 = nn.transpose %x [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %t2 = nn.transpose %t1 [2, 1, 0] : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  %r1 = nn.reshape %x [6, 2, 2] : tensor<2x3x4xf32> -> tensor<6x2x2xf32>
  %r2 = nn.reshape %r1 [6, 4] : tensor<6x2x2xf32> -> tensor<6x4xf32>
  %id = nn.transpose %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %c = arith.constant dense<0.5> : tensor<4x3xf32>
  %ct = nn.transpose %c [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
  %s = nn.mul %id, %ct : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %t2, %r2, %s : tensor<4x2x3xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>
}

func.func @lookup(%ids: tensor<6xi64>, %labels: tensor<2x3xi64>) -> (tensor<2x3x5xf32>, tensor<f32>, tensor<2x3xi1>) {
  %r = nn.reshape %ids [2, 3] : tensor<6xi64> -> tensor<2x3xi64>
  %same = nn.reshape %r [2, 3] : tensor<2x3xi64> -> tensor<2x3xi64>
  %table = nn.param_load @emb.weight : tensor<3x4xf32>
  %e = nn.embedding %table[%same] : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %w = nn.param_load @out.weight : tensor<5x4xf32>
  %wt = nn.transpose %w [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
  %logits = nn.matmul %e, %wt : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %loss = nn.cross_entropy %logits, %labels {ignore_index = 0 : i64, label_smoothing = 0.1 : f64} : (tensor<2x3x5xf32>, tensor<2x3xi64>) -> tensor<f32>
  %pad = arith.constant dense<0> : tensor<i64>
  %m = nn.compare eq, %r, %pad : (tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi1>
  return %logits, %loss, %m : tensor<2x3x5xf32>, tensor<f32>, tensor<2x3xi1>
}

// A call: the callee's ids index the table, so the caller's are bounded.
func.func @caller(%ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = func.call @embed(%ids) : (tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

func.func @embed(%ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %table = nn.param_load @emb.weight : tensor<3x4xf32>
  %e = nn.embedding %table[%ids] : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %e : tensor<2x3x4xf32>
}
