//===- Embedding.cpp - tfrt_cuda_embedding_grad_f32 -----------------------===//
#include "Execution.h"

#include <climits>

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

/// table [rows, width] = the sum of grad [positions, width] rows by id
/// (kernels/embedding.cu). ids [positions] are i64 (index_bits 64) or i32
/// (32), each in [0, rows) (the runtime checked the inputs they come from).
/// scratch holds 5 * positions bytes.
extern "C" TF_API void
tfrt_cuda_embedding_grad_f32(int64_t positions, int64_t width, int64_t rows,
                             const float *grad, const void *ids,
                             int32_t index_bits, float *table, void *scratch) {
  onDevice("tfrt_cuda_embedding_grad_f32", [&](Execution &execution) {
    if (positions < 0 || positions > INT_MAX || width < 0 || rows < 0 ||
        (index_bits != 32 && index_bits != 64))
      fail(TF_ERROR_EXECUTION, "bad arguments");
    check(driver().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(table), 0,
                                   rows * width * sizeof(float),
                                   execution.stream()),
          "zeroing the embedding gradient");
    if (positions == 0 || width == 0)
      return;
    auto *next = static_cast<int32_t *>(scratch);
    auto *leader = reinterpret_cast<uint8_t *>(next + positions);
    constexpr unsigned kThreads = 256;
    bool wide = index_bits == 64;
    launch(execution,
           wide ? "tf_embedding_next_occurrence_i64"
                : "tf_embedding_next_occurrence_i32",
           {blocksFor(positions, kThreads)}, {kThreads}, 0, positions, ids,
           next, leader);
    launch(execution,
           wide ? "tf_embedding_sum_chains_i64" : "tf_embedding_sum_chains_i32",
           {static_cast<unsigned>(positions), blocksFor(width, kThreads)},
           {kThreads}, 0, positions, width, grad, ids, next, leader, table);
  });
}
