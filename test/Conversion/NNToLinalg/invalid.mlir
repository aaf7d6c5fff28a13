// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg -verify-diagnostics

// Parameters must be function arguments before the conversion
// (-nn-externalize-parameters): a load left in fails to legalize, while the
// declaration itself is left alone.

nn.parameter @w : tensor<3xf32> init #nn.init<zeros>
func.func @forward(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{failed to legalize operation 'nn.param_load' that was explicitly marked illegal}}
  %w = nn.param_load @w : tensor<3xf32>
  %y = nn.add %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
