// RUN: transfuse-opt %s -split-input-file -nn-parallelize-loops -canonicalize | FileCheck %s
// RUN: transfuse-opt %s -split-input-file -nn-parallelize-loops="max-tiles=4 min-tile-work=1024" -canonicalize | FileCheck %s --check-prefix=FEW

// -nn-parallelize-loops: a bufferized linalg op with enough work has its
// leading parallel loops split into an scf.parallel of tiles, each running
// the op on subviews; the innermost loop stays whole inside a tile.

// 64 x 512 iterations, 16384 per tile at least: two tiles of 32 rows.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%[[A:.*]]: memref<64x512xf32>, %[[B:.*]]: memref<512xf32>, %[[OUT:.*]]: memref<64x512xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK:         scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[C64]]) step (%[[C32]]) {
// CHECK-NEXT:      %[[SA:.*]] = memref.subview %[[A]][%[[I]], 0] [32, 512] [1, 1]
// CHECK-NEXT:      %[[SO:.*]] = memref.subview %[[OUT]][%[[I]], 0] [32, 512] [1, 1]
// CHECK-NEXT:      linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[SA]], %[[B]] : {{.*}}) outs(%[[SO]] : {{.*}})
// CHECK:             arith.addf
// CHECK:         scf.reduce
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// FEW-LABEL:   func.func @rows
// FEW:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[STEP:.*]]) {
// FEW:             memref.subview {{.*}} [16, 512] [1, 1]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @rows(%a: memref<64x512xf32>, %b: memref<512xf32>, %out: memref<64x512xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<64x512xf32>, memref<512xf32>) outs(%out : memref<64x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A batch of 4 is too short to give 8 tiles: the sequence loop is split
// too. The reduction over the last loop stays whole in each tile, and a
// loop index in the body is offset by the tile's position.
// CHECK-LABEL: func.func @batch_then_rows
// CHECK-SAME:    (%[[X:.*]]: memref<4x256x128xf32>, %[[SUM:.*]]: memref<4x256xf32>)
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         scf.parallel (%[[B:.*]], %[[S:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C4]], %[[C256]]) step (%[[C1]], %[[C128]]) {
// CHECK-NEXT:      %[[SX:.*]] = memref.subview %[[X]][%[[B]], %[[S]], 0] [1, 128, 128] [1, 1, 1]
// CHECK-NEXT:      %[[SS:.*]] = memref.subview %[[SUM]][%[[B]], %[[S]]] [1, 128] [1, 1]
// CHECK-NEXT:      linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[SX]] : {{.*}}) outs(%[[SS]] : {{.*}})
// CHECK:             %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:        affine.apply #{{.*}}(%[[S]])[%[[J]]]
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @batch_then_rows(%x: memref<4x256x128xf32>, %sum: memref<4x256xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<4x256x128xf32>) outs(%sum : memref<4x256xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f32
    %w = arith.mulf %v, %jf : f32
    %s = arith.addf %acc, %w fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Too little work to pay for a fork: left as it is.
// CHECK-LABEL: func.func @small
// CHECK-NOT:     scf.parallel
// CHECK:         linalg.fill
// FEW-LABEL:   func.func @small
// FEW-NOT:       scf.parallel
func.func @small(%out: memref<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<16x16xf32>)
  return
}

// -----

// A first loop that reduces cannot be split among threads; an op already
// inside a loop, and an op on tensors, are not touched either.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     scf.parallel
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK:         scf.for
// CHECK:           linalg.fill {{.*}} memref<512x512xf32>
// CHECK:         linalg.fill {{.*}} tensor<512x512xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @left_alone(%x: memref<512x512xf32>, %sum: memref<512xf32>, %big: memref<512x512xf32>, %t: tensor<512x512xf32>) -> tensor<512x512xf32> {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<512x512xf32>) outs(%sum : memref<512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.fill ins(%zero : f32) outs(%big : memref<512x512xf32>)
  }
  %r = linalg.fill ins(%zero : f32) outs(%t : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
