// RUN: transfuse-opt %s -split-input-file -nn-data-parallel="bucket-bytes=1024" -verify-diagnostics | FileCheck %s

// -nn-data-parallel: the loss is bucket 0, right where it is computed; the
// gradients follow in the order they are produced (c, then b, then a),
// cut into buckets of at least 1024 bytes (c's 1024 bytes fill one; b and
// a, the last, hold less), each all-reduced right after its last gradient.
// loss_and_grads returns the averaged values; other functions are left
// alone.

// CHECK:       module attributes {nn.all_reduce_buckets = 3 : i64
// CHECK-LABEL: func.func @loss_and_grads
// CHECK:         %[[LOSS:.*]] = nn.reduce_sum %{{.*}} [0]
// CHECK-NEXT:    %[[MLOSS:.*]] = nn.all_reduce %[[LOSS]] {bucket = 0 : i64, reduction = #nn.reduction<mean>} : tensor<f32>
// CHECK-NEXT:    %[[GC:.*]] = nn.mul %{{.*}} : (tensor<256xf32>, tensor<256xf32>)
// CHECK-NEXT:    %[[B1:.*]] = nn.all_reduce %[[GC]] {bucket = 1 : i64, reduction = #nn.reduction<mean>} : tensor<256xf32>
// CHECK-NEXT:    %[[GB:.*]] = nn.mul %{{.*}} : (tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT:    %[[GA:.*]] = nn.mul %{{.*}} : (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[B2:.*]]:2 = nn.all_reduce %[[GB]], %[[GA]] {bucket = 2 : i64, reduction = #nn.reduction<mean>} : tensor<8xf32>, tensor<4xf32>
// CHECK-NEXT:    return %[[MLOSS]], %[[B2]]#1, %[[B2]]#0, %[[B1]]
// CHECK-LABEL: func.func @forward
// CHECK-NEXT:    nn.mul
// CHECK-NEXT:    return
module attributes {nn.training = {}} {
  func.func @loss_and_grads(%a: tensor<4xf32>, %b: tensor<8xf32>, %c: tensor<256xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<8xf32>, tensor<256xf32>) {
    %l = nn.reduce_sum %a [0] : tensor<4xf32> -> tensor<f32>
    %gc = nn.mul %c, %c : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %gb = nn.mul %b, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %ga = nn.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %l, %ga, %gb, %gc : tensor<f32>, tensor<4xf32>, tensor<8xf32>, tensor<256xf32>
  }
  func.func @forward(%a: tensor<4xf32>) -> tensor<4xf32> {
    %y = nn.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

// A gradient returned twice (a tied parameter's) is all-reduced once; one
// that is an argument (known from the start) goes first.
// CHECK-LABEL: func.func @loss_and_grads
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>
// CHECK:         %[[M:.*]] = nn.all_reduce %{{.*}} {bucket = 0 : i64
// CHECK-NEXT:    nn.mul
// CHECK-NEXT:    %[[R:.*]]:2 = nn.all_reduce %[[A]], %{{.*}} {bucket = 1 : i64
// CHECK-NEXT:    return %[[M]], %[[R]]#1, %[[R]]#1, %[[R]]#0
module {
  func.func @loss_and_grads(%a: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %l = nn.reduce_sum %a [0] : tensor<4xf32> -> tensor<f32>
    %g = nn.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %l, %g, %g, %a : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{nn-data-parallel: no 'loss_and_grads' to make data-parallel}}
module {
  func.func @forward(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{nn-data-parallel: the module is data-parallel already}}
module attributes {nn.all_reduce_buckets = 1 : i64} {
  func.func @loss_and_grads(%a: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
    %l = nn.reduce_sum %a [0] : tensor<4xf32> -> tensor<f32>
    return %l, %a : tensor<f32>, tensor<4xf32>
  }
}

// -----

module {
  func.func @loss_and_grads(%a: tensor<4xbf16>) -> (tensor<f32>, tensor<4xbf16>) {
    %w = nn.cast %a to f32 : tensor<4xbf16> -> tensor<4xf32>
    %l = nn.reduce_sum %w [0] : tensor<4xf32> -> tensor<f32>
    // expected-error @+1 {{returns a gradient of 'tensor<4xbf16>'; only f32 gradients are all-reduced}}
    return %l, %a : tensor<f32>, tensor<4xbf16>
  }
}

// -----

module {
  func.func @loss_and_grads(%a: tensor<4xf32>) -> (tensor<4xf32>) {
    // expected-error @+1 {{must return the loss, an f32 scalar, first}}
    return %a : tensor<4xf32>
  }
}
