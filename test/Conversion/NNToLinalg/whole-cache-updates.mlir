// RUN: transfuse-opt %s -convert-nn-to-linalg=whole-cache-updates | FileCheck %s

// -convert-nn-to-linalg{whole-cache-updates} (the CUDA target): a cache
// update is one elementwise generic over the cache, its output the cache
// itself (so bufferization writes in place), each element taking its
// sequence's new row where the row lands on it -- the offset of its row
// from the sequence's start, compared unsigned so that rows before the
// start are out of range too -- and keeping its value elsewhere. Nothing
// is indexed by the positions outside the generic.
// CHECK-DAG:   #[[SEQ:.*]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-DAG:   #[[ALL:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @cache_update
// CHECK-SAME:    (%[[CACHE:.*]]: tensor<2x4x8x16xf32>, %[[ROWS:.*]]: tensor<2x4x3x16xf32>, %[[START:.*]]: tensor<2xi64>)
// CHECK-NOT:     scf.for
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[SEQ]], #[[ALL]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[START]] : tensor<2xi64>) outs(%[[CACHE]] : tensor<2x4x8x16xf32>)
// CHECK-NEXT:    ^bb0(%[[FIRST:.*]]: i64, %[[HELD:.*]]: f32):
// CHECK-NEXT:      %[[B:.*]] = linalg.index 0
// CHECK-NEXT:      %[[H:.*]] = linalg.index 1
// CHECK-NEXT:      %[[S:.*]] = linalg.index 2
// CHECK-NEXT:      %[[D:.*]] = linalg.index 3
// CHECK-NEXT:      %[[F:.*]] = arith.index_cast %[[FIRST]] : i64 to index
// CHECK-NEXT:      %[[OFF:.*]] = arith.subi %[[S]], %[[F]] : index
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[OFF]], %[[C3]] : index
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.select %[[IN]], %[[OFF]], %[[C0]] : index
// CHECK-NEXT:      %[[NEW:.*]] = tensor.extract %[[ROWS]][%[[B]], %[[H]], %[[ROW]], %[[D]]] : tensor<2x4x3x16xf32>
// CHECK-NEXT:      %[[V:.*]] = arith.select %[[IN]], %[[NEW]], %[[HELD]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @cache_update(%c: tensor<2x4x8x16xf32>, %r: tensor<2x4x3x16xf32>, %p: tensor<2xi64>) -> tensor<2x4x8x16xf32> {
  %0 = nn.cache_update %c, %r at %p : tensor<2x4x8x16xf32>, tensor<2x4x3x16xf32>, tensor<2xi64>
  return %0 : tensor<2x4x8x16xf32>
}
