// RUN: transfuse-opt %s | transfuse-opt | FileCheck %s
// RUN: transfuse-opt %s --mlir-print-op-generic | transfuse-opt | FileCheck %s

// Round trip of every op and attribute of the nn dialect, through both the
// custom and the generic form.

//===----------------------------------------------------------------------===//
// Parameters and #nn.init
//===----------------------------------------------------------------------===//

// A state_dict key is a bare identifier when it can be.
// CHECK: nn.parameter @encoder.layers.0.self_attn.w_q.weight : tensor<8x16xf32> init <uniform(-4.419420e-02, 4.419420e-02)>
nn.parameter @"encoder.layers.0.self_attn.w_q.weight" : tensor<8x16xf32> init #nn.init<uniform(-0.0441942, 0.0441942)>
// CHECK: nn.parameter @"0.weight" : tensor<16x16xf32> init <normal(0.000000e+00, 2.000000e-02)>
nn.parameter @"0.weight" : tensor<16x16xf32> init #nn.init<normal(0.0, 0.02)>
// CHECK: nn.parameter @bias : tensor<16xf32> init <zeros>
nn.parameter @bias : tensor<16xf32> init #nn.init<zeros>
// CHECK: nn.parameter @gamma : tensor<16xf32> init <ones>
nn.parameter @gamma : tensor<16xf32> init #nn.init<ones>
// CHECK: nn.parameter @half : tensor<4xf16> init <constant(-2.500000e-01)>
nn.parameter @half : tensor<4xf16> init #nn.init<constant(-0.25)>
// CHECK: nn.parameter @emb : tensor<10x4xbf16> init <normal(0.000000e+00, 1.000000e+00)>
nn.parameter @emb : tensor<10x4xbf16> init #nn.init<normal(0.0, 1.0)>
// CHECK: nn.parameter @wide : tensor<2xf64> init <uniform(1.000000e+00, 1.000000e+00)>
nn.parameter @wide : tensor<2xf64> init #nn.init<uniform(1.0, 1.0)>
// CHECK: nn.parameter @point : tensor<f32> init <normal(5.000000e-01, 0.000000e+00)>
nn.parameter @point : tensor<f32> init #nn.init<normal(0.5, 0.0)>
// Bounds that need every digit print with every digit.
// CHECK: nn.parameter @exact : tensor<512xf32> init <uniform(-0.044194173824159216, 0.044194173824159216)>
nn.parameter @exact : tensor<512xf32> init #nn.init<uniform(-0.044194173824159216, 0.044194173824159216)>
// A discardable attribute after the init.
// CHECK: nn.parameter @tagged : tensor<3xf32> init <zeros> {nn.tag = "frozen"}
nn.parameter @tagged : tensor<3xf32> init #nn.init<zeros> {nn.tag = "frozen"}

// CHECK-LABEL: func.func @param_load
func.func @param_load() -> (tensor<8x16xf32>, tensor<16x16xf32>, tensor<4xf16>, tensor<f32>) {
  // CHECK: nn.param_load @encoder.layers.0.self_attn.w_q.weight : tensor<8x16xf32>
  %w = nn.param_load @"encoder.layers.0.self_attn.w_q.weight" : tensor<8x16xf32>
  // CHECK: nn.param_load @"0.weight" : tensor<16x16xf32>
  %q = nn.param_load @"0.weight" : tensor<16x16xf32>
  // CHECK: nn.param_load @half : tensor<4xf16>
  %h = nn.param_load @half : tensor<4xf16>
  // CHECK: nn.param_load @point : tensor<f32>
  %p = nn.param_load @point : tensor<f32>
  return %w, %q, %h, %p : tensor<8x16xf32>, tensor<16x16xf32>, tensor<4xf16>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>,
                  %c: tensor<2x1x3x4xf32>, %d: tensor<6x4x5xf32>,
                  %e: tensor<7x3x4xf16>, %f: tensor<4x5xf16>) {
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  // Batch dimensions broadcast: [2, 1] with [6] gives [2, 6].
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<2x1x3x4xf32>, tensor<6x4x5xf32>) -> tensor<2x6x3x5xf32>
  %1 = nn.matmul %c, %d : (tensor<2x1x3x4xf32>, tensor<6x4x5xf32>) -> tensor<2x6x3x5xf32>
  // A rank-2 operand against a batched one.
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : (tensor<7x3x4xf16>, tensor<4x5xf16>) -> tensor<7x3x5xf16>
  %2 = nn.matmul %e, %f : (tensor<7x3x4xf16>, tensor<4x5xf16>) -> tensor<7x3x5xf16>
  return
}

// CHECK-LABEL: func.func @transpose
func.func @transpose(%a: tensor<2x3x4x5xf32>, %b: tensor<3x4xi64>,
                     %c: tensor<f32>) {
  // CHECK: nn.transpose %{{.*}} [0, 2, 1, 3] : tensor<2x3x4x5xf32> -> tensor<2x4x3x5xf32>
  %0 = nn.transpose %a [0, 2, 1, 3] : tensor<2x3x4x5xf32> -> tensor<2x4x3x5xf32>
  // CHECK: nn.transpose %{{.*}} [3, 0, 1, 2] : tensor<2x3x4x5xf32> -> tensor<5x2x3x4xf32>
  %1 = nn.transpose %a [3, 0, 1, 2] : tensor<2x3x4x5xf32> -> tensor<5x2x3x4xf32>
  // Any element type.
  // CHECK: nn.transpose %{{.*}} [1, 0] : tensor<3x4xi64> -> tensor<4x3xi64>
  %2 = nn.transpose %b [1, 0] : tensor<3x4xi64> -> tensor<4x3xi64>
  // CHECK: nn.transpose %{{.*}} [] : tensor<f32> -> tensor<f32>
  %3 = nn.transpose %c [] : tensor<f32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @reshape
func.func @reshape(%a: tensor<2x3x4xf32>, %b: tensor<1xi1>, %c: tensor<f32>) {
  // CHECK: nn.reshape %{{.*}} [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %0 = nn.reshape %a [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: nn.reshape %{{.*}} [2, 3, 2, 2] : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  %1 = nn.reshape %a [2, 3, 2, 2] : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  // CHECK: nn.reshape %{{.*}} [] : tensor<1xi1> -> tensor<i1>
  %2 = nn.reshape %b [] : tensor<1xi1> -> tensor<i1>
  // CHECK: nn.reshape %{{.*}} [1, 1] : tensor<f32> -> tensor<1x1xf32>
  %3 = nn.reshape %c [1, 1] : tensor<f32> -> tensor<1x1xf32>
  return
}

// CHECK-LABEL: func.func @slice
func.func @slice(%a: tensor<4x6xf32>, %b: tensor<1x8xi32>) {
  // CHECK: nn.slice %{{.*}} [1, 2] [3, 4] : tensor<4x6xf32> -> tensor<3x4xf32>
  %0 = nn.slice %a [1, 2] [3, 4] : tensor<4x6xf32> -> tensor<3x4xf32>
  // CHECK: nn.slice %{{.*}} [0, 0] [4, 6] : tensor<4x6xf32> -> tensor<4x6xf32>
  %1 = nn.slice %a [0, 0] [4, 6] : tensor<4x6xf32> -> tensor<4x6xf32>
  // CHECK: nn.slice %{{.*}} [0, 7] [1, 1] : tensor<1x8xi32> -> tensor<1x1xi32>
  %2 = nn.slice %b [0, 7] [1, 1] : tensor<1x8xi32> -> tensor<1x1xi32>
  return
}

// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>,
                  %c: tensor<4x3xf32>, %d: tensor<2xi64>) {
  // CHECK: nn.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %0 = nn.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK: nn.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
  %1 = nn.concat %a, %c, %a {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
  // CHECK: nn.concat %{{.*}} {axis = 0 : i64} : (tensor<2xi64>) -> tensor<2xi64>
  %2 = nn.concat %d {axis = 0 : i64} : (tensor<2xi64>) -> tensor<2xi64>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>,
                  %c: tensor<4x1x3xf32>, %d: tensor<5x1xf32>,
                  %h: tensor<2x3xf16>) {
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = nn.add %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = nn.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: nn.sub %{{.*}}, %{{.*}} : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = nn.sub %s, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: nn.sub %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %3 = nn.sub %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  // Both operands broadcast: [4, 1, 3] with [5, 1] gives [4, 5, 3].
  // CHECK: nn.mul %{{.*}}, %{{.*}} : (tensor<4x1x3xf32>, tensor<5x1xf32>) -> tensor<4x5x3xf32>
  %4 = nn.mul %c, %d : (tensor<4x1x3xf32>, tensor<5x1xf32>) -> tensor<4x5x3xf32>
  // CHECK: nn.mul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %5 = nn.mul %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: nn.div %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %6 = nn.div %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: nn.div %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = nn.div %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: nn.add %{{.*}}, %{{.*}} : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  %8 = nn.add %h, %h : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  return
}

// CHECK-LABEL: func.func @unary
func.func @unary(%a: tensor<2x3xf32>, %s: tensor<bf16>, %d: tensor<4xf64>) {
  // CHECK: nn.neg %{{.*}} : tensor<2x3xf32>
  %0 = nn.neg %a : tensor<2x3xf32>
  // CHECK: nn.exp %{{.*}} : tensor<2x3xf32>
  %1 = nn.exp %a : tensor<2x3xf32>
  // CHECK: nn.log %{{.*}} : tensor<4xf64>
  %2 = nn.log %d : tensor<4xf64>
  // CHECK: nn.sqrt %{{.*}} : tensor<bf16>
  %3 = nn.sqrt %s : tensor<bf16>
  // CHECK: nn.rsqrt %{{.*}} : tensor<2x3xf32>
  %4 = nn.rsqrt %a : tensor<2x3xf32>
  // CHECK: nn.tanh %{{.*}} : tensor<2x3xf32>
  %5 = nn.tanh %a : tensor<2x3xf32>
  // CHECK: nn.relu %{{.*}} : tensor<2x3xf32>
  %6 = nn.relu %a : tensor<2x3xf32>
  // CHECK: nn.gelu %{{[^ ]+}} : tensor<2x3xf32>
  %7 = nn.gelu %a : tensor<2x3xf32>
  // CHECK: nn.gelu %{{.*}} {approximate_tanh} : tensor<2x3xf32>
  %8 = nn.gelu %a {approximate_tanh} : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @compare
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>,
                   %ids: tensor<2x5xi64>, %pad: tensor<i64>,
                   %i32: tensor<4xi32>) {
  // CHECK: nn.compare eq, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %0 = nn.compare eq, %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.compare ne, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = nn.compare ne, %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.compare lt, %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = nn.compare lt, %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.compare le, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %3 = nn.compare le, %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: nn.compare gt, %{{.*}}, %{{.*}} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %4 = nn.compare gt, %i32, %i32 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  // Token ids against a rank-0 pad id.
  // CHECK: nn.compare ge, %{{.*}}, %{{.*}} : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  %5 = nn.compare ge, %ids, %pad : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi1>
  return
}

// CHECK-LABEL: func.func @masked_fill
func.func @masked_fill(%a: tensor<2x4x4xf32>, %m: tensor<4x4xi1>,
                       %full: tensor<2x4x4xi1>, %h: tensor<3xf16>,
                       %s: tensor<i1>) {
  // -inf, the causal masking value.
  // CHECK: nn.masked_fill %{{.*}}, %{{.*}}, 0xFFF0000000000000 : (tensor<2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x4x4xf32>
  %0 = nn.masked_fill %a, %m, 0xFFF0000000000000 : (tensor<2x4x4xf32>, tensor<4x4xi1>) -> tensor<2x4x4xf32>
  // CHECK: nn.masked_fill %{{.*}}, %{{.*}}, -1.000000e+09 : (tensor<2x4x4xf32>, tensor<2x4x4xi1>) -> tensor<2x4x4xf32>
  %1 = nn.masked_fill %a, %full, -1.0e9 : (tensor<2x4x4xf32>, tensor<2x4x4xi1>) -> tensor<2x4x4xf32>
  // CHECK: nn.masked_fill %{{.*}}, %{{.*}}, 0.000000e+00 : (tensor<3xf16>, tensor<i1>) -> tensor<3xf16>
  %2 = nn.masked_fill %h, %s, 0.0 : (tensor<3xf16>, tensor<i1>) -> tensor<3xf16>
  return
}

// CHECK-LABEL: func.func @cast
func.func @cast(%m: tensor<2x3xi1>, %ids: tensor<5xi64>, %a: tensor<4xf32>) {
  // CHECK: nn.cast %{{.*}} to f32 : tensor<2x3xi1> -> tensor<2x3xf32>
  %0 = nn.cast %m to f32 : tensor<2x3xi1> -> tensor<2x3xf32>
  // CHECK: nn.cast %{{.*}} to i32 : tensor<5xi64> -> tensor<5xi32>
  %1 = nn.cast %ids to i32 : tensor<5xi64> -> tensor<5xi32>
  // CHECK: nn.cast %{{.*}} to bf16 : tensor<4xf32> -> tensor<4xbf16>
  %2 = nn.cast %a to bf16 : tensor<4xf32> -> tensor<4xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Normalisations and reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @softmax
func.func @softmax(%a: tensor<2x4x8xf32>) {
  // CHECK: nn.softmax %{{.*}} {axis = 2 : i64} : tensor<2x4x8xf32>
  %0 = nn.softmax %a {axis = 2 : i64} : tensor<2x4x8xf32>
  // CHECK: nn.softmax %{{.*}} {axis = 0 : i64} : tensor<2x4x8xf32>
  %1 = nn.softmax %a {axis = 0 : i64} : tensor<2x4x8xf32>
  // CHECK: nn.log_softmax %{{.*}} {axis = 2 : i64} : tensor<2x4x8xf32>
  %2 = nn.log_softmax %a {axis = 2 : i64} : tensor<2x4x8xf32>
  // CHECK: nn.log_softmax %{{.*}} {axis = 1 : i64} : tensor<2x4x8xf32>
  %3 = nn.log_softmax %a {axis = 1 : i64} : tensor<2x4x8xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%a: tensor<2x3x4xf32>, %v: tensor<5xf64>) {
  // CHECK: nn.reduce_sum %{{.*}} [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %0 = nn.reduce_sum %a [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  // CHECK: nn.reduce_sum %{{.*}} [0, 2] {keep_dims} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %1 = nn.reduce_sum %a [0, 2] {keep_dims} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  // CHECK: nn.reduce_mean %{{.*}} [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %2 = nn.reduce_mean %a [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  // CHECK: nn.reduce_mean %{{.*}} [2] {keep_dims} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %3 = nn.reduce_mean %a [2] {keep_dims} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  // Every axis: a scalar.
  // CHECK: nn.reduce_max %{{.*}} [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  %4 = nn.reduce_max %a [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  // CHECK: nn.reduce_max %{{.*}} [0] {keep_dims} : tensor<5xf64> -> tensor<1xf64>
  %5 = nn.reduce_max %v [0] {keep_dims} : tensor<5xf64> -> tensor<1xf64>
  return
}

//===----------------------------------------------------------------------===//
// Embeddings, positions, masks, dropout
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @embedding
func.func @embedding(%table: tensor<100x16xf32>, %ids: tensor<2x7xi64>,
                     %one: tensor<i32>) {
  // CHECK: nn.embedding %{{.*}}[%{{.*}}] : (tensor<100x16xf32>, tensor<2x7xi64>) -> tensor<2x7x16xf32>
  %0 = nn.embedding %table[%ids] : (tensor<100x16xf32>, tensor<2x7xi64>) -> tensor<2x7x16xf32>
  // CHECK: nn.embedding %{{.*}}[%{{.*}}] : (tensor<100x16xf32>, tensor<i32>) -> tensor<16xf32>
  %1 = nn.embedding %table[%one] : (tensor<100x16xf32>, tensor<i32>) -> tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @positions_and_masks
func.func @positions_and_masks(%a: tensor<2x3xf32>) {
  // CHECK: nn.sinusoidal_encoding : tensor<50x16xf32>
  %0 = nn.sinusoidal_encoding : tensor<50x16xf32>
  // CHECK: nn.triangular_mask {diagonal = 1 : i64} : tensor<7x7xi1>
  %1 = nn.triangular_mask {diagonal = 1 : i64} : tensor<7x7xi1>
  // CHECK: nn.triangular_mask {diagonal = -2 : i64} : tensor<3x5xi1>
  %2 = nn.triangular_mask {diagonal = -2 : i64} : tensor<3x5xi1>
  // CHECK: nn.dropout %{{.*}} {rate = 1.000000e-01 : f64} : tensor<2x3xf32>
  %3 = nn.dropout %a {rate = 1.000000e-01 : f64} : tensor<2x3xf32>
  // CHECK: nn.dropout %{{.*}} {rate = 0.000000e+00 : f64} : tensor<2x3xf32>
  %4 = nn.dropout %a {rate = 0.0 : f64} : tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x4x5x8xf32>, %k: tensor<2x4x6x8xf32>,
                     %v: tensor<2x4x6x16xf32>, %pad: tensor<2x1x1x6xi1>,
                     %bias: tensor<5x6xf32>) {
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 3.535530e-01 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>) -> tensor<2x4x5x16xf32>
  %0 = nn.attention %q, %k, %v {scale = 0.353553 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>) -> tensor<2x4x5x16xf32>
  // An i1 mask, broadcast over heads and queries.
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {scale = 1.250000e-01 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x5x16xf32>
  %1 = nn.attention %q, %k, %v mask %pad {scale = 0.125 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x5x16xf32>
  // An additive f32 mask of lower rank.
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {scale = 1.250000e-01 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>, tensor<5x6xf32>) -> tensor<2x4x5x16xf32>
  %2 = nn.attention %q, %k, %v mask %bias {scale = 0.125 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>, tensor<5x6xf32>) -> tensor<2x4x5x16xf32>
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>) -> tensor<2x4x5x16xf32>
  %3 = nn.attention %q, %k, %v {causal, scale = 0.125 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>) -> tensor<2x4x5x16xf32>
  // A finite fill for hidden keys and dropout on the probabilities.
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {dropout = 1.000000e-01 : f64, mask_fill = -1.000000e+09 : f64, scale = 1.250000e-01 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x5x16xf32>
  %5 = nn.attention %q, %k, %v mask %pad {dropout = 0.1 : f64, mask_fill = -1.0e9 : f64, scale = 0.125 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x5x16xf32>
  // CHECK: nn.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x5x16xf32>
  %4 = nn.attention %q, %k, %v mask %pad {causal, scale = 0.125 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x16xf32>, tensor<2x1x1x6xi1>) -> tensor<2x4x5x16xf32>
  return
}

// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<2x5x16xf32>, %r: tensor<2x5x16xf32>,
                      %g: tensor<16xf32>, %b: tensor<16xf32>,
                      %g2: tensor<5x16xf32>, %b2: tensor<5x16xf32>) {
  // CHECK: nn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %0 = nn.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-6 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  // The post-LN sublayer connection: norm(x + residual).
  // CHECK: nn.layer_norm %{{.*}} + %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %1 = nn.layer_norm %x + %r, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  // Normalising over the last two dimensions.
  // CHECK: nn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 1.000000e-05 : f64} : (tensor<2x5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<2x5x16xf32>
  %2 = nn.layer_norm %x, %g2, %b2 {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<2x5x16xf32>
  return
}

// CHECK-LABEL: func.func @fused_matmul
func.func @fused_matmul(%x: tensor<2x5x16xf32>, %w: tensor<16x32xf32>,
                        %wt: tensor<32x16xf32>, %b: tensor<32xf32>) {
  // CHECK: nn.fused_matmul %{{.*}}, %{{.*}} : (tensor<2x5x16xf32>, tensor<16x32xf32>) -> tensor<2x5x32xf32>
  %0 = nn.fused_matmul %x, %w : (tensor<2x5x16xf32>, tensor<16x32xf32>) -> tensor<2x5x32xf32>
  // CHECK: nn.fused_matmul %{{.*}}, %{{.*}} bias %{{.*}} : (tensor<2x5x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  %1 = nn.fused_matmul %x, %w bias %b : (tensor<2x5x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  // A Linear weight [out, in].
  // CHECK: nn.fused_matmul %{{.*}}, %{{.*}} bias %{{.*}} {transpose_rhs} : (tensor<2x5x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  %2 = nn.fused_matmul %x, %wt bias %b {transpose_rhs} : (tensor<2x5x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  // The default activation is not printed.
  // CHECK: nn.fused_matmul %{{.*}}, %{{.*}} {transpose_rhs} : (tensor<2x5x16xf32>, tensor<32x16xf32>) -> tensor<2x5x32xf32>
  %3 = nn.fused_matmul %x, %wt {activation = #nn.activation<none>, transpose_rhs} : (tensor<2x5x16xf32>, tensor<32x16xf32>) -> tensor<2x5x32xf32>
  // CHECK: nn.fused_matmul %{{.*}}, %{{.*}} bias %{{.*}} {activation = #nn.activation<relu>} : (tensor<2x5x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  %4 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<relu>} : (tensor<2x5x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  // CHECK: nn.fused_matmul %{{.*}}, %{{.*}} {activation = #nn.activation<gelu>, transpose_rhs} : (tensor<2x5x16xf32>, tensor<32x16xf32>) -> tensor<2x5x32xf32>
  %5 = nn.fused_matmul %x, %wt {activation = #nn.activation<gelu>, transpose_rhs} : (tensor<2x5x16xf32>, tensor<32x16xf32>) -> tensor<2x5x32xf32>
  // CHECK: nn.fused_matmul %{{.*}}, %{{.*}} bias %{{.*}} {activation = #nn.activation<gelu_tanh>} : (tensor<2x5x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  %6 = nn.fused_matmul %x, %w bias %b {activation = #nn.activation<gelu_tanh>} : (tensor<2x5x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// Buffer forms
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @attention_into
func.func @attention_into(%q: memref<2x4x3x8xf32>, %heads_inner: memref<2x5x4x8xf32>,
                          %mask: memref<2x1x1x5xi1>, %out: memref<2x4x3x8xf32>) {
  %k = memref.transpose %heads_inner (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x5x4x8xf32> to memref<2x4x5x8xf32, strided<[160, 8, 32, 1]>>
  // CHECK: nn.attention_into %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} into %{{.*}} {causal, mask_fill = -1.000000e+09 : f64, scale = 5.000000e-01 : f64} : memref<2x4x3x8xf32>, memref<2x4x5x8xf32, strided<[160, 8, 32, 1]>>, memref<2x4x5x8xf32, strided<[160, 8, 32, 1]>>, memref<2x1x1x5xi1> into memref<2x4x3x8xf32>
  nn.attention_into %q, %k, %k mask %mask into %out {causal, mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : memref<2x4x3x8xf32>, memref<2x4x5x8xf32, strided<[160, 8, 32, 1]>>, memref<2x4x5x8xf32, strided<[160, 8, 32, 1]>>, memref<2x1x1x5xi1> into memref<2x4x3x8xf32>
  // CHECK: nn.attention_into %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} {scale = 2.500000e-01 : f64} : memref<2x4x3x8xf32>, memref<2x4x3x8xf32>, memref<2x4x3x8xf32> into memref<2x4x3x8xf32>
  nn.attention_into %q, %q, %q into %out {scale = 0.25 : f64} : memref<2x4x3x8xf32>, memref<2x4x3x8xf32>, memref<2x4x3x8xf32> into memref<2x4x3x8xf32>
  return
}

// The layers the CUDA target keeps whole, on buffers: operands of any
// layout (a residual read through a subview), the results' buffers after
// `into`, every attribute, and either label width.
// CHECK-LABEL: func.func @kernel_ops_into
// CHECK-SAME:    (%[[X:[^:]+]]: memref<2x5x16xf32>, %[[WIDE:[^:]+]]: memref<2x5x32xf32>, %[[G:[^:]+]]: memref<16xf32>, %[[B:[^:]+]]: memref<16xf32>, %[[O:[^:]+]]: memref<2x5x16xf32>, %[[DG:[^:]+]]: memref<16xf32>, %[[DB:[^:]+]]: memref<16xf32>, %[[L:[^:]+]]: memref<2x3x10xf32>, %[[Y:[^:]+]]: memref<2x3xi64>, %[[IDS:[^:]+]]: memref<2x3xi32>, %[[LOSS:[^:]+]]: memref<f32>, %[[DL:[^:]+]]: memref<2x3x10xf32>, %[[DY:[^:]+]]: memref<2x3x16xf32>, %[[T:[^:]+]]: memref<50x16xf32>, %[[H:[^:]+]]: memref<8xf16>, %[[H0:[^:]+]]: memref<f16>, %[[ONE:[^:]+]]: memref<i32>)
func.func @kernel_ops_into(%x: memref<2x5x16xf32>, %wide: memref<2x5x32xf32>, %g: memref<16xf32>, %b: memref<16xf32>, %o: memref<2x5x16xf32>,
                           %dg: memref<16xf32>, %db: memref<16xf32>,
                           %logits: memref<2x3x10xf32>, %labels: memref<2x3xi64>, %ids: memref<2x3xi32>, %loss: memref<f32>, %dl: memref<2x3x10xf32>,
                           %dy: memref<2x3x16xf32>, %table: memref<50x16xf32>, %h: memref<8xf16>, %h0: memref<f16>, %one: memref<i32>) {
  // CHECK: %[[R:.*]] = memref.subview %[[WIDE]]
  %r = memref.subview %wide[0, 0, 16] [2, 5, 16] [1, 1, 1] : memref<2x5x32xf32> to memref<2x5x16xf32, strided<[160, 32, 1], offset: 16>>
  // CHECK-NEXT: nn.layer_norm_into %[[X]] + %[[R]], %[[G]], %[[B]] into %[[O]] {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : (memref<2x5x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x5x16xf32, strided<[160, 32, 1], offset: 16>>, memref<2x5x16xf32>) -> ()
  nn.layer_norm_into %x + %r, %g, %b into %o {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (memref<2x5x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x5x16xf32, strided<[160, 32, 1], offset: 16>>, memref<2x5x16xf32>) -> ()
  // CHECK-NEXT: nn.layer_norm_into %[[R]], %[[G]], %[[B]] into %[[O]] {axis = 2 : i64, epsilon = 9.9999999999999995E-7 : f64} : (memref<2x5x16xf32, strided<[160, 32, 1], offset: 16>>, memref<16xf32>, memref<16xf32>, memref<2x5x16xf32>) -> ()
  nn.layer_norm_into %r, %g, %b into %o {axis = 2 : i64, epsilon = 1.0e-6 : f64} : (memref<2x5x16xf32, strided<[160, 32, 1], offset: 16>>, memref<16xf32>, memref<16xf32>, memref<2x5x16xf32>) -> ()
  // CHECK-NEXT: nn.layer_norm_grad_into %[[O]], %[[X]], %[[G]] into %[[O]], %[[DG]], %[[DB]] {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : (memref<2x5x16xf32>, memref<2x5x16xf32>, memref<16xf32>, memref<2x5x16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  nn.layer_norm_grad_into %o, %x, %g into %o, %dg, %db {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (memref<2x5x16xf32>, memref<2x5x16xf32>, memref<16xf32>, memref<2x5x16xf32>, memref<16xf32>, memref<16xf32>) -> ()
  // CHECK-NEXT: nn.cross_entropy_into %[[L]], %[[Y]] into %[[LOSS]] {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<f32>) -> ()
  nn.cross_entropy_into %logits, %labels into %loss {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<f32>) -> ()
  // CHECK-NEXT: nn.cross_entropy_grad_into %[[L]], %[[IDS]] into %[[DL]] {ignore_index = 0 : i64, label_smoothing = 0.000000e+00 : f64} : (memref<2x3x10xf32>, memref<2x3xi32>, memref<2x3x10xf32>) -> ()
  nn.cross_entropy_grad_into %logits, %ids into %dl {ignore_index = 0 : i64, label_smoothing = 0.0 : f64} : (memref<2x3x10xf32>, memref<2x3xi32>, memref<2x3x10xf32>) -> ()
  // CHECK-NEXT: nn.nll_loss_into %[[L]], %[[Y]] into %[[LOSS]] {ignore_index = -100 : i64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<f32>) -> ()
  nn.nll_loss_into %logits, %labels into %loss {ignore_index = -100 : i64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<f32>) -> ()
  // CHECK-NEXT: nn.nll_loss_grad_into %[[L]], %[[Y]] into %[[DL]] {ignore_index = -100 : i64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<2x3x10xf32>) -> ()
  nn.nll_loss_grad_into %logits, %labels into %dl {ignore_index = -100 : i64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<2x3x10xf32>) -> ()
  // Rank-1 f16 scores against a rank-0 label.
  // CHECK-NEXT: nn.nll_loss_into %[[H]], %[[ONE]] into %[[H0]] {ignore_index = 1 : i64} : (memref<8xf16>, memref<i32>, memref<f16>) -> ()
  nn.nll_loss_into %h, %one into %h0 {ignore_index = 1 : i64} : (memref<8xf16>, memref<i32>, memref<f16>) -> ()
  // CHECK-NEXT: nn.embedding_grad_into %[[DY]], %[[IDS]] into %[[T]] {num_rows = 50 : i64} : (memref<2x3x16xf32>, memref<2x3xi32>, memref<50x16xf32>) -> ()
  nn.embedding_grad_into %dy, %ids into %table {num_rows = 50 : i64} : (memref<2x3x16xf32>, memref<2x3xi32>, memref<50x16xf32>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @losses
func.func @losses(%logits: tensor<2x7x10xf32>, %labels: tensor<2x7xi64>,
                  %flat: tensor<3x10xf32>, %ids: tensor<3xi32>,
                  %row: tensor<10xf32>, %one: tensor<i32>) {
  // CHECK: nn.cross_entropy %{{.*}}, %{{.*}} {ignore_index = -100 : i64, label_smoothing = 0.000000e+00 : f64} : (tensor<2x7x10xf32>, tensor<2x7xi64>) -> tensor<f32>
  %0 = nn.cross_entropy %logits, %labels {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<2x7x10xf32>, tensor<2x7xi64>) -> tensor<f32>
  // CHECK: nn.cross_entropy %{{.*}}, %{{.*}} {ignore_index = 0 : i64, label_smoothing = 1.000000e-01 : f64} : (tensor<3x10xf32>, tensor<3xi32>) -> tensor<f32>
  %1 = nn.cross_entropy %flat, %ids {ignore_index = 0 : i64, label_smoothing = 0.1 : f64} : (tensor<3x10xf32>, tensor<3xi32>) -> tensor<f32>
  // CHECK: nn.nll_loss %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : (tensor<2x7x10xf32>, tensor<2x7xi64>) -> tensor<f32>
  %2 = nn.nll_loss %logits, %labels {ignore_index = -100 : i64} : (tensor<2x7x10xf32>, tensor<2x7xi64>) -> tensor<f32>
  // Rank-1 logits against rank-0 labels.
  // CHECK: nn.nll_loss %{{.*}}, %{{.*}} {ignore_index = 1 : i64} : (tensor<10xf32>, tensor<i32>) -> tensor<f32>
  %3 = nn.nll_loss %row, %one {ignore_index = 1 : i64} : (tensor<10xf32>, tensor<i32>) -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @layer_norm_grad
func.func @layer_norm_grad(%dy: tensor<2x5x16xf32>, %x: tensor<2x5x16xf32>,
                           %g: tensor<16xf32>, %g2: tensor<5x16xf32>) {
  // CHECK: nn.layer_norm_grad %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : (tensor<2x5x16xf32>, tensor<2x5x16xf32>, tensor<16xf32>) -> (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>)
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x5x16xf32>, tensor<2x5x16xf32>, tensor<16xf32>) -> (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>)
  // Normalising over the last two dimensions.
  // CHECK: nn.layer_norm_grad %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<2x5x16xf32>, tensor<2x5x16xf32>, tensor<5x16xf32>) -> (tensor<2x5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>)
  %1:3 = nn.layer_norm_grad %dy, %x, %g2 {axis = 1 : i64, epsilon = 1.0e-6 : f64} : (tensor<2x5x16xf32>, tensor<2x5x16xf32>, tensor<5x16xf32>) -> (tensor<2x5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>)
  return
}

// CHECK-LABEL: func.func @embedding_grad
func.func @embedding_grad(%dy: tensor<2x7x16xf32>, %ids: tensor<2x7xi64>,
                          %row: tensor<16xf16>, %one: tensor<i32>) {
  // CHECK: nn.embedding_grad %{{.*}}, %{{.*}} {num_rows = 100 : i64} : (tensor<2x7x16xf32>, tensor<2x7xi64>) -> tensor<100x16xf32>
  %0 = nn.embedding_grad %dy, %ids {num_rows = 100 : i64} : (tensor<2x7x16xf32>, tensor<2x7xi64>) -> tensor<100x16xf32>
  // One id: a [d] gradient.
  // CHECK: nn.embedding_grad %{{.*}}, %{{.*}} {num_rows = 3 : i64} : (tensor<16xf16>, tensor<i32>) -> tensor<3x16xf16>
  %1 = nn.embedding_grad %row, %one {num_rows = 3 : i64} : (tensor<16xf16>, tensor<i32>) -> tensor<3x16xf16>
  return
}

// CHECK-LABEL: func.func @loss_grads
func.func @loss_grads(%logits: tensor<2x7x10xf32>, %labels: tensor<2x7xi64>,
                      %row: tensor<10xf32>, %one: tensor<i32>) {
  // CHECK: nn.cross_entropy_grad %{{.*}}, %{{.*}} {ignore_index = -100 : i64, label_smoothing = 1.000000e-01 : f64} : (tensor<2x7x10xf32>, tensor<2x7xi64>) -> tensor<2x7x10xf32>
  %0 = nn.cross_entropy_grad %logits, %labels {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<2x7x10xf32>, tensor<2x7xi64>) -> tensor<2x7x10xf32>
  // CHECK: nn.cross_entropy_grad %{{.*}}, %{{.*}} {ignore_index = 0 : i64, label_smoothing = 0.000000e+00 : f64} : (tensor<10xf32>, tensor<i32>) -> tensor<10xf32>
  %1 = nn.cross_entropy_grad %row, %one {ignore_index = 0 : i64, label_smoothing = 0.0 : f64} : (tensor<10xf32>, tensor<i32>) -> tensor<10xf32>
  // CHECK: nn.nll_loss_grad %{{.*}}, %{{.*}} {ignore_index = -100 : i64} : (tensor<2x7x10xf32>, tensor<2x7xi64>) -> tensor<2x7x10xf32>
  %2 = nn.nll_loss_grad %logits, %labels {ignore_index = -100 : i64} : (tensor<2x7x10xf32>, tensor<2x7xi64>) -> tensor<2x7x10xf32>
  return
}

// CHECK-LABEL: func.func @training_ops
func.func @training_ops(%x: tensor<2x4xf32>, %seed: tensor<i64>,
                        %q: tensor<1x2x3x8xf32>, %m: tensor<3x3xi1>) {
  // CHECK: nn.dropout %{{.*}} seed %{{.*}} {rate = 1.000000e-01 : f64, stream = 4 : i64} : tensor<2x4xf32>
  %0 = nn.dropout %x seed %seed {rate = 0.1 : f64, stream = 4 : i64} : tensor<2x4xf32>
  // CHECK: nn.gelu_grad %{{.*}}, %{{.*}} {approximate_tanh} : tensor<2x4xf32>
  %1 = nn.gelu_grad %0, %x {approximate_tanh} : tensor<2x4xf32>
  // CHECK: %[[O:.*]], %[[L:.*]] = nn.attention_stats %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} seed %{{.*}} {dropout = 1.000000e-01 : f64, mask_fill = -1.000000e+09 : f64, scale = 5.000000e-01 : f64, stream = 2 : i64} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<3x3xi1>, tensor<i64>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3xf32>)
  %o, %lse = nn.attention_stats %q, %q, %q mask %m seed %seed {dropout = 0.1 : f64, mask_fill = -1.0e9 : f64, scale = 0.5 : f64, stream = 2 : i64} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<3x3xi1>, tensor<i64>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3xf32>)
  // CHECK: nn.attention_grad %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} out %[[O]] lse %[[L]] grad %{{.*}} seed %{{.*}} {dropout = 1.000000e-01 : f64, mask_fill = -1.000000e+09 : f64, scale = 5.000000e-01 : f64, stream = 2 : i64}
  %g:3 = nn.attention_grad %q, %q, %q mask %m out %o lse %lse grad %o seed %seed {dropout = 0.1 : f64, mask_fill = -1.0e9 : f64, scale = 0.5 : f64, stream = 2 : i64} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<3x3xi1>, tensor<1x2x3x8xf32>, tensor<1x2x3xf32>, tensor<1x2x3x8xf32>, tensor<i64>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>)
  return
}

// Optimizer state, read and stored like a parameter.
module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  // CHECK: nn.state @optimizer.exp_avg.w : tensor<2xf32>
  nn.state @optimizer.exp_avg.w : tensor<2xf32>
  // CHECK-LABEL: func.func @step
  func.func @step(%g: tensor<2xf32>) {
    %m = nn.param_load @optimizer.exp_avg.w : tensor<2xf32>
    %m2 = nn.add %m, %g : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    // CHECK: nn.param_store %{{.*}} to @optimizer.exp_avg.w : tensor<2xf32>
    nn.param_store %m2 to @optimizer.exp_avg.w : tensor<2xf32>
    return
  }
}

// The optimizer updates of nn-optimizer{runtime-update}, on tensors and on
// buffers.
// CHECK-LABEL: func.func @optimizer_updates
func.func @optimizer_updates(%p: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<f32>, %pb: memref<4xf32>, %gb: memref<4xf32, strided<[2]>>, %sb: memref<f32>, %n: memref<f32>) {
  // CHECK: nn.global_norm %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %norm = nn.global_norm %p, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  // CHECK: nn.adam_update %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} step_size %{{.*}} bias_correction2_sqrt %{{.*}} clip_factor %{{.*}} decay_factor %{{.*}} {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, weight_decay = 0.000000e+00 : f64}
  %a:3 = nn.adam_update %p, %g, %p, %g step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: nn.sgd_update %{{.*}}, %{{.*}} lr %{{.*}} clip_factor %{{.*}} momentum_buffer %{{.*}} {momentum = 9.000000e-01 : f64, nesterov, weight_decay = 0.000000e+00 : f64}
  %b:2 = nn.sgd_update %p, %g lr %s clip_factor %s momentum_buffer %g {momentum = 0.9 : f64, nesterov, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  // CHECK: nn.global_norm_into %{{.*}}, %{{.*}} into %{{.*}} : (memref<4xf32>, memref<4xf32, strided<[2]>>, memref<f32>) -> ()
  nn.global_norm_into %pb, %gb into %n : (memref<4xf32>, memref<4xf32, strided<[2]>>, memref<f32>) -> ()
  // CHECK: nn.adam_update_into %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} step_size
  nn.adam_update_into %pb, %gb, %pb, %pb step_size %sb bias_correction2_sqrt %sb clip_factor %sb decay_factor %sb {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<4xf32>, memref<4xf32, strided<[2]>>, memref<4xf32>, memref<4xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  // CHECK: nn.sgd_update_into %{{.*}}, %{{.*}} lr %{{.*}} clip_factor %{{.*}} {momentum = 0.000000e+00 : f64, weight_decay = 1.000000e-02 : f64}
  nn.sgd_update_into %pb, %gb lr %sb clip_factor %sb {momentum = 0.0 : f64, weight_decay = 0.01 : f64} : (memref<4xf32>, memref<4xf32, strided<[2]>>, memref<f32>, memref<f32>) -> ()
  return
}

// The collectives of data-parallel training, on tensors and on buffers.
// CHECK-LABEL: func.func @collectives
func.func @collectives(%a: tensor<4xf32>, %b: tensor<f32>, %ab: memref<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  // CHECK: nn.all_reduce %{{.*}}, %{{.*}} {bucket = 2 : i64, reduction = #nn.reduction<mean>} : tensor<4xf32>, tensor<f32>
  %r:2 = nn.all_reduce %a, %b {bucket = 2 : i64, reduction = #nn.reduction<mean>} : tensor<4xf32>, tensor<f32>
  // CHECK: nn.all_reduce_into %{{.*}} {bucket = 0 : i64, reduction = #nn.reduction<sum>} : memref<4xf32>
  nn.all_reduce_into %ab {bucket = 0 : i64, reduction = #nn.reduction<sum>} : memref<4xf32>
  return %r#0, %r#1 : tensor<4xf32>, tensor<f32>
}
