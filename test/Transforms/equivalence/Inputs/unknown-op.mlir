// arith.addf is not an op the evaluator knows: it must say so and fail,
// never skip it.
func.func @f() -> tensor<2x3xf32> {
  %x = arith.constant dense<[[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>
  %0 = arith.addf %x, %x : tensor<2x3xf32>
  %1 = nn.relu %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
