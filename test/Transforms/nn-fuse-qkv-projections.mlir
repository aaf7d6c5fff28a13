// RUN: transfuse-opt %s -split-input-file -nn-fuse-qkv-projections | FileCheck %s

// -nn-fuse-qkv-projections: the Linear projections x Wᵀ (+ b) of parameters
// that feed one nn.attention through its head split (reshape to
// [b, s, h, d], transpose [0, 2, 1, 3]) and read the same input become one
// matmul of the concatenated weights, sliced back into q, k and v.

//===----------------------------------------------------------------------===//
// Fused
//===----------------------------------------------------------------------===//

nn.parameter @"self_attn.w_q.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"self_attn.w_q.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"self_attn.w_k.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"self_attn.w_k.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"self_attn.w_v.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"self_attn.w_v.bias" : tensor<16xf32> init #nn.init<zeros>

// No parameter is added: the concatenation is a view of the existing ones.
// CHECK:         nn.parameter @self_attn.w_q.weight : tensor<16x16xf32>
// CHECK-NEXT:    nn.parameter @self_attn.w_q.bias : tensor<16xf32>
// CHECK-NEXT:    nn.parameter @self_attn.w_k.weight : tensor<16x16xf32>
// CHECK-NEXT:    nn.parameter @self_attn.w_k.bias : tensor<16xf32>
// CHECK-NEXT:    nn.parameter @self_attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    nn.parameter @self_attn.w_v.bias : tensor<16xf32>
// CHECK-NOT:     nn.parameter

// Self-attention: q, k and v all read x. One product with the three weights
// stacked [q; k; v] along the output axis and the biases likewise, then a
// slice per projection. The loads keep the parameters' own names, and the
// three original products go.
// CHECK-LABEL: func.func @self_attention
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>)
// CHECK-NEXT:    %[[WQ:.*]] = nn.param_load @self_attn.w_q.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[BQ:.*]] = nn.param_load @self_attn.w_q.bias : tensor<16xf32>
// CHECK-NEXT:    %[[WK:.*]] = nn.param_load @self_attn.w_k.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[BK:.*]] = nn.param_load @self_attn.w_k.bias : tensor<16xf32>
// CHECK-NEXT:    %[[WV:.*]] = nn.param_load @self_attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[BV:.*]] = nn.param_load @self_attn.w_v.bias : tensor<16xf32>
// CHECK-NEXT:    %[[W:.*]] = nn.concat %[[WQ]], %[[WK]], %[[WV]] {axis = 0 : i64} : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<48x16xf32>
// CHECK-NEXT:    %[[WT:.*]] = nn.transpose %[[W]] [1, 0] : tensor<48x16xf32> -> tensor<16x48xf32>
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[X]], %[[WT]] : (tensor<2x5x16xf32>, tensor<16x48xf32>) -> tensor<2x5x48xf32>
// CHECK-NEXT:    %[[B:.*]] = nn.concat %[[BQ]], %[[BK]], %[[BV]] {axis = 0 : i64} : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<48xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[P]], %[[B]] : (tensor<2x5x48xf32>, tensor<48xf32>) -> tensor<2x5x48xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.slice %[[Y]] [0, 0, 0] [2, 5, 16] : tensor<2x5x48xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.slice %[[Y]] [0, 0, 16] [2, 5, 16] : tensor<2x5x48xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.slice %[[Y]] [0, 0, 32] [2, 5, 16] : tensor<2x5x48xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[QR:.*]] = nn.reshape %[[Q]] [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
// CHECK-NEXT:    %[[QH:.*]] = nn.transpose %[[QR]] [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
// CHECK-NEXT:    %[[KR:.*]] = nn.reshape %[[K]] [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
// CHECK-NEXT:    %[[KH:.*]] = nn.transpose %[[KR]] [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
// CHECK-NEXT:    %[[VR:.*]] = nn.reshape %[[V]] [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
// CHECK-NEXT:    %[[VH:.*]] = nn.transpose %[[VR]] [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
// CHECK-NEXT:    %[[O:.*]] = nn.attention %[[QH]], %[[KH]], %[[VH]] {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
// CHECK-NEXT:    return %[[O]] : tensor<2x2x5x8xf32>
func.func @self_attention(%x: tensor<2x5x16xf32>) -> tensor<2x2x5x8xf32> {
  %wq = nn.param_load @"self_attn.w_q.weight" : tensor<16x16xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pq = nn.matmul %x, %wqt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bq = nn.param_load @"self_attn.w_q.bias" : tensor<16xf32>
  %q = nn.add %pq, %bq : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wk = nn.param_load @"self_attn.w_k.weight" : tensor<16x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pk = nn.matmul %x, %wkt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bk = nn.param_load @"self_attn.w_k.bias" : tensor<16xf32>
  %k = nn.add %pk, %bk : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wv = nn.param_load @"self_attn.w_v.weight" : tensor<16x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pv = nn.matmul %x, %wvt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bv = nn.param_load @"self_attn.w_v.bias" : tensor<16xf32>
  %v = nn.add %pv, %bv : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %kr = nn.reshape %k [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %vr = nn.reshape %v [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

nn.parameter @"cross_attn.w_q.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"cross_attn.w_q.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"cross_attn.w_k.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"cross_attn.w_k.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"cross_attn.w_v.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"cross_attn.w_v.bias" : tensor<16xf32> init #nn.init<zeros>

// Cross-attention: k and v read the memory and become one product of
// [k; v]; q reads x and keeps its own projection.
// CHECK-LABEL: func.func @cross_attention
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[MEM:.*]]: tensor<2x7x16xf32>)
// CHECK-NEXT:    %[[WQ:.*]] = nn.param_load @cross_attn.w_q.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WQT:.*]] = nn.transpose %[[WQ]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PQ:.*]] = nn.matmul %[[X]], %[[WQT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BQ:.*]] = nn.param_load @cross_attn.w_q.bias : tensor<16xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.add %[[PQ]], %[[BQ]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WK:.*]] = nn.param_load @cross_attn.w_k.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[BK:.*]] = nn.param_load @cross_attn.w_k.bias : tensor<16xf32>
// CHECK-NEXT:    %[[WV:.*]] = nn.param_load @cross_attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[BV:.*]] = nn.param_load @cross_attn.w_v.bias : tensor<16xf32>
// CHECK-NEXT:    %[[W:.*]] = nn.concat %[[WK]], %[[WV]] {axis = 0 : i64} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT:    %[[WT:.*]] = nn.transpose %[[W]] [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[MEM]], %[[WT]] : (tensor<2x7x16xf32>, tensor<16x32xf32>) -> tensor<2x7x32xf32>
// CHECK-NEXT:    %[[B:.*]] = nn.concat %[[BK]], %[[BV]] {axis = 0 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[P]], %[[B]] : (tensor<2x7x32xf32>, tensor<32xf32>) -> tensor<2x7x32xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.slice %[[Y]] [0, 0, 0] [2, 7, 16] : tensor<2x7x32xf32> -> tensor<2x7x16xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.slice %[[Y]] [0, 0, 16] [2, 7, 16] : tensor<2x7x32xf32> -> tensor<2x7x16xf32>
// CHECK-NEXT:    %[[QR:.*]] = nn.reshape %[[Q]] [2, 5, 2, 8]
// CHECK-NEXT:    %[[QH:.*]] = nn.transpose %[[QR]] [0, 2, 1, 3]
// CHECK-NEXT:    %[[KR:.*]] = nn.reshape %[[K]] [2, 7, 2, 8]
// CHECK-NEXT:    %[[KH:.*]] = nn.transpose %[[KR]] [0, 2, 1, 3]
// CHECK-NEXT:    %[[VR:.*]] = nn.reshape %[[V]] [2, 7, 2, 8]
// CHECK-NEXT:    %[[VH:.*]] = nn.transpose %[[VR]] [0, 2, 1, 3]
// CHECK-NEXT:    %[[O:.*]] = nn.attention %[[QH]], %[[KH]], %[[VH]] {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x8xf32>) -> tensor<2x2x5x8xf32>
// CHECK-NEXT:    return %[[O]]
func.func @cross_attention(%x: tensor<2x5x16xf32>, %mem: tensor<2x7x16xf32>) -> tensor<2x2x5x8xf32> {
  %wq = nn.param_load @"cross_attn.w_q.weight" : tensor<16x16xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pq = nn.matmul %x, %wqt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bq = nn.param_load @"cross_attn.w_q.bias" : tensor<16xf32>
  %q = nn.add %pq, %bq : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wk = nn.param_load @"cross_attn.w_k.weight" : tensor<16x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pk = nn.matmul %mem, %wkt : (tensor<2x7x16xf32>, tensor<16x16xf32>) -> tensor<2x7x16xf32>
  %bk = nn.param_load @"cross_attn.w_k.bias" : tensor<16xf32>
  %k = nn.add %pk, %bk : (tensor<2x7x16xf32>, tensor<16xf32>) -> tensor<2x7x16xf32>
  %wv = nn.param_load @"cross_attn.w_v.weight" : tensor<16x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pv = nn.matmul %mem, %wvt : (tensor<2x7x16xf32>, tensor<16x16xf32>) -> tensor<2x7x16xf32>
  %bv = nn.param_load @"cross_attn.w_v.bias" : tensor<16xf32>
  %v = nn.add %pv, %bv : (tensor<2x7x16xf32>, tensor<16xf32>) -> tensor<2x7x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %kr = nn.reshape %k [2, 7, 2, 8] : tensor<2x7x16xf32> -> tensor<2x7x2x8xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x7x2x8xf32> -> tensor<2x2x7x8xf32>
  %vr = nn.reshape %v [2, 7, 2, 8] : tensor<2x7x16xf32> -> tensor<2x7x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x7x2x8xf32> -> tensor<2x2x7x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

nn.parameter @"attn.w_q.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_k.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_v.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>

// Projections without bias: no bias concatenation and no add.
// CHECK-LABEL: func.func @no_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>)
// CHECK-NEXT:    %[[WQ:.*]] = nn.param_load @attn.w_q.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WK:.*]] = nn.param_load @attn.w_k.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WV:.*]] = nn.param_load @attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[W:.*]] = nn.concat %[[WQ]], %[[WK]], %[[WV]] {axis = 0 : i64} : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<48x16xf32>
// CHECK-NEXT:    %[[WT:.*]] = nn.transpose %[[W]] [1, 0] : tensor<48x16xf32> -> tensor<16x48xf32>
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[X]], %[[WT]] : (tensor<2x5x16xf32>, tensor<16x48xf32>) -> tensor<2x5x48xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.slice %[[P]] [0, 0, 0] [2, 5, 16] : tensor<2x5x48xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.slice %[[P]] [0, 0, 16] [2, 5, 16] : tensor<2x5x48xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.slice %[[P]] [0, 0, 32] [2, 5, 16] : tensor<2x5x48xf32> -> tensor<2x5x16xf32>
// CHECK-NOT:     nn.concat
// CHECK-NOT:     nn.add
// CHECK-NOT:     nn.matmul
// CHECK:         nn.attention
func.func @no_bias(%x: tensor<2x5x16xf32>) -> tensor<2x2x5x8xf32> {
  %wq = nn.param_load @"attn.w_q.weight" : tensor<16x16xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %q = nn.matmul %x, %wqt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %wk = nn.param_load @"attn.w_k.weight" : tensor<16x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %k = nn.matmul %x, %wkt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %wv = nn.param_load @"attn.w_v.weight" : tensor<16x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %v = nn.matmul %x, %wvt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %kr = nn.reshape %k [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %vr = nn.reshape %v [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

nn.parameter @"attn.w_q.weight" : tensor<8x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_q.bias" : tensor<8xf32> init #nn.init<zeros>
nn.parameter @"attn.w_k.weight" : tensor<8x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_k.bias" : tensor<8xf32> init #nn.init<zeros>
nn.parameter @"attn.w_v.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_v.bias" : tensor<16xf32> init #nn.init<zeros>

// Projections of different widths: q and k are 8 wide (2 heads of 4), v is
// 16 wide (2 heads of 8). The slices start at 0, 8 and 16.
// CHECK-LABEL: func.func @value_width
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>)
// CHECK-NEXT:    %[[WQ:.*]] = nn.param_load @attn.w_q.weight : tensor<8x16xf32>
// CHECK-NEXT:    %[[BQ:.*]] = nn.param_load @attn.w_q.bias : tensor<8xf32>
// CHECK-NEXT:    %[[WK:.*]] = nn.param_load @attn.w_k.weight : tensor<8x16xf32>
// CHECK-NEXT:    %[[BK:.*]] = nn.param_load @attn.w_k.bias : tensor<8xf32>
// CHECK-NEXT:    %[[WV:.*]] = nn.param_load @attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[BV:.*]] = nn.param_load @attn.w_v.bias : tensor<16xf32>
// CHECK-NEXT:    %[[W:.*]] = nn.concat %[[WQ]], %[[WK]], %[[WV]] {axis = 0 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT:    %[[WT:.*]] = nn.transpose %[[W]] [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[X]], %[[WT]] : (tensor<2x5x16xf32>, tensor<16x32xf32>) -> tensor<2x5x32xf32>
// CHECK-NEXT:    %[[B:.*]] = nn.concat %[[BQ]], %[[BK]], %[[BV]] {axis = 0 : i64} : (tensor<8xf32>, tensor<8xf32>, tensor<16xf32>) -> tensor<32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[P]], %[[B]] : (tensor<2x5x32xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.slice %[[Y]] [0, 0, 0] [2, 5, 8] : tensor<2x5x32xf32> -> tensor<2x5x8xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.slice %[[Y]] [0, 0, 8] [2, 5, 8] : tensor<2x5x32xf32> -> tensor<2x5x8xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.slice %[[Y]] [0, 0, 16] [2, 5, 16] : tensor<2x5x32xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    nn.reshape %[[Q]] [2, 5, 2, 4]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.reshape %[[K]] [2, 5, 2, 4]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.reshape %[[V]] [2, 5, 2, 8]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.attention {{.*}} : (tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
func.func @value_width(%x: tensor<2x5x16xf32>) -> tensor<2x2x5x8xf32> {
  %wq = nn.param_load @"attn.w_q.weight" : tensor<8x16xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %pq = nn.matmul %x, %wqt : (tensor<2x5x16xf32>, tensor<16x8xf32>) -> tensor<2x5x8xf32>
  %bq = nn.param_load @"attn.w_q.bias" : tensor<8xf32>
  %q = nn.add %pq, %bq : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %wk = nn.param_load @"attn.w_k.weight" : tensor<8x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %pk = nn.matmul %x, %wkt : (tensor<2x5x16xf32>, tensor<16x8xf32>) -> tensor<2x5x8xf32>
  %bk = nn.param_load @"attn.w_k.bias" : tensor<8xf32>
  %k = nn.add %pk, %bk : (tensor<2x5x8xf32>, tensor<8xf32>) -> tensor<2x5x8xf32>
  %wv = nn.param_load @"attn.w_v.weight" : tensor<16x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pv = nn.matmul %x, %wvt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bv = nn.param_load @"attn.w_v.bias" : tensor<16xf32>
  %v = nn.add %pv, %bv : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %kr = nn.reshape %k [2, 5, 2, 4] : tensor<2x5x8xf32> -> tensor<2x5x2x4xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x5x2x4xf32> -> tensor<2x2x5x4xf32>
  %vr = nn.reshape %v [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 5.000000e-01 : f64} : (tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Left alone
//===----------------------------------------------------------------------===//

nn.parameter @"attn.w_q.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_q.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"attn.w_k.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_k.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"attn.w_v.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_v.bias" : tensor<16xf32> init #nn.init<zeros>

// q, k and v each read their own input: nothing is shared, nothing fused.
// CHECK-LABEL: func.func @different_inputs
// CHECK-SAME:    (%[[XQ:.*]]: tensor<2x5x16xf32>, %[[XK:.*]]: tensor<2x5x16xf32>, %[[XV:.*]]: tensor<2x5x16xf32>)
// CHECK-NEXT:    %[[WQ:.*]] = nn.param_load @attn.w_q.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WQT:.*]] = nn.transpose %[[WQ]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PQ:.*]] = nn.matmul %[[XQ]], %[[WQT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BQ:.*]] = nn.param_load @attn.w_q.bias : tensor<16xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.add %[[PQ]], %[[BQ]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WK:.*]] = nn.param_load @attn.w_k.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WKT:.*]] = nn.transpose %[[WK]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PK:.*]] = nn.matmul %[[XK]], %[[WKT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BK:.*]] = nn.param_load @attn.w_k.bias : tensor<16xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.add %[[PK]], %[[BK]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WV:.*]] = nn.param_load @attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WVT:.*]] = nn.transpose %[[WV]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PV:.*]] = nn.matmul %[[XV]], %[[WVT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BV:.*]] = nn.param_load @attn.w_v.bias : tensor<16xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.add %[[PV]], %[[BV]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NOT:     nn.concat
// CHECK-NOT:     nn.slice
// CHECK:         nn.reshape %[[Q]] [2, 5, 2, 8]
// CHECK:         nn.reshape %[[K]] [2, 5, 2, 8]
// CHECK:         nn.reshape %[[V]] [2, 5, 2, 8]
// CHECK:         nn.attention
func.func @different_inputs(%xq: tensor<2x5x16xf32>, %xk: tensor<2x5x16xf32>, %xv: tensor<2x5x16xf32>) -> tensor<2x2x5x8xf32> {
  %wq = nn.param_load @"attn.w_q.weight" : tensor<16x16xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pq = nn.matmul %xq, %wqt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bq = nn.param_load @"attn.w_q.bias" : tensor<16xf32>
  %q = nn.add %pq, %bq : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wk = nn.param_load @"attn.w_k.weight" : tensor<16x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pk = nn.matmul %xk, %wkt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bk = nn.param_load @"attn.w_k.bias" : tensor<16xf32>
  %k = nn.add %pk, %bk : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wv = nn.param_load @"attn.w_v.weight" : tensor<16x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pv = nn.matmul %xv, %wvt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bv = nn.param_load @"attn.w_v.bias" : tensor<16xf32>
  %v = nn.add %pv, %bv : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %kr = nn.reshape %k [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %vr = nn.reshape %v [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

nn.parameter @"attn.w_q.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_q.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"attn.w_k.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_k.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"attn.w_v.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>

// q and k have a bias, v has none: the group is left alone.
// CHECK-LABEL: func.func @mixed_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>)
// CHECK-NEXT:    %[[WQ:.*]] = nn.param_load @attn.w_q.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WQT:.*]] = nn.transpose %[[WQ]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PQ:.*]] = nn.matmul %[[X]], %[[WQT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BQ:.*]] = nn.param_load @attn.w_q.bias : tensor<16xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.add %[[PQ]], %[[BQ]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WK:.*]] = nn.param_load @attn.w_k.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WKT:.*]] = nn.transpose %[[WK]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PK:.*]] = nn.matmul %[[X]], %[[WKT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BK:.*]] = nn.param_load @attn.w_k.bias : tensor<16xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.add %[[PK]], %[[BK]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WV:.*]] = nn.param_load @attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WVT:.*]] = nn.transpose %[[WV]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.matmul %[[X]], %[[WVT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NOT:     nn.concat
// CHECK-NOT:     nn.slice
// CHECK:         nn.reshape %[[Q]] [2, 5, 2, 8]
// CHECK:         nn.reshape %[[K]] [2, 5, 2, 8]
// CHECK:         nn.reshape %[[V]] [2, 5, 2, 8]
// CHECK:         nn.attention
func.func @mixed_bias(%x: tensor<2x5x16xf32>) -> tensor<2x2x5x8xf32> {
  %wq = nn.param_load @"attn.w_q.weight" : tensor<16x16xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pq = nn.matmul %x, %wqt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bq = nn.param_load @"attn.w_q.bias" : tensor<16xf32>
  %q = nn.add %pq, %bq : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wk = nn.param_load @"attn.w_k.weight" : tensor<16x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pk = nn.matmul %x, %wkt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bk = nn.param_load @"attn.w_k.bias" : tensor<16xf32>
  %k = nn.add %pk, %bk : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wv = nn.param_load @"attn.w_v.weight" : tensor<16x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %v = nn.matmul %x, %wvt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %kr = nn.reshape %k [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %vr = nn.reshape %v [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

// The weights are function arguments, not parameters: not fused.
// CHECK-LABEL: func.func @weights_not_parameters
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[WQ:.*]]: tensor<16x16xf32>, %[[WK:.*]]: tensor<16x16xf32>, %[[WV:.*]]: tensor<16x16xf32>)
// CHECK-NEXT:    %[[WQT:.*]] = nn.transpose %[[WQ]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.matmul %[[X]], %[[WQT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WKT:.*]] = nn.transpose %[[WK]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.matmul %[[X]], %[[WKT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WVT:.*]] = nn.transpose %[[WV]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.matmul %[[X]], %[[WVT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NOT:     nn.concat
// CHECK-NOT:     nn.slice
// CHECK:         nn.reshape %[[Q]] [2, 5, 2, 8]
// CHECK:         nn.reshape %[[K]] [2, 5, 2, 8]
// CHECK:         nn.reshape %[[V]] [2, 5, 2, 8]
// CHECK:         nn.attention
func.func @weights_not_parameters(%x: tensor<2x5x16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>) -> tensor<2x2x5x8xf32> {
  %wqt = nn.transpose %wq [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %q = nn.matmul %x, %wqt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %k = nn.matmul %x, %wkt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %v = nn.matmul %x, %wvt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %kr = nn.reshape %k [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %vr = nn.reshape %v [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

nn.parameter @"attn.w_k.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_v.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>

// Only q's weight is an argument: k and v, parameters, still share one
// product; q keeps its own.
// CHECK-LABEL: func.func @query_weight_argument
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>, %[[WQ:.*]]: tensor<16x16xf32>)
// CHECK-NEXT:    %[[WQT:.*]] = nn.transpose %[[WQ]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.matmul %[[X]], %[[WQT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WK:.*]] = nn.param_load @attn.w_k.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WV:.*]] = nn.param_load @attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[W:.*]] = nn.concat %[[WK]], %[[WV]] {axis = 0 : i64} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT:    %[[WT:.*]] = nn.transpose %[[W]] [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[X]], %[[WT]] : (tensor<2x5x16xf32>, tensor<16x32xf32>) -> tensor<2x5x32xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.slice %[[P]] [0, 0, 0] [2, 5, 16] : tensor<2x5x32xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.slice %[[P]] [0, 0, 16] [2, 5, 16] : tensor<2x5x32xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    nn.reshape %[[Q]] [2, 5, 2, 8]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.reshape %[[K]] [2, 5, 2, 8]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.reshape %[[V]] [2, 5, 2, 8]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.attention
func.func @query_weight_argument(%x: tensor<2x5x16xf32>, %wq: tensor<16x16xf32>) -> tensor<2x2x5x8xf32> {
  %wqt = nn.transpose %wq [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %q = nn.matmul %x, %wqt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %wk = nn.param_load @"attn.w_k.weight" : tensor<16x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %k = nn.matmul %x, %wkt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %wv = nn.param_load @"attn.w_v.weight" : tensor<16x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %v = nn.matmul %x, %wvt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %kr = nn.reshape %k [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %vr = nn.reshape %v [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

nn.parameter @"attn.w_q.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_q.bias" : tensor<1xf32> init #nn.init<zeros>
nn.parameter @"attn.w_k.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_k.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"attn.w_v.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"attn.w_v.bias" : tensor<16xf32> init #nn.init<zeros>

// q's bias is a [1] that broadcasts, not one value per feature: q keeps its
// projection (concatenating it with the others' [16] biases would not line
// up with the product); k and v are fused.
// CHECK-LABEL: func.func @broadcast_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>)
// CHECK-NEXT:    %[[WQ:.*]] = nn.param_load @attn.w_q.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WQT:.*]] = nn.transpose %[[WQ]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PQ:.*]] = nn.matmul %[[X]], %[[WQT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BQ:.*]] = nn.param_load @attn.w_q.bias : tensor<1xf32>
// CHECK-NEXT:    %[[Q:.*]] = nn.add %[[PQ]], %[[BQ]] : (tensor<2x5x16xf32>, tensor<1xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WK:.*]] = nn.param_load @attn.w_k.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[BK:.*]] = nn.param_load @attn.w_k.bias : tensor<16xf32>
// CHECK-NEXT:    %[[WV:.*]] = nn.param_load @attn.w_v.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[BV:.*]] = nn.param_load @attn.w_v.bias : tensor<16xf32>
// CHECK-NEXT:    %[[W:.*]] = nn.concat %[[WK]], %[[WV]] {axis = 0 : i64} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
// CHECK-NEXT:    %[[WT:.*]] = nn.transpose %[[W]] [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
// CHECK-NEXT:    %[[P:.*]] = nn.matmul %[[X]], %[[WT]] : (tensor<2x5x16xf32>, tensor<16x32xf32>) -> tensor<2x5x32xf32>
// CHECK-NEXT:    %[[B:.*]] = nn.concat %[[BK]], %[[BV]] {axis = 0 : i64} : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
// CHECK-NEXT:    %[[Y:.*]] = nn.add %[[P]], %[[B]] : (tensor<2x5x32xf32>, tensor<32xf32>) -> tensor<2x5x32xf32>
// CHECK-NEXT:    %[[K:.*]] = nn.slice %[[Y]] [0, 0, 0] [2, 5, 16] : tensor<2x5x32xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[V:.*]] = nn.slice %[[Y]] [0, 0, 16] [2, 5, 16] : tensor<2x5x32xf32> -> tensor<2x5x16xf32>
// CHECK-NEXT:    nn.reshape %[[Q]] [2, 5, 2, 8]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.reshape %[[K]] [2, 5, 2, 8]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.reshape %[[V]] [2, 5, 2, 8]
// CHECK-NEXT:    nn.transpose
// CHECK-NEXT:    nn.attention
func.func @broadcast_bias(%x: tensor<2x5x16xf32>) -> tensor<2x2x5x8xf32> {
  %wq = nn.param_load @"attn.w_q.weight" : tensor<16x16xf32>
  %wqt = nn.transpose %wq [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pq = nn.matmul %x, %wqt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bq = nn.param_load @"attn.w_q.bias" : tensor<1xf32>
  %q = nn.add %pq, %bq : (tensor<2x5x16xf32>, tensor<1xf32>) -> tensor<2x5x16xf32>
  %wk = nn.param_load @"attn.w_k.weight" : tensor<16x16xf32>
  %wkt = nn.transpose %wk [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pk = nn.matmul %x, %wkt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bk = nn.param_load @"attn.w_k.bias" : tensor<16xf32>
  %k = nn.add %pk, %bk : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wv = nn.param_load @"attn.w_v.weight" : tensor<16x16xf32>
  %wvt = nn.transpose %wv [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pv = nn.matmul %x, %wvt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bv = nn.param_load @"attn.w_v.bias" : tensor<16xf32>
  %v = nn.add %pv, %bv : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %qr = nn.reshape %q [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %qh = nn.transpose %qr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %kr = nn.reshape %k [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %kh = nn.transpose %kr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %vr = nn.reshape %v [2, 5, 2, 8] : tensor<2x5x16xf32> -> tensor<2x5x2x8xf32>
  %vh = nn.transpose %vr [0, 2, 1, 3] : tensor<2x5x2x8xf32> -> tensor<2x2x5x8xf32>
  %o = nn.attention %qh, %kh, %vh {scale = 0.35355339059327373 : f64} : (tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>, tensor<2x2x5x8xf32>) -> tensor<2x2x5x8xf32>
  return %o : tensor<2x2x5x8xf32>
}

// -----

nn.parameter @"ffn.a.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"ffn.a.bias" : tensor<16xf32> init #nn.init<zeros>
nn.parameter @"ffn.b.weight" : tensor<16x16xf32> init #nn.init<uniform(-0.25, 0.25)>
nn.parameter @"ffn.b.bias" : tensor<16xf32> init #nn.init<zeros>

// Two Linears of the same input with no nn.attention reading them: this pass
// leaves them alone.
// CHECK-LABEL: func.func @no_attention
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x16xf32>)
// CHECK-NEXT:    %[[WA:.*]] = nn.param_load @ffn.a.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WAT:.*]] = nn.transpose %[[WA]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PA:.*]] = nn.matmul %[[X]], %[[WAT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BA:.*]] = nn.param_load @ffn.a.bias : tensor<16xf32>
// CHECK-NEXT:    %[[A:.*]] = nn.add %[[PA]], %[[BA]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[WB:.*]] = nn.param_load @ffn.b.weight : tensor<16x16xf32>
// CHECK-NEXT:    %[[WBT:.*]] = nn.transpose %[[WB]] [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT:    %[[PB:.*]] = nn.matmul %[[X]], %[[WBT]] : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    %[[BB:.*]] = nn.param_load @ffn.b.bias : tensor<16xf32>
// CHECK-NEXT:    %[[B:.*]] = nn.add %[[PB]], %[[BB]] : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
// CHECK-NEXT:    return %[[A]], %[[B]]
func.func @no_attention(%x: tensor<2x5x16xf32>) -> (tensor<2x5x16xf32>, tensor<2x5x16xf32>) {
  %wa = nn.param_load @"ffn.a.weight" : tensor<16x16xf32>
  %wat = nn.transpose %wa [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pa = nn.matmul %x, %wat : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %ba = nn.param_load @"ffn.a.bias" : tensor<16xf32>
  %a = nn.add %pa, %ba : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  %wb = nn.param_load @"ffn.b.weight" : tensor<16x16xf32>
  %wbt = nn.transpose %wb [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
  %pb = nn.matmul %x, %wbt : (tensor<2x5x16xf32>, tensor<16x16xf32>) -> tensor<2x5x16xf32>
  %bb = nn.param_load @"ffn.b.bias" : tensor<16xf32>
  %b = nn.add %pb, %bb : (tensor<2x5x16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
  return %a, %b : tensor<2x5x16xf32>, tensor<2x5x16xf32>
}
