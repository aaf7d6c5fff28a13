// RUN: transfuse-opt %s -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// nn.attention bufferizes whole: it reads its operands' buffers in place,
// whatever their layout (here a slice of a larger tensor), and writes a
// fresh allocation through nn.attention_into with the same attributes.
// CHECK-LABEL: func.func @attention
// CHECK-SAME:    (%[[X:.*]]: memref<1x2x6x4xf32>, %[[M:.*]]: memref<1x1x1x3xi1>) -> memref<1x2x3x4xf32>
// CHECK:         %[[Q:.*]] = memref.subview %[[X]][0, 0, 0, 0] [1, 2, 3, 4] [1, 1, 1, 1]
// CHECK:         %[[K:.*]] = memref.subview %[[X]][0, 0, 3, 0] [1, 2, 3, 4] [1, 1, 1, 1]
// CHECK:         %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x4xf32>
// CHECK-NEXT:    nn.attention_into %[[Q]], %[[K]], %[[K]] mask %[[M]] into %[[OUT]] {causal, dropout = 1.000000e-01 : f64, mask_fill = -1.000000e+09 : f64, scale = 5.000000e-01 : f64}
// CHECK-NEXT:    return %[[OUT]]
func.func @attention(%x: tensor<1x2x6x4xf32>, %m: tensor<1x1x1x3xi1>) -> tensor<1x2x3x4xf32> {
  %q = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 3, 4] [1, 1, 1, 1] : tensor<1x2x6x4xf32> to tensor<1x2x3x4xf32>
  %k = tensor.extract_slice %x[0, 0, 3, 0] [1, 2, 3, 4] [1, 1, 1, 1] : tensor<1x2x6x4xf32> to tensor<1x2x3x4xf32>
  %0 = nn.attention %q, %k, %k mask %m {causal, dropout = 0.1 : f64, mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x1x3xi1>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// The layers the CUDA target keeps whole for its kernels bufferize the same
// way: operands read in place, whatever their layout, and each result a
// fresh allocation written through the op's *_into form with the same
// attributes. Layer norm with a residual keeps it.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: memref<4x16xf32>, %[[R:.*]]: memref<4x8xf32>, %[[G:.*]]: memref<8xf32>, %[[B:.*]]: memref<8xf32>) -> (memref<4x8xf32>, memref<4x8xf32>)
// CHECK:         %[[S:.*]] = memref.subview %[[X]][0, 8] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
// CHECK:         %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK-NEXT:    nn.layer_norm_into %[[S]] + %[[R]], %[[G]], %[[B]] into %[[OUT]] {axis = 1 : i64, epsilon = 1.000000e-05 : f64} : (memref<4x8xf32, strided<[16, 1], offset: 8>>, memref<8xf32>, memref<8xf32>, memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:    %[[OUT2:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK-NEXT:    nn.layer_norm_into %[[R]], %[[G]], %[[B]] into %[[OUT2]] {axis = 1 : i64, epsilon = 1.000000e-05 : f64} : (memref<4x8xf32>, memref<8xf32>, memref<8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:    return %[[OUT]], %[[OUT2]]
func.func @layer_norm(%x: tensor<4x16xf32>, %r: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = tensor.extract_slice %x[0, 8] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %0 = nn.layer_norm %s + %r, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = nn.layer_norm %r, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// Three results, three fresh buffers, in order.
// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-SAME:    (%[[DY:.*]]: memref<4x8xf32>, %[[X:.*]]: memref<4x8xf32>, %[[G:.*]]: memref<8xf32>)
// CHECK-NEXT:    %[[DX:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK-NEXT:    %[[DG:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK-NEXT:    %[[DB:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK-NEXT:    nn.layer_norm_grad_into %[[DY]], %[[X]], %[[G]] into %[[DX]], %[[DG]], %[[DB]] {axis = 1 : i64, epsilon = 1.000000e-05 : f64} : (memref<4x8xf32>, memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>, memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NEXT:    return %[[DX]], %[[DG]], %[[DB]]
func.func @layer_norm_grad(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// The losses write 0-d buffers, their gradients buffers shaped as the
// scores; ignore_index and label_smoothing carry over.
// CHECK-LABEL: func.func @losses
// CHECK-SAME:    (%[[L:.*]]: memref<4x10xf32>, %[[Y:.*]]: memref<4xi64>, %[[Y32:.*]]: memref<4xi32>)
// CHECK-NEXT:    %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK-NEXT:    nn.cross_entropy_into %[[L]], %[[Y]] into %[[A]] {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : (memref<4x10xf32>, memref<4xi64>, memref<f32>) -> ()
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x10xf32>
// CHECK-NEXT:    nn.cross_entropy_grad_into %[[L]], %[[Y32]] into %[[B]] {ignore_index = 0 : i64, label_smoothing = 0.000000e+00 : f64} : (memref<4x10xf32>, memref<4xi32>, memref<4x10xf32>) -> ()
// CHECK-NEXT:    %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK-NEXT:    nn.nll_loss_into %[[L]], %[[Y]] into %[[C]] {ignore_index = 3 : i64} : (memref<4x10xf32>, memref<4xi64>, memref<f32>) -> ()
// CHECK-NEXT:    %[[D:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x10xf32>
// CHECK-NEXT:    nn.nll_loss_grad_into %[[L]], %[[Y]] into %[[D]] {ignore_index = 3 : i64} : (memref<4x10xf32>, memref<4xi64>, memref<4x10xf32>) -> ()
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @losses(%l: tensor<4x10xf32>, %y: tensor<4xi64>, %y32: tensor<4xi32>) -> (tensor<f32>, tensor<4x10xf32>, tensor<f32>, tensor<4x10xf32>) {
  %0 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  %1 = nn.cross_entropy_grad %l, %y32 {ignore_index = 0 : i64, label_smoothing = 0.0 : f64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4x10xf32>
  %2 = nn.nll_loss %l, %y {ignore_index = 3 : i64} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  %3 = nn.nll_loss_grad %l, %y {ignore_index = 3 : i64} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4x10xf32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<4x10xf32>, tensor<f32>, tensor<4x10xf32>
}

// CHECK-LABEL: func.func @embedding_grad
// CHECK-SAME:    (%[[DY:.*]]: memref<2x3x4xf32>, %[[IDS:.*]]: memref<2x3xi64>) -> memref<20x4xf32>
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<20x4xf32>
// CHECK-NEXT:    nn.embedding_grad_into %[[DY]], %[[IDS]] into %[[T]] {num_rows = 20 : i64} : (memref<2x3x4xf32>, memref<2x3xi64>, memref<20x4xf32>) -> ()
// CHECK-NEXT:    return %[[T]]
func.func @embedding_grad(%dy: tensor<2x3x4xf32>, %ids: tensor<2x3xi64>) -> tensor<20x4xf32> {
  %0 = nn.embedding_grad %dy, %ids {num_rows = 20 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<20x4xf32>
  return %0 : tensor<20x4xf32>
}

// The optimizer updates write over the tensors they update: in place when
// nothing reads the old value later, into a copy otherwise. The global norm
// writes a fresh scalar.
// CHECK-LABEL: func.func @updates
// CHECK-SAME:    (%[[P:.*]]: memref<4xf32>, %[[G:.*]]: memref<4xf32>, %[[M:.*]]: memref<4xf32>, %[[V:.*]]: memref<4xf32>, %[[S:.*]]: memref<f32>)
// CHECK-NEXT:    %[[N:.*]] = memref.alloc() {alignment = 64 : i64} : memref<f32>
// CHECK-NEXT:    nn.global_norm_into %[[G]] into %[[N]]
// CHECK-NEXT:    nn.adam_update_into %[[P]], %[[G]], %[[M]], %[[V]] step_size %[[S]]
// V is read after the SGD update of it: that update works on a copy.
// CHECK-NEXT:    %[[COPY:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT:    memref.copy %[[V]], %[[COPY]]
// CHECK-NEXT:    nn.sgd_update_into %[[COPY]], %[[G]] lr %[[S]] clip_factor %[[S]]
// CHECK-NEXT:    return %[[N]], %[[P]], %[[M]], %[[V]], %[[COPY]]
func.func @updates(%p: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %s: tensor<f32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %n = nn.global_norm %g : (tensor<4xf32>) -> tensor<f32>
  %a:3 = nn.adam_update %p, %g, %m, %v step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %b = nn.sgd_update %a#2, %g lr %s clip_factor %s {momentum = 0.0 : f64, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return %n, %a#0, %a#1, %a#2, %b : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// An all-reduce combines its operands' buffers in place: the gradient here
// is not read afterwards, so no copy is made.
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME:    (%[[G:.*]]: memref<4xf32>)
// CHECK-NEXT:    nn.all_reduce_into %[[G]] {bucket = 1 : i64, reduction = #nn.reduction<mean>} : memref<4xf32>
// CHECK-NEXT:    return %[[G]]
func.func @all_reduce(%g: tensor<4xf32>) -> tensor<4xf32> {
  %r = nn.all_reduce %g {bucket = 1 : i64, reduction = #nn.reduction<mean>} : tensor<4xf32>
  return %r : tensor<4xf32>
}
