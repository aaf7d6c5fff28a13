// RUN: transfuse-opt %s -split-input-file -verify-diagnostics -nn-kernel-ops-to-runtime-call=target=cuda | FileCheck %s

// -nn-kernel-ops-to-runtime-call: the layers the CUDA target keeps whole
// through bufferization each become one call of the CUDA runtime's kernel
// (runtime/lib/cuda/LayerNorm.cpp, Losses.cpp, Embedding.cpp):
//   tfrt_cuda_layer_norm_f32(rows, cols, input, residual | null, gamma,
//                            beta | null, epsilon, form, out)
//   tfrt_cuda_layer_norm_grad_f32(rows, cols, grad, input, gamma, epsilon,
//                                 form, grad_input, grad_gamma, grad_beta,
//                                 partials, row_chunk)
// with form the statistic's enum value, or'ed with 4 for epsilon_on_std.
//   tfrt_cuda_{cross_entropy,nll_loss}{,_grad}_f32(rows, classes, scores,
//       labels, index_bits, ignore_index, [label_smoothing,] out, scratch)
//   tfrt_cuda_embedding_grad_f32(positions, width, rows, grad, ids,
//                                index_bits, table, scratch)
// Buffers are passed by the address of their first element; rows are the
// dimensions before the normalised ones (before the classes), columns the
// rest. A strided operand is first copied into a dense buffer; the scratch
// memory a kernel needs is a fresh buffer.

// Layer norm over the last dimension of [2, 5, 16]: 10 rows of 16, with a
// residual and without one (a null pointer).
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @tfrt_cuda_layer_norm_f32(i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f32, i32, !llvm.ptr)
// CHECK-NOT:     func.func private @tfrt_cuda_layer_norm_f32
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: memref<2x5x16xf32>, %[[R:.*]]: memref<2x5x16xf32>, %[[G:.*]]: memref<16xf32>, %[[B:.*]]: memref<16xf32>, %[[O:.*]]: memref<2x5x16xf32>)
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 10 : i64
// CHECK-NEXT:    %[[COLS:.*]] = arith.constant 16 : i64
// CHECK-NEXT:    %[[XI:.*]] = memref.extract_aligned_pointer_as_index %[[X]] : memref<2x5x16xf32> -> index
// CHECK-NEXT:    %[[XI64:.*]] = arith.index_cast %[[XI]] : index to i64
// CHECK-NEXT:    %[[XP:.*]] = llvm.inttoptr %[[XI64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[RI:.*]] = memref.extract_aligned_pointer_as_index %[[R]] : memref<2x5x16xf32> -> index
// CHECK-NEXT:    %[[RI64:.*]] = arith.index_cast %[[RI]] : index to i64
// CHECK-NEXT:    %[[RP:.*]] = llvm.inttoptr %[[RI64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[GI:.*]] = memref.extract_aligned_pointer_as_index %[[G]] : memref<16xf32> -> index
// CHECK-NEXT:    %[[GI64:.*]] = arith.index_cast %[[GI]] : index to i64
// CHECK-NEXT:    %[[GP:.*]] = llvm.inttoptr %[[GI64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[B]] : memref<16xf32> -> index
// CHECK-NEXT:    %[[BI64:.*]] = arith.index_cast %[[BI]] : index to i64
// CHECK-NEXT:    %[[BP:.*]] = llvm.inttoptr %[[BI64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:    %[[FORM:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[OI:.*]] = memref.extract_aligned_pointer_as_index %[[O]] : memref<2x5x16xf32> -> index
// CHECK-NEXT:    %[[OI64:.*]] = arith.index_cast %[[OI]] : index to i64
// CHECK-NEXT:    %[[OP:.*]] = llvm.inttoptr %[[OI64]] : i64 to !llvm.ptr
// CHECK-NEXT:    call @tfrt_cuda_layer_norm_f32(%[[ROWS]], %[[COLS]], %[[XP]], %[[RP]], %[[GP]], %[[BP]], %[[EPS]], %[[FORM]], %[[OP]]) : (i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f32, i32, !llvm.ptr) -> ()
// CHECK-NEXT:    %[[ROWS2:.*]] = arith.constant 10 : i64
// CHECK-NEXT:    %[[COLS2:.*]] = arith.constant 16 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[XP2:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_cuda_layer_norm_f32(%[[ROWS2]], %[[COLS2]], %[[XP2]], %[[NULL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT:     nn.layer_norm_into
func.func @layer_norm(%x: memref<2x5x16xf32>, %r: memref<2x5x16xf32>, %g: memref<16xf32>, %b: memref<16xf32>, %o: memref<2x5x16xf32>) {
  nn.layer_norm_into %x + %r, %g, %b into %o {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (memref<2x5x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x5x16xf32>, memref<2x5x16xf32>) -> ()
  nn.layer_norm_into %x, %g, %b into %o {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (memref<2x5x16xf32>, memref<16xf32>, memref<16xf32>, memref<2x5x16xf32>) -> ()
  return
}

// -----

// Normalising from axis 1: 2 rows of 5 * 16 columns; epsilon as f32.
// CHECK-LABEL: func.func @layer_norm_two_dims
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 2 : i64
// CHECK-NEXT:    %[[COLS:.*]] = arith.constant 80 : i64
// CHECK:         %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK:         call @tfrt_cuda_layer_norm_f32(%[[ROWS]], %[[COLS]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[EPS]], %{{.*}}, %{{.*}})
func.func @layer_norm_two_dims(%x: memref<2x5x16xf32>, %g: memref<5x16xf32>, %b: memref<5x16xf32>, %o: memref<2x5x16xf32>) {
  nn.layer_norm_into %x, %g, %b into %o {axis = 1 : i64, epsilon = 1.0e-6 : f64} : (memref<2x5x16xf32>, memref<5x16xf32>, memref<5x16xf32>, memref<2x5x16xf32>) -> ()
  return
}

// -----

// The form argument: the unbiased std plus ε is 1 | 4; RMSNorm is 2, and
// without beta passes a null beta; its gradient takes the same form.
// CHECK-LABEL: func.func @layer_norm_forms
// CHECK:         %[[STD:.*]] = arith.constant 5 : i32
// CHECK:         call @tfrt_cuda_layer_norm_f32({{.*}}, %[[STD]], %{{.*}})
// CHECK:         %[[NORES:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[NOBETA:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    arith.constant 9.99999997E-7 : f32
// CHECK-NEXT:    %[[RMS:.*]] = arith.constant 2 : i32
// CHECK:         call @tfrt_cuda_layer_norm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[NORES]], %{{.*}}, %[[NOBETA]], %{{.*}}, %[[RMS]], %{{.*}})
// CHECK:         %[[RMS2:.*]] = arith.constant 2 : i32
// CHECK:         call @tfrt_cuda_layer_norm_grad_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[RMS2]],
func.func @layer_norm_forms(%x: memref<4x8xf32>, %g: memref<8xf32>, %b: memref<8xf32>, %o: memref<4x8xf32>, %dg: memref<8xf32>) {
  nn.layer_norm_into %x, %g, %b into %o {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<unbiased_variance>, epsilon_on_std} : (memref<4x8xf32>, memref<8xf32>, memref<8xf32>, memref<4x8xf32>) -> ()
  nn.layer_norm_into %x, %g into %o {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<mean_square>} : (memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>) -> ()
  nn.layer_norm_grad_into %x, %x, %g into %o, %dg, %dg {axis = 1 : i64, epsilon = 1.0e-6 : f64, statistic = #nn.norm_statistic<mean_square>} : (memref<4x8xf32>, memref<4x8xf32>, memref<8xf32>, memref<4x8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// The backward sums its columns over chunks of rows, at most 512 chunks:
// 6 rows are 6 chunks of 1 (partials 2 * 6 * 8 floats); 1025 rows are
// chunks of 3, 342 of them (partials 2 * 342 * 4).
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @tfrt_cuda_layer_norm_grad_f32(i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64)
// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-SAME:    (%[[DY:.*]]: memref<6x8xf32>, %[[X:.*]]: memref<6x8xf32>, %[[G:.*]]: memref<8xf32>, %[[DX:.*]]: memref<6x8xf32>, %[[DG:.*]]: memref<8xf32>, %[[DB:.*]]: memref<8xf32>,
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 6 : i64
// CHECK-NEXT:    %[[COLS:.*]] = arith.constant 8 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[DY]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[DYP:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[XP:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[G]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[GP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:    %[[FORM:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[DX]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[DXP:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[DG]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[DGP:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[DB]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[DBP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[PARTIALS:.*]] = memref.alloc() : memref<96xf32>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[PARTIALS]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[PP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[CHUNK:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    call @tfrt_cuda_layer_norm_grad_f32(%[[ROWS]], %[[COLS]], %[[DYP]], %[[XP]], %[[GP]], %[[EPS]], %[[FORM]], %[[DXP]], %[[DGP]], %[[DBP]], %[[PP]], %[[CHUNK]]) : (i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, f32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK-NEXT:    %[[ROWS2:.*]] = arith.constant 1025 : i64
// CHECK-NEXT:    %[[COLS2:.*]] = arith.constant 4 : i64
// CHECK:         %[[PARTIALS2:.*]] = memref.alloc() : memref<2736xf32>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[PARTIALS2]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[PP2:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[CHUNK2:.*]] = arith.constant 3 : i64
// CHECK-NEXT:    call @tfrt_cuda_layer_norm_grad_f32(%[[ROWS2]], %[[COLS2]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PP2]], %[[CHUNK2]])
func.func @layer_norm_grad(%dy: memref<6x8xf32>, %x: memref<6x8xf32>, %g: memref<8xf32>, %dx: memref<6x8xf32>, %dg: memref<8xf32>, %db: memref<8xf32>,
                           %dy2: memref<1025x4xf32>, %g2: memref<4xf32>, %dx2: memref<1025x4xf32>, %dg2: memref<4xf32>) {
  nn.layer_norm_grad_into %dy, %x, %g into %dx, %dg, %db {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<6x8xf32>, memref<6x8xf32>, memref<8xf32>, memref<6x8xf32>, memref<8xf32>, memref<8xf32>) -> ()
  nn.layer_norm_grad_into %dy2, %dy2, %g2 into %dx2, %dg2, %dg2 {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<1025x4xf32>, memref<1025x4xf32>, memref<4xf32>, memref<1025x4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// The losses: [2, 3, 10] scores are 6 rows of 10 classes. Labels are
// passed with their width (64 or 32 bits); cross entropy also takes its
// label smoothing; each gets one float of scratch per row.
// CHECK-DAG:   func.func private @tfrt_cuda_cross_entropy_f32(i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, f32, !llvm.ptr, !llvm.ptr)
// CHECK-DAG:   func.func private @tfrt_cuda_cross_entropy_grad_f32(i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, f32, !llvm.ptr, !llvm.ptr)
// CHECK-DAG:   func.func private @tfrt_cuda_nll_loss_f32(i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr)
// CHECK-DAG:   func.func private @tfrt_cuda_nll_loss_grad_f32(i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @losses
// CHECK-SAME:    (%[[L:.*]]: memref<2x3x10xf32>, %[[Y:.*]]: memref<2x3xi64>, %[[Y32:.*]]: memref<2x3xi32>, %[[LOSS:.*]]: memref<f32>, %[[DL:.*]]: memref<2x3x10xf32>)
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 6 : i64
// CHECK-NEXT:    %[[CLASSES:.*]] = arith.constant 10 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[L]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[LP:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[YP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[BITS64:.*]] = arith.constant 64 : i32
// CHECK-NEXT:    %[[IGNORE:.*]] = arith.constant -100 : i64
// CHECK-NEXT:    %[[LS:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[LOSS]] : memref<f32> -> index
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[LOSSP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[SCRATCH:.*]] = memref.alloc() : memref<6xf32>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[SCRATCH]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[SP:.*]] = llvm.inttoptr
// CHECK-NEXT:    call @tfrt_cuda_cross_entropy_f32(%[[ROWS]], %[[CLASSES]], %[[LP]], %[[YP]], %[[BITS64]], %[[IGNORE]], %[[LS]], %[[LOSSP]], %[[SP]]) : (i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, f32, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    %[[ROWS2:.*]] = arith.constant 6 : i64
// CHECK-NEXT:    %[[CLASSES2:.*]] = arith.constant 10 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[L]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[LP2:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[Y32]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[Y32P:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[BITS32:.*]] = arith.constant 32 : i32
// CHECK-NEXT:    %[[IGNORE2:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[LS2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[DL]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[DLP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[SCRATCH2:.*]] = memref.alloc() : memref<6xf32>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[SCRATCH2]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[SP2:.*]] = llvm.inttoptr
// CHECK-NEXT:    call @tfrt_cuda_cross_entropy_grad_f32(%[[ROWS2]], %[[CLASSES2]], %[[LP2]], %[[Y32P]], %[[BITS32]], %[[IGNORE2]], %[[LS2]], %[[DLP]], %[[SP2]])
// NLL: no smoothing between ignore_index and the result.
// CHECK-NEXT:    %[[ROWS3:.*]] = arith.constant 6 : i64
// CHECK-NEXT:    %[[CLASSES3:.*]] = arith.constant 10 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[L]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[LP3:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[YP3:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[BITS3:.*]] = arith.constant 64 : i32
// CHECK-NEXT:    %[[IGNORE3:.*]] = arith.constant -1 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[LOSS]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[LOSSP3:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[SCRATCH3:.*]] = memref.alloc() : memref<6xf32>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[SCRATCH3]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[SP3:.*]] = llvm.inttoptr
// CHECK-NEXT:    call @tfrt_cuda_nll_loss_f32(%[[ROWS3]], %[[CLASSES3]], %[[LP3]], %[[YP3]], %[[BITS3]], %[[IGNORE3]], %[[LOSSP3]], %[[SP3]]) : (i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK:         %[[IGNORE4:.*]] = arith.constant -1 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[DL]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[DLP4:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.alloc() : memref<6xf32>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[SP4:.*]] = llvm.inttoptr
// CHECK-NEXT:    call @tfrt_cuda_nll_loss_grad_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[IGNORE4]], %[[DLP4]], %[[SP4]]) : (i64, i64, !llvm.ptr, !llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    return
func.func @losses(%logits: memref<2x3x10xf32>, %labels: memref<2x3xi64>, %labels32: memref<2x3xi32>, %loss: memref<f32>, %dl: memref<2x3x10xf32>) {
  nn.cross_entropy_into %logits, %labels into %loss {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<f32>) -> ()
  nn.cross_entropy_grad_into %logits, %labels32 into %dl {ignore_index = 0 : i64, label_smoothing = 0.0 : f64} : (memref<2x3x10xf32>, memref<2x3xi32>, memref<2x3x10xf32>) -> ()
  nn.nll_loss_into %logits, %labels into %loss {ignore_index = -1 : i64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<f32>) -> ()
  nn.nll_loss_grad_into %logits, %labels into %dl {ignore_index = -1 : i64} : (memref<2x3x10xf32>, memref<2x3xi64>, memref<2x3x10xf32>) -> ()
  return
}

// -----

// The embedding gradient of [2, 3, 4] rows by [2, 3] i32 ids into a table
// of 50 rows: 6 positions of width 4, and 5 bytes of scratch per position
// (the next position of each id, and whether it is the first).
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @tfrt_cuda_embedding_grad_f32(i64, i64, i64, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @embedding_grad
// CHECK-SAME:    (%[[DY:.*]]: memref<2x3x4xf32>, %[[IDS:.*]]: memref<2x3xi32>, %[[T:.*]]: memref<50x4xf32>)
// CHECK-NEXT:    %[[POS:.*]] = arith.constant 6 : i64
// CHECK-NEXT:    %[[WIDTH:.*]] = arith.constant 4 : i64
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 50 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[DY]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[DYP:.*]] = llvm.inttoptr
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[IDS]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[IDSP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[BITS:.*]] = arith.constant 32 : i32
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[T]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[TP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[SCRATCH:.*]] = memref.alloc() : memref<30xi8>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[SCRATCH]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[SP:.*]] = llvm.inttoptr
// CHECK-NEXT:    call @tfrt_cuda_embedding_grad_f32(%[[POS]], %[[WIDTH]], %[[ROWS]], %[[DYP]], %[[IDSP]], %[[BITS]], %[[TP]], %[[SP]]) : (i64, i64, i64, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    return
func.func @embedding_grad(%dy: memref<2x3x4xf32>, %ids: memref<2x3xi32>, %table: memref<50x4xf32>) {
  nn.embedding_grad_into %dy, %ids into %table {num_rows = 50 : i64} : (memref<2x3x4xf32>, memref<2x3xi32>, memref<50x4xf32>) -> ()
  return
}

// -----

// Operands may be views. Columns 16..31 of [4, 32] are strided: copied
// into a dense buffer first, whose address is passed. Rows 2..3 of
// [8, 16] are dense: passed in place at their first element (offset 32
// floats, 4 bytes each). A size-1 dimension's stride does not matter.
// CHECK-LABEL: func.func @views
// CHECK-SAME:    (%[[X:.*]]: memref<4x32xf32>, %{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>, %{{.*}}: memref<4x16xf32>, %[[Y:.*]]: memref<8x16xf32>, %{{.*}}: memref<2x16xf32>, %[[U:.*]]: memref<1x16xf32, strided<[32, 1]>>, %{{.*}}: memref<1x16xf32>)
// CHECK-NEXT:    %[[S:.*]] = memref.subview %[[X]][0, 16] [4, 16] [1, 1]
// CHECK-NEXT:    arith.constant 4 : i64
// CHECK-NEXT:    arith.constant 16 : i64
// CHECK-NEXT:    %[[DENSE:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK-NEXT:    memref.copy %[[S]], %[[DENSE]] : memref<4x16xf32, strided<[32, 1], offset: 16>> to memref<4x16xf32>
// CHECK-NEXT:    %[[DI:.*]] = memref.extract_aligned_pointer_as_index %[[DENSE]] : memref<4x16xf32> -> index
// CHECK-NEXT:    %[[DI64:.*]] = arith.index_cast %[[DI]] : index to i64
// CHECK-NEXT:    %[[DP:.*]] = llvm.inttoptr %[[DI64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_cuda_layer_norm_f32(%{{.*}}, %{{.*}}, %[[DP]], %[[NULL]],
// CHECK-NEXT:    %[[R:.*]] = memref.subview %[[Y]][2, 0] [2, 16] [1, 1]
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 16 : i64
// CHECK-NEXT:    %[[RI:.*]] = memref.extract_aligned_pointer_as_index %[[R]] : memref<2x16xf32, strided<[16, 1], offset: 32>> -> index
// CHECK-NEXT:    %{{.*}}, %[[OFFSET:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[R]]
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[BYTES:.*]] = arith.muli %[[OFFSET]], %[[FOUR]] : index
// CHECK-NEXT:    %[[RA:.*]] = arith.addi %[[RI]], %[[BYTES]] : index
// CHECK-NEXT:    %[[RA64:.*]] = arith.index_cast %[[RA]] : index to i64
// CHECK-NEXT:    %[[RP:.*]] = llvm.inttoptr %[[RA64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[NULL2:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @tfrt_cuda_layer_norm_f32(%{{.*}}, %{{.*}}, %[[RP]], %[[NULL2]],
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 16 : i64
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[U]]
// CHECK-NOT:     memref.copy
// CHECK:         call @tfrt_cuda_layer_norm_f32(
func.func @views(%x: memref<4x32xf32>, %g: memref<16xf32>, %b: memref<16xf32>, %o: memref<4x16xf32>,
                 %y: memref<8x16xf32>, %o2: memref<2x16xf32>,
                 %u: memref<1x16xf32, strided<[32, 1]>>, %o3: memref<1x16xf32>) {
  %s = memref.subview %x[0, 16] [4, 16] [1, 1] : memref<4x32xf32> to memref<4x16xf32, strided<[32, 1], offset: 16>>
  nn.layer_norm_into %s, %g, %b into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<4x16xf32, strided<[32, 1], offset: 16>>, memref<16xf32>, memref<16xf32>, memref<4x16xf32>) -> ()
  %r = memref.subview %y[2, 0] [2, 16] [1, 1] : memref<8x16xf32> to memref<2x16xf32, strided<[16, 1], offset: 32>>
  nn.layer_norm_into %r, %g, %b into %o2 {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32, strided<[16, 1], offset: 32>>, memref<16xf32>, memref<16xf32>, memref<2x16xf32>) -> ()
  nn.layer_norm_into %u, %g, %b into %o3 {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<1x16xf32, strided<[32, 1]>>, memref<16xf32>, memref<16xf32>, memref<1x16xf32>) -> ()
  return
}

// -----

// Strided labels (one column of [3, 2]) are copied too, as i64.
// CHECK-LABEL: func.func @strided_labels
// CHECK:         %[[COL:.*]] = memref.subview
// CHECK:         %[[DENSE:.*]] = memref.alloc() : memref<3xi64>
// CHECK-NEXT:    memref.copy %[[COL]], %[[DENSE]] : memref<3xi64, strided<[2], offset: 1>> to memref<3xi64>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[DENSE]]
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    %[[YP:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[BITS:.*]] = arith.constant 64 : i32
// CHECK:         call @tfrt_cuda_nll_loss_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[YP]], %[[BITS]],
func.func @strided_labels(%logits: memref<3x10xf32>, %pairs: memref<3x2xi64>, %loss: memref<f32>) {
  %col = memref.subview %pairs[0, 1] [3, 1] [1, 1] : memref<3x2xi64> to memref<3xi64, strided<[2], offset: 1>>
  nn.nll_loss_into %logits, %col into %loss {ignore_index = -100 : i64} : (memref<3x10xf32>, memref<3xi64, strided<[2], offset: 1>>, memref<f32>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// -----

func.func @f64(%x: memref<2x16xf64>, %g: memref<16xf64>, %o: memref<2x16xf64>) {
  // expected-error @+1 {{'nn.layer_norm_into' op the runtime's kernel is f32 only, got 'memref<2x16xf64>'}}
  nn.layer_norm_into %x, %g, %g into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf64>, memref<16xf64>, memref<16xf64>, memref<2x16xf64>) -> ()
  return
}

// -----

func.func @f16_loss(%l: memref<3x10xf16>, %y: memref<3xi64>, %o: memref<f16>) {
  // expected-error @+1 {{'nn.cross_entropy_into' op the runtime's kernel is f32 only, got 'memref<3x10xf16>'}}
  nn.cross_entropy_into %l, %y into %o {ignore_index = -100 : i64, label_smoothing = 0.0 : f64} : (memref<3x10xf16>, memref<3xi64>, memref<f16>) -> ()
  return
}

// -----

func.func @bf16_embedding(%dy: memref<3x4xbf16>, %ids: memref<3xi64>, %o: memref<10x4xbf16>) {
  // expected-error @+1 {{'nn.embedding_grad_into' op the runtime's kernel is f32 only, got 'memref<3x4xbf16>'}}
  nn.embedding_grad_into %dy, %ids into %o {num_rows = 10 : i64} : (memref<3x4xbf16>, memref<3xi64>, memref<10x4xbf16>) -> ()
  return
}

// -----

// Every float operand reaches the kernel as f32: an f16 gamma beside an
// f32 input is no exception (the op's verifier refuses the mix).
func.func @f16_gamma(%x: memref<2x16xf32>, %g: memref<16xf16>, %b: memref<16xf32>, %o: memref<2x16xf32>) {
  // expected-error @+1 {{'nn.layer_norm_into' op mixes element types 'f32' and 'f16'}}
  nn.layer_norm_into %x, %g, %b into %o {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<2x16xf32>, memref<16xf16>, memref<16xf32>, memref<2x16xf32>) -> ()
  return
}

// -----

// Results are written where bufferization allocated them: densely. A
// strided result is not what the kernel can write.
func.func @strided_out(%dy: memref<4x8xf32>, %g: memref<8xf32>, %dx: memref<4x8xf32, strided<[16, 1]>>, %dg: memref<8xf32>) {
  // expected-error @+1 {{'nn.layer_norm_grad_into' op the runtime's kernel writes dense buffers, got 'memref<4x8xf32, strided<[16, 1]>>'}}
  nn.layer_norm_grad_into %dy, %dy, %g into %dx, %dg, %dg {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (memref<4x8xf32>, memref<4x8xf32>, memref<8xf32>, memref<4x8xf32, strided<[16, 1]>>, memref<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// The global norm: one call for the sums of squares of all the tensors,
// each into its own 128 slots of one f64 scratch buffer, then one call
// over all 2 · 128 slots. The tensors come as host arrays (memref.alloca,
// filled by stores) of element counts and addresses, a strided tensor
// copied dense first.
//   tfrt_cuda_sum_squares_f32(count, sizes, tensors, slots, partials)
//   tfrt_cuda_global_norm_f32(count, partials, out)
// CHECK-LABEL: func.func @global_norm
// CHECK-SAME:    (%[[A:.*]]: memref<3x4xf32>, %[[B:.*]]: memref<5xf32, strided<[2], offset: 1>>, %[[N:.*]]: memref<f32>)
// CHECK:         %[[PARTIALS:.*]] = memref.alloc() : memref<256xf64>
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG:     %[[C12:.*]] = arith.constant 12 : i64
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : i64
// CHECK:         %[[SIZES:.*]] = memref.alloca() : memref<2xi64>
// CHECK:         memref.store %[[C12]], %[[SIZES]][%{{.*}}] : memref<2xi64>
// CHECK:         memref.store %[[C5]], %[[SIZES]][%{{.*}}] : memref<2xi64>
// CHECK:         %[[SIZESP:.*]] = llvm.inttoptr
// CHECK:         %[[AI:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-NEXT:    %[[AI64:.*]] = arith.index_cast %[[AI]] : index to i64
// CHECK-NEXT:    %[[DENSE:.*]] = memref.alloc() : memref<5xf32>
// CHECK-NEXT:    memref.copy %[[B]], %[[DENSE]]
// CHECK-NEXT:    %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[DENSE]]
// CHECK-NEXT:    %[[BI64:.*]] = arith.index_cast %[[BI]] : index to i64
// CHECK-NEXT:    %[[TENSORS:.*]] = memref.alloca() : memref<2xi64>
// CHECK:         memref.store %[[AI64]], %[[TENSORS]][%{{.*}}] : memref<2xi64>
// CHECK:         memref.store %[[BI64]], %[[TENSORS]][%{{.*}}] : memref<2xi64>
// CHECK:         %[[TENSORSP:.*]] = llvm.inttoptr
// CHECK:         %[[C128:.*]] = arith.constant 128 : i64
// CHECK:         %[[PP:.*]] = llvm.inttoptr
// CHECK-NEXT:    call @tfrt_cuda_sum_squares_f32(%[[C2]], %[[SIZESP]], %[[TENSORSP]], %[[C128]], %[[PP]])
// CHECK:         %[[C256:.*]] = arith.constant 256 : i64
// CHECK:         call @tfrt_cuda_global_norm_f32(%[[C256]],
// CHECK-NOT:     call
func.func @global_norm(%a: memref<3x4xf32>, %b: memref<5xf32, strided<[2], offset: 1>>, %n: memref<f32>) {
  nn.global_norm_into %a, %b into %n : (memref<3x4xf32>, memref<5xf32, strided<[2], offset: 1>>, memref<f32>) -> ()
  return
}

// -----

// Adam in place: count, sizes, params, grads, exp_avgs, exp_avg_sqs (host
// arrays), then β1, 1 - β1, β2, 1 - β2 (each complement rounded to f32
// from double), eps, the L2 decay, then the step's scalars by address.
// CHECK:       func.func private @tfrt_cuda_adam_update_f32(i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f32, f32, f32, f32, f32, f32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @adam
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[B1:.*]] = arith.constant 0.899999976 : f32
// CHECK-DAG:     %[[OMB1:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-DAG:     %[[B2:.*]] = arith.constant 9.990000e-01 : f32
// CHECK-DAG:     %[[OMB2:.*]] = arith.constant 1.000000e-03 : f32
// CHECK-DAG:     %[[EPS:.*]] = arith.constant 9.99999993E-9 : f32
// CHECK-DAG:     %[[WD:.*]] = arith.constant 0.00999999977 : f32
// CHECK:         call @tfrt_cuda_adam_update_f32(%[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[B1]], %[[OMB1]], %[[B2]], %[[OMB2]], %[[EPS]], %[[WD]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT:     memref.copy
func.func @adam(%p: memref<6xf32>, %g: memref<6xf32>, %m: memref<6xf32>, %v: memref<6xf32>, %s1: memref<f32>, %s2: memref<f32>, %s3: memref<f32>, %s4: memref<f32>) {
  nn.adam_update_into %p, %g, %m, %v step_size %s1 bias_correction2_sqrt %s2 clip_factor %s3 decay_factor %s4 {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.01 : f64} : (memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  return
}

// -----

// Adjacent updates with the same settings and step scalars are one call,
// their tensors in order (the training step's parameters, one after the
// other). One with another weight decay starts a new call, and so does the
// next same one after it: only adjacent updates join.
// CHECK-LABEL: func.func @adam_groups
// CHECK-SAME:    (%[[P:[^:]*]]: memref<6xf32>, %[[Q:[^:]*]]: memref<2x4xf32>, %[[R:[^:]*]]: memref<4xf32>,
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG:     %[[SIX:.*]] = arith.constant 6 : i64
// CHECK-DAG:     %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK:         %[[SIZES:.*]] = memref.alloca() : memref<2xi64>
// CHECK:         memref.store %[[SIX]], %[[SIZES]]
// CHECK:         memref.store %[[EIGHT]], %[[SIZES]]
// CHECK:         %[[PI:.*]] = memref.extract_aligned_pointer_as_index %[[P]]
// CHECK:         %[[QI:.*]] = memref.extract_aligned_pointer_as_index %[[Q]]
// CHECK:         %[[PARAMS:.*]] = memref.alloca() : memref<2xi64>
// CHECK:         call @tfrt_cuda_adam_update_f32(%[[TWO]],
// CHECK:         %[[RI:.*]] = memref.extract_aligned_pointer_as_index %[[R]]
// CHECK:         call @tfrt_cuda_adam_update_f32(%{{.*}},
// CHECK:         call @tfrt_cuda_adam_update_f32(%{{.*}},
// CHECK-NOT:     call
func.func @adam_groups(%p: memref<6xf32>, %q: memref<2x4xf32>, %r: memref<4xf32>, %g: memref<6xf32>, %gq: memref<2x4xf32>, %gr: memref<4xf32>, %s: memref<f32>) {
  nn.adam_update_into %p, %g, %g, %g step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  nn.adam_update_into %q, %gq, %gq, %gq step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<2x4xf32>, memref<2x4xf32>, memref<2x4xf32>, memref<2x4xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  nn.adam_update_into %r, %gr, %gr, %gr step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.5 : f64} : (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  nn.adam_update_into %p, %g, %g, %g step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  return
}

// -----

// Another step scalar (here the clipping factor) is another call too.
// CHECK-LABEL: func.func @adam_other_scalars
// CHECK-COUNT-2: call @tfrt_cuda_adam_update_f32
// CHECK-NOT:     call
func.func @adam_other_scalars(%p: memref<6xf32>, %s: memref<f32>, %c: memref<f32>) {
  nn.adam_update_into %p, %p, %p, %p step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  nn.adam_update_into %p, %p, %p, %p step_size %s bias_correction2_sqrt %s clip_factor %c decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  return
}

// -----

// SGD: count, sizes, params, grads, the momentum buffers (a host array) or
// null, momentum, decay, nesterov (i32), lr and the clipping factor by
// address. With momentum and without are two calls.
// CHECK-LABEL: func.func @sgd
// CHECK-SAME:    (%[[P:.*]]: memref<6xf32>, %[[G:.*]]: memref<6xf32>, %[[BUF:.*]]: memref<6xf32>
// CHECK:         %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK-NEXT:    %[[BI64:.*]] = arith.index_cast %[[BI]]
// CHECK-NEXT:    %[[BUFFERS:.*]] = memref.alloca() : memref<1xi64>
// CHECK:         memref.store %[[BI64]], %[[BUFFERS]]
// CHECK:         %[[BP:.*]] = llvm.inttoptr
// CHECK:         %[[MOM:.*]] = arith.constant 0.899999976 : f32
// CHECK:         %[[NESTEROV:.*]] = arith.constant 1 : i32
// CHECK:         call @tfrt_cuda_sgd_update_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BP]], %[[MOM]], %{{.*}}, %[[NESTEROV]], %{{.*}}, %{{.*}})
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[PLAIN:.*]] = arith.constant 0 : i32
// CHECK:         call @tfrt_cuda_sgd_update_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %{{.*}}, %{{.*}}, %[[PLAIN]], %{{.*}}, %{{.*}})
func.func @sgd(%p: memref<6xf32>, %g: memref<6xf32>, %b: memref<6xf32>, %lr: memref<f32>, %c: memref<f32>) {
  nn.sgd_update_into %p, %g lr %lr clip_factor %c momentum_buffer %b {momentum = 0.9 : f64, nesterov, weight_decay = 0.0 : f64} : (memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>, memref<6xf32>) -> ()
  nn.sgd_update_into %p, %g lr %lr clip_factor %c {momentum = 0.0 : f64, weight_decay = 0.0 : f64} : (memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>) -> ()
  return
}

// -----

// The kernels update dense buffers: a strided parameter cannot be updated
// in place.
func.func @adam_strided_param(%p: memref<6xf32, strided<[2]>>, %g: memref<6xf32>, %s: memref<f32>) {
  // expected-error @+1 {{'nn.adam_update_into' op the runtime's kernel writes dense buffers, got 'memref<6xf32, strided<[2]>>'}}
  nn.adam_update_into %p, %g, %g, %g step_size %s bias_correction2_sqrt %s clip_factor %s decay_factor %s {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (memref<6xf32, strided<[2]>>, memref<6xf32>, memref<6xf32>, memref<6xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
  return
}
