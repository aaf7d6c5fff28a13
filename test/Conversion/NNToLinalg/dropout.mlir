// RUN: transfuse-opt %s -split-input-file -convert-nn-to-linalg -canonicalize | FileCheck %s

// -convert-nn-to-linalg, nn.dropout with a seed: one elementwise pass whose
// keep bit is Philox4x32-10 of (seed; element index, stream), ten rounds of
// two 32x32->64 products (17 remain once products of constants fold and
// those the first output word does not need are dropped), kept when (word >> 8) >= ceil(float(rate) * 2^24)
// (1677722 for 0.1), kept values scaled by 1 / (1 - rate).
// CHECK-LABEL: func.func @seeded
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32>, %[[SEED:.*]]: tensor<i64>)
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[SEED]] : tensor<2x4xf32>, tensor<i64>)
// CHECK:         ^bb0(%[[V:.*]]: f32, %[[K:.*]]: i64, %{{.*}}: f32):
// CHECK-DAG:       %[[I:.*]] = linalg.index 0 : index
// CHECK-DAG:       %[[J:.*]] = linalg.index 1 : index
// CHECK-COUNT-17:  arith.mului_extended
// CHECK-NOT:       arith.mului_extended
// CHECK:           %[[DRAW:.*]] = arith.shrui %{{.*}}, %c8_i32 : i32
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
