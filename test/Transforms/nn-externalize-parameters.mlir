// RUN: transfuse-opt %s -split-input-file -nn-externalize-parameters | FileCheck %s

// -nn-externalize-parameters: every function with a body gets all of the
// module's parameters as leading arguments, in declaration order, each named
// by an `nn.param` argument attribute; loads read those arguments, calls pass
// them on, and the nn.parameter declarations are removed.

// Declaration order, not load order and not name order: z.weight comes first.
// @loss reads no parameter itself but still takes both and hands them to
// @forward.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @forward(%[[W:.*]]: tensor<4x3xf32> {nn.param = "z.weight"}, %[[B:.*]]: tensor<3xf32> {nn.param = "a.bias"}, %[[X:.*]]: tensor<2x4xf32> {nn.name = "x"}) -> (tensor<2x3xf32> {nn.name = "y"}) {
// CHECK-NEXT:      %[[P:.*]] = nn.matmul %[[X]], %[[W]] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      %[[Y:.*]] = nn.add %[[P]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      return %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @loss(%[[LW:.*]]: tensor<4x3xf32> {nn.param = "z.weight"}, %[[LB:.*]]: tensor<3xf32> {nn.param = "a.bias"}, %[[LX:.*]]: tensor<2x4xf32> {nn.name = "x"}, %[[T:.*]]: tensor<2x3xf32> {nn.name = "targets"}) -> (tensor<f32> {nn.name = "loss"}) {
// CHECK-NEXT:      %[[F:.*]] = call @forward(%[[LW]], %[[LB]], %[[LX]]) : (tensor<4x3xf32>, tensor<3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      %[[D:.*]] = nn.sub %[[F]], %[[T]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:      %[[L:.*]] = nn.reduce_mean %[[D]] [0, 1] : tensor<2x3xf32> -> tensor<f32>
// CHECK-NEXT:      return %[[L]] : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
nn.parameter @z.weight : tensor<4x3xf32> init #nn.init<uniform(-0.5, 0.5)>
nn.parameter @a.bias : tensor<3xf32> init #nn.init<zeros>
func.func @forward(%x: tensor<2x4xf32> {nn.name = "x"}) -> (tensor<2x3xf32> {nn.name = "y"}) {
  %b = nn.param_load @a.bias : tensor<3xf32>
  %w = nn.param_load @z.weight : tensor<4x3xf32>
  %p = nn.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %y = nn.add %p, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
func.func @loss(%x: tensor<2x4xf32> {nn.name = "x"}, %t: tensor<2x3xf32> {nn.name = "targets"}) -> (tensor<f32> {nn.name = "loss"}) {
  %y = call @forward(%x) : (tensor<2x4xf32>) -> tensor<2x3xf32>
  %d = nn.sub %y, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %l = nn.reduce_mean %d [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// No parameters: nothing changes, calls included.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @forward(%[[X:.*]]: tensor<4xf32> {nn.name = "x"}) -> tensor<4xf32> {
// CHECK-NEXT:      %[[Y:.*]] = nn.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT:      return %[[Y]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @twice(%[[A:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      %[[C:.*]] = call @forward(%[[A]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:      return %[[C]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @forward(%x: tensor<4xf32> {nn.name = "x"}) -> tensor<4xf32> {
  %y = nn.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = call @forward(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// One buffer list for every function: a function that reads one parameter,
// and one that reads none, both take all three.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @head(%[[E:.*]]: tensor<8x4xf32> {nn.param = "embed.weight"}, %[[H:.*]]: tensor<4x2xf32> {nn.param = "head.weight"}, %[[HB:.*]]: tensor<2xf32> {nn.param = "head.bias"}, %[[X:.*]]: tensor<3x4xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:      %[[Y:.*]] = nn.matmul %[[X]], %[[H]] : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:      return %[[Y]] : tensor<3x2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @identity(%{{.*}}: tensor<8x4xf32> {nn.param = "embed.weight"}, %{{.*}}: tensor<4x2xf32> {nn.param = "head.weight"}, %{{.*}}: tensor<2xf32> {nn.param = "head.bias"}, %[[V:.*]]: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:      return %[[V]] : tensor<3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
nn.parameter @embed.weight : tensor<8x4xf32> init #nn.init<normal(0.0, 1.0)>
nn.parameter @head.weight : tensor<4x2xf32> init #nn.init<uniform(-0.5, 0.5)>
nn.parameter @head.bias : tensor<2xf32> init #nn.init<zeros>
func.func @head(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = nn.param_load @head.weight : tensor<4x2xf32>
  %y = nn.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
func.func @identity(%v: tensor<3xf32>) -> tensor<3xf32> {
  return %v : tensor<3xf32>
}

// -----

// A declaration has no body to take the parameters: it and the calls to it
// keep their signature, while its caller still gets the parameter.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @external(tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.func @forward(%[[W:.*]]: tensor<3xf32> {nn.param = "w"}, %[[X:.*]]: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:      %[[E:.*]] = call @external(%[[X]]) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:      %[[Y:.*]] = nn.mul %[[E]], %[[W]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:      return %[[Y]] : tensor<3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
nn.parameter @w : tensor<3xf32> init #nn.init<ones>
func.func private @external(tensor<3xf32>) -> tensor<3xf32>
func.func @forward(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = call @external(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %w = nn.param_load @w : tensor<3xf32>
  %y = nn.mul %e, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// A function that stores (the training step) takes parameters and state as
// buffers it updates in place: each is read once as a restrict, writable
// tensor, and each store materializes the new value in that tensor and then
// in the buffer. State arguments follow the parameters; a function that
// uses no state gets none.
// CHECK-LABEL: func.func @apply
// CHECK-SAME:    (%{{.*}}: tensor<2xf32> {nn.param = "w"}, %{{.*}}: tensor<2xf32> {nn.name = "x"})
// CHECK-LABEL: func.func @train_step
// CHECK-SAME:    (%[[W:.*]]: memref<2xf32> {nn.param = "w"}, %[[M:.*]]: memref<2xf32> {nn.state = "optimizer.exp_avg.w"}, %[[X:.*]]: tensor<2xf32> {nn.name = "x"})
// CHECK-NEXT:    %[[WT:.*]] = bufferization.to_tensor %[[W]] restrict writable
// CHECK-NEXT:    %[[MT:.*]] = bufferization.to_tensor %[[M]] restrict writable
// CHECK-NEXT:    %[[MNEW:.*]] = nn.add %[[MT]], %[[X]]
// CHECK-NEXT:    %[[MR:.*]] = bufferization.materialize_in_destination %[[MNEW]] in %[[MT]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    bufferization.materialize_in_destination %[[MR]] in writable %[[M]] : (tensor<2xf32>, memref<2xf32>) -> ()
// CHECK-NEXT:    %[[WNEW:.*]] = nn.sub %[[WT]], %[[MNEW]]
// CHECK-NEXT:    %[[WR:.*]] = bufferization.materialize_in_destination %[[WNEW]] in %[[WT]]
// CHECK-NEXT:    bufferization.materialize_in_destination %[[WR]] in writable %[[W]]
// CHECK-NEXT:    return
module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  nn.state @optimizer.exp_avg.w : tensor<2xf32>
  func.func @apply(%x: tensor<2xf32> {nn.name = "x"}) -> tensor<2xf32> {
    %w = nn.param_load @w : tensor<2xf32>
    %y = nn.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @train_step(%x: tensor<2xf32> {nn.name = "x"}) {
    %w = nn.param_load @w : tensor<2xf32>
    %m = nn.param_load @optimizer.exp_avg.w : tensor<2xf32>
    %m2 = nn.add %m, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    nn.param_store %m2 to @optimizer.exp_avg.w : tensor<2xf32>
    %w2 = nn.sub %w, %m2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    nn.param_store %w2 to @w : tensor<2xf32>
    return
  }
}

// -----

// The decoding cache follows the parameters (and the state, in a function
// that uses both) in a function that reads or writes it; forward gets none.
// CHECK-LABEL: func.func @forward
// CHECK-SAME:    (%{{.*}}: tensor<2xf32> {nn.param = "w"}, %{{.*}}: tensor<2xf32> {nn.name = "x"})
// CHECK-LABEL: func.func @decode_step
// CHECK-SAME:    (%[[W:.*]]: memref<2xf32> {nn.param = "w"}, %[[K:.*]]: memref<1x1x4x2xf32> {nn.cache = "cache.k"}, %[[X:.*]]: tensor<1x1x1x2xf32> {nn.name = "x"}, %[[P:.*]]: tensor<1xi64> {nn.name = "positions"})
// CHECK-NEXT:    bufferization.to_tensor %[[W]] restrict writable
// CHECK-NEXT:    %[[KT:.*]] = bufferization.to_tensor %[[K]] restrict writable
// CHECK:         %[[KNEW:.*]] = nn.cache_update %[[KT]]
// CHECK:         %[[KR:.*]] = bufferization.materialize_in_destination %[[KNEW]] in %[[KT]]
// CHECK-NEXT:    bufferization.materialize_in_destination %[[KR]] in writable %[[K]]
module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  nn.state @optimizer.exp_avg.w : tensor<2xf32>
  nn.cache @cache.k : tensor<1x1x4x2xf32>
  func.func @forward(%x: tensor<2xf32> {nn.name = "x"}) -> tensor<2xf32> {
    %w = nn.param_load @w : tensor<2xf32>
    %y = nn.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @decode_step(%x: tensor<1x1x1x2xf32> {nn.name = "x"}, %p: tensor<1xi64> {nn.name = "positions"}) -> tensor<1x1x4x2xf32> {
    %k = nn.param_load @cache.k : tensor<1x1x4x2xf32>
    %k2 = nn.cache_update %k, %x at %p : tensor<1x1x4x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi64>
    nn.param_store %k2 to @cache.k : tensor<1x1x4x2xf32>
    return %k2 : tensor<1x1x4x2xf32>
  }
}
