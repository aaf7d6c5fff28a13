// RUN: transfuse-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the nn dialect: the shape rules, the op
// verifiers, the #nn.init attribute and the ODS type constraints. A failed
// result-type inference reports the rule's reason and then MLIR's
// "failed to infer returned types", so those cases expect both.

//===----------------------------------------------------------------------===//
// #nn.init
//===----------------------------------------------------------------------===//

// expected-error @+1 {{unknown init kind 'xavier'}}
nn.parameter @w : tensor<4xf32> init #nn.init<xavier>

// -----

// expected-error @+1 {{uniform init needs low <= high, got (1.000000e+00, -1.000000e+00)}}
nn.parameter @w : tensor<4xf32> init #nn.init<uniform(1.0, -1.0)>

// -----

// expected-error @+1 {{normal init needs std >= 0, got -1.000000e-02}}
nn.parameter @w : tensor<4xf32> init #nn.init<normal(0.0, -0.01)>

// -----

// expected-error @+1 {{normal init needs std >= 0, got nan}}
nn.parameter @w : tensor<4xf32> init #nn.init<normal(0.0, 0x7FF8000000000000)>

// -----

// expected-error @+1 {{expected '('}}
nn.parameter @w : tensor<4xf32> init #nn.init<constant>

// -----

// expected-error @+1 {{expected '>'}}
nn.parameter @w : tensor<4xf32> init #nn.init<zeros(0.0)>

// -----

// expected-error @+1 {{expected ','}}
nn.parameter @w : tensor<4xf32> init #nn.init<uniform(0.5)>

// -----

// expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
// expected-note @+1 {{add a trailing dot to make the literal a float}}
nn.parameter @w : tensor<4xf32> init #nn.init<constant(1)>

//===----------------------------------------------------------------------===//
// nn.parameter and nn.param_load
//===----------------------------------------------------------------------===//

// -----

func.func @parameter_in_function() {
  // expected-error @+1 {{'nn.parameter' op expects parent op 'builtin.module'}}
  nn.parameter @w : tensor<4xf32> init #nn.init<zeros>
  return
}

// -----

// expected-error @+1 {{'nn.parameter' op attribute 'type' failed to satisfy constraint: type attribute of statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values}}
nn.parameter @w : tensor<4xi32> init #nn.init<zeros>

// -----

// expected-error @+1 {{'nn.parameter' op attribute 'type' failed to satisfy constraint}}
nn.parameter @w : tensor<?x4xf32> init #nn.init<zeros>

// -----

// expected-note @+1 {{see existing symbol definition here}}
nn.parameter @w : tensor<4xf32> init #nn.init<zeros>
// expected-error @+1 {{redefinition of symbol named 'w'}}
nn.parameter @w : tensor<4xf32> init #nn.init<ones>

// -----

func.func @load_missing() -> tensor<4xf32> {
  // expected-error @+1 {{'nn.param_load' op 'missing' is not an nn.parameter, nn.state or nn.cache}}
  %0 = nn.param_load @missing : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_function() -> tensor<4xf32> {
  // expected-error @+1 {{'nn.param_load' op 'load_function' is not an nn.parameter, nn.state or nn.cache}}
  %0 = nn.param_load @load_function : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

nn.parameter @w : tensor<4x8xf32> init #nn.init<zeros>
func.func @load_wrong_type() -> tensor<8x4xf32> {
  // expected-error @+1 {{'nn.param_load' op type 'tensor<8x4xf32>' differs from the declared 'tensor<4x8xf32>'}}
  %0 = nn.param_load @w : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

nn.parameter @w : tensor<4xf32> init #nn.init<zeros>
func.func @load_integer() -> tensor<4xi32> {
  // expected-error @+1 {{'nn.param_load' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = nn.param_load @w : tensor<4xi32>
  return %0 : tensor<4xi32>
}

//===----------------------------------------------------------------------===//
// nn.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{matmul operands must have rank 2 or more, got [4] and [4, 5]}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: [3, 4] x [5, 6]}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+2 {{matmul batch dimensions of [2, 3, 4] and [3, 4, 5] do not broadcast}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @matmul_element(%a: tensor<3x4xf32>, %b: tensor<4x5xf16>) {
  // expected-error @+2 {{operand element types differ: 'f32' and 'f16'}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf16>) -> tensor<3x5xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'nn.matmul' op inferred type(s) 'tensor<3x5xf32>' are incompatible with return type(s) of operation 'tensor<5x3xf32>'}}
  // expected-error @+1 {{'nn.matmul' op failed to infer returned types}}
  %0 = nn.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @matmul_dynamic(%a: tensor<?x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'nn.matmul' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<?x4xf32>'}}
  %0 = nn.matmul %a, %b : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
  return
}

//===----------------------------------------------------------------------===//
// nn.transpose
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_size(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permutation of 2 entries for a tensor of rank 3}}
  // expected-error @+1 {{'nn.transpose' op failed to infer returned types}}
  %0 = nn.transpose %a [1, 0] : tensor<2x3x4xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_repeat(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permutation [0, 1, 1] is not a permutation of 0..2}}
  // expected-error @+1 {{'nn.transpose' op failed to infer returned types}}
  %0 = nn.transpose %a [0, 1, 1] : tensor<2x3x4xf32> -> tensor<2x3x3xf32>
  return
}

// -----

func.func @transpose_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{permutation [2, 0] is not a permutation of 0..1}}
  // expected-error @+1 {{'nn.transpose' op failed to infer returned types}}
  %0 = nn.transpose %a [2, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{permutation [-1, 0] is not a permutation of 0..1}}
  // expected-error @+1 {{'nn.transpose' op failed to infer returned types}}
  %0 = nn.transpose %a [-1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'nn.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'nn.transpose' op failed to infer returned types}}
  %0 = nn.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'nn.transpose' op operand #0 must be statically shaped tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "nn.transpose"(%a) <{perm = array<i64: 1, 0>}> : (tensor<*xf32>) -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// nn.reshape
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_inferred(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{reshape target shape must be explicit}}
  // expected-error @+1 {{'nn.reshape' op failed to infer returned types}}
  %0 = nn.reshape %a [-1] : tensor<2x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  // expected-error @+1 {{'nn.reshape' op failed to infer returned types}}
  %0 = nn.reshape %a [4, 2] : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_zero(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{reshape target [0, 6] has a size that is neither positive nor one -1}}
  // expected-error @+1 {{'nn.reshape' op failed to infer returned types}}
  %0 = nn.reshape %a [0, 6] : tensor<2x3xf32> -> tensor<0x6xf32>
  return
}

// -----

func.func @reshape_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{reshape target [-2, -3] has a size that is neither positive nor one -1}}
  // expected-error @+1 {{'nn.reshape' op failed to infer returned types}}
  %0 = nn.reshape %a [-2, -3] : tensor<2x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @reshape_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'nn.reshape' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<6xf32>'}}
  // expected-error @+1 {{'nn.reshape' op failed to infer returned types}}
  %0 = nn.reshape %a [3, 2] : tensor<2x3xf32> -> tensor<6xf32>
  return
}

//===----------------------------------------------------------------------===//
// nn.slice
//===----------------------------------------------------------------------===//

// -----

func.func @slice_rank(%a: tensor<4x6xf32>) {
  // expected-error @+2 {{slice of a rank-2 tensor needs that many offsets and sizes}}
  // expected-error @+1 {{'nn.slice' op failed to infer returned types}}
  %0 = nn.slice %a [0] [2, 2] : tensor<4x6xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<4x6xf32>) {
  // expected-error @+2 {{slice offsets [1, 3] sizes [3, 4] leave the bounds of [4, 6]}}
  // expected-error @+1 {{'nn.slice' op failed to infer returned types}}
  %0 = nn.slice %a [1, 3] [3, 4] : tensor<4x6xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @slice_negative_offset(%a: tensor<4x6xf32>) {
  // expected-error @+2 {{slice offsets [-1, 0] sizes [2, 2] leave the bounds of [4, 6]}}
  // expected-error @+1 {{'nn.slice' op failed to infer returned types}}
  %0 = nn.slice %a [-1, 0] [2, 2] : tensor<4x6xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_empty(%a: tensor<4x6xf32>) {
  // expected-error @+2 {{slice offsets [0, 0] sizes [0, 2] leave the bounds of [4, 6]}}
  // expected-error @+1 {{'nn.slice' op failed to infer returned types}}
  %0 = nn.slice %a [0, 0] [0, 2] : tensor<4x6xf32> -> tensor<0x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// nn.concat
//===----------------------------------------------------------------------===//

// -----

func.func @concat_none() {
  // expected-error @+2 {{concat needs at least one operand}}
  // expected-error @+1 {{'nn.concat' op failed to infer returned types}}
  %0 = nn.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for shape [2, 3]}}
  // expected-error @+1 {{'nn.concat' op failed to infer returned types}}
  %0 = nn.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_sizes(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{concat along axis 1 of [2, 3] and [4, 5]}}
  // expected-error @+1 {{'nn.concat' op failed to infer returned types}}
  %0 = nn.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+2 {{concat along axis 0 of [2, 3] and [2, 3, 1]}}
  // expected-error @+1 {{'nn.concat' op failed to infer returned types}}
  %0 = nn.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_element(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+2 {{operand element types differ: 'f32' and 'i32'}}
  // expected-error @+1 {{'nn.concat' op failed to infer returned types}}
  %0 = nn.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

// -----

func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{shapes [2, 3] and [4] do not broadcast}}
  // expected-error @+1 {{'nn.add' op failed to infer returned types}}
  %0 = nn.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @sub_element(%a: tensor<2x3xf32>, %b: tensor<2x3xbf16>) {
  // expected-error @+2 {{operand element types differ: 'f32' and 'bf16'}}
  // expected-error @+1 {{'nn.sub' op failed to infer returned types}}
  %0 = nn.sub %a, %b : (tensor<2x3xf32>, tensor<2x3xbf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @mul_result(%a: tensor<2x3xf32>, %b: tensor<f32>) {
  // expected-error @+2 {{'nn.mul' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'nn.mul' op failed to infer returned types}}
  %0 = nn.mul %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @div_broadcast(%a: tensor<4x2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{shapes [3, 3] and [4, 2, 3] do not broadcast}}
  // expected-error @+1 {{'nn.div' op failed to infer returned types}}
  %0 = nn.div %b, %a : (tensor<3x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  return
}

// -----

func.func @add_integer(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{'nn.add' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<2x3xi32>'}}
  %0 = nn.add %a, %a : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @add_dynamic(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'nn.add' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<?x3xf32>'}}
  %0 = nn.add %a, %a : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @add_vector(%a: vector<4xf32>) {
  // expected-error @+1 {{'nn.add' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'vector<4xf32>'}}
  %0 = nn.add %a, %a : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// -----

func.func @exp_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.exp' op requires the same type for all operands and results}}
  %0 = "nn.exp"(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @relu_integer(%a: tensor<4xi64>) {
  // expected-error @+1 {{'nn.relu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<4xi64>'}}
  %0 = nn.relu %a : tensor<4xi64>
  return
}

// -----

func.func @gelu_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.gelu' op requires the same type for all operands and results}}
  %0 = "nn.gelu"(%a) {approximate_tanh} : (tensor<4xf32>) -> tensor<4xf16>
  return
}

//===----------------------------------------------------------------------===//
// nn.compare, nn.masked_fill, nn.cast
//===----------------------------------------------------------------------===//

// -----

func.func @compare_element(%ids: tensor<4xi64>, %a: tensor<4xf32>) {
  // expected-error @+2 {{operand element types differ: 'i64' and 'f32'}}
  // expected-error @+1 {{'nn.compare' op failed to infer returned types}}
  %0 = nn.compare eq, %ids, %a : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_integer_widths(%a: tensor<4xi64>, %b: tensor<4xi32>) {
  // expected-error @+2 {{operand element types differ: 'i64' and 'i32'}}
  // expected-error @+1 {{'nn.compare' op failed to infer returned types}}
  %0 = nn.compare ne, %a, %b : (tensor<4xi64>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{shapes [2, 3] and [2] do not broadcast}}
  // expected-error @+1 {{'nn.compare' op failed to infer returned types}}
  %0 = nn.compare lt, %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @compare_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.compare' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = nn.compare gt, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_predicate(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = nn.compare eqq, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @masked_fill_broadcast(%a: tensor<4x4xf32>, %m: tensor<2x4x4xi1>) {
  // expected-error @+2 {{mask [2, 4, 4] does not broadcast to the input [4, 4]}}
  // expected-error @+1 {{'nn.masked_fill' op failed to infer returned types}}
  %0 = nn.masked_fill %a, %m, 0.0 : (tensor<4x4xf32>, tensor<2x4x4xi1>) -> tensor<4x4xf32>
  return
}

// -----

func.func @masked_fill_mask_type(%a: tensor<4x4xf32>, %m: tensor<4x4xf32>) {
  // expected-error @+1 {{'nn.masked_fill' op operand #1 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x4xf32>'}}
  %0 = nn.masked_fill %a, %m, 0.0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @cast_index(%a: tensor<4xi64>) {
  // expected-error @+2 {{cast target 'index' is not an integer or float type}}
  // expected-error @+1 {{'nn.cast' op failed to infer returned types}}
  %0 = nn.cast %a to index : tensor<4xi64> -> tensor<4xindex>
  return
}

// -----

func.func @cast_tensor(%a: tensor<4xi64>) {
  // expected-error @+2 {{cast target 'tensor<2xf32>' is not an integer or float type}}
  // expected-error @+1 {{'nn.cast' op failed to infer returned types}}
  %0 = nn.cast %a to tensor<2xf32> : tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @cast_result(%a: tensor<4xi1>) {
  // expected-error @+2 {{'nn.cast' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'nn.cast' op failed to infer returned types}}
  %0 = nn.cast %a to f32 : tensor<4xi1> -> tensor<4xf16>
  return
}

//===----------------------------------------------------------------------===//
// Normalisations and reductions
//===----------------------------------------------------------------------===//

// -----

func.func @softmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.softmax' op axis 2 is out of range for shape [2, 3]}}
  %0 = nn.softmax %a {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.log_softmax' op axis -1 is out of range for shape [2, 3]}}
  %0 = nn.log_softmax %a {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @softmax_scalar(%a: tensor<f32>) {
  // expected-error @+1 {{'nn.softmax' op axis 0 is out of range for shape []}}
  %0 = nn.softmax %a {axis = 0 : i64} : tensor<f32>
  return
}

// -----

func.func @softmax_no_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'nn.softmax' op requires attribute 'axis'}}
  %0 = "nn.softmax"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_no_axes(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{reduction over no axes}}
  // expected-error @+1 {{'nn.reduce_sum' op failed to infer returned types}}
  %0 = nn.reduce_sum %a [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for shape [2, 3]}}
  // expected-error @+1 {{'nn.reduce_mean' op failed to infer returned types}}
  %0 = nn.reduce_mean %a [2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_unsorted(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction axes [2, 0] are not sorted and distinct}}
  // expected-error @+1 {{'nn.reduce_max' op failed to infer returned types}}
  %0 = nn.reduce_max %a [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @reduce_repeated(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction axes [1, 1] are not sorted and distinct}}
  // expected-error @+1 {{'nn.reduce_sum' op failed to infer returned types}}
  %0 = nn.reduce_sum %a [1, 1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_keep_dims(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'nn.reduce_sum' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'nn.reduce_sum' op failed to infer returned types}}
  %0 = nn.reduce_sum %a [1] {keep_dims} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Embeddings, positions, masks, dropout
//===----------------------------------------------------------------------===//

// -----

func.func @embedding_table(%t: tensor<10x4x2xf32>, %ids: tensor<3xi64>) {
  // expected-error @+2 {{embedding table must be [vocab, dim], got [10, 4, 2]}}
  // expected-error @+1 {{'nn.embedding' op failed to infer returned types}}
  %0 = nn.embedding %t[%ids] : (tensor<10x4x2xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @embedding_ids(%t: tensor<10x4xf32>, %ids: tensor<3xf32>) {
  // expected-error @+1 {{'nn.embedding' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = nn.embedding %t[%ids] : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @sinusoidal_odd() {
  // expected-error @+1 {{'nn.sinusoidal_encoding' op needs a [seq, d] result with even d, got 'tensor<10x5xf32>'}}
  %0 = nn.sinusoidal_encoding : tensor<10x5xf32>
  return
}

// -----

func.func @sinusoidal_rank() {
  // expected-error @+1 {{'nn.sinusoidal_encoding' op needs a [seq, d] result with even d, got 'tensor<1x10x4xf32>'}}
  %0 = nn.sinusoidal_encoding : tensor<1x10x4xf32>
  return
}

// -----

func.func @sinusoidal_type() {
  // expected-error @+1 {{'nn.sinusoidal_encoding' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<10x4xi32>'}}
  %0 = nn.sinusoidal_encoding : tensor<10x4xi32>
  return
}

// -----

func.func @triangular_rank() {
  // expected-error @+1 {{'nn.triangular_mask' op needs a [rows, cols] result, got 'tensor<1x4x4xi1>'}}
  %0 = nn.triangular_mask {diagonal = 1 : i64} : tensor<1x4x4xi1>
  return
}

// -----

func.func @triangular_vector() {
  // expected-error @+1 {{'nn.triangular_mask' op needs a [rows, cols] result, got 'tensor<4xi1>'}}
  %0 = nn.triangular_mask {diagonal = 0 : i64} : tensor<4xi1>
  return
}

// -----

func.func @triangular_type() {
  // expected-error @+1 {{'nn.triangular_mask' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4x4xf32>'}}
  %0 = nn.triangular_mask {diagonal = 1 : i64} : tensor<4x4xf32>
  return
}

// -----

func.func @dropout_one(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.dropout' op rate must be in [0, 1), got 1.000000e+00}}
  %0 = nn.dropout %a {rate = 1.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @dropout_negative(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.dropout' op rate must be in [0, 1), got -1.000000e-01}}
  %0 = nn.dropout %a {rate = -0.1 : f64} : tensor<4xf32>
  return
}

// -----

func.func @dropout_nan(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.dropout' op rate must be in [0, 1), got nan}}
  %0 = nn.dropout %a {rate = 0x7FF8000000000000 : f64} : tensor<4xf32>
  return
}

// -----

func.func @dropout_rate_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.dropout' op attribute 'rate' failed to satisfy constraint: 64-bit float attribute}}
  %0 = nn.dropout %a {rate = 0.5 : f32} : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// nn.attention
//===----------------------------------------------------------------------===//

// -----

func.func @attention_dropout_out_of_range(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+2 {{attention dropout must be in [0, 1), got 1}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q {dropout = 1.0 : f64, scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_fill_without_bool_mask(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xf32>) {
  // expected-error @+2 {{mask_fill needs an i1 mask}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q mask %m {mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_scale_zero(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+2 {{attention scale must be positive}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q {scale = 0.0 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_scale_negative(%q: tensor<1x2x3x4xf32>) {
  // expected-error @+2 {{attention scale must be positive}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q {scale = -0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_element(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xi32>) {
  // expected-error @+2 {{mask must be i1 or 'f32', got 'i32'}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q mask %m {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xi32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_float(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xf16>) {
  // expected-error @+2 {{mask must be i1 or 'f32', got 'f16'}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q mask %m {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xf16>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<1x2x3x4xf32>, %m: tensor<1x1x3x4xi1>) {
  // expected-error @+2 {{mask [1, 1, 3, 4] does not broadcast to the scores [1, 2, 3, 3]}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q mask %m {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x1x3x4xi1>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<1x2x3x4xf32>, %m: tensor<5x1x2x3x3xi1>) {
  // expected-error @+2 {{mask [5, 1, 2, 3, 3] does not broadcast to the scores [1, 2, 3, 3]}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q mask %m {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<5x1x2x3x3xi1>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_rank(%q: tensor<2x3x4xf32>) {
  // expected-error @+2 {{attention operands must be [batch, heads, seq, dim], got q [2, 3, 4], k [2, 3, 4], v [2, 3, 4]}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %q {scale = 0.5 : f64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_heads(%q: tensor<1x2x3x4xf32>, %k: tensor<1x4x3x4xf32>) {
  // expected-error @+2 {{attention batch and heads differ: q [1, 2, 3, 4], k [1, 4, 3, 4], v [1, 4, 3, 4]}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %k, %k {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<1x2x3x4xf32>, %v: tensor<2x2x3x4xf32>) {
  // expected-error @+2 {{attention batch and heads differ: q [1, 2, 3, 4], k [1, 2, 3, 4], v [2, 2, 3, 4]}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %v {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<2x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_width(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x8xf32>) {
  // expected-error @+2 {{query and key widths differ: q [1, 2, 3, 4], k [1, 2, 5, 8]}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %k, %k {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x3x8xf32>
  return
}

// -----

func.func @attention_length(%q: tensor<1x2x3x4xf32>, %v: tensor<1x2x5x4xf32>) {
  // expected-error @+2 {{key and value lengths differ: k [1, 2, 3, 4], v [1, 2, 5, 4]}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %v {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_element(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf16>) {
  // expected-error @+2 {{operand element types differ: 'f32' and 'f16'}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %k, %q {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf16>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return
}

// -----

func.func @attention_result(%q: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x8xf32>) {
  // expected-error @+2 {{'nn.attention' op inferred type(s) 'tensor<1x2x3x8xf32>' are incompatible with return type(s) of operation 'tensor<1x2x3x4xf32>'}}
  // expected-error @+1 {{'nn.attention' op failed to infer returned types}}
  %0 = nn.attention %q, %q, %v {scale = 0.5 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// nn.layer_norm
//===----------------------------------------------------------------------===//

// -----

func.func @layer_norm_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{layer norm epsilon must be positive}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x, %g, %g {axis = 1 : i64, epsilon = 0.0 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_epsilon_negative(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{layer norm epsilon must be positive}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x, %g, %g {axis = 1 : i64, epsilon = -1.0e-5 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{axis 2 is out of range for shape [2, 8]}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x, %g, %g {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_gamma(%x: tensor<2x8xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{layer norm of [2, 8] from axis 1 needs gamma [8], got [4]}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_beta(%x: tensor<2x8xf32>, %g: tensor<2x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{layer norm of [2, 8] from axis 0 needs beta [2, 8], got [8]}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x, %g, %b {axis = 0 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_unbiased_one_element(%x: tensor<2x1xf32>, %g: tensor<1xf32>) {
  // expected-error @+2 {{an unbiased variance needs at least 2 normalised elements, got 1}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<unbiased_variance>} : (tensor<2x1xf32>, tensor<1xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @layer_norm_grad_unbiased_one_element(%dy: tensor<2x1xf32>, %x: tensor<2x1xf32>, %g: tensor<1xf32>) {
  // expected-error @+2 {{an unbiased variance needs at least 2 normalised elements, got 1}}
  // expected-error @+1 {{'nn.layer_norm_grad' op failed to infer returned types}}
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<unbiased_variance>} : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<1xf32>) -> (tensor<2x1xf32>, tensor<1xf32>, tensor<1xf32>)
  return
}

// -----

func.func @layer_norm_unknown_statistic(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{expected ::transfuse::nn::NormStatistic to be one of: variance, unbiased_variance, mean_square}}
  // expected-error @+1 {{failed to parse NN_NormStatisticAttr parameter 'value' which is to be a `::transfuse::nn::NormStatistic`}}
  %0 = nn.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<std>} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_residual(%x: tensor<2x8xf32>, %r: tensor<8xf32>) {
  // expected-error @+2 {{residual [8] differs from the input [2, 8]}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x + %r, %r, %r {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_element(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %r: tensor<2x8xf16>) {
  // expected-error @+2 {{operand element types differ: 'f32' and 'f16'}}
  // expected-error @+1 {{'nn.layer_norm' op failed to infer returned types}}
  %0 = nn.layer_norm %x + %r, %g, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x8xf16>) -> tensor<2x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// nn.fused_matmul
//===----------------------------------------------------------------------===//

// -----

func.func @fused_matmul_bias(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{bias [4] does not broadcast to the product [2, 8]}}
  // expected-error @+1 {{'nn.fused_matmul' op failed to infer returned types}}
  %0 = nn.fused_matmul %x, %w bias %b : (tensor<2x4xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @fused_matmul_transposed(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{matmul contraction sizes differ: [2, 4] x [8, 4]}}
  // expected-error @+1 {{'nn.fused_matmul' op failed to infer returned types}}
  %0 = nn.fused_matmul %x, %w {transpose_rhs} : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @fused_matmul_rank(%x: tensor<4xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+2 {{matmul operands must have rank 2 or more, got [4] and [4, 8]}}
  // expected-error @+1 {{'nn.fused_matmul' op failed to infer returned types}}
  %0 = nn.fused_matmul %x, %w {transpose_rhs} : (tensor<4xf32>, tensor<8x4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @fused_matmul_element(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %b: tensor<8xbf16>) {
  // expected-error @+2 {{operand element types differ: 'f32' and 'bf16'}}
  // expected-error @+1 {{'nn.fused_matmul' op failed to infer returned types}}
  %0 = nn.fused_matmul %x, %w bias %b : (tensor<2x4xf32>, tensor<4x8xf32>, tensor<8xbf16>) -> tensor<2x8xf32>
  return
}

// -----

func.func @fused_matmul_activation(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{expected ::transfuse::nn::Activation to be one of: none, relu, gelu, gelu_tanh}}
  // expected-error @+1 {{failed to parse NN_ActivationAttr parameter 'value'}}
  %0 = nn.fused_matmul %x, %w {activation = #nn.activation<sigmoid>} : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// -----

func.func @cross_entropy_smoothing(%l: tensor<3x10xf32>, %y: tensor<3xi64>) {
  // expected-error @+2 {{label smoothing must be in [0, 1], got 1.500000e+00}}
  // expected-error @+1 {{'nn.cross_entropy' op failed to infer returned types}}
  %0 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = 1.5 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_smoothing_negative(%l: tensor<3x10xf32>, %y: tensor<3xi64>) {
  // expected-error @+2 {{label smoothing must be in [0, 1], got -1.000000e-01}}
  // expected-error @+1 {{'nn.cross_entropy' op failed to infer returned types}}
  %0 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = -0.1 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_labels(%l: tensor<3x10xf32>, %y: tensor<4xi64>) {
  // expected-error @+2 {{logits [3, 10] need labels [3], got [4]}}
  // expected-error @+1 {{'nn.cross_entropy' op failed to infer returned types}}
  %0 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<3x10xf32>, tensor<4xi64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_scalar_logits(%l: tensor<f32>, %y: tensor<i64>) {
  // expected-error @+2 {{logits need a class dimension, got []}}
  // expected-error @+1 {{'nn.cross_entropy' op failed to infer returned types}}
  %0 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_result(%l: tensor<3x10xf32>, %y: tensor<3xi64>) {
  // expected-error @+1 {{'nn.cross_entropy' op result #0 must be 0D tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<3xf32>'}}
  %0 = nn.cross_entropy %l, %y {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @nll_loss_labels(%l: tensor<2x5x10xf32>, %y: tensor<5x2xi32>) {
  // expected-error @+2 {{logits [2, 5, 10] need labels [2, 5], got [5, 2]}}
  // expected-error @+1 {{'nn.nll_loss' op failed to infer returned types}}
  %0 = nn.nll_loss %l, %y {ignore_index = -100 : i64} : (tensor<2x5x10xf32>, tensor<5x2xi32>) -> tensor<f32>
  return
}

// -----

func.func @nll_loss_label_type(%l: tensor<3x10xf32>, %y: tensor<3xi1>) {
  // expected-error @+1 {{'nn.nll_loss' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xi1>'}}
  %0 = nn.nll_loss %l, %y {ignore_index = -100 : i64} : (tensor<3x10xf32>, tensor<3xi1>) -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// nn.attention_into: the rules of nn.attention, and the out buffer
//===----------------------------------------------------------------------===//

// -----

func.func @attention_into_out_shape(%q: memref<1x2x3x4xf32>, %out: memref<1x2x4x4xf32>) {
  // expected-error @+1 {{'nn.attention_into' op out must be [1, 2, 3, 4] of 'f32', got 'memref<1x2x4x4xf32>'}}
  nn.attention_into %q, %q, %q into %out {scale = 0.5 : f64} : memref<1x2x3x4xf32>, memref<1x2x3x4xf32>, memref<1x2x3x4xf32> into memref<1x2x4x4xf32>
  return
}

// -----

func.func @attention_into_out_element(%q: memref<1x2x3x4xf32>, %out: memref<1x2x3x4xf64>) {
  // expected-error @+1 {{'nn.attention_into' op out must be [1, 2, 3, 4] of 'f32', got 'memref<1x2x3x4xf64>'}}
  nn.attention_into %q, %q, %q into %out {scale = 0.5 : f64} : memref<1x2x3x4xf32>, memref<1x2x3x4xf32>, memref<1x2x3x4xf32> into memref<1x2x3x4xf64>
  return
}

// -----

func.func @attention_into_fill_needs_bool_mask(%q: memref<1x2x3x4xf32>, %m: memref<3x3xf32>, %out: memref<1x2x3x4xf32>) {
  // expected-error @+1 {{mask_fill needs an i1 mask}}
  nn.attention_into %q, %q, %q mask %m into %out {mask_fill = -1.0e9 : f64, scale = 0.5 : f64} : memref<1x2x3x4xf32>, memref<1x2x3x4xf32>, memref<1x2x3x4xf32>, memref<3x3xf32> into memref<1x2x3x4xf32>
  return
}

// -----

func.func @attention_into_key_mismatch(%q: memref<1x2x3x4xf32>, %k: memref<1x2x3x5xf32>, %out: memref<1x2x3x4xf32>) {
  // expected-error @+1 {{query and key widths differ: q [1, 2, 3, 4], k [1, 2, 3, 5]}}
  nn.attention_into %q, %k, %q into %out {scale = 0.5 : f64} : memref<1x2x3x4xf32>, memref<1x2x3x5xf32>, memref<1x2x3x4xf32> into memref<1x2x3x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// The layers on buffers: the shape rules of their tensor forms, the result
// buffers, and the ODS constraints (static shapes, float data, integer ids)
//===----------------------------------------------------------------------===//

// -----

func.func @layer_norm_into_axis(%x: memref<2x16xf32>, %g: memref<16xf32>, %o: memref<2x16xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op axis 2 is out of range for shape [2, 16]}}
  nn.layer_norm_into %x, %g, %g into %o {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x16xf32>) -> ()
  return
}

// -----

func.func @layer_norm_into_gamma(%x: memref<2x16xf32>, %g: memref<8xf32>, %b: memref<16xf32>, %o: memref<2x16xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op layer norm of [2, 16] from axis 1 needs gamma [16], got [8]}}
  nn.layer_norm_into %x, %g, %b into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32>, memref<8xf32>, memref<16xf32>, memref<2x16xf32>) -> ()
  return
}

// -----

func.func @layer_norm_into_residual(%x: memref<2x16xf32>, %r: memref<1x16xf32>, %g: memref<16xf32>, %o: memref<2x16xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op residual [1, 16] differs from the input [2, 16]}}
  nn.layer_norm_into %x + %r, %g, %g into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32>, memref<16xf32>, memref<16xf32>, memref<1x16xf32>, memref<2x16xf32>) -> ()
  return
}

// -----

func.func @layer_norm_into_out_shape(%x: memref<2x16xf32>, %g: memref<16xf32>, %o: memref<16x2xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op out must be [2, 16] of 'f32', got 'memref<16x2xf32>'}}
  nn.layer_norm_into %x, %g, %g into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32>, memref<16xf32>, memref<16xf32>, memref<16x2xf32>) -> ()
  return
}

// -----

func.func @layer_norm_into_out_element(%x: memref<2x16xf32>, %g: memref<16xf32>, %o: memref<2x16xf16>) {
  // expected-error @+1 {{'nn.layer_norm_into' op out must be [2, 16] of 'f32', got 'memref<2x16xf16>'}}
  nn.layer_norm_into %x, %g, %g into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x16xf16>) -> ()
  return
}

// -----

func.func @layer_norm_into_dynamic(%x: memref<?x16xf32>, %g: memref<16xf32>, %o: memref<2x16xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op operand #0 must be statically shaped memref of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'memref<?x16xf32>'}}
  nn.layer_norm_into %x, %g, %g into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<?x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x16xf32>) -> ()
  return
}

// -----

func.func @layer_norm_into_tensor(%x: tensor<2x16xf32>, %g: memref<16xf32>, %o: memref<2x16xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op operand #0 must be statically shaped memref of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<2x16xf32>'}}
  nn.layer_norm_into %x, %g, %g into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x16xf32>) -> ()
  return
}

// -----

func.func @layer_norm_grad_into_axis(%dy: memref<4x8xf32>, %g: memref<8xf32>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op axis 5 is out of range for shape [4, 8]}}
  nn.layer_norm_grad_into %dy, %dy, %g into %dy, %g, %g {axis = 5 : i64, epsilon = 1.0e-5 : f64} : (memref<4x8xf32>, memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

func.func @layer_norm_grad_into_unbiased_one_element(%x: memref<4x1xf32>, %g: memref<1xf32>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op an unbiased variance needs at least 2 normalised elements, got 1}}
  nn.layer_norm_grad_into %x, %x, %g into %x, %g, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64, statistic = #nn.norm_statistic<unbiased_variance>} : (memref<4x1xf32>, memref<4x1xf32>, memref<1xf32>, memref<4x1xf32>, memref<1xf32>, memref<1xf32>) -> ()
  return
}

// -----

func.func @layer_norm_grad_into_dy(%dy: memref<4x4xf32>, %x: memref<4x8xf32>, %g: memref<8xf32>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op gradient [4, 4] differs from the input [4, 8]}}
  nn.layer_norm_grad_into %dy, %x, %g into %x, %g, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<4x4xf32>, memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

func.func @layer_norm_grad_into_gamma(%x: memref<4x8xf32>, %g: memref<4xf32>, %dg: memref<8xf32>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op layer norm of [4, 8] from axis 1 needs gamma [8], got [4]}}
  nn.layer_norm_grad_into %x, %x, %g into %x, %dg, %dg {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<4x8xf32>, memref<4x8xf32>, memref<4xf32>, memref<4x8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

func.func @layer_norm_grad_into_dx(%x: memref<4x8xf32>, %g: memref<8xf32>, %dx: memref<8x4xf32>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op grad_input must be [4, 8] of 'f32', got 'memref<8x4xf32>'}}
  nn.layer_norm_grad_into %x, %x, %g into %dx, %g, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<4x8xf32>, memref<4x8xf32>, memref<8xf32>, memref<8x4xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

func.func @layer_norm_grad_into_dgamma(%x: memref<4x8xf32>, %g: memref<8xf32>, %dg: memref<8xf64>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op grad_gamma must be [8] of 'f32', got 'memref<8xf64>'}}
  nn.layer_norm_grad_into %x, %x, %g into %x, %dg, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<4x8xf32>, memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>, memref<8xf64>, memref<8xf32>) -> ()
  return
}

// -----

func.func @layer_norm_grad_into_dbeta(%x: memref<4x8xf32>, %g: memref<8xf32>, %db: memref<4xf32>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op grad_beta must be [8] of 'f32', got 'memref<4xf32>'}}
  nn.layer_norm_grad_into %x, %x, %g into %x, %g, %db {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<4x8xf32>, memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>, memref<8xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @cross_entropy_into_scalar(%l: memref<f32>, %y: memref<i64>, %o: memref<f32>) {
  // expected-error @+1 {{'nn.cross_entropy_into' op logits need a class dimension, got []}}
  nn.cross_entropy_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (memref<f32>, memref<i64>, memref<f32>) -> ()
  return
}

// -----

func.func @cross_entropy_into_labels(%l: memref<3x10xf32>, %y: memref<4xi64>, %o: memref<f32>) {
  // expected-error @+1 {{'nn.cross_entropy_into' op logits [3, 10] need labels [3], got [4]}}
  nn.cross_entropy_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (memref<3x10xf32>, memref<4xi64>, memref<f32>) -> ()
  return
}

// -----

func.func @cross_entropy_into_out(%l: memref<3x10xf32>, %y: memref<3xi64>, %o: memref<1xf32>) {
  // expected-error @+1 {{'nn.cross_entropy_into' op out must be [] of 'f32', got 'memref<1xf32>'}}
  nn.cross_entropy_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (memref<3x10xf32>, memref<3xi64>, memref<1xf32>) -> ()
  return
}

// -----

func.func @cross_entropy_into_float_labels(%l: memref<3x10xf32>, %y: memref<3xf32>, %o: memref<f32>) {
  // expected-error @+1 {{'nn.cross_entropy_into' op operand #1 must be statically shaped memref of 32-bit signless integer or 64-bit signless integer values, but got 'memref<3xf32>'}}
  nn.cross_entropy_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (memref<3x10xf32>, memref<3xf32>, memref<f32>) -> ()
  return
}

// -----

func.func @cross_entropy_grad_into_labels(%l: memref<2x3x10xf32>, %y: memref<3x2xi32>, %o: memref<2x3x10xf32>) {
  // expected-error @+1 {{'nn.cross_entropy_grad_into' op logits [2, 3, 10] need labels [2, 3], got [3, 2]}}
  nn.cross_entropy_grad_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (memref<2x3x10xf32>, memref<3x2xi32>, memref<2x3x10xf32>) -> ()
  return
}

// -----

func.func @cross_entropy_grad_into_out(%l: memref<3x10xf32>, %y: memref<3xi64>, %o: memref<3x5xf32>) {
  // expected-error @+1 {{'nn.cross_entropy_grad_into' op out must be [3, 10] of 'f32', got 'memref<3x5xf32>'}}
  nn.cross_entropy_grad_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (memref<3x10xf32>, memref<3xi64>, memref<3x5xf32>) -> ()
  return
}

// -----

func.func @nll_loss_into_labels(%l: memref<3x10xf32>, %y: memref<3x1xi64>, %o: memref<f32>) {
  // expected-error @+1 {{'nn.nll_loss_into' op logits [3, 10] need labels [3], got [3, 1]}}
  nn.nll_loss_into %l, %y into %o {ignore_index = -100 : i64} : (memref<3x10xf32>, memref<3x1xi64>, memref<f32>) -> ()
  return
}

// -----

func.func @nll_loss_into_out(%l: memref<3x10xf32>, %y: memref<3xi64>, %o: memref<f16>) {
  // expected-error @+1 {{'nn.nll_loss_into' op out must be [] of 'f32', got 'memref<f16>'}}
  nn.nll_loss_into %l, %y into %o {ignore_index = -100 : i64} : (memref<3x10xf32>, memref<3xi64>, memref<f16>) -> ()
  return
}

// -----

func.func @nll_loss_grad_into_scalar(%l: memref<f32>, %y: memref<i64>, %o: memref<f32>) {
  // expected-error @+1 {{'nn.nll_loss_grad_into' op logits need a class dimension, got []}}
  nn.nll_loss_grad_into %l, %y into %o {ignore_index = -100 : i64} : (memref<f32>, memref<i64>, memref<f32>) -> ()
  return
}

// -----

func.func @nll_loss_grad_into_out(%l: memref<3x10xf32>, %y: memref<3xi64>, %o: memref<3x10xf64>) {
  // expected-error @+1 {{'nn.nll_loss_grad_into' op out must be [3, 10] of 'f32', got 'memref<3x10xf64>'}}
  nn.nll_loss_grad_into %l, %y into %o {ignore_index = -100 : i64} : (memref<3x10xf32>, memref<3xi64>, memref<3x10xf64>) -> ()
  return
}

// -----

func.func @embedding_grad_into_rows(%dy: memref<3x4xf32>, %ids: memref<3xi64>, %o: memref<1x4xf32>) {
  // expected-error @+1 {{'nn.embedding_grad_into' op embedding gradient needs a positive num_rows, got -1}}
  nn.embedding_grad_into %dy, %ids into %o {num_rows = -1 : i64} : (memref<3x4xf32>, memref<3xi64>, memref<1x4xf32>) -> ()
  return
}

// -----

func.func @embedding_grad_into_shape(%dy: memref<3x4xf32>, %ids: memref<2xi64>, %o: memref<10x4xf32>) {
  // expected-error @+1 {{'nn.embedding_grad_into' op embedding gradient [3, 4] must be the indices [2] and one more dimension}}
  nn.embedding_grad_into %dy, %ids into %o {num_rows = 10 : i64} : (memref<3x4xf32>, memref<2xi64>, memref<10x4xf32>) -> ()
  return
}

// -----

func.func @embedding_grad_into_out(%dy: memref<3x4xf32>, %ids: memref<3xi32>, %o: memref<10x8xf32>) {
  // expected-error @+1 {{'nn.embedding_grad_into' op out must be [10, 4] of 'f32', got 'memref<10x8xf32>'}}
  nn.embedding_grad_into %dy, %ids into %o {num_rows = 10 : i64} : (memref<3x4xf32>, memref<3xi32>, memref<10x8xf32>) -> ()
  return
}

// -----

func.func @embedding_grad_into_out_element(%dy: memref<3x4xf32>, %ids: memref<3xi32>, %o: memref<10x4xbf16>) {
  // expected-error @+1 {{'nn.embedding_grad_into' op out must be [10, 4] of 'f32', got 'memref<10x4xbf16>'}}
  nn.embedding_grad_into %dy, %ids into %o {num_rows = 10 : i64} : (memref<3x4xf32>, memref<3xi32>, memref<10x4xbf16>) -> ()
  return
}

// -----

func.func @embedding_grad_into_ids(%dy: memref<3x4xf32>, %ids: memref<3xi16>, %o: memref<10x4xf32>) {
  // expected-error @+1 {{'nn.embedding_grad_into' op operand #1 must be statically shaped memref of 32-bit signless integer or 64-bit signless integer values, but got 'memref<3xi16>'}}
  nn.embedding_grad_into %dy, %ids into %o {num_rows = 10 : i64} : (memref<3x4xf32>, memref<3xi16>, memref<10x4xf32>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

// -----

func.func @layer_norm_grad_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{layer norm epsilon must be positive}}
  // expected-error @+1 {{'nn.layer_norm_grad' op failed to infer returned types}}
  %0:3 = nn.layer_norm_grad %x, %x, %g {axis = 1 : i64, epsilon = 0.0 : f64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @layer_norm_grad_element(%x: tensor<2x8xf32>, %g: tensor<8xf16>) {
  // expected-error @+2 {{operand element types differ: 'f32', 'f32' and 'f16'}}
  // expected-error @+1 {{'nn.layer_norm_grad' op failed to infer returned types}}
  %0:3 = nn.layer_norm_grad %x, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf16>) -> (tensor<2x8xf32>, tensor<8xf16>, tensor<8xf16>)
  return
}

// -----

func.func @layer_norm_grad_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{axis -1 is out of range for shape [2, 8]}}
  // expected-error @+1 {{'nn.layer_norm_grad' op failed to infer returned types}}
  %0:3 = nn.layer_norm_grad %x, %x, %g {axis = -1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @layer_norm_grad_dy(%dy: tensor<2x4xf32>, %x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{gradient [2, 4] differs from the input [2, 8]}}
  // expected-error @+1 {{'nn.layer_norm_grad' op failed to infer returned types}}
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @layer_norm_grad_gamma(%x: tensor<2x8xf32>, %g: tensor<2x8xf32>) {
  // expected-error @+2 {{layer norm of [2, 8] from axis 1 needs gamma [8], got [2, 8]}}
  // expected-error @+1 {{'nn.layer_norm_grad' op failed to infer returned types}}
  %0:3 = nn.layer_norm_grad %x, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>)
  return
}

// -----

func.func @layer_norm_grad_result(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{'nn.layer_norm_grad' op inferred type(s) 'tensor<2x8xf32>', 'tensor<8xf32>', 'tensor<8xf32>' are incompatible with return type(s) of operation 'tensor<2x8xf32>', 'tensor<8xf32>', 'tensor<2x8xf32>'}}
  // expected-error @+1 {{'nn.layer_norm_grad' op failed to infer returned types}}
  %0:3 = nn.layer_norm_grad %x, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32>)
  return
}

// -----

func.func @embedding_grad_rows(%dy: tensor<3x4xf32>, %ids: tensor<3xi64>) {
  // expected-error @+2 {{embedding gradient needs a positive num_rows, got 0}}
  // expected-error @+1 {{'nn.embedding_grad' op failed to infer returned types}}
  %0 = nn.embedding_grad %dy, %ids {num_rows = 0 : i64} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<0x4xf32>
  return
}

// -----

func.func @embedding_grad_shape(%dy: tensor<3x4xf32>, %ids: tensor<2xi64>) {
  // expected-error @+2 {{embedding gradient [3, 4] must be the indices [2] and one more dimension}}
  // expected-error @+1 {{'nn.embedding_grad' op failed to infer returned types}}
  %0 = nn.embedding_grad %dy, %ids {num_rows = 10 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<10x4xf32>
  return
}

// -----

func.func @embedding_grad_ids(%dy: tensor<3x4xf32>, %ids: tensor<3xf32>) {
  // expected-error @+1 {{'nn.embedding_grad' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = nn.embedding_grad %dy, %ids {num_rows = 10 : i64} : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @cross_entropy_grad_smoothing(%l: tensor<3x10xf32>, %y: tensor<3xi64>) {
  // expected-error @+2 {{label smoothing must be in [0, 1], got 1.500000e+00}}
  // expected-error @+1 {{'nn.cross_entropy_grad' op failed to infer returned types}}
  %0 = nn.cross_entropy_grad %l, %y {ignore_index = -100 : i64, label_smoothing = 1.5 : f64} : (tensor<3x10xf32>, tensor<3xi64>) -> tensor<3x10xf32>
  return
}

// -----

func.func @cross_entropy_grad_labels(%l: tensor<3x10xf32>, %y: tensor<4xi64>) {
  // expected-error @+2 {{logits [3, 10] need labels [3], got [4]}}
  // expected-error @+1 {{'nn.cross_entropy_grad' op failed to infer returned types}}
  %0 = nn.cross_entropy_grad %l, %y {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<3x10xf32>, tensor<4xi64>) -> tensor<3x10xf32>
  return
}

// -----

func.func @cross_entropy_grad_float_labels(%l: tensor<3x10xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'nn.cross_entropy_grad' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = nn.cross_entropy_grad %l, %y {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (tensor<3x10xf32>, tensor<3xf32>) -> tensor<3x10xf32>
  return
}

// -----

func.func @nll_loss_grad_scalar(%l: tensor<f32>, %y: tensor<i64>) {
  // expected-error @+2 {{logits need a class dimension, got []}}
  // expected-error @+1 {{'nn.nll_loss_grad' op failed to infer returned types}}
  %0 = nn.nll_loss_grad %l, %y {ignore_index = -100 : i64} : (tensor<f32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @nll_loss_grad_labels(%l: tensor<2x3x10xf32>, %y: tensor<3x2xi64>) {
  // expected-error @+2 {{logits [2, 3, 10] need labels [2, 3], got [3, 2]}}
  // expected-error @+1 {{'nn.nll_loss_grad' op failed to infer returned types}}
  %0 = nn.nll_loss_grad %l, %y {ignore_index = -100 : i64} : (tensor<2x3x10xf32>, tensor<3x2xi64>) -> tensor<2x3x10xf32>
  return
}

// -----

func.func @attention_grad_lse(%q: tensor<1x2x3x8xf32>, %lse: tensor<1x2x8xf32>, %seed: tensor<i64>) {
  // expected-error @+1 {{'nn.attention_grad' op lse must be 'tensor<1x2x3xf32>', got 'tensor<1x2x8xf32>'}}
  %g:3 = nn.attention_grad %q, %q, %q out %q lse %lse grad %q seed %seed {scale = 0.5 : f64} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x8xf32>, tensor<1x2x3x8xf32>, tensor<i64>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>)
  return
}

// -----

func.func @attention_grad_out(%q: tensor<1x2x3x8xf32>, %o: tensor<1x2x3x4xf32>, %lse: tensor<1x2x3xf32>, %seed: tensor<i64>) {
  // expected-error @+1 {{'nn.attention_grad' op out and grad must be 'tensor<1x2x3x8xf32>', got 'tensor<1x2x3x4xf32>' and 'tensor<1x2x3x8xf32>'}}
  %g:3 = nn.attention_grad %q, %q, %q out %o lse %lse grad %q seed %seed {scale = 0.5 : f64} : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3xf32>, tensor<1x2x3x8xf32>, tensor<i64>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>)
  return
}

// -----

module {
  nn.parameter @w : tensor<2xf32> init <zeros>
  func.func @store_type(%v: tensor<3xf32>) {
    // expected-error @+1 {{'nn.param_store' op type 'tensor<3xf32>' differs from the declared 'tensor<2xf32>'}}
    nn.param_store %v to @w : tensor<3xf32>
    return
  }
}

// -----

func.func @store_unknown(%v: tensor<3xf32>) {
  // expected-error @+1 {{'nn.param_store' op 'nowhere' is not an nn.parameter, nn.state or nn.cache}}
  nn.param_store %v to @nowhere : tensor<3xf32>
  return
}

// -----

// The operands a layer on buffers reads share one element type.
func.func @layer_norm_into_mixed(%x: memref<2x16xf32>, %g: memref<16xf16>, %b: memref<16xf32>, %o: memref<2x16xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op mixes element types 'f32' and 'f16'}}
  nn.layer_norm_into %x, %g, %b into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32>, memref<16xf16>, memref<16xf32>, memref<2x16xf32>) -> ()
  return
}

// -----

func.func @layer_norm_grad_into_epsilon(%dy: memref<4x8xf32>, %x: memref<4x8xf32>, %g: memref<8xf32>, %dx: memref<4x8xf32>, %dg: memref<8xf32>, %db: memref<8xf32>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op layer norm epsilon must be positive}}
  nn.layer_norm_grad_into %dy, %x, %g into %dx, %dg, %db {axis = 1 : i64, epsilon = 0.0 : f64} : (memref<4x8xf32>, memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

func.func @cross_entropy_into_smoothing(%l: memref<3x10xf32>, %y: memref<3xi64>, %o: memref<f32>) {
  // expected-error @+1 {{'nn.cross_entropy_into' op label smoothing}}
  nn.cross_entropy_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 1.5 : f64} : (memref<3x10xf32>, memref<3xi64>, memref<f32>) -> ()
  return
}

// -----

func.func @global_norm_f16(%g: tensor<4xf16>) -> tensor<f32> {
  // expected-error @+1 {{'nn.global_norm' op updates f32 only, got 'tensor<4xf16>'}}
  %0 = nn.global_norm %g : (tensor<4xf16>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @global_norm_of_nothing(%n: memref<f32>) {
  // expected-error @+1 {{'nn.global_norm_into' op needs at least one tensor}}
  nn.global_norm_into into %n : (memref<f32>) -> ()
  return
}

// -----

func.func @adam_beta(%p: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'nn.adam_update' op beta2 must lie in [0, 1), got 1}}
  %a:3 = nn.adam_update %p, %p, %p, %p step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 1.0 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adam_into_state_shape(%p: memref<4xf32>, %v: memref<5xf32>, %s: memref<f32>) {
  // expected-error @+1 {{'nn.adam_update_into' op needs every tensor shaped as the parameter 'memref<4xf32>', got 'memref<5xf32>'}}
  nn.adam_update_into %p, %p, %p, %v step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<5xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  return
}

// -----

func.func @sgd_momentum_without_buffer(%p: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'nn.sgd_update' op needs a momentum buffer for momentum other than 0}}
  %0 = nn.sgd_update %p, %p lr %s clip_factor %s {momentum = 0.9 : f64, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_results(%p: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'nn.sgd_update' op has 2 results, one per updated tensor needs 1}}
  %0:2 = nn.sgd_update %p, %p lr %s clip_factor %s {momentum = 0.0 : f64, weight_decay = 0.0 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_nesterov_without_momentum(%p: memref<4xf32>, %s: memref<f32>) {
  // expected-error @+1 {{'nn.sgd_update_into' op needs momentum for nesterov}}
  nn.sgd_update_into %p, %p lr %s clip_factor %s {momentum = 0.0 : f64, nesterov, weight_decay = 0.0 : f64} : (memref<4xf32>, memref<4xf32>, memref<f32>, memref<f32>) -> ()
  return
}

// -----

func.func @cache_update_rank(%c: tensor<2x4x8xf32>, %r: tensor<2x4x1xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'nn.cache_update' op needs a [b, h, capacity, d] cache and [b, h, t, d] rows, got 'tensor<2x4x8xf32>' and 'tensor<2x4x1xf32>'}}
  %0 = nn.cache_update %c, %r at %p : tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2xi64>
  return
}

// -----

func.func @cache_update_heads(%c: tensor<2x4x8x16xf32>, %r: tensor<2x2x1x16xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'nn.cache_update' op rows 'tensor<2x2x1x16xf32>' differ from the cache 'tensor<2x4x8x16xf32>' in axis 1}}
  %0 = nn.cache_update %c, %r at %p : tensor<2x4x8x16xf32>, tensor<2x2x1x16xf32>, tensor<2xi64>
  return
}

// -----

func.func @cache_update_capacity(%c: tensor<2x4x8x16xf32>, %r: tensor<2x4x9x16xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'nn.cache_update' op writes 9 rows into a cache of capacity 8}}
  %0 = nn.cache_update %c, %r at %p : tensor<2x4x8x16xf32>, tensor<2x4x9x16xf32>, tensor<2xi64>
  return
}

// -----

func.func @cache_update_start(%c: tensor<2x4x8x16xf32>, %r: tensor<2x4x1x16xf32>, %p: tensor<2x1xi64>) {
  // expected-error @+1 {{'nn.cache_update' op start must be i64 [2], got 'tensor<2x1xi64>'}}
  %0 = nn.cache_update %c, %r at %p : tensor<2x4x8x16xf32>, tensor<2x4x1x16xf32>, tensor<2x1xi64>
  return
}

// -----

func.func @cache_update_element(%c: tensor<2x4x8x16xf32>, %r: tensor<2x4x1x16xf16>, %p: tensor<2xi64>) {
  // expected-error @+1 {{'nn.cache_update' op rows 'tensor<2x4x1x16xf16>' differ from the cache 'tensor<2x4x8x16xf32>' in element type}}
  %0 = nn.cache_update %c, %r at %p : tensor<2x4x8x16xf32>, tensor<2x4x1x16xf16>, tensor<2xi64>
  return
}

// -----

func.func @all_reduce_bucket(%a: tensor<4xf32>) {
  // expected-error @+1 {{'nn.all_reduce' op bucket must be non-negative, got -1}}
  %0 = nn.all_reduce %a {bucket = -1 : i64, reduction = #nn.reduction<sum>} : tensor<4xf32>
  return
}

// -----

func.func @all_reduce_empty() {
  // expected-error @+1 {{'nn.all_reduce_into' op needs at least one operand}}
  "nn.all_reduce_into"() {bucket = 0 : i64, reduction = #nn.reduction<sum>} : () -> ()
  return
}

// -----

func.func @all_reduce_f16(%a: tensor<4xf16>) {
  // expected-error @+1 {{'nn.all_reduce' op operand #0 must be variadic of statically shaped tensor of 32-bit float values}}
  %0 = nn.all_reduce %a {bucket = 0 : i64, reduction = #nn.reduction<sum>} : tensor<4xf16>
  return
}

// -----

func.func @dropout_stream(%x: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'nn.dropout' op attribute 'stream' failed to satisfy constraint}}
  %0 = nn.dropout %x seed %s {rate = 0.1 : f64, stream = 4294967296 : i64} : tensor<4xf32>
  return
}
