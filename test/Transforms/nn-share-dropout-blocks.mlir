// RUN: transfuse-opt %s -split-input-file -nn-share-dropout-blocks -canonicalize | FileCheck %s

// -nn-share-dropout-blocks: a loop over a dropout's last index j, from a
// multiple of 4 by 1 a multiple of 4 times, whose body draws the Philox
// block j >> 2 and the word j & 3 on marked ops, is unrolled by 4; copy i
// takes copy 0's block and the word i, and CSE keeps one computation of
// the block (here a product standing for Philox's rounds); the
// canonicalizer then folds word 0 away.
// CHECK-LABEL: func.func @row_of_eight
// CHECK-SAME:    (%[[OUT:.*]]: memref<8xi64>, %[[KEY:.*]]: i64)
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C4]] {
// CHECK-NEXT:      %[[E:.*]] = arith.index_castui %[[J]] : index to i64
// CHECK-NEXT:      %[[B:.*]] = arith.shrui %[[E]], %[[C2]] {nn.dropout_block} : i64
// CHECK-NEXT:      %[[R:.*]] = arith.muli %[[B]], %[[KEY]] : i64
// CHECK-NEXT:      memref.store %[[R]], %[[OUT]][%[[J]]] : memref<8xi64>
// CHECK-NEXT:      %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[W1:.*]] = arith.addi %[[R]], %[[C1]] : i64
// CHECK-NEXT:      memref.store %[[W1]], %[[OUT]][%[[J1]]] : memref<8xi64>
// CHECK-NEXT:      %[[J2:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[W2:.*]] = arith.addi %[[R]], %[[C2]] : i64
// CHECK-NEXT:      memref.store %[[W2]], %[[OUT]][%[[J2]]] : memref<8xi64>
// CHECK-NEXT:      %[[J3:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[W3:.*]] = arith.addi %[[R]], %[[C3]] : i64
// CHECK-NEXT:      memref.store %[[W3]], %[[OUT]][%[[J3]]] : memref<8xi64>
// CHECK-NEXT:    }
func.func @row_of_eight(%out: memref<8xi64>, %key: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  scf.for %j = %c0 to %c8 step %c1 {
    %e = arith.index_castui %j : index to i64
    %block = arith.shrui %e, %two {nn.dropout_block} : i64
    %word = arith.andi %e, %three {nn.dropout_word} : i64
    %rounds = arith.muli %block, %key : i64
    %draw = arith.addi %rounds, %word : i64
    memref.store %draw, %out[%j] : memref<8xi64>
  }
  return
}

// -----

// Left alone: a loop from 2 (its first element is inside a block), a loop
// by 2, a loop of 6 (its last block is cut), and marks on a value that is
// not the loop's own index.
// CHECK-LABEL: func.func @not_whole_blocks
// CHECK-COUNT-4: step %c{{[12]}} {
// CHECK-NOT:     step %c4
// CHECK:         return
func.func @not_whole_blocks(%out: memref<16xi64>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  scf.for %j = %c2 to %c10 step %c1 {
    %e = arith.index_castui %j : index to i64
    %block = arith.shrui %e, %two {nn.dropout_block} : i64
    %word = arith.andi %e, %three {nn.dropout_word} : i64
    %draw = arith.addi %block, %word : i64
    memref.store %draw, %out[%j] : memref<16xi64>
  }
  scf.for %j = %c0 to %c16 step %c2 {
    %e = arith.index_castui %j : index to i64
    %block = arith.shrui %e, %two {nn.dropout_block} : i64
    memref.store %block, %out[%j] : memref<16xi64>
  }
  scf.for %j = %c0 to %c6 step %c1 {
    %e = arith.index_castui %j : index to i64
    %word = arith.andi %e, %three {nn.dropout_word} : i64
    memref.store %word, %out[%j] : memref<16xi64>
  }
  scf.for %j = %c0 to %c16 step %c1 {
    %shifted = arith.addi %j, %k : index
    %e = arith.index_castui %shifted : index to i64
    %word = arith.andi %e, %three {nn.dropout_word} : i64
    memref.store %word, %out[%j] : memref<16xi64>
  }
  return
}

// -----

// Each copy loads the seed again. The loop never writes the seed's buffer,
// so one load moves before the loop and the copies share one block's
// rounds; a load of a buffer the loop writes stays in it, once per copy.
// CHECK-LABEL: func.func @seed_loaded_in_the_loop
// CHECK-SAME:    (%[[OUT:.*]]: memref<8xi64>, %[[SEED:.*]]: memref<i64>, %[[COUNT:.*]]: memref<i64>)
// CHECK:         %[[KEY:.*]] = memref.load %[[SEED]][] : memref<i64>
// CHECK-NEXT:    scf.for
// CHECK-NOT:       memref.load %[[SEED]]
// CHECK:           %[[R:.*]] = arith.muli %{{.*}}, %[[KEY]] : i64
// CHECK-NOT:       arith.muli
// CHECK-COUNT-4:   memref.load %[[COUNT]][] : memref<i64>
// CHECK:         return
func.func @seed_loaded_in_the_loop(%out: memref<8xi64>, %seed: memref<i64>, %count: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  scf.for %j = %c0 to %c8 step %c1 {
    %key = memref.load %seed[] : memref<i64>
    %e = arith.index_castui %j : index to i64
    %block = arith.shrui %e, %two {nn.dropout_block} : i64
    %word = arith.andi %e, %three {nn.dropout_word} : i64
    %rounds = arith.muli %block, %key : i64
    %draw = arith.addi %rounds, %word : i64
    memref.store %draw, %out[%j] : memref<8xi64>
    %n = memref.load %count[] : memref<i64>
    %next = arith.addi %n, %draw : i64
    memref.store %next, %count[] : memref<i64>
  }
  return
}
