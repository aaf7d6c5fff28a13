// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg=keep-kernel-ops=1 | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg=keep-cross-entropy=1 | FileCheck %s --check-prefix=XENT

// -convert-nn-to-linalg{keep-kernel-ops}: the CUDA target runs f32 layer
// norm, its gradient, the losses, their gradients and the embedding
// gradient on the runtime's kernels, so these ops stay whole (for
// bufferization into their *_into forms) while everything around them is
// lowered. Other element types have no kernel and are lowered as usual;
// without the option (LOWER) nothing is kept. With keep-cross-entropy (XENT,
// the CPU target's kernels) only cross entropy and its gradient are kept.

// Layer norm with a residual, kept whole; the add feeding it is lowered.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8xf32>, %[[Y:.*]]: tensor<2x8xf32>, %[[R:.*]]: tensor<2x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<2x8xf32>, tensor<2x8xf32>)
// CHECK:         %[[N:.*]] = nn.layer_norm %[[SUM]] + %[[R]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 1.000000e-05 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    return %[[N]]
// LOWER-LABEL: func.func @layer_norm
// LOWER-NOT:     nn.layer_norm
// LOWER:         linalg.reduce
// LOWER-NOT:     nn.layer_norm
// LOWER:         return
// XENT-LABEL:  func.func @layer_norm
// XENT-NOT:      nn.layer_norm
// XENT:          linalg.reduce
// XENT-NOT:      nn.layer_norm
// XENT:          return
func.func @layer_norm(%x: tensor<2x8xf32>, %y: tensor<2x8xf32>, %r: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %s = nn.add %x, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %0 = nn.layer_norm %s + %r, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-NEXT:    %[[DX:.*]], %[[DG:.*]], %[[DB:.*]] = nn.layer_norm_grad %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 1.000000e-05 : f64} : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT:    return %[[DX]], %[[DG]], %[[DB]]
// LOWER-LABEL: func.func @layer_norm_grad
// LOWER-NOT:     nn.layer_norm_grad
// LOWER:         linalg.reduce
func.func @layer_norm_grad(%dy: tensor<3x8xf32>, %x: tensor<3x8xf32>, %g: tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<8xf32>) -> (tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// The losses and their gradients, with either label width, stay whole
// with their attributes.
// CHECK-LABEL: func.func @losses
// CHECK-NEXT:    %[[CE:.*]] = nn.cross_entropy %{{.*}}, %{{.*}} {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
// CHECK-NEXT:    %[[DCE:.*]] = nn.cross_entropy_grad %{{.*}}, %{{.*}} {ignore_index = 0 : i64, label_smoothing = 0.000000e+00 : f64} : (tensor<3x10xf32>, tensor<3xi32>) -> tensor<3x10xf32>
// CHECK-NEXT:    %[[NLL:.*]] = nn.nll_loss %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
// CHECK-NEXT:    %[[DNLL:.*]] = nn.nll_loss_grad %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<3x10xf32>
// CHECK-NEXT:    return %[[CE]], %[[DCE]], %[[NLL]], %[[DNLL]]
// LOWER-LABEL: func.func @losses
// LOWER-NOT:     nn.
// LOWER:         return
// XENT-LABEL:  func.func @losses
// XENT-NEXT:     %[[CE:.*]] = nn.cross_entropy %{{.*}}, %{{.*}} {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
// XENT-NEXT:     %[[DCE:.*]] = nn.cross_entropy_grad %{{.*}}, %{{.*}} {ignore_index = 0 : i64, label_smoothing = 0.000000e+00 : f64} : (tensor<3x10xf32>, tensor<3xi32>) -> tensor<3x10xf32>
// XENT-NOT:      nn.nll_loss
// XENT:          return %[[CE]], %[[DCE]]
func.func @losses(%l: tensor<3x10xf32>, %y: tensor<3xi64>, %y32: tensor<3xi32>) -> (tensor<f32>, tensor<3x10xf32>, tensor<f32>, tensor<3x10xf32>) {
  %0 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
  %1 = nn.cross_entropy_grad %l, %y32 {ignore_index = 0 : i64, label_smoothing = 0.0 : f64} : (tensor<3x10xf32>, tensor<3xi32>) -> tensor<3x10xf32>
  %2 = nn.nll_loss %l, %y {ignore_index = -100 : i64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
  %3 = nn.nll_loss_grad %l, %y {ignore_index = -100 : i64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<3x10xf32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<3x10xf32>, tensor<f32>, tensor<3x10xf32>
}

// -----

// The embedding gradient is kept; the embedding itself (a gather) is not
// one of the kernel ops and is lowered.
// CHECK-LABEL: func.func @embedding
// CHECK-NOT:     nn.embedding %
// CHECK:         linalg.generic
// CHECK:         %[[D:.*]] = nn.embedding_grad %{{.*}}, %{{.*}} {num_rows = 100 : i64} : (tensor<2x7x16xf32>, tensor<2x7xi64>) -> tensor<100x16xf32>
// CHECK-NEXT:    return %{{.*}}, %[[D]]
// LOWER-LABEL: func.func @embedding
// LOWER-NOT:     nn.
// LOWER:         return
func.func @embedding(%t: tensor<100x16xf32>, %ids: tensor<2x7xi64>, %dy: tensor<2x7x16xf32>) -> (tensor<2x7x16xf32>, tensor<100x16xf32>) {
  %0 = nn.embedding %t[%ids] : (tensor<100x16xf32>, tensor<2x7xi64>) -> tensor<2x7x16xf32>
  %1 = nn.embedding_grad %dy, %ids {num_rows = 100 : i64} : (tensor<2x7x16xf32>, tensor<2x7xi64>) -> tensor<100x16xf32>
  return %0, %1 : tensor<2x7x16xf32>, tensor<100x16xf32>
}

// -----

// f64 (and f16) have no kernel: lowered even with the option.
// CHECK-LABEL: func.func @other_types
// CHECK-NOT:     nn.
// CHECK:         return
// LOWER-LABEL: func.func @other_types
// LOWER-NOT:     nn.
// LOWER:         return
func.func @other_types(%x: tensor<2x8xf64>, %g: tensor<8xf64>, %b: tensor<8xf64>,
                       %l: tensor<3x10xf64>, %y: tensor<3xi64>, %dy: tensor<3x4xf16>) -> (tensor<2x8xf64>, tensor<8xf64>, tensor<f64>, tensor<3x10xf64>, tensor<f64>, tensor<3x10xf64>, tensor<5x4xf16>) {
  %0 = nn.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf64>, tensor<8xf64>, tensor<8xf64>) -> tensor<2x8xf64>
  %1:3 = nn.layer_norm_grad %x, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf64>, tensor<2x8xf64>, tensor<8xf64>) -> (tensor<2x8xf64>, tensor<8xf64>, tensor<8xf64>)
  %2 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<3x10xf64>, tensor<3xi64>) -> tensor<f64>
  %3 = nn.cross_entropy_grad %l, %y {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<3x10xf64>, tensor<3xi64>) -> tensor<3x10xf64>
  %4 = nn.nll_loss %l, %y {ignore_index = -100 : i64} : (tensor<3x10xf64>, tensor<3xi64>) -> tensor<f64>
  %5 = nn.nll_loss_grad %l, %y {ignore_index = -100 : i64} : (tensor<3x10xf64>, tensor<3xi64>) -> tensor<3x10xf64>
  %6 = nn.embedding_grad %dy, %y {num_rows = 5 : i64} : (tensor<3x4xf16>, tensor<3xi64>) -> tensor<5x4xf16>
  return %0, %1#1, %2, %3, %4, %5, %6 : tensor<2x8xf64>, tensor<8xf64>, tensor<f64>, tensor<3x10xf64>, tensor<f64>, tensor<3x10xf64>, tensor<5x4xf16>
}
