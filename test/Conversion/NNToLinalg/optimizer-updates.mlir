// RUN: transfuse-opt %s -convert-nn-to-linalg=keep-kernel-ops=1 | FileCheck %s
// RUN: not transfuse-opt %s -convert-nn-to-linalg 2>&1 | FileCheck %s --check-prefix=CPU

// The optimizer's runtime updates (nn-optimizer{runtime-update}) exist only
// as the CUDA runtime's kernels: kept with keep-kernel-ops, and an error
// naming the op where the target has no kernel for it.

// CHECK-LABEL: func.func @updates
// CHECK-NEXT:    nn.global_norm
// CHECK-NEXT:    nn.adam_update
// CHECK-NEXT:    nn.sgd_update
// CPU: error: failed to legalize operation 'nn.global_norm'
func.func @updates(%p: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<f32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %n = nn.global_norm %g : (tensor<4xf32>) -> tensor<f32>
  %a:3 = nn.adam_update %p, %g, %p, %p step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %b = nn.sgd_update %a#0, %g lr %s clip_factor %s {momentum = 0.0 : f64, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return %n, %a#1, %b : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
