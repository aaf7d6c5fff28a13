// RUN: transfuse-opt %s -split-input-file -nn-autodiff -verify-diagnostics | FileCheck %s

// -nn-autodiff: loss_and_grads is the loss with its calls inlined, then the
// backward pass, returning the loss and one gradient per parameter.

// A Linear layer with ReLU, whose bias is read again by the loss: the
// bias's two adjoints are summed; a parameter the loss never reads gets
// zeros. The ReLU's derivative comes from its output; the weight's
// gradient is dzᵀ·x, read as [out, in] like the weight.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "loss"}, tensor<3x4xf32> {nn.grad = "w"}, tensor<3xf32> {nn.grad = "b"}, tensor<2xf32> {nn.grad = "unused"})
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

// A function with no gradient rule on the path to the loss is named.
module {
  nn.parameter @table : tensor<5x2xf32> init <zeros>
  func.func @loss(%ids: tensor<3xi64>) -> tensor<f32> {
    %t = nn.param_load @table : tensor<5x2xf32>
    // expected-error @below {{'nn.gelu' op has no gradient rule}}
    %g = nn.gelu %t : tensor<5x2xf32>
    %l = nn.reduce_sum %g [0, 1] : tensor<5x2xf32> -> tensor<f32>
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
  // expected-error @below {{'func.func' op must return one scalar to be differentiated}}
  func.func @loss(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
