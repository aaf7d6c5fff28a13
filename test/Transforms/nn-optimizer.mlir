// RUN: transfuse-opt %s -split-input-file -nn-optimizer -verify-diagnostics | FileCheck %s

// -nn-optimizer: train_step runs loss_and_grads (its dropout seed derived
// from the training seed and the step), measures the global gradient norm,
// clips, and stores Adam's moments and the updated parameter.

// CHECK:       nn.parameter @w : tensor<3xf32>
// CHECK-NEXT:  nn.state @optimizer.exp_avg.w : tensor<3xf32>
// CHECK-NEXT:  nn.state @optimizer.exp_avg_sq.w : tensor<3xf32>
// CHECK-LABEL: func.func @train_step
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32> {nn.name = "x"}, %[[STEP:.*]]: tensor<i64> {nn.name = "step"}) -> (tensor<f32> {nn.name = "loss"}, tensor<f32> {nn.name = "grad_norm"}, tensor<f32> {nn.name = "lr"})
// The seed of step t is (7 << 32) | t.
// CHECK:         %[[T:.*]] = tensor.extract %[[STEP]][]
// CHECK:         %[[LOW:.*]] = arith.andi %[[T]], %c4294967295_i64
// CHECK:         %[[KEY:.*]] = arith.ori %[[LOW]], %c30064771072_i64
// CHECK:         %[[SEED:.*]] = tensor.from_elements %[[KEY]]
// CHECK:         %[[D:.*]] = nn.dropout %[[X]] seed %[[SEED]] {rate = 5.000000e-01 : f64, stream = 1 : i64}
// CHECK:         %[[LOSS:.*]] = nn.reduce_sum
// The learning rate: lr · min(1, t / 10).
// CHECK:         %[[TF:.*]] = arith.sitofp %[[T]] : i64 to f64
// CHECK:         %[[RAMP:.*]] = arith.divf %[[TF]]
// CHECK:         %[[F:.*]] = arith.minimumf %{{.*}}, %[[RAMP]]
// CHECK:         %[[LR:.*]] = arith.mulf %{{.*}}, %[[F]]
// The gradient (here the dropped input) is clipped by its global norm,
// whose squares are summed in f64.
// CHECK:         %[[WIDE:.*]] = nn.cast %[[D]] to f64 : tensor<3xf32> -> tensor<3xf64>
// CHECK:         %[[SQ:.*]] = nn.mul %[[WIDE]], %[[WIDE]]
// CHECK:         %[[SUM:.*]] = nn.reduce_sum %[[SQ]] [0] : tensor<3xf64> -> tensor<f64>
// CHECK:         %[[ROOT64:.*]] = nn.sqrt %[[SUM]]
// CHECK:         %[[NORM:.*]] = nn.cast %[[ROOT64]] to f32 : tensor<f64> -> tensor<f32>
// CHECK:         %[[N:.*]] = tensor.extract %[[NORM]][]
// CHECK:         %[[DEN:.*]] = arith.addf %[[N]]
// CHECK:         %[[RATIO:.*]] = arith.divf %{{.*}}, %[[DEN]] : f32
// CHECK:         %[[COEF:.*]] = arith.minimumf %[[RATIO]]
// CHECK:         %[[COEFT:.*]] = tensor.from_elements %[[COEF]]
// CHECK:         %[[G:.*]] = nn.mul %[[D]], %[[COEFT]]
// CHECK:         %[[M:.*]] = nn.param_load @optimizer.exp_avg.w
// CHECK:         %[[V:.*]] = nn.param_load @optimizer.exp_avg_sq.w
// CHECK:         %[[MNEW:.*]] = nn.add
// CHECK:         %[[VNEW:.*]] = nn.add
// Bias corrections 1 - β^t.
// CHECK:         math.powf
// CHECK:         math.powf
// CHECK:         %[[ROOT:.*]] = nn.sqrt %[[VNEW]]
// CHECK:         %[[DIR:.*]] = nn.div %[[MNEW]]
// CHECK:         %[[STEPV:.*]] = nn.mul %[[DIR]]
// CHECK:         %[[WNEW:.*]] = nn.sub %{{.*}}, %[[STEPV]]
// The parameter is stored before the moments, so that every read of the
// moments' new values comes before their stores (one fused loop).
// CHECK-NEXT:    nn.param_store %[[WNEW]] to @w
// CHECK-NEXT:    nn.param_store %[[MNEW]] to @optimizer.exp_avg.w
// CHECK-NEXT:    nn.param_store %[[VNEW]] to @optimizer.exp_avg_sq.w
// CHECK:         return %[[LOSS]], %[[NORM]], %{{.*}} : tensor<f32>, tensor<f32>, tensor<f32>
module attributes {nn.training = {clip_grad_norm = 1.0 : f64, optimizer = {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-08 : f64, kind = "adam", lr = 1.0e-03 : f64, weight_decay = 0.0 : f64}, schedule = {kind = "linear_warmup", warmup_steps = 10 : i64}, seed = 7 : i64}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32> {nn.name = "x"}, %seed: tensor<i64> {nn.name = "dropout_seed"}) -> (tensor<f32> {nn.name = "loss"}, tensor<3xf32> {nn.grad = "w", nn.name = "grad.w"}) {
    %w = nn.param_load @w : tensor<3xf32>
    %d = nn.dropout %x seed %seed {rate = 0.5 : f64, stream = 1 : i64} : tensor<3xf32>
    %y = nn.mul %d, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %l = nn.reduce_sum %y [0] : tensor<3xf32> -> tensor<f32>
    return %l, %d : tensor<f32>, tensor<3xf32>
  }
}

// -----

// SGD with Nesterov momentum and weight decay, no clipping: one momentum
// buffer, g + wd·p, b = μb + g, the step along g + μb.
// CHECK:       nn.state @optimizer.momentum_buffer.w : tensor<2xf32>
// CHECK-NOT:   nn.state
// CHECK-LABEL: func.func @train_step
// CHECK-NOT:     arith.minimumf
// CHECK:         nn.reduce_sum
// CHECK:         %[[W:.*]] = nn.param_load @w
// CHECK:         %[[DECAY:.*]] = nn.mul %[[W]], %{{.*}}
// CHECK:         %[[G:.*]] = nn.add %[[GRAD:.*]], %[[DECAY]]
// CHECK:         %[[B:.*]] = nn.param_load @optimizer.momentum_buffer.w
// CHECK:         %[[MB:.*]] = nn.mul %[[B]]
// CHECK:         %[[BNEW:.*]] = nn.add %[[MB]], %[[G]]
// CHECK:         %[[LOOK:.*]] = nn.mul %[[BNEW]]
// CHECK:         %[[DIR:.*]] = nn.add %[[G]], %[[LOOK]]
// CHECK:         %[[STEPV:.*]] = nn.mul %[[DIR]]
// CHECK:         %[[WNEW:.*]] = nn.sub %[[W]], %[[STEPV]]
// CHECK-NEXT:    nn.param_store %[[WNEW]] to @w
// CHECK-NEXT:    nn.param_store %[[BNEW]] to @optimizer.momentum_buffer.w
module attributes {nn.training = {clip_grad_norm = 0.0 : f64, optimizer = {kind = "sgd", lr = 0.1 : f64, momentum = 0.9 : f64, nesterov = true, weight_decay = 0.01 : f64}, schedule = {kind = "constant"}, seed = 0 : i64}} {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<2xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "loss"}, tensor<2xf32> {nn.grad = "w", nn.name = "grad.w"}) {
    %w = nn.param_load @w : tensor<2xf32>
    %y = nn.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %l = nn.reduce_sum %y [0] : tensor<2xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<2xf32>
  }
}

// -----

// expected-error @below {{no 'loss_and_grads' to build the training step from (run nn-autodiff first)}}
module attributes {nn.training = {clip_grad_norm = 0.0 : f64, optimizer = {kind = "sgd", lr = 0.1 : f64}, schedule = {kind = "constant"}, seed = 0 : i64}} {
}

// -----

// expected-error @below {{no nn.training settings to build the optimizer from}}
module {
  func.func @loss_and_grads(%x: tensor<2xf32>) -> tensor<f32> {
    %l = nn.reduce_sum %x [0] : tensor<2xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}
