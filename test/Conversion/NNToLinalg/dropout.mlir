// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg -canonicalize | FileCheck %s

// -convert-nn-to-linalg, nn.dropout with a seed: one elementwise pass whose
// keep bit is word e % 4 of Philox4x32-10 of (seed; e / 4, stream) for the
// element index e, ten rounds of two 32x32->64 products (19 remain once the
// product of constants folds), the word chosen by its index's low bit, then
// its next bit, kept when (word >> 8) >= ceil(float(rate) * 2^24) (1677722
// for 0.1), kept values scaled by 1 / (1 - rate). Rows of 4 start a block:
// the block is the row's (row · 4 / 4) plus j >> 2 and the word j & 3, for
// j the last index, both marked for nn-share-dropout-blocks.
// CHECK-LABEL: func.func @seeded
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32>, %[[SEED:.*]]: tensor<i64>)
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[SEED]] : tensor<2x4xf32>, tensor<i64>)
// CHECK:         ^bb0(%[[V:.*]]: f32, %[[K:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.index_castui %[[I]] : index to i64
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[J64:.*]] = arith.index_castui %[[J]] : index to i64
// CHECK-NEXT:      %[[INROW:.*]] = arith.shrui %[[J64]], %c2_i64 {nn.dropout_block} : i64
// CHECK-NEXT:      %[[WORD64:.*]] = arith.andi %[[J64]], %c3_i64 {nn.dropout_word} : i64
// CHECK-NEXT:      %[[BLOCK:.*]] = arith.addi %[[ROW]], %[[INROW]] : i64
// CHECK-NEXT:      %[[WHICH:.*]] = arith.trunci %[[WORD64]] : i64 to i32
// CHECK-NEXT:      arith.shrui %[[BLOCK]], %c32_i64 : i64
// CHECK-NEXT:      arith.trunci %[[BLOCK]] : i64 to i32
// CHECK-COUNT-19:  arith.mului_extended
// CHECK-NOT:       arith.mului_extended
// CHECK:           %[[LOWBIT:.*]] = arith.andi %[[WHICH]], %c1_i32 : i32
// CHECK-NEXT:      %[[ODD:.*]] = arith.cmpi ne, %[[LOWBIT]], %c0_i32 : i32
// CHECK-NEXT:      %[[LOW:.*]] = arith.select %[[ODD]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      %[[HIGH:.*]] = arith.select %[[ODD]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      %[[HIGHBIT:.*]] = arith.andi %[[WHICH]], %c2_i32 : i32
// CHECK-NEXT:      %[[SECOND:.*]] = arith.cmpi ne, %[[HIGHBIT]], %c0_i32 : i32
// CHECK-NEXT:      %[[WORD:.*]] = arith.select %[[SECOND]], %[[HIGH]], %[[LOW]] : i32
// CHECK:           %[[DRAW:.*]] = arith.shrui %[[WORD]], %c8_i32 : i32
// CHECK:           %[[KEEP:.*]] = arith.cmpi uge, %[[DRAW]], %c1677722_i32 : i32
// CHECK:           %[[SCALED:.*]] = arith.mulf %[[V]], %cst{{.*}} : f32
// CHECK:           %[[R:.*]] = arith.select %[[KEEP]], %[[SCALED]], %cst{{.*}} : f32
// CHECK:           linalg.yield %[[R]] : f32
// CHECK:         return %[[OUT]]
func.func @seeded(%a: tensor<2x4xf32>, %seed: tensor<i64>) -> tensor<2x4xf32> {
  %0 = nn.dropout %a seed %seed {rate = 0.1 : f64, stream = 3 : i64} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A zero rate draws nothing, even with a seed.
// CHECK-LABEL: func.func @zero_rate
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32>, %{{.*}}: tensor<i64>)
// CHECK-NEXT:    return %[[X]]
func.func @zero_rate(%a: tensor<2x4xf32>, %seed: tensor<i64>) -> tensor<2x4xf32> {
  %0 = nn.dropout %a seed %seed {rate = 0.0 : f64, stream = 1 : i64} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Rows of 5 do not start blocks: the element's whole index e gives the
// block e >> 2 and the word e & 3, unmarked.
// CHECK-LABEL: func.func @rows_across_blocks
// CHECK:         ^bb0(
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[I]], %c5 : index
// CHECK-NEXT:      %[[E:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT:      %[[E64:.*]] = arith.index_castui %[[E]] : index to i64
// CHECK-NEXT:      %[[BLOCK:.*]] = arith.shrui %[[E64]], %c2_i64 : i64
// CHECK-NEXT:      %[[WHICH:.*]] = arith.trunci %[[E64]] : i64 to i32
// CHECK-NOT:       nn.dropout_block
// CHECK-NOT:       nn.dropout_word
// CHECK:           arith.andi %[[WHICH]], %c1_i32 : i32
// CHECK:           linalg.yield
func.func @rows_across_blocks(%a: tensor<3x5xf32>, %seed: tensor<i64>) -> tensor<3x5xf32> {
  %0 = nn.dropout %a seed %seed {rate = 0.5 : f64, stream = 2 : i64} : tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
