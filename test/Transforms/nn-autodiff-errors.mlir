// RUN: transfuse-opt %s -split-input-file -nn-autodiff -verify-diagnostics

// -nn-autodiff refuses what it cannot differentiate, naming the op or the
// function.

// A function that calls itself: inlining the forward pass would not end.
module {
  nn.parameter @w : tensor<f32> init <zeros>
  func.func @f(%x: tensor<f32>) -> tensor<f32> {
    // expected-error @below {{'func.call' op makes the recursive calls @f -> @f, which cannot be inlined to differentiate}}
    %y = call @f(%x) : (tensor<f32>) -> tensor<f32>
    return %y : tensor<f32>
  }
  func.func @loss() -> tensor<f32> {
    %w = nn.param_load @w : tensor<f32>
    %y = call @f(%w) : (tensor<f32>) -> tensor<f32>
    return %y : tensor<f32>
  }
}

// -----

// Mutual recursion: the cycle is named from its first function.
module {
  nn.parameter @w : tensor<f32> init <zeros>
  func.func @a(%x: tensor<f32>) -> tensor<f32> {
    %y = call @b(%x) : (tensor<f32>) -> tensor<f32>
    return %y : tensor<f32>
  }
  func.func @b(%x: tensor<f32>) -> tensor<f32> {
    // expected-error @below {{'func.call' op makes the recursive calls @a -> @b -> @a, which cannot be inlined to differentiate}}
    %y = call @a(%x) : (tensor<f32>) -> tensor<f32>
    return %y : tensor<f32>
  }
  func.func @loss() -> tensor<f32> {
    %w = nn.param_load @w : tensor<f32>
    %y = call @a(%w) : (tensor<f32>) -> tensor<f32>
    return %y : tensor<f32>
  }
}

// -----

// The loss calling itself.
module {
  func.func @loss(%x: tensor<f32>) -> tensor<f32> {
    // expected-error @below {{'func.call' op makes the recursive calls @loss -> @loss, which cannot be inlined to differentiate}}
    %y = call @loss(%x) : (tensor<f32>) -> tensor<f32>
    return %y : tensor<f32>
  }
}

// -----

module {
  // expected-error @below {{'func.func' op must return one float scalar (a rank-0 tensor) to be differentiated}}
  func.func @loss(%x: tensor<i32>) -> tensor<i32> {
    return %x : tensor<i32>
  }
}

// -----

module {
  // expected-error @below {{'func.func' op must return one float scalar (a rank-0 tensor) to be differentiated}}
  func.func @loss(%x: f32) -> f32 {
    return %x : f32
  }
}

// -----

module {
  // expected-error @below {{'func.func' op must have a single block to be differentiated}}
  func.func private @loss(%x: tensor<f32>) -> tensor<f32>
}

// -----

module {
  func.func private @f(%x: tensor<f32>) -> tensor<f32>
  func.func @loss(%x: tensor<f32>) -> tensor<f32> {
    // expected-error @below {{'func.call' op calls a function with no body to differentiate}}
    %y = call @f(%x) : (tensor<f32>) -> tensor<f32>
    return %y : tensor<f32>
  }
}

// -----

// nn-optimizer derives the seed of the training dropout from the step and
// finds it by its name: no input of the loss may have it.
module {
  // expected-error @below {{'func.func' op argument 0 is named 'dropout_seed', the name kept for the seed of the training dropout}}
  func.func @loss(%x: tensor<2xf32> {nn.name = "dropout_seed"}) -> tensor<f32> {
    %l = nn.reduce_sum %x [0] : tensor<2xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// expected-error @below {{'loss_and_grads' exists already}}
module {
  func.func @loss(%x: tensor<f32>) -> tensor<f32> {
    return %x : tensor<f32>
  }
  nn.parameter @loss_and_grads : tensor<2xf32> init <zeros>
}
