// RUN: transfuse-opt %s -split-input-file -nn-fuse-elementwise-loops | FileCheck %s

// -nn-fuse-elementwise-loops: an elementwise linalg.generic feeding another
// (or a reduction) as its only reader becomes one loop, and so does one
// feeding an elementwise reader that every other reader follows (the loop
// also stores the value for them); fills and named contractions are left as
// they are, so that matmuls stay recognisable for the runtime's GEMM.

// Two generics, one loop: the broadcast input keeps its map and the body is
// the producer's followed by the consumer's.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @two_generics
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[S]] : f32
// CHECK-NEXT:      linalg.yield %[[EXP]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x3xf32>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @two_generics(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %e0 = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e0 : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %e1 = tensor.empty() : tensor<2x3xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<2x3xf32>) outs(%e1 : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A chain of three, the last with an input of its own: still one loop.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]], %[[C]] : tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %[[Z:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[S]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[EXP]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]] : tensor<2x3xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @chain(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e0 = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e0 : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %e1 = tensor.empty() : tensor<2x3xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<2x3xf32>) outs(%e1 : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<2x3xf32>
  %e2 = tensor.empty() : tensor<2x3xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1, %c : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e2 : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// The zero fill of a matmul's init stays a linalg.fill and the matmul a
// named linalg.matmul.
// CHECK-LABEL: func.func @fill_into_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[F]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[M]] : tensor<4x8xf32>
func.func @fill_into_matmul(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// A generic feeding a matmul is not folded into it, nor is a matmul into the
// generic that reads it.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @generic_around_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:    %[[RELU:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<4x16xf32>) outs(%[[E0]] : tensor<4x16xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y:.*]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<4x16xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[M:.*]] = linalg.matmul ins(%[[RELU]], %[[B]] : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[F]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[M]] : tensor<4x8xf32>) outs(%[[E2]] : tensor<4x8xf32>) {
// CHECK-NEXT:    ^bb0(%[[U:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[V:.*]] = math.exp %[[U]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK-NEXT:    } -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[EXP]] : tensor<4x8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_around_matmul(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e0 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%r, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %w = math.exp %v : f32
    linalg.yield %w : f32
  } -> tensor<4x8xf32>
  return %x : tensor<4x8xf32>
}

// -----

// A named reduction is generalized so that the elementwise chain computing
// its input folds into it: one loop that exponentiates and sums.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROWS:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @generic_into_reduce
// CHECK-SAME:    (%[[A:.*]]: tensor<4x16xf32>) -> tensor<4xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<4x16xf32>) outs(%[[F]] : tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[EXP]] fastmath<reassoc> : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32
// CHECK-NEXT:    } -> tensor<4xf32>
// CHECK-NEXT:    return %[[S]] : tensor<4xf32>
// CHECK-NOT:     linalg.reduce
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_into_reduce(%a: tensor<4x16xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e0 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%r : tensor<4x16xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %sum = arith.addf %acc, %x fastmath<reassoc> : f32
      linalg.yield %sum : f32
    }
  return %s : tensor<4xf32>
}

// -----

// A value read by two loops is computed once and stored: the exponential
// is neither folded into its readers nor recomputed in each of them. (Its
// first reader is a reduction, which does not store values for others.)
// CHECK-LABEL: func.func @two_readers
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x16xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      math.exp
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<4x16xf32>)
// CHECK-NOT:       math.exp
// CHECK:         %[[N:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[S]] : tensor<4x16xf32>, tensor<4xf32>)
// CHECK-NOT:       math.exp
// CHECK:           arith.divf
// CHECK:         return %[[N]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @two_readers(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e0 = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e0 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%r : tensor<4x16xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %sum = arith.addf %acc, %x fastmath<reassoc> : f32
      linalg.yield %sum : f32
    }
  %e1 = tensor.empty() : tensor<4x16xf32>
  %n = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %s : tensor<4x16xf32>, tensor<4xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %t: f32, %o: f32):
    %q = arith.divf %x, %t : f32
    linalg.yield %q : f32
  } -> tensor<4x16xf32>
  return %n : tensor<4x16xf32>
}

// -----

// A fill read as a generic's input (not an init) is folded into the body as
// its scalar: upstream's fill folding is part of the pattern set.
// CHECK-DAG:   #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @fill_into_generic
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[X]], %[[TWO]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK-NEXT:    } -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[R]] : tensor<4x8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @fill_into_generic(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %c = arith.constant 2.0 : f32
  %f = linalg.fill ins(%c : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %f : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.mulf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A value read by an elementwise loop and, after it, by a call: one loop
// that computes both values and stores the first for the call.
// CHECK-LABEL: func.func @stored_for_a_later_reader
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[R:.*]]:2 = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: f32, %{{[^:]+}}: f32, %{{[^:]+}}: f32):
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[IN]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[E]], %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[E]], %[[M]] : f32, f32
// CHECK:         call @use(%[[R]]#0)
// CHECK-NEXT:    return %[[R]]#1
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @use(tensor<4x8xf32>)
func.func @stored_for_a_later_reader(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %y = arith.mulf %u, %v : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  call @use(%a) : (tensor<4x8xf32>) -> ()
  return %b : tensor<4x8xf32>
}

// -----

// The same with the call before the elementwise reader: the fused loop
// would come too late for the call, so both loops stay and the
// exponential is computed once.
// CHECK-LABEL: func.func @earlier_reader
// CHECK:         %[[A:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         call @use(%[[A]])
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NOT:       math.exp
// CHECK:           arith.mulf
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @use(tensor<4x8xf32>)
func.func @earlier_reader(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  call @use(%a) : (tensor<4x8xf32>) -> ()
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %y = arith.mulf %u, %v : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// An optimizer-like update: g = x·s read by both moments, the step reading
// both moments, the moments returned after it. One loop stores m, v and
// the step, each operation once (the step reads two values of one loop:
// each read folds that loop in, and the repeated operations merge).
// CHECK-LABEL: func.func @update
// CHECK-SAME:    (%[[X:.*]]: tensor<8xf32>, %[[S:.*]]: tensor<8xf32>, %[[M0:.*]]: tensor<8xf32>, %[[V0:.*]]: tensor<8xf32>)
// CHECK:         %[[R:.*]]:3 = linalg.generic {{.*}} ins(%[[X]], %[[S]], %[[M0]], %[[V0]] : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:[^:]+]]: f32, %[[SI:[^:]+]]: f32, %[[MI:[^:]+]]: f32, %[[VI:[^:]+]]: f32,
// CHECK-NEXT:      %[[G:.*]] = arith.mulf %[[XI]], %[[SI]] : f32
// CHECK-NEXT:      %[[G2:.*]] = arith.mulf %[[G]], %[[G]] : f32
// CHECK-NEXT:      %[[V:.*]] = arith.addf %[[G2]], %[[VI]] : f32
// CHECK-NEXT:      %[[ROOT:.*]] = math.sqrt %[[V]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.addf %[[G]], %[[MI]] : f32
// CHECK-NEXT:      %[[STEP:.*]] = arith.divf %[[M]], %[[ROOT]] : f32
// CHECK-NEXT:      linalg.yield %[[V]], %[[M]], %[[STEP]] : f32, f32, f32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]#2, %[[R]]#1, %[[R]]#0 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
#id = affine_map<(d0) -> (d0)>
func.func @update(%x: tensor<8xf32>, %s: tensor<8xf32>, %m0: tensor<8xf32>, %v0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %s : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.mulf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%g, %m0 : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %g2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%g, %g : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.mulf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%g2, %v0 : tensor<8xf32>, tensor<8xf32>) outs(%e3 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e4 = tensor.empty() : tensor<8xf32>
  %root = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%v : tensor<8xf32>) outs(%e4 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.sqrt %a : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e5 = tensor.empty() : tensor<8xf32>
  %step = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%m, %root : tensor<8xf32>, tensor<8xf32>) outs(%e5 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %step, %m, %v : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
