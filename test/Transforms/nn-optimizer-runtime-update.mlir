// RUN: transfuse-opt %s -split-input-file -nn-optimizer="runtime-update" -verify-diagnostics | FileCheck %s

// -nn-optimizer{runtime-update} (the CUDA target): the global norm is one
// nn.global_norm over every gradient and each parameter's update one
// nn.adam_update (AdamW: decoupled decay through decay_factor, no L2 term),
// whose results are stored in place of the parameter and its moments.

// CHECK:       nn.parameter @w : tensor<3xf32>
// CHECK-NEXT:  nn.parameter @b : tensor<2xf32>
// CHECK-NEXT:  nn.state @optimizer.exp_avg.w : tensor<3xf32>
// CHECK-NEXT:  nn.state @optimizer.exp_avg_sq.w : tensor<3xf32>
// CHECK-NEXT:  nn.state @optimizer.exp_avg.b : tensor<2xf32>
// CHECK-NEXT:  nn.state @optimizer.exp_avg_sq.b : tensor<2xf32>
// CHECK-LABEL: func.func @train_step
// CHECK:         %[[NORM:.*]] = nn.global_norm %[[GW:.*]], %[[GB:.*]] : (tensor<3xf32>, tensor<2xf32>) -> tensor<f32>
// CHECK-NOT:     nn.reduce_sum
// The clipping factor: min(1, 0.5 / (norm + 1e-6)).
// CHECK:         %[[N:.*]] = tensor.extract %[[NORM]][]
// CHECK:         %[[CLIP:.*]] = tensor.from_elements
// CHECK:         %[[W:.*]] = nn.param_load @w
// AdamW's decay factor 1 - lr · 0.01 and the bias corrections, per step.
// CHECK:         %[[DECAY:.*]] = tensor.from_elements
// CHECK:         %[[M:.*]] = nn.param_load @optimizer.exp_avg.w
// CHECK:         %[[V:.*]] = nn.param_load @optimizer.exp_avg_sq.w
// CHECK:         %[[BC2:.*]] = tensor.from_elements
// CHECK:         %[[STEP:.*]] = tensor.from_elements
// CHECK:         %[[P:.*]], %[[M2:.*]], %[[V2:.*]] = nn.adam_update %[[W]], %[[GW]], %[[M]], %[[V]] step_size %[[STEP]] bias_correction2_sqrt %[[BC2]] clip_factor %[[CLIP]] decay_factor %[[DECAY]] {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, weight_decay = 0.000000e+00 : f64}
// CHECK-NEXT:    nn.param_store %[[P]] to @w
// CHECK-NEXT:    nn.param_store %[[M2]] to @optimizer.exp_avg.w
// CHECK-NEXT:    nn.param_store %[[V2]] to @optimizer.exp_avg_sq.w
// CHECK:         nn.adam_update
// CHECK-NOT:     nn.mul
// CHECK:         return %{{.*}}, %[[NORM]], %{{.*}}
module attributes {nn.training = {clip_grad_norm = 0.5 : f64, optimizer = {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-08 : f64, kind = "adamw", lr = 1.0e-03 : f64, weight_decay = 0.01 : f64}, schedule = {kind = "constant"}, seed = 7 : i64}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  nn.parameter @b : tensor<2xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32> {nn.name = "x"}, %y: tensor<2xf32> {nn.name = "y"}) -> (tensor<f32> {nn.name = "loss"}, tensor<3xf32> {nn.grad = "w", nn.name = "grad.w"}, tensor<2xf32> {nn.grad = "b", nn.name = "grad.b"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x, %y : tensor<f32>, tensor<3xf32>, tensor<2xf32>
  }
}

// -----

// Adam's L2 decay is the op's weight_decay; without clipping the factor is
// the constant 1 and the decay factor too.

// CHECK-LABEL: func.func @train_step
// CHECK:         nn.global_norm
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[ONE2:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         nn.adam_update {{.*}} clip_factor %[[ONE]] decay_factor %[[ONE2]] {{{.*}}weight_decay = 1.000000e-02 : f64}
module attributes {nn.training = {clip_grad_norm = 0.0 : f64, optimizer = {kind = "adam", lr = 1.0e-03 : f64, weight_decay = 0.01 : f64}, schedule = {kind = "constant"}, seed = 0 : i64}} {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<2xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "loss"}, tensor<2xf32> {nn.grad = "w", nn.name = "grad.w"}) {
    %l = nn.reduce_sum %x [0] : tensor<2xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<2xf32>
  }
}

// -----

// SGD with Nesterov momentum keeps a momentum buffer, updated with the
// parameter; plain SGD has none.

// CHECK:       nn.state @optimizer.momentum_buffer.w : tensor<2xf32>
// CHECK-LABEL: func.func @train_step
// CHECK:         %[[W:.*]] = nn.param_load @w
// CHECK:         %[[BUF:.*]] = nn.param_load @optimizer.momentum_buffer.w
// CHECK:         %[[NEW:.*]]:2 = nn.sgd_update %[[W]], %{{.*}} lr %{{.*}} clip_factor %{{.*}} momentum_buffer %[[BUF]] {momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-02 : f64}
// CHECK-NEXT:    nn.param_store %[[NEW]]#0 to @w
// CHECK-NEXT:    nn.param_store %[[NEW]]#1 to @optimizer.momentum_buffer.w
module attributes {nn.training = {clip_grad_norm = 0.0 : f64, optimizer = {kind = "sgd", lr = 0.1 : f64, momentum = 0.9 : f64, nesterov = true, weight_decay = 0.01 : f64}, schedule = {kind = "constant"}, seed = 0 : i64}} {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<2xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "loss"}, tensor<2xf32> {nn.grad = "w", nn.name = "grad.w"}) {
    %l = nn.reduce_sum %x [0] : tensor<2xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<2xf32>
  }
}

// -----

// CHECK-NOT:   nn.state
// CHECK-LABEL: func.func @train_step
// CHECK:         %[[NEW:.*]] = nn.sgd_update %{{.*}}, %{{.*}} lr %{{.*}} clip_factor %{{.*}} {momentum = 0.000000e+00 : f64, weight_decay = 0.000000e+00 : f64} : (tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT:    nn.param_store %[[NEW]] to @w
module attributes {nn.training = {clip_grad_norm = 0.0 : f64, optimizer = {kind = "sgd", lr = 0.1 : f64}, schedule = {kind = "constant"}, seed = 0 : i64}} {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<2xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "loss"}, tensor<2xf32> {nn.grad = "w", nn.name = "grad.w"}) {
    %l = nn.reduce_sum %x [0] : tensor<2xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<2xf32>
  }
}

// -----

// The kernels update f32 only: an f16 parameter is a diagnostic at the
// parameter, before any kernel op is built.

module attributes {nn.training = {clip_grad_norm = 0.0 : f64, optimizer = {kind = "sgd", lr = 0.1 : f64}, schedule = {kind = "constant"}, seed = 0 : i64}} {
  // expected-error @below {{'nn.parameter' op must be f32 to be trained, got 'tensor<2xf16>'}}
  nn.parameter @w : tensor<2xf16> init <zeros>
  func.func @loss_and_grads(%x: tensor<2xf16> {nn.name = "x"}) -> (tensor<f16> {nn.name = "loss"}, tensor<2xf16> {nn.grad = "w", nn.name = "grad.w"}) {
    %l = nn.reduce_sum %x [0] : tensor<2xf16> -> tensor<f16>
    return %l, %x : tensor<f16>, tensor<2xf16>
  }
}
