// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-map-loops-to-gpu -cse | FileCheck %s

// -nn-map-loops-to-gpu: every linalg op and memref.copy left in a host
// function becomes loops with its parallel dimensions outermost, and its
// parallel iteration space, flattened, is spread over blocks of up to 256
// threads (at least a warp of 32), one thread per iteration:
//   scf.parallel (%block) = (0) to (B) step (1) {
//     scf.parallel (%thread) = (0) to (T) step (1) {
//       i = %block * T + %thread; if i < N: the body at i delinearised,
//       the last dimension fastest, reductions in order inside
// When the body is straight-line code and the last loop runs from 0 a
// multiple of 4 times, each thread runs 4 consecutive iterations of it:
// what does not depend on that loop once, consecutive loads and stores as
// one aligned vector access where the layout proves the alignment, the
// rest once per iteration. An op without parallel loops, and anything else
// that touches memory, runs on one thread. The host keeps calls, views
// and address arithmetic.

// 3 x 5 elements (5 is no multiple of 4: one iteration per thread): 15
// threads of one block of a warp, the guard, and (i / 5, i % 5).
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME:    (%[[X:.*]]: memref<3x5xf32>, %[[Y:.*]]: memref<3x5xf32>)
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.parallel (%[[BLOCK:.*]]) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK-NEXT:      %[[T:.*]] = arith.constant 32 : index
// CHECK-NEXT:      scf.parallel (%[[THREAD:.*]]) = (%[[C0]]) to (%[[T]]) step (%[[C1]]) {
// CHECK-NEXT:        %[[BT:.*]] = arith.muli %[[BLOCK]], %[[T]] : index
// CHECK-NEXT:        %[[LIN:.*]] = arith.addi %[[BT]], %[[THREAD]] : index
// CHECK-NEXT:        %[[N:.*]] = arith.constant 15 : index
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %[[N]] : index
// CHECK-NEXT:        scf.if %[[IN]] {
// CHECK-NEXT:          %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT:          %[[COLI:.*]] = arith.remui %[[LIN]], %[[C5]] : index
// CHECK-NEXT:          %[[ROWI:.*]] = arith.divui %[[LIN]], %[[C5]] : index
// CHECK-NEXT:          %[[COLS:.*]] = arith.muli %[[COLI]], %[[C1]] : index
// CHECK-NEXT:          %[[COL:.*]] = arith.addi %[[C0]], %[[COLS]] : index
// CHECK-NEXT:          %[[ROWS:.*]] = arith.muli %[[ROWI]], %[[C1]] : index
// CHECK-NEXT:          %[[ROW:.*]] = arith.addi %[[C0]], %[[ROWS]] : index
// CHECK-NEXT:          %[[R:.*]] = affine.apply #{{.*}}(%[[ROW]])
// CHECK-NEXT:          %[[C:.*]] = affine.apply #{{.*}}(%[[COL]])
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[X]][%[[R]], %[[C]]] : memref<3x5xf32>
// CHECK-NEXT:          %[[E:.*]] = math.exp %[[V]] : f32
// CHECK-NEXT:          memref.store %[[E]], %[[Y]][%[[R]], %[[C]]] : memref<3x5xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.reduce
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    }
// CHECK-NEXT:    return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: memref<3x5xf32>, %y: memref<3x5xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<3x5xf32>) outs(%y : memref<3x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// 771 iterations: blocks of 256 threads, 4 of them, the last one partly
// idle. A fill is lowered as it is.
// CHECK-LABEL: func.func @many_blocks
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[C4]]) step (%{{.*}}) {
// CHECK-NEXT:      %[[T:.*]] = arith.constant 256 : index
// CHECK-NEXT:      scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%[[T]]) step (%{{.*}}) {
// CHECK-NEXT:        %[[BT:.*]] = arith.muli %[[BLOCK]], %[[T]] : index
// CHECK-NEXT:        %[[LIN:.*]] = arith.addi %[[BT]], %[[THREAD]] : index
// CHECK-NEXT:        %[[N:.*]] = arith.constant 771 : index
// CHECK-NEXT:        arith.cmpi ult, %[[LIN]], %[[N]] : index
// CHECK:               arith.constant 257 : index
// CHECK:               memref.store %{{.*}}, %{{.*}} : memref<3x257xf32>
// CHECK-NOT:     linalg.fill
func.func @many_blocks(%x: memref<3x257xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%x : memref<3x257xf32>)
  return
}

// -----

// Straight-line body, last loop of 8 = 2 x 4: each thread runs 4
// consecutive columns from base = 4 * (its column group), 2 x 2 threads.
// x and the result are read and written as aligned 16-byte vectors, the
// row's bias once, the column scale as a vector; the transposed operand
// varies along the row of its last index and is read once per lane.
// CHECK-LABEL: func.func @lanes
// CHECK-SAME:    (%[[X:.*]]: memref<2x8xf32>, %[[B:.*]]: memref<2xf32>, %[[S:.*]]: memref<8xf32>, %[[XT:.*]]: memref<8x2xf32>, %[[Y:.*]]: memref<2x8xf32>)
// CHECK:         %[[N:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[LIN:.*]], %[[N]] : index
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[GI:.*]] = arith.remui %[[LIN]], %[[C2]] : index
// CHECK-NEXT:      %[[RI:.*]] = arith.divui %[[LIN]], %[[C2]] : index
// CHECK-NEXT:      %[[GS:.*]] = arith.muli %[[GI]], %[[C1:.*]] : index
// CHECK-NEXT:      %[[G:.*]] = arith.addi %[[C0:.*]], %[[GS]] : index
// CHECK-NEXT:      %[[RS:.*]] = arith.muli %[[RI]], %[[C1]] : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.addi %[[C0]], %[[RS]] : index
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %[[G]], %[[N]] : index
// CHECK-NEXT:      %[[L0:.*]] = arith.addi %[[BASE]], %[[C0]] : index
// CHECK-NEXT:      %[[L1:.*]] = arith.addi %[[BASE]], %[[C1]] : index
// CHECK-NEXT:      %[[L2:.*]] = arith.addi %[[BASE]], %[[C2]] : index
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[L3:.*]] = arith.addi %[[BASE]], %[[C3]] : index
// CHECK-NEXT:      %[[R:.*]] = affine.apply #{{.*}}(%[[ROW]])
// CHECK-NEXT:      %[[XV:.*]] = vector.load %[[X]][%[[R]], %[[BASE]]] {alignment = 16 : i64} : memref<2x8xf32>, vector<4xf32>
// CHECK-NEXT:      %[[X0:.*]] = vector.extract %[[XV]][0] : f32 from vector<4xf32>
// CHECK-NEXT:      %[[X1:.*]] = vector.extract %[[XV]][1] : f32 from vector<4xf32>
// CHECK-NEXT:      %[[X2:.*]] = vector.extract %[[XV]][2] : f32 from vector<4xf32>
// CHECK-NEXT:      %[[X3:.*]] = vector.extract %[[XV]][3] : f32 from vector<4xf32>
// CHECK-NEXT:      %[[BIAS:.*]] = memref.load %[[B]][%[[R]]] : memref<2xf32>
// CHECK-NEXT:      %[[SV:.*]] = vector.load %[[S]][%[[BASE]]] {alignment = 16 : i64} : memref<8xf32>, vector<4xf32>
// CHECK-NEXT:      %[[S0:.*]] = vector.extract %[[SV]][0]
// CHECK-NEXT:      %[[S1:.*]] = vector.extract %[[SV]][1]
// CHECK-NEXT:      %[[S2:.*]] = vector.extract %[[SV]][2]
// CHECK-NEXT:      %[[S3:.*]] = vector.extract %[[SV]][3]
// CHECK-NEXT:      %[[I0:.*]] = affine.apply #{{.*}}(%[[L0]])
// CHECK-NEXT:      %[[I1:.*]] = affine.apply #{{.*}}(%[[L1]])
// CHECK-NEXT:      %[[I2:.*]] = affine.apply #{{.*}}(%[[L2]])
// CHECK-NEXT:      %[[I3:.*]] = affine.apply #{{.*}}(%[[L3]])
// CHECK-NEXT:      %[[T0:.*]] = memref.load %[[XT]][%[[I0]], %[[R]]] : memref<8x2xf32>
// CHECK-NEXT:      %[[T1:.*]] = memref.load %[[XT]][%[[I1]], %[[R]]] : memref<8x2xf32>
// CHECK-NEXT:      %[[T2:.*]] = memref.load %[[XT]][%[[I2]], %[[R]]] : memref<8x2xf32>
// CHECK-NEXT:      %[[T3:.*]] = memref.load %[[XT]][%[[I3]], %[[R]]] : memref<8x2xf32>
// CHECK:           %[[A0:.*]] = arith.addf %[[X0]], %[[BIAS]] : f32
// CHECK-NEXT:      %[[A1:.*]] = arith.addf %[[X1]], %[[BIAS]] : f32
// CHECK-NEXT:      %[[A2:.*]] = arith.addf %[[X2]], %[[BIAS]] : f32
// CHECK-NEXT:      %[[A3:.*]] = arith.addf %[[X3]], %[[BIAS]] : f32
// CHECK-NEXT:      %[[M0:.*]] = arith.mulf %[[A0]], %[[S0]] : f32
// CHECK-NEXT:      %[[M1:.*]] = arith.mulf %[[A1]], %[[S1]] : f32
// CHECK-NEXT:      %[[M2:.*]] = arith.mulf %[[A2]], %[[S2]] : f32
// CHECK-NEXT:      %[[M3:.*]] = arith.mulf %[[A3]], %[[S3]] : f32
// CHECK-NEXT:      %[[D0:.*]] = arith.subf %[[M0]], %[[T0]] : f32
// CHECK-NEXT:      %[[D1:.*]] = arith.subf %[[M1]], %[[T1]] : f32
// CHECK-NEXT:      %[[D2:.*]] = arith.subf %[[M2]], %[[T2]] : f32
// CHECK-NEXT:      %[[D3:.*]] = arith.subf %[[M3]], %[[T3]] : f32
// CHECK-NEXT:      %[[OUT:.*]] = vector.from_elements %[[D0]], %[[D1]], %[[D2]], %[[D3]] : vector<4xf32>
// CHECK-NEXT:      vector.store %[[OUT]], %[[Y]][%[[R]], %[[BASE]]] {alignment = 16 : i64} : memref<2x8xf32>, vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NOT:     memref.store
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @lanes(%x: memref<2x8xf32>, %b: memref<2xf32>, %s: memref<8xf32>, %xt: memref<8x2xf32>, %y: memref<2x8xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #col, #tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %s, %xt : memref<2x8xf32>, memref<2xf32>, memref<8xf32>, memref<8x2xf32>) outs(%y : memref<2x8xf32>) {
  ^bb0(%in: f32, %bi: f32, %si: f32, %ti: f32, %o: f32):
    %e = arith.addf %in, %bi : f32
    %f = arith.mulf %e, %si : f32
    %g = arith.subf %f, %ti : f32
    linalg.yield %g : f32
  }
  return
}

// -----

// Four lanes per thread whatever the layout; a vector access only where
// the alignment is proven. A view starting one float in is not 16-byte
// aligned, nor is a constant table without an alignment; a table aligned
// to 16 is.
memref.global "private" constant @plain : memref<8xf32> = dense<1.0>
memref.global "private" constant @aligned : memref<8xf32> = dense<2.0> {alignment = 16 : i64}
// CHECK-LABEL: func.func @alignment
// CHECK-SAME:    (%[[ODD:.*]]: memref<8xf32, strided<[1], offset: 1>>, %[[Y:.*]]: memref<8xf32>)
// CHECK-DAG:     %[[PLAIN:.*]] = memref.get_global @plain
// CHECK-DAG:     %[[ALIGNED:.*]] = memref.get_global @aligned
// CHECK:         %[[N:.*]] = arith.constant 2 : index
// CHECK-NEXT:    arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK:           %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %{{.*}}, %[[C4]] : index
// CHECK-COUNT-4:   memref.load %[[ODD]][%{{.*}}] : memref<8xf32, strided<[1], offset: 1>>
// CHECK-COUNT-4:   memref.load %[[PLAIN]][%{{.*}}] : memref<8xf32>
// CHECK-NEXT:      vector.load %[[ALIGNED]][%[[BASE]]] {alignment = 16 : i64} : memref<8xf32>, vector<4xf32>
// CHECK:           vector.store %{{.*}}, %[[Y]][%[[BASE]]] {alignment = 16 : i64} : memref<8xf32>, vector<4xf32>
#id = affine_map<(d0) -> (d0)>
func.func @alignment(%odd: memref<8xf32, strided<[1], offset: 1>>, %y: memref<8xf32>) {
  %p = memref.get_global @plain : memref<8xf32>
  %a = memref.get_global @aligned : memref<8xf32>
  linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%odd, %p, %a : memref<8xf32, strided<[1], offset: 1>>, memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%i: f32, %j: f32, %k: f32, %o: f32):
    %s = arith.addf %i, %j : f32
    %t = arith.addf %s, %k : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Four f16 are an 8-byte vector; i1 elements are not whole bytes and are
// read one by one. The constant does not depend on the lane: once.
// CHECK-LABEL: func.func @element_types
// CHECK-SAME:    (%[[H:.*]]: memref<8xf16>, %[[M:.*]]: memref<8xi1>, %[[Y:.*]]: memref<8xf16>)
// CHECK:           %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %{{.*}}, %[[C4]] : index
// CHECK:           vector.load %[[H]][%[[BASE]]] {alignment = 8 : i64} : memref<8xf16>, vector<4xf16>
// CHECK-COUNT-4:   memref.load %[[M]][%{{.*}}] : memref<8xi1>
// CHECK:           arith.constant 0.000000e+00 : f16
// CHECK-NOT:       arith.constant 0.000000e+00 : f16
// CHECK-COUNT-4:   arith.select
// CHECK:           vector.store %{{.*}}, %[[Y]][%[[BASE]]] {alignment = 8 : i64} : memref<8xf16>, vector<4xf16>
#id = affine_map<(d0) -> (d0)>
func.func @element_types(%h: memref<8xf16>, %m: memref<8xi1>, %y: memref<8xf16>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%h, %m : memref<8xf16>, memref<8xi1>) outs(%y : memref<8xf16>) {
  ^bb0(%i: f16, %c: i1, %o: f16):
    %z = arith.constant 0.0 : f16
    %t = arith.select %c, %i, %z : f16
    linalg.yield %t : f16
  }
  return
}

// -----

// A column sum: the reduction dimension comes first in the op, the
// parallel one is moved out. One thread per column loops over the rows in
// order.
// CHECK-LABEL: func.func @column_sum
// CHECK-SAME:    (%[[X:.*]]: memref<6x5xf32>, %[[Y:.*]]: memref<5xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             %[[N:.*]] = arith.constant 5 : index
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi ult, %[[LIN:.*]], %[[N]] : index
// CHECK-NEXT:        scf.if %[[IN]] {
// CHECK-NEXT:          %[[CS:.*]] = arith.muli %[[LIN]], %[[C1]] : index
// CHECK-NEXT:          %[[COL:.*]] = arith.addi %[[C0]], %[[CS]] : index
// CHECK-NEXT:          scf.for %[[I:.*]] = %[[C0]] to %[[C6]] step %[[C1]] {
// CHECK-NEXT:            %[[R:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK-NEXT:            %[[C:.*]] = affine.apply #{{.*}}(%[[COL]])
// CHECK-NEXT:            %[[V:.*]] = memref.load %[[X]][%[[R]], %[[C]]] : memref<6x5xf32>
// CHECK-NEXT:            %[[ACC:.*]] = memref.load %[[Y]][%[[C]]] : memref<5xf32>
// CHECK-NEXT:            %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:            memref.store %[[S]], %[[Y]][%[[C]]] : memref<5xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
func.func @column_sum(%x: memref<6x5xf32>, %y: memref<5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<6x5xf32>) outs(%y : memref<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A named op (a matmul the GEMM did not take) is lowered as its generic
// form: one thread per output element, the contraction in order inside.
// The body has a loop: one iteration per thread, 8 columns or not.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[N:.*]] = arith.constant 24 : index
// CHECK-NEXT:    arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:      arith.remui %{{.*}}, %[[C8]] : index
// CHECK-NEXT:      arith.divui %{{.*}}, %[[C8]] : index
// CHECK:           scf.for
// CHECK:             arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     vector.load
func.func @matmul(%a: memref<3x5xf64>, %b: memref<5x8xf64>, %c: memref<3x8xf64>) {
  linalg.matmul ins(%a, %b : memref<3x5xf64>, memref<5x8xf64>) outs(%c : memref<3x8xf64>)
  return
}

// -----

// A copy between layouts, one element per thread.
// CHECK-LABEL: func.func @copy
// CHECK-SAME:    (%[[X:.*]]: memref<3x5xf32, strided<[10, 1]>>, %[[Y:.*]]: memref<3x5xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         arith.constant 15 : index
// CHECK:           %[[V:.*]] = memref.load %[[X]][%[[R:.*]], %[[C:.*]]] : memref<3x5xf32, strided<[10, 1]>>
// CHECK-NEXT:      memref.store %[[V]], %[[Y]][%[[R]], %[[C]]] : memref<3x5xf32>
// CHECK-NOT:     memref.copy
func.func @copy(%x: memref<3x5xf32, strided<[10, 1]>>, %y: memref<3x5xf32>) {
  memref.copy %x, %y : memref<3x5xf32, strided<[10, 1]>> to memref<3x5xf32>
  return
}

// -----

// A parallel loop already there keeps its bounds: 3 iterations from 2 in
// steps of 3, i = 2 + 3 * (thread index). Not from 0: one per thread.
// CHECK-LABEL: func.func @stepped
// CHECK-SAME:    (%[[X:.*]]: memref<16xf32>)
// CHECK:         %[[N:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[LIN:.*]], %[[N]] : index
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %[[LIN]], %[[N]] : index
// CHECK-NEXT:      %[[LOW:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[LOW]], %[[OFF]] : index
// CHECK-NEXT:      memref.store %{{.*}}, %[[X]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:    }
func.func @stepped(%x: memref<16xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c11 = arith.constant 11 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c2) to (%c11) step (%c3) {
    memref.store %z, %x[%i] : memref<16xf32>
  }
  return
}

// -----

// No parallel loop: a 0-d op, and a full reduction, each run on a grid of
// one block of one thread, without a guard.
// CHECK-LABEL: func.func @one_thread
// CHECK-SAME:    (%[[S:.*]]: memref<f32>, %[[T:.*]]: memref<f32>, %[[X:.*]]: memref<7xf32>)
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.parallel (%{{.*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK-NEXT:      scf.parallel (%{{.*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK-NEXT:        arith.muli
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:        %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:        memref.store %[[SQ]], %[[T]][] : memref<f32>
// CHECK-NEXT:        scf.reduce
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.parallel (%{{.*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK-NEXT:      scf.parallel (%{{.*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK-NEXT:        arith.muli
// CHECK-NEXT:        %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:        scf.for %[[I:.*]] = %[[C0]] to %[[C7]] step %[[C1]] {
// CHECK-NEXT:          %[[J:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK-NEXT:          %[[E:.*]] = memref.load %[[X]][%[[J]]] : memref<7xf32>
// CHECK-NEXT:          %[[ACC:.*]] = memref.load %[[T]][] : memref<f32>
// CHECK-NEXT:          %[[SUM:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT:          memref.store %[[SUM]], %[[T]][] : memref<f32>
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.reduce
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @one_thread(%s: memref<f32>, %t: memref<f32>, %x: memref<7xf32>) {
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%s : memref<f32>) outs(%t : memref<f32>) {
  ^bb0(%in: f32, %o: f32):
    %sq = arith.mulf %in, %in : f32
    linalg.yield %sq : f32
  }
  linalg.reduce ins(%x : memref<7xf32>) outs(%t : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s2 = arith.addf %acc, %in : f32
      linalg.yield %s2 : f32
    }
  return
}

// -----

// A loop left on the host that touches memory runs on one thread too, its
// bounds as they are.
// CHECK-LABEL: func.func @host_loop
// CHECK-SAME:    (%[[X:.*]]: memref<8xf32>, %[[N:.*]]: index)
// CHECK:         scf.parallel
// CHECK-NEXT:      scf.parallel
// CHECK-NEXT:        arith.muli
// CHECK-NEXT:        scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:          memref.store
func.func @host_loop(%x: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %z, %x[%i] : memref<8xf32>
  }
  return
}

// -----

// An empty iteration space launches nothing.
// CHECK-LABEL: func.func @empty
// CHECK-NEXT:    return
func.func @empty(%x: memref<0x5xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%x : memref<0x5xf32>)
  return
}

// -----

// What the host keeps: views, address arithmetic and runtime calls taking
// addresses and host scalars.
// CHECK-LABEL: func.func @host
// CHECK-SAME:    (%[[ARENA:.*]]: memref<512xi8>, %[[X:.*]]: memref<4x6xf32>)
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[V:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<512xi8> to memref<4x6xf32>
// CHECK-NEXT:    %[[S:.*]] = memref.subview %[[X]][0, 0] [4, 3] [1, 1]
// CHECK-NEXT:    %[[I:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
// CHECK-NEXT:    %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:    %[[P:.*]] = llvm.inttoptr %[[I64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[J:.*]] = memref.extract_aligned_pointer_as_index %[[V]]
// CHECK-NEXT:    %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:    %[[Q:.*]] = llvm.inttoptr %[[J64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[F:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    call @kernel(%[[P]], %[[Q]], %[[F]]) : (!llvm.ptr, !llvm.ptr, f32) -> ()
// CHECK-NEXT:    return
func.func private @kernel(!llvm.ptr, !llvm.ptr, f32)
func.func @host(%arena: memref<512xi8>, %x: memref<4x6xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.view %arena[%c0][] : memref<512xi8> to memref<4x6xf32>
  %s = memref.subview %x[0, 0] [4, 3] [1, 1] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 1]>>
  %i = memref.extract_aligned_pointer_as_index %s : memref<4x3xf32, strided<[6, 1]>> -> index
  %i64 = arith.index_cast %i : index to i64
  %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
  %j = memref.extract_aligned_pointer_as_index %v : memref<4x6xf32> -> index
  %j64 = arith.index_cast %j : index to i64
  %q = llvm.inttoptr %j64 : i64 to !llvm.ptr
  %f = arith.constant 1.0 : f32
  call @kernel(%p, %q, %f) : (!llvm.ptr, !llvm.ptr, f32) -> ()
  return
}

// -----

// A host array a runtime call reads (memref.alloca, filled by stores) is
// the host's stack: nothing of it goes to the GPU.
// CHECK-LABEL: func.func @host_array
// CHECK-NOT:     scf.parallel
// CHECK:         %[[A:.*]] = memref.alloca() : memref<2xi64>
// CHECK-NEXT:    memref.store %{{.*}}, %[[A]][%{{.*}}] : memref<2xi64>
// CHECK-NEXT:    memref.store %{{.*}}, %[[A]][%{{.*}}] : memref<2xi64>
// CHECK-NOT:     scf.parallel
// CHECK:         call @sizes
func.func private @sizes(!llvm.ptr)
func.func @host_array() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %six = arith.constant 6 : i64
  %eight = arith.constant 8 : i64
  %a = memref.alloca() : memref<2xi64>
  memref.store %six, %a[%c0] : memref<2xi64>
  memref.store %eight, %a[%c1] : memref<2xi64>
  %i = memref.extract_aligned_pointer_as_index %a : memref<2xi64> -> index
  %i64 = arith.index_cast %i : index to i64
  %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
  call @sizes(%p) : (!llvm.ptr) -> ()
  return
}

// -----

// A store into device memory is the GPU's, on one thread.
// CHECK-LABEL: func.func @device_store
// CHECK:         scf.parallel
// CHECK:           scf.parallel
// CHECK:             memref.store
func.func @device_store(%x: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  memref.store %f, %x[%c0] : memref<2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// -----

// The loaded value would be on the device, the call that takes it on the
// host.
func.func private @take(f32)
func.func @host_reads_device(%x: memref<f32>) {
  // expected-error @+1 {{'memref.load' op reads GPU memory for the host: the CUDA target runs it on the device, where its result cannot reach the host code}}
  %v = memref.load %x[] : memref<f32>
  call @take(%v) : (f32) -> ()
  return
}

// -----

func.func @parallel_reduction(%x: memref<8xf32>, %y: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'scf.parallel' op with reductions cannot be mapped to the GPU}}
  %r = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = memref.load %x[%i] : memref<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  memref.store %r, %y[] : memref<f32>
  return
}

// -----

func.func @dynamic_bounds(%x: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'scf.parallel' op needs constant bounds to be mapped to the GPU}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %x[%i] : memref<8xf32>
  }
  return
}

// -----

// Tensors have no memory to map threads over: this runs after
// bufferization.
func.func @tensors(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{'linalg.generic' op cannot be lowered to GPU loops}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
