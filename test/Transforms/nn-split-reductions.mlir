// RUN: transfuse-opt %s -split-input-file -nn-split-reductions | FileCheck %s

// -nn-split-reductions: on the GPU each result of a reduction is one
// thread. A linalg.generic on tensors with one result, fewer than 16384
// results and at least 256 elements reduced into each, whose body is
// `yield combine(%out, x)` with an associative combiner (integer add, float
// max and min, float add with reassoc), has one reduction dimension d of
// size E split as d = r * c + p: a first op computes [c, results...]
// partials from the combiner's neutral element, p parallel and r reduced
// (the input read as [E / c, c], so adjacent threads read adjacent
// elements); a second op combines the partials into the original init.
// c is the largest divisor of E up to ceil(16384 / results) and to the
// elements reduced into each result / 16 (each thread of the first op
// still reduces 16 or more). Both new ops are looked at again.

// A full sum of 2048 elements: 128 partials of 16 elements each, then one
// thread adds the 128 (too few to split again) into the init.
// CHECK-DAG:   #[[IN:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG:   #[[PART:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:   #[[ALL:map[0-9]*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @full_sum
// CHECK-SAME:    (%[[X:.*]]: tensor<2048xf32>, %[[INIT:.*]]: tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[EX:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [16, 128] : tensor<2048xf32> into tensor<16x128xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<128xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[Z:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<128xf32>) -> tensor<128xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[PART]]], iterator_types = ["parallel", "reduction"]} ins(%[[EX]] : tensor<16x128xf32>) outs(%[[Z]] : tensor<128xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[A]] fastmath<reassoc> : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<128xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ALL]]], iterator_types = ["reduction"]} ins(%[[P]] : tensor<128xf32>) outs(%[[INIT]] : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%[[B:[^:]+]]: f32, %[[ACC2:[^:]+]]: f32):
// CHECK-NEXT:      %[[S2:.*]] = arith.addf %[[ACC2]], %[[B]] fastmath<reassoc> : f32
// CHECK-NEXT:      linalg.yield %[[S2]] : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    return %[[R]] : tensor<f32>
func.func @full_sum(%x: tensor<2048xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<2048xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A column reduction over 2048 rows of 64: 16384 / 64 = 256 partial rows
// would leave 8 rows to a thread, so 128 partial rows, each over every
// 128th row. The maximum starts at
// -inf; the combining op takes the partials' dimension last.
// CHECK-DAG:   #[[IN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG:   #[[PART:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[FROM:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG:   #[[TO:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @column_max
// CHECK-SAME:    (%[[X:.*]]: tensor<2048x64xf32>, %[[INIT:.*]]: tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT:    %[[EX:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [16, 128, 64] : tensor<2048x64xf32> into tensor<16x128x64xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<128x64xf32>
// CHECK-NEXT:    %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    %[[Z:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%[[E]] : tensor<128x64xf32>) -> tensor<128x64xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[PART]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[EX]] : tensor<16x128x64xf32>) outs(%[[Z]] : tensor<128x64xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[A]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK-NEXT:    } -> tensor<128x64xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[FROM]], #[[TO]]], iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<128x64xf32>) outs(%[[INIT]] : tensor<64xf32>) {
// CHECK-NEXT:    ^bb0(%[[B:[^:]+]]: f32, %[[ACC2:[^:]+]]: f32):
// CHECK-NEXT:      %[[M2:.*]] = arith.maximumf %[[ACC2]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[M2]] : f32
// CHECK-NEXT:    } -> tensor<64xf32>
// CHECK-NEXT:    return %[[R]] : tensor<64xf32>
func.func @column_max(%x: tensor<2048x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<2048x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// An input that does not read the split dimension (a weight per column)
// is read as it is, its map over the new dimensions. The body before the
// combiner is kept, and `fast` includes reassoc.
// CHECK-DAG:   #[[IN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG:   #[[W:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG:   #[[PART:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @weighted
// CHECK-SAME:    (%[[X:.*]]: tensor<2048x2xf32>, %[[WS:.*]]: tensor<2xf32>, %[[INIT:.*]]: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[EX:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [16, 128, 2] : tensor<2048x2xf32> into tensor<16x128x2xf32>
// CHECK:         %[[P:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[PART]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[EX]], %[[WS]] : tensor<16x128x2xf32>, tensor<2xf32>) outs(%{{.*}} : tensor<128x2xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:[^:]+]]: f32, %[[WI:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[A]], %[[WI]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[M]] fastmath<fast> : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<128x2xf32>) outs(%[[INIT]] : tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[B:[^:]+]]: f32, %[[ACC2:[^:]+]]: f32):
// CHECK-NEXT:      arith.addf %[[ACC2]], %[[B]] fastmath<fast> : f32
func.func @weighted(%x: tensor<2048x2xf32>, %w: tensor<2xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x, %w : tensor<2048x2xf32>, tensor<2xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %wi: f32, %acc: f32):
    %m = arith.mulf %in, %wi : f32
    %s = arith.addf %acc, %m fastmath<fast> : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// 16384 integers: 1024 partials of 16, whose sum is still big enough to
// be split again into 64 of 16, which one thread adds up: three ops.
// CHECK-LABEL: func.func @repeated
// CHECK-SAME:    (%[[X:.*]]: tensor<16384xi32>, %[[INIT:.*]]: tensor<i32>) -> tensor<i32>
// CHECK-NEXT:    %[[EX1:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [16, 1024] : tensor<16384xi32> into tensor<16x1024xi32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<1024xi32>
// CHECK-NEXT:    %[[ZERO1:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[Z1:.*]] = linalg.fill ins(%[[ZERO1]] : i32) outs(%[[E1]] : tensor<1024xi32>) -> tensor<1024xi32>
// CHECK-NEXT:    %[[P1:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EX1]] : tensor<16x1024xi32>) outs(%[[Z1]] : tensor<1024xi32>)
// CHECK:           arith.addi
// CHECK:         %[[EX2:.*]] = tensor.expand_shape %[[P1]] {{\[}}[0, 1]] output_shape [16, 64] : tensor<1024xi32> into tensor<16x64xi32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<64xi32>
// CHECK-NEXT:    %[[ZERO2:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[Z2:.*]] = linalg.fill ins(%[[ZERO2]] : i32) outs(%[[E2]] : tensor<64xi32>) -> tensor<64xi32>
// CHECK-NEXT:    %[[P2:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EX2]] : tensor<16x64xi32>) outs(%[[Z2]] : tensor<64xi32>)
// CHECK:           arith.addi
// CHECK-NOT:     tensor.expand_shape
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P2]] : tensor<64xi32>) outs(%[[INIT]] : tensor<i32>)
// CHECK:           arith.addi
// CHECK:         return %[[R]] : tensor<i32>
func.func @repeated(%x: tensor<16384xi32>, %init: tensor<i32>) -> tensor<i32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<16384xi32>) outs(%init : tensor<i32>) {
  ^bb0(%in: i32, %acc: i32):
    %s = arith.addi %in, %acc : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  return %r : tensor<i32>
}

// -----

// A bias gradient: 512 columns summed over a batch of 64 x 20 rows, two
// reduction dimensions. The larger one (64) is split into 16384 / 512 =
// 32 parts; each thread of the partial op reduces 2 x 20 rows of its
// column, and the 32 partials of a column are too few to split again.
// CHECK-DAG:   #[[IN:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-DAG:   #[[PART:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @bias_grad
// CHECK-SAME:    (%[[X:.*]]: tensor<64x20x512xf32>, %[[INIT:.*]]: tensor<512xf32>) -> tensor<512xf32>
// CHECK-NEXT:    %[[EX:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2], [3]] output_shape [2, 32, 20, 512] : tensor<64x20x512xf32> into tensor<2x32x20x512xf32>
// CHECK:         %[[P:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[PART]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%[[EX]] : tensor<2x32x20x512xf32>) outs(%{{.*}} : tensor<32x512xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<32x512xf32>) outs(%[[INIT]] : tensor<512xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<512xf32>
func.func @bias_grad(%x: tensor<64x20x512xf32>, %init: tensor<512xf32>) -> tensor<512xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>],
                       iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%x : tensor<64x20x512xf32>) outs(%init : tensor<512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  return %r : tensor<512xf32>
}

// -----

// Rows of 2048 (2 results): 128 partials per row. The body's index of the
// split dimension is p + r * 128; the minimum starts at +inf.
// CHECK-DAG:   #[[IN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG:   #[[PART:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @index
// CHECK-SAME:    (%[[X:.*]]: tensor<2x2048xf32>, %[[INIT:.*]]: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[EX:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [2, 16, 128] : tensor<2x2048xf32> into tensor<2x16x128xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<128x2xf32>
// CHECK-NEXT:    %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT:    %[[Z:.*]] = linalg.fill ins(%[[INF]] : f32) outs(%[[E]] : tensor<128x2xf32>) -> tensor<128x2xf32>
// CHECK-NEXT:    %[[P:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[PART]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[EX]] : tensor<2x16x128xf32>) outs(%[[Z]] : tensor<128x2xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[ROW:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[PP:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[RR:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[PARTS:.*]] = arith.constant 128 : index
// CHECK-NEXT:      %[[RC:.*]] = arith.muli %[[RR]], %[[PARTS]] : index
// CHECK-NEXT:      %[[COL:.*]] = arith.addi %[[PP]], %[[RC]] : index
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[ROW]], %[[COL]] : index
// CHECK-NEXT:      %[[KI:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:      %[[KF:.*]] = arith.sitofp %[[KI]] : i32 to f32
// CHECK-NEXT:      %[[V:.*]] = arith.mulf %[[A]], %[[KF]] : f32
// CHECK-NEXT:      %[[MIN:.*]] = arith.minnumf %[[V]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[MIN]] : f32
// CHECK-NEXT:    } -> tensor<128x2xf32>
// CHECK-NEXT:    linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<128x2xf32>) outs(%[[INIT]] : tensor<2xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.minnumf
func.func @index(%x: tensor<2x2048xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x2048xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.addi %i, %j : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %m = arith.mulf %in, %kf : f32
    %s = arith.minnumf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// The largest reduction dimension (4099, a prime) has no divisor to split
// it by; the next one (8) is split whole, into 8 partials of 1 row. The
// partial op still reduces 4099 elements, but 4099 does not divide and
// its other reduction dimension is 1.
// CHECK-DAG:   #[[IN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG:   #[[PART:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @largest_without_divisor
// CHECK-NEXT:    %[[EX:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [4099, 1, 8] : tensor<4099x8xf32> into tensor<4099x1x8xf32>
// CHECK-NEXT:    tensor.empty() : tensor<8xf32>
// CHECK-NEXT:    arith.constant 0xFF800000 : f32
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    %[[P:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[PART]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[EX]] : tensor<4099x1x8xf32>)
// CHECK:           arith.maxnumf
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P]] : tensor<8xf32>)
// CHECK:           arith.maxnumf
func.func @largest_without_divisor(%x: tensor<4099x8xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<4099x8xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maxnumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Left alone
//===----------------------------------------------------------------------===//

// -----

// 255 elements: one thread reduces them quickly enough.
// CHECK-LABEL: func.func @small
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<255xf32>)
// CHECK-NOT:     linalg.generic
func.func @small(%x: tensor<255xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<255xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A float sum without reassoc must add in order.
// CHECK-LABEL: func.func @ordered_sum
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<8192xf32>)
// CHECK-NOT:     linalg.generic
func.func @ordered_sum(%x: tensor<8192xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<8192xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A product is associative too, but not a combiner the pass knows (no
// neutral element for it).
// CHECK-LABEL: func.func @product
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<8192xf32>)
// CHECK-NOT:     linalg.generic
func.func @product(%x: tensor<8192xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<8192xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.mulf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// The accumulator read twice: the body is not `combine(%out, x)`.
// CHECK-LABEL: func.func @not_a_combiner
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<8192xf32>)
// CHECK-NOT:     linalg.generic
func.func @not_a_combiner(%x: tensor<8192xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<8192xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %d = arith.mulf %acc, %in : f32
    %s = arith.addf %acc, %d fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// 16384 rows already keep the GPU busy with one thread each.
// CHECK-LABEL: func.func @many_results
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<16384x4096xf32>)
// CHECK-NOT:     linalg.generic
func.func @many_results(%x: tensor<16384x4096xf32>, %init: tensor<16384xf32>) -> tensor<16384xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16384x4096xf32>) outs(%init : tensor<16384xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<16384xf32>
  return %r : tensor<16384xf32>
}

// -----

// Two results (a sum and a maximum in one loop).
// CHECK-LABEL: func.func @two_results
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<8192xf32>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK-NOT:     linalg.generic
func.func @two_results(%x: tensor<8192xf32>, %s0: tensor<f32>, %m0: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%x : tensor<8192xf32>) outs(%s0, %m0 : tensor<f32>, tensor<f32>) {
  ^bb0(%in: f32, %s: f32, %m: f32):
    %s1 = arith.addf %s, %in fastmath<reassoc> : f32
    %m1 = arith.maximumf %m, %in : f32
    linalg.yield %s1, %m1 : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

// 4099 is prime: no split into equal parts.
// CHECK-LABEL: func.func @no_divisor
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<4099xf32>)
// CHECK-NOT:     linalg.generic
func.func @no_divisor(%x: tensor<4099xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<4099xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A sliding window (y read at d0 + d1) is not indexed by the dimension
// alone: the expanded input could not be read at (r, p).
// CHECK-LABEL: func.func @not_a_permutation
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<8192x2xf32>, tensor<8193xf32>)
// CHECK-NOT:     linalg.generic
func.func @not_a_permutation(%x: tensor<8192x2xf32>, %y: tensor<8193xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x, %y : tensor<8192x2xf32>, tensor<8193xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %m = arith.mulf %in, %w : f32
    %s = arith.addf %acc, %m fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// On buffers the result is written in place: not this pass's form.
// CHECK-LABEL: func.func @buffers
// CHECK-NOT:     memref.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : memref<8192xf32>)
// CHECK-NOT:     linalg.generic
func.func @buffers(%x: memref<8192xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<8192xf32>) outs(%out : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Sizes known only at run time.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<?xf32>)
// CHECK-NOT:     linalg.generic
func.func @dynamic(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// No results at all (an empty batch): nothing to spread over threads.
// CHECK-LABEL: func.func @no_results
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<0x8192xf32>)
// CHECK-NOT:     linalg.generic
func.func @no_results(%x: tensor<0x8192xf32>, %init: tensor<0xf32>) -> tensor<0xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<0x8192xf32>) outs(%init : tensor<0xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<0xf32>
  return %r : tensor<0xf32>
}
