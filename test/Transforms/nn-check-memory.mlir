// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-check-memory="limit-bytes=4096" | FileCheck %s

// -nn-check-memory leaves a module alone when its estimate fits the limit,
// and fails with the estimate otherwise. The estimate: parameters; for a
// model that trains, one gradient and the optimizer's slots per parameter;
// activations, every op result of @loss and of what it calls (doubled for
// their gradients), or of @forward for inference.

// Inference: 64·4 bytes of parameter and 2 results of 1 KiB each, under the
// limit: the module is unchanged.
// CHECK-LABEL: module attributes {nn.dims = {batch = 4 : i64}}
// CHECK:         nn.parameter @w : tensor<64xf32>
// CHECK:         func.func @forward
module attributes {nn.dims = {batch = 4 : i64}} {
  nn.parameter @w : tensor<64xf32> init <zeros>
  func.func @forward(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
    %w = nn.param_load @w : tensor<64xf32>
    %y = nn.add %x, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
    return %y : tensor<4x64xf32>
  }
}

// -----

// Inference over the limit: 256 bytes of parameter, 256 + 8192 of
// activations.
// expected-error @+1 {{the model needs an estimated 8.5 KiB (parameters 256 bytes, activations 8.2 KiB), more than the limit of 4.0 KiB; its dims: batch=32 (smaller ones with -D name=value, or a higher --memory-limit)}}
module attributes {nn.dims = {batch = 32 : i64}} {
  nn.parameter @w : tensor<64xf32> init <zeros>
  func.func @forward(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
    %w = nn.param_load @w : tensor<64xf32>
    %y = nn.add %x, %w : (tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
    return %y : tensor<32x64xf32>
  }
}

// -----

// Training with Adam: the 1 KiB parameter is kept with its gradient and two
// moments (3 KiB of state); @loss's activations are its own (the call's
// 1 KiB result, a 4-byte loss) and those of the @forward it calls (1 KiB
// load, 1 KiB product), doubled: 6 KiB and 8 bytes.
// expected-error @+1 {{the model needs an estimated 10.0 KiB (parameters 1.0 KiB, gradients and optimizer state 3.0 KiB, activations 6.0 KiB), more than the limit of 4.0 KiB (smaller ones with -D name=value, or a higher --memory-limit)}}
module attributes {nn.training = {optimizer = {kind = "adam", lr = 1.0e-03 : f64}}} {
  nn.parameter @w : tensor<256xf32> init <zeros>
  func.func @forward(%x: tensor<256xf32>) -> tensor<256xf32> {
    %w = nn.param_load @w : tensor<256xf32>
    %y = nn.mul %x, %w : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    return %y : tensor<256xf32>
  }
  func.func @loss(%x: tensor<256xf32>) -> tensor<f32> {
    %y = call @forward(%x) : (tensor<256xf32>) -> tensor<256xf32>
    %l = nn.reduce_sum %y [0] : tensor<256xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// Plain SGD keeps only the gradient; sizes past 2^64 bytes saturate rather
// than wrap around to a small estimate.
// expected-error @+1 {{the model needs an estimated 16.0 EiB (parameters 16.0 EiB, gradients and optimizer state 16.0 EiB, activations 16.0 EiB), more than the limit of 4.0 KiB (smaller ones with -D name=value, or a higher --memory-limit)}}
module attributes {nn.training = {optimizer = {kind = "sgd", lr = 1.0e-01 : f64}}} {
  nn.parameter @w : tensor<2147483647x2147483647x2147483647xf32> init <zeros>
  func.func @loss(%x: tensor<2147483647x2147483647x2147483647xf32>) -> tensor<f32> {
    %w = nn.param_load @w : tensor<2147483647x2147483647x2147483647xf32>
    %l = nn.reduce_sum %w [0, 1, 2] : tensor<2147483647x2147483647x2147483647xf32> -> tensor<f32>
    return %l : tensor<f32>
  }
}
