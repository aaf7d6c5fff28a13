// RUN: transfuse-opt %s -split-input-file -nn-fuse-layer-norm | FileCheck %s

// The forms of layer normalisation -nn-fuse-layer-norm turns into one
// nn.layer_norm (torch's, the Annotated Transformer's unbiased std plus ε,
// RMSNorm), and the look-alikes it must leave alone.
//
// An epsilon written as an f32 constant is carried as that f32 value,
// widened exactly to the f64 attribute: 1e-5 in f32 prints as
// 9.9999997473787516E-6. An f64 constant carries the decimal as written.

//===----------------------------------------------------------------------===//
// Fused forms
//===----------------------------------------------------------------------===//

// torch.nn.LayerNorm as the importer writes it: mean((x - μ)²), (x - μ) times
// rsqrt, then γ and β. Every primitive op and the constant go.
// CHECK-LABEL: func.func @centred_variance
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NOT:     arith.constant
// CHECK-NOT:     nn.reduce_mean
// CHECK-NOT:     nn.sub
// CHECK-NOT:     nn.rsqrt
// CHECK-NOT:     nn.mul
// CHECK-NOT:     nn.add
// CHECK:         %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x16xf32>
func.func @centred_variance(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// rsqrt on the left of the centred input, ε on the left of the variance,
// γ on the left of the normalised value and β on the left of the sum.
// CHECK-LABEL: func.func @operands_swapped
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NOT:     nn.reduce_mean
// CHECK-NOT:     nn.rsqrt
// CHECK-NOT:     nn.mul
// CHECK:         %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x16xf32>
func.func @operands_swapped(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %eps, %var : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %r, %c : (tensor<4x1xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = nn.mul %g, %n : (tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = nn.add %b, %s : (tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The variance as mean(x²) - μ², with ε a [1, 1] splat (a scalar operand).
// CHECK-LABEL: func.func @mean_of_squares
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NOT:     arith.constant
// CHECK-NOT:     nn.reduce_mean
// CHECK-NOT:     nn.sub
// CHECK-NOT:     nn.mul
// CHECK:         %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.9999999747524271E-7 : f64} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<4x16xf32>
func.func @mean_of_squares(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<1x1xf32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %x2 = nn.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %mx2 = nn.reduce_mean %x2 [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %mu2 = nn.mul %mu, %mu : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %var = nn.sub %mx2, %mu2 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// (x - μ) / sqrt(σ² + ε), in f64: ε = 1e-6 is carried as written.
// CHECK-LABEL: func.func @sqrt_div
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf64>, %[[G:.*]]: tensor<16xf64>, %[[B:.*]]: tensor<16xf64>)
// CHECK-NOT:     nn.sqrt
// CHECK-NOT:     nn.div
// CHECK:         %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<4x16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
// CHECK-NEXT:    return %[[Y]] : tensor<4x16xf64>
func.func @sqrt_div(%x: tensor<4x16xf64>, %g: tensor<16xf64>, %b: tensor<16xf64>) -> tensor<4x16xf64> {
  %eps = arith.constant dense<1.0e-6> : tensor<f64>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf64> -> tensor<4x1xf64>
  %c = nn.sub %x, %mu : (tensor<4x16xf64>, tensor<4x1xf64>) -> tensor<4x16xf64>
  %sq = nn.mul %c, %c : (tensor<4x16xf64>, tensor<4x16xf64>) -> tensor<4x16xf64>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf64> -> tensor<4x1xf64>
  %ve = nn.add %var, %eps : (tensor<4x1xf64>, tensor<f64>) -> tensor<4x1xf64>
  %sd = nn.sqrt %ve : tensor<4x1xf64>
  %n = nn.div %c, %sd : (tensor<4x16xf64>, tensor<4x1xf64>) -> tensor<4x16xf64>
  %s = nn.mul %n, %g : (tensor<4x16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
  %y = nn.add %s, %b : (tensor<4x16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
  return %y : tensor<4x16xf64>
}

// -----

// f64, ε = 1e-5: the attribute prints the double 1e-5.
// CHECK-LABEL: func.func @epsilon_f64
// CHECK:         nn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 1.000000e-05 : f64} : (tensor<4x16xf64>, tensor<16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
func.func @epsilon_f64(%x: tensor<4x16xf64>, %g: tensor<16xf64>, %b: tensor<16xf64>) -> tensor<4x16xf64> {
  %eps = arith.constant dense<1.0e-5> : tensor<f64>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf64> -> tensor<4x1xf64>
  %c = nn.sub %x, %mu : (tensor<4x16xf64>, tensor<4x1xf64>) -> tensor<4x16xf64>
  %sq = nn.mul %c, %c : (tensor<4x16xf64>, tensor<4x16xf64>) -> tensor<4x16xf64>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf64> -> tensor<4x1xf64>
  %ve = nn.add %var, %eps : (tensor<4x1xf64>, tensor<f64>) -> tensor<4x1xf64>
  %r = nn.rsqrt %ve : tensor<4x1xf64>
  %n = nn.mul %c, %r : (tensor<4x16xf64>, tensor<4x1xf64>) -> tensor<4x16xf64>
  %s = nn.mul %n, %g : (tensor<4x16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
  %y = nn.add %s, %b : (tensor<4x16xf64>, tensor<16xf64>) -> tensor<4x16xf64>
  return %y : tensor<4x16xf64>
}

// -----

// The last axis of a rank-3 activation, ε = 1e-12 (BERT).
// CHECK-LABEL: func.func @last_axis_rank3
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NOT:     nn.reduce_mean
// CHECK:         %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.999999960041972E-13 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x16xf32>
func.func @last_axis_rank3(%x: tensor<2x5x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %eps = arith.constant dense<1.0e-12> : tensor<f32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %c = nn.sub %x, %mu : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %sq = nn.mul %c, %c : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %var = nn.reduce_mean %sq [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %ve = nn.add %var, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %r = nn.rsqrt %ve : tensor<2x5x1xf32>
  %n = nn.mul %c, %r : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %s = nn.mul %n, %g : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %y = nn.add %s, %b : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

// Normalised over the last two axes: axis 1, γ and β of shape [5, 16].
// CHECK-LABEL: func.func @last_two_axes
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[G:.*]]: tensor<5x16xf32>, %[[B:.*]]: tensor<5x16xf32>)
// CHECK-NOT:     nn.reduce_mean
// CHECK:         %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<2x5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x16xf32>
func.func @last_two_axes(%x: tensor<2x5x16xf32>, %g: tensor<5x16xf32>, %b: tensor<5x16xf32>) -> tensor<2x5x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1, 2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x1x1xf32>
  %c = nn.sub %x, %mu : (tensor<2x5x16xf32>, tensor<2x1x1xf32>) -> tensor<2x5x16xf32>
  %sq = nn.mul %c, %c : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %var = nn.reduce_mean %sq [1, 2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x1x1xf32>
  %ve = nn.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %r = nn.rsqrt %ve : tensor<2x1x1xf32>
  %n = nn.mul %c, %r : (tensor<2x5x16xf32>, tensor<2x1x1xf32>) -> tensor<2x5x16xf32>
  %s = nn.mul %n, %g : (tensor<2x5x16xf32>, tensor<5x16xf32>) -> tensor<2x5x16xf32>
  %y = nn.add %s, %b : (tensor<2x5x16xf32>, tensor<5x16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

// The post-LN sublayer connection: the layer norm of a + r takes the sum as
// its residual form, and the add goes.
// CHECK-LABEL: func.func @residual
// CHECK-SAME:    (%[[A:.*]]: tensor<2x5x16xf32>, %[[R:.*]]: tensor<2x5x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NOT:     nn.add
// CHECK:         %[[Y:.*]] = nn.layer_norm %[[A]] + %[[R]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x16xf32>
func.func @residual(%a: tensor<2x5x16xf32>, %res: tensor<2x5x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %x = nn.add %a, %res : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %c = nn.sub %x, %mu : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %sq = nn.mul %c, %c : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %var = nn.reduce_mean %sq [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %ve = nn.add %var, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %r = nn.rsqrt %ve : tensor<2x5x1xf32>
  %n = nn.mul %c, %r : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %s = nn.mul %n, %g : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %y = nn.add %s, %b : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

// A layer norm already in the graph takes a residual sum too.
// CHECK-LABEL: func.func @residual_of_existing_norm
// CHECK-SAME:    (%[[A:.*]]: tensor<2x5x16xf32>, %[[R:.*]]: tensor<2x5x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[A]] + %[[R]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x16xf32>
func.func @residual_of_existing_norm(%a: tensor<2x5x16xf32>, %res: tensor<2x5x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %x = nn.add %a, %res : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %y = nn.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

// γ without β: a layer norm without beta (an added β would become its
// beta, as in @centred_variance).
// CHECK-LABEL: func.func @gamma_only
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]] {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @gamma_only(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// -----

// The unbiased variance, sum((x - μ)²) / (n - 1), with ε in the root.
// CHECK-LABEL: func.func @unbiased_variance
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64, statistic = #nn.norm_statistic<unbiased_variance>} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @unbiased_variance(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %n1 = arith.constant dense<15.0> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = nn.reduce_sum %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %var = nn.div %sum, %n1 : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The Annotated Transformer's LayerNorm, as its importer expansion writes
// it: γ * (x - μ) / (x.std() + ε) + β, x.std() = sqrt(sum((x - μ)²) /
// (n - 1)). The unbiased variance with ε on the std.
// CHECK-LABEL: func.func @unbiased_std_plus_epsilon
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.9999999747524271E-7 : f64, epsilon_on_std, statistic = #nn.norm_statistic<unbiased_variance>} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @unbiased_std_plus_epsilon(%x: tensor<2x5x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %n1 = arith.constant dense<15.0> : tensor<f32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %c = nn.sub %x, %mu : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %sq = nn.mul %c, %c : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %sum = nn.reduce_sum %sq [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %var = nn.div %sum, %n1 : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %std = nn.sqrt %var : tensor<2x5x1xf32>
  %se = nn.add %std, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %gc = nn.mul %g, %c : (tensor<16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %n = nn.div %gc, %se : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %y = nn.add %n, %b : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

// The same with the variance written as sum · (1 / (n - 1)) (an f32 factor
// whose inverse is 15 to within rounding), γ after the division, ε first
// in its add, and a residual sum as the input.
// CHECK-LABEL: func.func @unbiased_std_reciprocal_residual
// CHECK-SAME:    (%[[A:.*]]: tensor<4x16xf32>, %[[R:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[A]] + %[[R]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.9999999747524271E-7 : f64, epsilon_on_std, statistic = #nn.norm_statistic<unbiased_variance>}
// CHECK-NEXT:    return %[[Y]]
func.func @unbiased_std_reciprocal_residual(%a: tensor<4x16xf32>, %res: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %inv = arith.constant dense<0.0666666701> : tensor<f32>
  %x = nn.add %a, %res : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = nn.reduce_sum %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %var = nn.mul %inv, %sum : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %std = nn.sqrt %var : tensor<4x1xf32>
  %se = nn.add %eps, %std : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = nn.div %c, %se : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %b, %s : (tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The biased variance with ε on the std: (x - μ) / (sqrt(mean((x - μ)²)) +
// ε) · γ + β.
// CHECK-LABEL: func.func @biased_std_plus_epsilon
// CHECK:         nn.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64, epsilon_on_std} :
// CHECK-NOT:     nn.sqrt
func.func @biased_std_plus_epsilon(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %std = nn.sqrt %var : tensor<4x1xf32>
  %se = nn.add %std, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %n = nn.div %c, %se : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// RMSNorm as torch.nn.RMSNorm computes it: x · rsqrt(mean(x²) + ε) · γ,
// with no mean and no β.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[G:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]] {axis = 2 : i64, epsilon = 9.9999999747524271E-7 : f64, statistic = #nn.norm_statistic<mean_square>} : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @rms_norm(%x: tensor<2x5x16xf32>, %g: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %sq = nn.mul %x, %x : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %ms = nn.reduce_mean %sq [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %me = nn.add %ms, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %r = nn.rsqrt %me : tensor<2x5x1xf32>
  %n = nn.mul %x, %r : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %y = nn.mul %g, %n : (tensor<16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

// RMSNorm divided by sqrt, with a bias, of a residual sum.
// CHECK-LABEL: func.func @rms_norm_div_bias_residual
// CHECK-SAME:    (%[[A:.*]]: tensor<4x16xf32>, %[[R:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[A]] + %[[R]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.9999999747524271E-7 : f64, statistic = #nn.norm_statistic<mean_square>}
// CHECK-NEXT:    return %[[Y]]
func.func @rms_norm_div_bias_residual(%a: tensor<4x16xf32>, %res: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %x = nn.add %a, %res : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %ms = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %me = nn.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %rt = nn.sqrt %me : tensor<4x1xf32>
  %n = nn.div %x, %rt : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The layer norm without β is also returned: the add of β stays outside.
// CHECK-LABEL: func.func @beta_not_folded_into_shared_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[N:.*]] = nn.layer_norm %[[X]], %[[G]] {axis = 1 : i64, epsilon = 9.9999999747524271E-7 : f64, statistic = #nn.norm_statistic<mean_square>}
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[N]], %[[B]]
// CHECK-NEXT:    return %[[Y]], %[[N]]
func.func @beta_not_folded_into_shared_norm(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %sq = nn.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %ms = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %me = nn.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %me : tensor<4x1xf32>
  %n = nn.mul %x, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y, %s : tensor<4x16xf32>, tensor<4x16xf32>
}


// -----

//===----------------------------------------------------------------------===//
// Left alone
//===----------------------------------------------------------------------===//

// Statistics over axis 0 of [4, 16]: not the trailing axes.
// CHECK-LABEL: func.func @leading_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [0] {keep_dims} : tensor<4x16xf32> -> tensor<1x16xf32>
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[SQ:.*]] = nn.mul %[[C]], %[[C]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[SQ]] [0] {keep_dims}
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %{{.*}} : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]]
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @leading_axis(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [0] {keep_dims} : tensor<4x16xf32> -> tensor<1x16xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [0] {keep_dims} : tensor<4x16xf32> -> tensor<1x16xf32>
  %ve = nn.add %var, %eps : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
  %r = nn.rsqrt %ve : tensor<1x16xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Means without keep_dims: x - μ broadcasts μ along the rows, which is not
// the mean of each row.
// CHECK-LABEL: func.func @mean_without_keep_dims
// CHECK-SAME:    (%[[X:.*]]: tensor<16x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] : tensor<16x16xf32> -> tensor<16xf32>
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]] : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
// CHECK:         %[[SQ:.*]] = nn.mul %[[C]], %[[C]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[SQ]] [1] : tensor<16x16xf32> -> tensor<16xf32>
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %{{.*}}
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]]
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @mean_without_keep_dims(%x: tensor<16x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] : tensor<16x16xf32> -> tensor<16xf32>
  %c = nn.sub %x, %mu : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  %sq = nn.mul %c, %c : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %var = nn.reduce_mean %sq [1] : tensor<16x16xf32> -> tensor<16xf32>
  %ve = nn.add %var, %eps : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
  %r = nn.rsqrt %ve : tensor<16xf32>
  %n = nn.mul %c, %r : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  %s = nn.mul %n, %g : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  %y = nn.add %s, %b : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// x centred, but divided by the standard deviation of another tensor z.
// CHECK-LABEL: func.func @variance_of_other_tensor
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[Z:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] {keep_dims}
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[MUZ:.*]] = nn.reduce_mean %[[Z]] [1] {keep_dims}
// CHECK:         %[[CZ:.*]] = nn.sub %[[Z]], %[[MUZ]]
// CHECK:         %[[SQ:.*]] = nn.mul %[[CZ]], %[[CZ]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[SQ]] [1] {keep_dims}
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %{{.*}}
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]]
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @variance_of_other_tensor(%x: tensor<4x16xf32>, %z: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %muz = nn.reduce_mean %z [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %cz = nn.sub %z, %muz : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %cz, %cz : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The centred input is not squared: mean(x - μ) is not a variance.
// CHECK-LABEL: func.func @deviation_not_squared
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] {keep_dims}
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[C]] [1] {keep_dims}
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %{{.*}}
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]]
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @deviation_not_squared(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %c [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// mean(x²) - μ with μ not squared.
// CHECK-LABEL: func.func @mean_not_squared
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] {keep_dims}
// CHECK:         %[[X2:.*]] = nn.mul %[[X]], %[[X]]
// CHECK:         %[[MX2:.*]] = nn.reduce_mean %[[X2]] [1] {keep_dims}
// CHECK:         %[[VAR:.*]] = nn.sub %[[MX2]], %[[MU]] : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %{{.*}}
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]]
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @mean_not_squared(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %x2 = nn.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %mx2 = nn.reduce_mean %x2 [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %var = nn.sub %mx2, %mu : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// ε is a function argument, not a constant.
// CHECK-LABEL: func.func @epsilon_not_constant
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>, %[[EPS:.*]]: tensor<f32>)
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] {keep_dims}
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[SQ:.*]] = nn.mul %[[C]], %[[C]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[SQ]] [1] {keep_dims}
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %[[EPS]] : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]]
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @epsilon_not_constant(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %eps: tensor<f32>) -> tensor<4x16xf32> {
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// ε = 0 is not a layer norm epsilon.
// CHECK-LABEL: func.func @epsilon_zero
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[EPS:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] {keep_dims}
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[SQ:.*]] = nn.mul %[[C]], %[[C]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[SQ]] [1] {keep_dims}
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %[[EPS]]
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]]
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @epsilon_zero(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<0.0> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A negative ε.
// CHECK-LABEL: func.func @epsilon_negative
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[EPS:.*]] = arith.constant dense<-9.99999974E-6> : tensor<f32>
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] {keep_dims}
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[SQ:.*]] = nn.mul %[[C]], %[[C]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[SQ]] [1] {keep_dims}
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %[[EPS]]
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]]
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @epsilon_negative(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<-1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// β without γ.
// CHECK-LABEL: func.func @beta_only
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] {keep_dims}
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[SQ:.*]] = nn.mul %[[C]], %[[C]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[SQ]] [1] {keep_dims}
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %{{.*}}
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[Y:.*]] = nn.add %[[N]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @beta_only(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = nn.add %n, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// γ of shape [4, 16] scales each element, not the normalised shape [16].
// CHECK-LABEL: func.func @gamma_wrong_shape
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xf32>, %[[G:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:         %[[MU:.*]] = nn.reduce_mean %[[X]] [1] {keep_dims}
// CHECK:         %[[C:.*]] = nn.sub %[[X]], %[[MU]]
// CHECK:         %[[SQ:.*]] = nn.mul %[[C]], %[[C]]
// CHECK:         %[[VAR:.*]] = nn.reduce_mean %[[SQ]] [1] {keep_dims}
// CHECK:         %[[VE:.*]] = nn.add %[[VAR]], %{{.*}}
// CHECK:         %[[RS:.*]] = nn.rsqrt %[[VE]]
// CHECK:         %[[N:.*]] = nn.mul %[[C]], %[[RS]]
// CHECK:         %[[S:.*]] = nn.mul %[[N]], %[[G]] : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK:         %[[Y:.*]] = nn.add %[[S]], %[[B]]
// CHECK-NOT:     nn.layer_norm
// CHECK:         return %[[Y]]
func.func @gamma_wrong_shape(%x: tensor<4x16xf32>, %g: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %ve : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %s = nn.mul %n, %g : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = nn.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The input is x + bias [16], a broadcasting add: the layer norm is fused,
// but the add stays and is not taken as a residual.
// CHECK-LABEL: func.func @residual_broadcast
// CHECK-SAME:    (%[[A:.*]]: tensor<2x5x16xf32>, %[[BIAS:.*]]: tensor<16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[X:.*]] = nn.add %[[A]], %[[BIAS]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x16xf32>
func.func @residual_broadcast(%a: tensor<2x5x16xf32>, %bias: tensor<16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %x = nn.add %a, %bias : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %c = nn.sub %x, %mu : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %sq = nn.mul %c, %c : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %var = nn.reduce_mean %sq [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %ve = nn.add %var, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %r = nn.rsqrt %ve : tensor<2x5x1xf32>
  %n = nn.mul %c, %r : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %s = nn.mul %n, %g : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %y = nn.add %s, %b : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

// A broadcasting add whose result has the rank of neither operand
// ([2, 1, 16] + [5, 16]) is not a residual of an existing layer norm.
// CHECK-LABEL: func.func @residual_broadcast_both
// CHECK-SAME:    (%[[A:.*]]: tensor<2x1x16xf32>, %[[R:.*]]: tensor<5x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[X:.*]] = nn.add %[[A]], %[[R]] : (tensor<2x1x16xf32>, tensor<5x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<2x5x16xf32>
func.func @residual_broadcast_both(%a: tensor<2x1x16xf32>, %res: tensor<5x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x5x16xf32> {
  %x = nn.add %a, %res : (tensor<2x1x16xf32>, tensor<5x16xf32>) -> tensor<2x5x16xf32>
  %y = nn.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %y : tensor<2x5x16xf32>
}

// -----

// The sum a + r is also returned: it stays, and the layer norm reads it
// without the residual form.
// CHECK-LABEL: func.func @residual_other_user
// CHECK-SAME:    (%[[A:.*]]: tensor<2x5x16xf32>, %[[R:.*]]: tensor<2x5x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[X:.*]] = nn.add %[[A]], %[[R]] : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.layer_norm %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[Y]], %[[X]] : tensor<2x5x16xf32>, tensor<2x5x16xf32>
func.func @residual_other_user(%a: tensor<2x5x16xf32>, %res: tensor<2x5x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<2x5x16xf32>, tensor<2x5x16xf32>) {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %x = nn.add %a, %res : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %c = nn.sub %x, %mu : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %sq = nn.mul %c, %c : (tensor<2x5x16xf32>, tensor<2x5x16xf32>) -> tensor<2x5x16xf32>
  %var = nn.reduce_mean %sq [2] {keep_dims} : tensor<2x5x16xf32> -> tensor<2x5x1xf32>
  %ve = nn.add %var, %eps : (tensor<2x5x1xf32>, tensor<f32>) -> tensor<2x5x1xf32>
  %r = nn.rsqrt %ve : tensor<2x5x1xf32>
  %n = nn.mul %c, %r : (tensor<2x5x16xf32>, tensor<2x5x1xf32>) -> tensor<2x5x16xf32>
  %s = nn.mul %n, %g : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %y = nn.add %s, %b : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %y, %x : tensor<2x5x16xf32>, tensor<2x5x16xf32>
}

// -----

// sum((x - μ)²) / (n - 2): neither n nor n - 1.
// CHECK-LABEL: func.func @sum_of_squares_wrong_divisor
// CHECK:         nn.reduce_sum
// CHECK:         nn.div
// CHECK-NOT:     nn.layer_norm
func.func @sum_of_squares_wrong_divisor(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %n2 = arith.constant dense<14.0> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = nn.reduce_sum %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %var = nn.div %sum, %n2 : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = nn.sqrt %var : tensor<4x1xf32>
  %se = nn.add %std, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %gc = nn.mul %g, %c : (tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %n = nn.div %gc, %se : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = nn.add %n, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The std with no ε at all: a constant row would divide by zero, which
// nn.layer_norm never does.
// CHECK-LABEL: func.func @std_without_epsilon
// CHECK:         nn.sqrt
// CHECK-NOT:     nn.layer_norm
func.func @std_without_epsilon(%x: tensor<4x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %n1 = arith.constant dense<15.0> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = nn.reduce_sum %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %var = nn.div %sum, %n1 : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = nn.sqrt %var : tensor<4x1xf32>
  %gc = nn.mul %g, %c : (tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %n = nn.div %gc, %std : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = nn.add %n, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// ε in the wrong place: added to the numerator, (x - μ + ε) / std.
// CHECK-LABEL: func.func @epsilon_on_numerator
// CHECK:         nn.sqrt
// CHECK-NOT:     nn.layer_norm
func.func @epsilon_on_numerator(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %n1 = arith.constant dense<15.0> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = nn.reduce_sum %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %var = nn.div %sum, %n1 : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %std = nn.sqrt %var : tensor<4x1xf32>
  %ce = nn.add %c, %eps : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %n = nn.div %ce, %std : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// ε under the outer root of sqrt(sqrt(var) + ε): not a form of the op.
// CHECK-LABEL: func.func @epsilon_between_roots
// CHECK:         nn.rsqrt
// CHECK-NOT:     nn.layer_norm
func.func @epsilon_between_roots(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %mu = nn.reduce_mean %x [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %c = nn.sub %x, %mu : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %sq = nn.mul %c, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %var = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %std = nn.sqrt %var : tensor<4x1xf32>
  %se = nn.add %std, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %se : tensor<4x1xf32>
  %n = nn.mul %c, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The centring mean over the last axis, the squares summed over the last
// two: a different axis.
// CHECK-LABEL: func.func @std_over_other_axes
// CHECK:         nn.reduce_sum
// CHECK-NOT:     nn.layer_norm
func.func @std_over_other_axes(%x: tensor<2x4x16xf32>, %g: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %n1 = arith.constant dense<63.0> : tensor<f32>
  %mu = nn.reduce_mean %x [2] {keep_dims} : tensor<2x4x16xf32> -> tensor<2x4x1xf32>
  %c = nn.sub %x, %mu : (tensor<2x4x16xf32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
  %sq = nn.mul %c, %c : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sum = nn.reduce_sum %sq [1, 2] {keep_dims} : tensor<2x4x16xf32> -> tensor<2x1x1xf32>
  %var = nn.div %sum, %n1 : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %std = nn.sqrt %var : tensor<2x1x1xf32>
  %se = nn.add %std, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %n = nn.div %c, %se : (tensor<2x4x16xf32>, tensor<2x1x1xf32>) -> tensor<2x4x16xf32>
  %y = nn.mul %n, %g : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// The mean square of x scales another tensor z: not RMSNorm of either.
// CHECK-LABEL: func.func @rms_of_other_tensor
// CHECK:         nn.rsqrt
// CHECK-NOT:     nn.layer_norm
func.func @rms_of_other_tensor(%x: tensor<4x16xf32>, %z: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %sq = nn.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %ms = nn.reduce_mean %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %me = nn.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %me : tensor<4x1xf32>
  %n = nn.mul %z, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// The mean square over axis 0 of [4, 16]: not the trailing axes.
// CHECK-LABEL: func.func @rms_leading_axis
// CHECK:         nn.rsqrt
// CHECK-NOT:     nn.layer_norm
func.func @rms_leading_axis(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %sq = nn.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %ms = nn.reduce_mean %sq [0] {keep_dims} : tensor<4x16xf32> -> tensor<1x16xf32>
  %me = nn.add %ms, %eps : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
  %r = nn.rsqrt %me : tensor<1x16xf32>
  %n = nn.mul %x, %r : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %y = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// An uncentred sum of squares over n - 1: neither RMSNorm's mean square
// nor a variance.
// CHECK-LABEL: func.func @mean_square_over_n_minus_one
// CHECK:         nn.rsqrt
// CHECK-NOT:     nn.layer_norm
func.func @mean_square_over_n_minus_one(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<f32>
  %n1 = arith.constant dense<15.0> : tensor<f32>
  %sq = nn.mul %x, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = nn.reduce_sum %sq [1] {keep_dims} : tensor<4x16xf32> -> tensor<4x1xf32>
  %ms = nn.div %sum, %n1 : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %me = nn.add %ms, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = nn.rsqrt %me : tensor<4x1xf32>
  %n = nn.mul %x, %r : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %y = nn.mul %n, %g : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
