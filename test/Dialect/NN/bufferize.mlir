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
