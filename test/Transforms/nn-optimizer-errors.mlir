// RUN: transfuse-opt %s -split-input-file -nn-optimizer -verify-diagnostics
// RUN: transfuse-opt %s -split-input-file -nn-optimizer=runtime-update -verify-diagnostics

// -nn-optimizer checks loss_and_grads against the parameters, and the
// nn.training settings field by field, before it builds anything: an
// error names the result, argument or field.

module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op has 1 results; the loss and one gradient for each of the 1 parameters need 2}}
  func.func @loss_and_grads(%x: tensor<3xf32>) -> tensor<f32> {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op has 3 results; the loss and one gradient for each of the 1 parameters need 2}}
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}, tensor<3xf32>) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x, %x : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  }
}

// -----

// A gradient that would broadcast to the parameter is still the wrong one.
module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op result 1, the gradient of 'w', is 'tensor<1xf32>', not the parameter's 'tensor<3xf32>'}}
  func.func @loss_and_grads(%x: tensor<1xf32>) -> (tensor<f32>, tensor<1xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<1xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<1xf32>
  }
}

// -----

module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op result 1, the gradient of 'w', is 'tensor<3xf16>', not the parameter's 'tensor<3xf32>'}}
  func.func @loss_and_grads(%x: tensor<3xf16>, %l: tensor<f32>) -> (tensor<f32>, tensor<3xf16> {nn.grad = "w"}) {
    return %l, %x : tensor<f32>, tensor<3xf16>
  }
}

// -----

module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  nn.parameter @b : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op result 2 is not the gradient of 'b'}}
  func.func @loss_and_grads(%x: tensor<3xf32>, %l: tensor<f32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}, tensor<3xf32> {nn.grad = "w"}) {
    return %l, %x, %x : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  }
}

// -----

module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op result 0 must be the loss, a float scalar (rank-0 tensor), got 'tensor<3xf32>'}}
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32> {nn.grad = "w"}) {
    return %x, %x : tensor<3xf32>, tensor<3xf32>
  }
}

// -----

// torch.optim refuses an empty parameter list.
// expected-error @below {{nothing to train: the module declares no nn.parameter}}
module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  func.func @loss_and_grads(%x: tensor<3xf32>) -> tensor<f32> {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// The step's norm, clipping factor and learning rate are f32.
module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  // expected-error @below {{'nn.parameter' op must be f32 to be trained, got 'tensor<3xf16>'}}
  nn.parameter @w : tensor<3xf16> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf16>, %l: tensor<f32>) -> (tensor<f32>, tensor<3xf16> {nn.grad = "w"}) {
    return %l, %x : tensor<f32>, tensor<3xf16>
  }
}

// -----

module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op argument 1, the dropout seed, must be 'tensor<i64>', got 'tensor<f32>'}}
  func.func @loss_and_grads(%x: tensor<3xf32>, %s: tensor<f32> {nn.name = "dropout_seed"}) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op has two dropout seeds, arguments 0 and 1}}
  func.func @loss_and_grads(%a: tensor<i64> {nn.name = "dropout_seed"}, %b: tensor<i64> {nn.name = "dropout_seed"}, %x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// train_step appends the step: labels named "step" would be taken for it.
module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'func.func' op argument 1 is named 'step', the name of the argument train_step adds}}
  func.func @loss_and_grads(%x: tensor<3xf32>, %labels: tensor<3xi64> {nn.name = "step"}) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  // expected-error @below {{'nn.state' op is named 'optimizer.exp_avg_sq.w', the name of the optimizer state of 'w'}}
  nn.state @optimizer.exp_avg_sq.w : tensor<3xf32>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.optimizer.lr: expected a positive float, got 1 : i64}}
module attributes {nn.training = {optimizer = {kind = "adam", lr = 1 : i64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.optimizer.lr: missing, expected a positive float}}
module attributes {nn.training = {optimizer = {kind = "adam"}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// NaN is no learning rate.
// expected-error @below {{nn.training.optimizer.lr: expected a positive float, got 0x7FF8000000000000 : f64}}
module attributes {nn.training = {optimizer = {kind = "adam", lr = 0x7FF8000000000000 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.optimizer.kind: expected one of 'sgd', 'adam', 'adamw', got "rmsprop"}}
module attributes {nn.training = {optimizer = {kind = "rmsprop", lr = 1.0 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.optimizer.beta2: expected a float in [0, 1), got 1.000000e+00 : f64}}
module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0 : f64, beta2 = 1.0 : f64}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.optimizer.nesterov: needs a positive momentum}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64, nesterov = true}, schedule = {kind = "constant"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.schedule: missing, expected a dictionary}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.schedule: expected a dictionary, got "cosine"}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64}, schedule = "cosine"}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.schedule.kind: expected one of 'constant', 'linear_warmup', 'inverse_sqrt', 'cosine', got "step"}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64}, schedule = {kind = "step"}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// The warm-up divides by its length.
// expected-error @below {{nn.training.schedule.warmup_steps: expected a positive integer, got 0 : i64}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64}, schedule = {kind = "linear_warmup", warmup_steps = 0 : i64}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.schedule.warmup_steps: expected a positive integer, got 1.000000e+00 : f64}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64}, schedule = {kind = "inverse_sqrt", warmup_steps = 1.0 : f64}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.schedule.total_steps: missing, expected a positive integer}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64}, schedule = {kind = "cosine", warmup_steps = 0 : i64}}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.clip_grad_norm: expected a non-negative float, got "1"}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64}, schedule = {kind = "constant"}, clip_grad_norm = "1"}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}

// -----

// expected-error @below {{nn.training.seed: expected an integer, got 1.000000e+00 : f32}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0 : f64}, schedule = {kind = "constant"}, seed = 1.0 : f32}} {
  nn.parameter @w : tensor<3xf32> init <zeros>
  func.func @loss_and_grads(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {nn.grad = "w"}) {
    %l = nn.reduce_sum %x [0] : tensor<3xf32> -> tensor<f32>
    return %l, %x : tensor<f32>, tensor<3xf32>
  }
}
