// RUN: transfuse-opt %s -split-input-file -nn-fuse-gelu | FileCheck %s

// -nn-fuse-gelu: x · 0.5 · (1 + erf(x / √2)), a tree of products in any
// order whose scalar factors multiply to 1/2, becomes nn.gelu(x); anything
// that computes another function is left alone.

//===----------------------------------------------------------------------===//
// Fused
//===----------------------------------------------------------------------===//

// torch.onnx.export's form of nn.GELU(): (x · (erf(x / √2) + 1)) · 0.5,
// with √2 rounded to f32.
// CHECK-LABEL: func.func @exported
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.gelu %[[X]] : tensor<4x8xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x8xf32>
func.func @exported(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %t = nn.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = nn.erf %t : tensor<4x8xf32>
  %s = nn.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = nn.mul %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = nn.mul %m, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The hand-written form 0.5 · x · (1 + erf(x · 1/√2)), the constant first.
// CHECK-LABEL: func.func @hand_written
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x8xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.gelu %[[X]] : tensor<2x3x8xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @hand_written(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %rsqrt2 = arith.constant dense<0.707106769> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %hx = nn.mul %half, %x : (tensor<f32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %t = nn.mul %x, %rsqrt2 : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3x8xf32>
  %e = nn.erf %t : tensor<2x3x8xf32>
  %s = nn.add %one, %e : (tensor<f32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %y = nn.mul %hx, %s : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// An extra factor stays outside: gelu(x) · 2 = (x · 0.5 · (1 + erf)) · 2
// fuses the inner product only.
// CHECK-LABEL: func.func @scaled_outside
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>)
// CHECK:         %[[G:.*]] = nn.gelu %[[X]]
// CHECK-NEXT:    %[[Y:.*]] = nn.mul %[[G]], %{{.*}}
// CHECK-NEXT:    return %[[Y]]
func.func @scaled_outside(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %t = nn.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = nn.erf %t : tensor<4x8xf32>
  %s = nn.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = nn.mul %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = nn.mul %m, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %y = nn.mul %g, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Left alone
//===----------------------------------------------------------------------===//

// -----

// A factor of 0.4, not 1/2: another function.
// CHECK-LABEL: func.func @wrong_scale
// CHECK-NOT:     nn.gelu
// CHECK:         nn.erf
func.func @wrong_scale(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %c = arith.constant dense<0.4> : tensor<f32>
  %t = nn.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = nn.erf %t : tensor<4x8xf32>
  %s = nn.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = nn.mul %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = nn.mul %m, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// erf of x / 2, not x / √2.
// CHECK-LABEL: func.func @wrong_argument
// CHECK-NOT:     nn.gelu
// CHECK:         nn.erf
func.func @wrong_argument(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c2 = arith.constant dense<2.0> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %t = nn.div %x, %c2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = nn.erf %t : tensor<4x8xf32>
  %s = nn.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = nn.mul %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = nn.mul %m, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The erf's argument is of another value than the one multiplied.
// CHECK-LABEL: func.func @other_value
// CHECK-NOT:     nn.gelu
// CHECK:         nn.erf
func.func @other_value(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %t = nn.div %z, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = nn.erf %t : tensor<4x8xf32>
  %s = nn.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = nn.mul %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = nn.mul %m, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The inner product x · (1 + erf) has another user, which needs it.
// CHECK-LABEL: func.func @shared_inner
// CHECK-NOT:     nn.gelu
// CHECK:         return
func.func @shared_inner(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %t = nn.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = nn.erf %t : tensor<4x8xf32>
  %s = nn.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = nn.mul %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = nn.mul %m, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %y, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A scalar of higher rank broadcasts the product up to [1, 4, 8]: the
// result is not gelu(x)'s type.
// CHECK-LABEL: func.func @broadcast
// CHECK-NOT:     nn.gelu
// CHECK:         return
func.func @broadcast(%x: tensor<4x8xf32>) -> tensor<1x4x8xf32> {
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %half = arith.constant dense<0.5> : tensor<1x1x1xf32>
  %t = nn.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %e = nn.erf %t : tensor<4x8xf32>
  %s = nn.add %e, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %m = nn.mul %x, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = nn.mul %m, %half : (tensor<4x8xf32>, tensor<1x1x1xf32>) -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}
