// RUN: transfuse-opt %s -split-input-file -nn-autodiff -verify-diagnostics | FileCheck %s

// -nn-autodiff: loss_and_grads is the loss with its calls inlined, then the
// backward pass, returning the loss and one gradient per parameter.

// A Linear layer with ReLU, whose bias is read again by the loss: the
// bias's two adjoints are summed; a parameter the loss never reads gets
// zeros. The ReLU's derivative comes from its output; the weight's
// gradient is dzᵀ·x, read as [out, in] like the weight.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "loss"}, tensor<3x4xf32> {nn.grad = "w", nn.name = "grad.w"}, tensor<3xf32> {nn.grad = "b", nn.name = "grad.b"}, tensor<2xf32> {nn.grad = "unused", nn.name = "grad.unused"})
// CHECK:         %[[W:.*]] = nn.param_load @w
// CHECK:         %[[Y:.*]] = nn.fused_matmul %[[X]], %[[W]] bias
// CHECK:         %[[B2:.*]] = nn.param_load @b
// CHECK:         %[[Z:.*]] = nn.mul %[[Y]], %[[B2]]
// CHECK:         %[[L:.*]] = nn.reduce_mean %[[Z]] [0, 1]
// CHECK:         %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[SHARE:.*]] = nn.div %[[ONE]], %{{.*}}
// CHECK:         %[[DZ:.*]] = nn.add %{{.*}}, %{{.*}} : (tensor<1x1xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[DY:.*]] = nn.mul %[[DZ]], %[[B2]]
// CHECK:         %[[DBLOSS:.*]] = nn.reduce_sum %{{.*}} [0] : tensor<2x3xf32> -> tensor<3xf32>
// CHECK:         %[[OFF:.*]] = nn.compare le, %[[Y]], %{{.*}}
// CHECK:         %[[DPRE:.*]] = nn.masked_fill %[[DY]], %[[OFF]], 0.000000e+00
// CHECK:         %[[DYT:.*]] = nn.transpose %[[DPRE]] [1, 0]
// CHECK:         %[[DW:.*]] = nn.matmul %[[DYT]], %[[X]] : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK:         %[[DBLIN:.*]] = nn.reduce_sum %[[DPRE]] [0]
// CHECK:         %[[DB:.*]] = nn.add %[[DBLIN]], %[[DBLOSS]]
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK:         return %[[L]], %[[DW]], %[[DB]], %[[ZERO]]
module {
  nn.parameter @w : tensor<3x4xf32> init <zeros>
  nn.parameter @b : tensor<3xf32> init <zeros>
  nn.parameter @unused : tensor<2xf32> init <zeros>
  func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
    %w = nn.param_load @w : tensor<3x4xf32>
    %b = nn.param_load @b : tensor<3xf32>
    %y = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<relu>, transpose_rhs} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @loss(%x: tensor<2x4xf32> {nn.name = "x"}) -> tensor<f32> {
    %y = call @forward(%x) : (tensor<2x4xf32>) -> tensor<2x3xf32>
    %b = nn.param_load @b : tensor<3xf32>
    %z = nn.mul %y, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %l = nn.reduce_mean %z [0, 1] : tensor<2x3xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// An op with no gradient rule on the path to the loss is named: the
// backward ops have no second derivative.
module {
  nn.parameter @gamma : tensor<2xf32> init <ones>
  func.func @loss(%x: tensor<3x2xf32>, %dy: tensor<3x2xf32>) -> tensor<f32> {
    %g = nn.param_load @gamma : tensor<2xf32>
    // expected-error @below {{'nn.layer_norm_grad' op has no gradient rule}}
    %dx, %dg, %db = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>)
    %l = nn.reduce_sum %dx [0, 1] : tensor<3x2xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// expected-error @below {{nothing to differentiate: no 'loss' function (the spec has no training section)}}
module {
  func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

module {
  // expected-error @below {{'func.func' op must return one float scalar (a rank-0 tensor) to be differentiated}}
  func.func @loss(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

// Training mode: each dropout with a nonzero rate draws from the appended
// dropout_seed argument on a stream of its own, and its backward is the
// same dropout of the adjoint; attention keeps its row statistics
// (nn.attention_stats) for nn.attention_grad. A zero-rate dropout stays
// the identity and attention without dropout takes a zero seed.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK-SAME:    %[[X:.*]]: tensor<1x1x4x8xf32> {nn.name = "x"}, %[[SEED:.*]]: tensor<i64> {nn.name = "dropout_seed"}
// CHECK:         %[[D1:.*]] = nn.dropout %{{.*}} seed %[[SEED]] {rate = 1.000000e-01 : f64, stream = 1 : i64}
// CHECK:         %[[D0:.*]] = nn.dropout %[[D1]] {rate = 0.000000e+00 : f64}
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0> : tensor<i64>
// CHECK:         %[[A:.*]], %[[LSE:.*]] = nn.attention_stats %[[D0]], %[[D0]], %[[D0]] seed %[[ZERO]] {causal, scale = 5.000000e-01 : f64, stream = 2 : i64}
// CHECK:         %[[B:.*]], %[[LSE2:.*]] = nn.attention_stats %[[A]], %[[A]], %[[A]] seed %[[SEED]] {dropout = 2.000000e-01 : f64, scale = 5.000000e-01 : f64, stream = 3 : i64}
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}} = nn.attention_grad %[[A]], %[[A]], %[[A]] out %[[B]] lse %[[LSE2]] grad %{{.*}} seed %[[SEED]] {dropout = 2.000000e-01 : f64, scale = 5.000000e-01 : f64, stream = 3 : i64}
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}} = nn.attention_grad %[[D0]], %[[D0]], %[[D0]] out %[[A]] lse %[[LSE]] grad %{{.*}} seed %[[ZERO]] {causal, scale = 5.000000e-01 : f64, stream = 2 : i64}
// CHECK:         nn.dropout %{{.*}} seed %[[SEED]] {rate = 1.000000e-01 : f64, stream = 1 : i64}
module {
  nn.parameter @w : tensor<8xf32> init <ones>
  func.func @loss(%x: tensor<1x1x4x8xf32> {nn.name = "x"}) -> tensor<f32> {
    %w = nn.param_load @w : tensor<8xf32>
    %h = nn.mul %x, %w : (tensor<1x1x4x8xf32>, tensor<8xf32>) -> tensor<1x1x4x8xf32>
    %d1 = nn.dropout %h {rate = 0.1 : f64} : tensor<1x1x4x8xf32>
    %d0 = nn.dropout %d1 {rate = 0.0 : f64} : tensor<1x1x4x8xf32>
    %a = nn.attention %d0, %d0, %d0 {causal, scale = 0.5 : f64} : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
    %b = nn.attention %a, %a, %a {dropout = 0.2 : f64, scale = 0.5 : f64} : (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
    %l = nn.reduce_sum %b [0, 1, 2, 3] : tensor<1x1x4x8xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// The layers with backward ops of their own: the embedding's rows gather
// with nn.embedding_grad, a post-LN residual block's layer norm backward
// is one nn.layer_norm_grad of the recomputed sum whose dx reaches both
// summands, GELU has nn.gelu_grad, and the cross entropy's gradient is
// nn.cross_entropy_grad scaled by the loss's adjoint.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK-SAME:    (%[[IDS:.*]]: tensor<2x3xi64>, %[[LABELS:.*]]: tensor<2x3xi64>)
// CHECK:         %[[E:.*]] = nn.embedding %[[TABLE:.*]][%[[IDS]]]
// CHECK:         %[[G:.*]] = nn.gelu %[[E]]
// CHECK:         %[[N:.*]] = nn.layer_norm %[[E]] + %[[G]], %[[GAMMA:.*]], %[[BETA:.*]] {axis = 2 : i64
// CHECK:         %[[CE:.*]] = nn.cross_entropy %[[N]], %[[LABELS]] {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64}
// CHECK:         %[[DCE:.*]] = nn.cross_entropy_grad %[[N]], %[[LABELS]] {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64}
// CHECK:         %[[DN:.*]] = nn.mul %[[DCE]], %{{.*}} : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
// CHECK:         %[[SUM:.*]] = nn.add %[[E]], %[[G]]
// CHECK:         %[[DX:.*]], %[[DGAMMA:.*]], %[[DBETA:.*]] = nn.layer_norm_grad %[[DN]], %[[SUM]], %[[GAMMA]] {axis = 2 : i64
// CHECK:         %[[DG:.*]] = nn.gelu_grad %[[DX]], %[[E]] : tensor<2x3x4xf32>
// CHECK:         %[[DE:.*]] = nn.add %[[DX]], %[[DG]]
// CHECK:         %[[DTABLE:.*]] = nn.embedding_grad %[[DE]], %[[IDS]] {num_rows = 5 : i64}
// CHECK:         return %[[CE]], %[[DTABLE]], %[[DGAMMA]], %[[DBETA]]
module {
  nn.parameter @table : tensor<5x4xf32> init <zeros>
  nn.parameter @gamma : tensor<4xf32> init <ones>
  nn.parameter @beta : tensor<4xf32> init <zeros>
  func.func @loss(%ids: tensor<2x3xi64>, %labels: tensor<2x3xi64>) -> tensor<f32> {
    %t = nn.param_load @table : tensor<5x4xf32>
    %e = nn.embedding %t[%ids] : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    %g = nn.gelu %e : tensor<2x3x4xf32>
    %gamma = nn.param_load @gamma : tensor<4xf32>
    %beta = nn.param_load @beta : tensor<4xf32>
    %n = nn.layer_norm %e + %g, %gamma, %beta {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %l = nn.cross_entropy %n, %labels {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// Two parameters with one gradient: the second output is a copy, so that
// each gets a buffer of its own.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK:         nn.reduce_sum
// CHECK:         %[[G:.*]] = nn.add
// CHECK-NEXT:    %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[G]]) : tensor<4xf32>
// CHECK:         return %{{.*}}, %[[G]], %[[COPY]]
module {
  nn.parameter @a : tensor<4xf32> init <zeros>
  nn.parameter @b : tensor<4xf32> init <zeros>
  func.func @loss() -> tensor<f32> {
    %a = nn.param_load @a : tensor<4xf32>
    %b = nn.param_load @b : tensor<4xf32>
    %s = nn.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %l = nn.reduce_sum %s [0] : tensor<4xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// Integer values carry no gradient, as in PyTorch: a float cast to an
// integer and back (here `w` rounded) and a mask cast to a float pass
// none on, so `w`'s gradient is the adjoint through the f16 round trip
// alone: no op of the backward pass reads the integer or bool values.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK:         %[[W:.*]] = nn.param_load @w
// CHECK:         nn.cast %[[W]] to i32
// CHECK:         nn.compare gt, %[[W]], %{{.*}}
// CHECK:         %[[L:.*]] = nn.reduce_sum
// CHECK:         %[[DY:.*]] = nn.add %{{.*}}, %{{.*}} : (tensor<1xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NOT:     to i32
// CHECK-NOT:     to i1
// CHECK:         %[[DH:.*]] = nn.cast %[[DY]] to f16 : tensor<2xf32> -> tensor<2xf16>
// CHECK-NEXT:    %[[DW:.*]] = nn.cast %[[DH]] to f32 : tensor<2xf16> -> tensor<2xf32>
// CHECK-NEXT:    return %[[L]], %[[DW]]
module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @loss(%x: tensor<2xf32>) -> tensor<f32> {
    %w = nn.param_load @w : tensor<2xf32>
    %i = nn.cast %w to i32 : tensor<2xf32> -> tensor<2xi32>
    %r = nn.cast %i to f32 : tensor<2xi32> -> tensor<2xf32>
    %m = nn.compare gt, %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %k = nn.cast %m to f32 : tensor<2xi1> -> tensor<2xf32>
    %h = nn.cast %w to f16 : tensor<2xf32> -> tensor<2xf16>
    %hf = nn.cast %h to f32 : tensor<2xf16> -> tensor<2xf32>
    %a = nn.mul %r, %k : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %b = nn.add %a, %hf : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %l = nn.reduce_sum %b [0] : tensor<2xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// A parameter read only through an integer cast gets zeros, as one the
// loss never reads.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK:         %[[L:.*]] = nn.reduce_sum
// CHECK:         nn.add %{{.*}}, %{{.*}} : (tensor<1xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    return %[[L]], %[[ZERO]]
module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @loss() -> tensor<f32> {
    %w = nn.param_load @w : tensor<2xf32>
    %i = nn.cast %w to i32 : tensor<2xf32> -> tensor<2xi32>
    %r = nn.cast %i to f32 : tensor<2xi32> -> tensor<2xf32>
    %l = nn.reduce_sum %r [0] : tensor<2xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// A function reached twice is inlined twice: that is no recursion.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK:         %[[A:.*]] = nn.exp %{{.*}} : tensor<f32>
// CHECK-NEXT:    %[[B:.*]] = nn.exp %[[A]] : tensor<f32>
// CHECK:         return %[[B]]
module {
  nn.parameter @w : tensor<f32> init <zeros>
  func.func @f(%x: tensor<f32>) -> tensor<f32> {
    %y = nn.exp %x : tensor<f32>
    return %y : tensor<f32>
  }
  func.func @loss() -> tensor<f32> {
    %w = nn.param_load @w : tensor<f32>
    %y = call @f(%w) : (tensor<f32>) -> tensor<f32>
    %z = call @f(%y) : (tensor<f32>) -> tensor<f32>
    return %z : tensor<f32>
  }
}
