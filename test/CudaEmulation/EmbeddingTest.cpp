//===- EmbeddingTest.cpp - The CUDA embedding gradient --------------------===//
//
// tfrt_cuda_embedding_grad_f32 and kernels/embedding.cu, emulated. The
// kernels promise the CPU lowering's bits: each id's row is the float sum
// of its positions' rows in the order of the positions (checked against a
// double-precision sum too), and ids that no position has get zeros. Ids
// repeat, across the chunks of positions the first kernel compares through
// shared memory.
//===----------------------------------------------------------------------===//
#include "CudaEntryPoints.h"
#include "DeviceTesting.h"
#include "Grid.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

using namespace transfuse::emu;

struct Case {
  int64_t positions, width, rows;
};

std::vector<int64_t> randomIds(const Case &c) {
  std::mt19937 generator(21);
  std::vector<int64_t> ids(c.positions);
  for (int64_t &id : ids)
    id = int64_t(generator() % uint64_t(c.rows));
  return ids;
}

/// The table summed in the order of the positions, in T.
template <typename T>
std::vector<T> referenceTable(const Case &c, const std::vector<float> &grad,
                              const std::vector<int64_t> &ids) {
  std::vector<T> table(c.rows * c.width, T(0));
  for (int64_t p = 0; p < c.positions; ++p)
    for (int64_t col = 0; col < c.width; ++col)
      table[ids[p] * c.width + col] += grad[p * c.width + col];
  return table;
}

template <typename Index>
std::vector<float> cudaTable(const Case &c, const std::vector<float> &grad,
                             const std::vector<int64_t> &ids64) {
  std::vector<Index> ids(ids64.begin(), ids64.end());
  std::vector<float> table = unwritten(c.rows * c.width);
  // Scratch starts as garbage, as device memory would.
  std::vector<unsigned char> scratch(5 * c.positions, 0xff);
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_embedding_grad_f32(
                  c.positions, c.width, c.rows, grad.data(), ids.data(),
                  8 * sizeof(Index), table.data(), scratch.data());
            }),
            "");
  return table;
}

TEST(CudaEmbedding, GradientIsTheCpuSumInPositionOrder) {
  // 300 positions compare in two chunks of 256; 300 columns take two
  // blocks of 256 threads.
  for (Case c :
       {Case{1, 5, 3}, Case{7, 300, 4}, Case{300, 5, 40}, Case{300, 3, 1}}) {
    SCOPED_TRACE(std::to_string(c.positions) + " positions of " +
                 std::to_string(c.width) + " into " + std::to_string(c.rows) +
                 " rows");
    std::vector<float> grad = uniformFloats(c.positions * c.width, -1, 1, 22);
    std::vector<int64_t> ids = randomIds(c);
    std::vector<float> want = referenceTable<float>(c, grad, ids);
    std::vector<float> got = cudaTable<int64_t>(c, grad, ids);
    EXPECT_TRUE(sameBits(got, want));
    EXPECT_TRUE(near("table", got, referenceTable<double>(c, grad, ids), 1e-5));
    EXPECT_TRUE(sameBits(cudaTable<int32_t>(c, grad, ids), want));
  }
}

TEST(CudaEmbedding, NoPositionsGiveZeros) {
  Case c{0, 4, 3};
  EXPECT_TRUE(
      sameBits(cudaTable<int64_t>(c, {}, {}), std::vector<float>(12, 0.0f)));
}

TEST(CudaEmbedding, BlockOrderChangesNoBit) {
  Case c{40, 33, 6};
  std::vector<float> grad = uniformFloats(c.positions * c.width, -1, 1, 23);
  std::vector<int64_t> ids = randomIds(c);
  std::vector<float> ascending = cudaTable<int64_t>(c, grad, ids);
  ShuffledBlocks shuffled;
  EXPECT_TRUE(sameBits(cudaTable<int64_t>(c, grad, ids), ascending));
}

TEST(CudaEmbedding, RejectsBadArguments) {
  float f = 0;
  int64_t id = 0;
  EXPECT_EQ(runOnDevice([&] {
              tfrt_cuda_embedding_grad_f32(1, 1, 1, &f, &id, 16, &f, &f);
            }),
            "tfrt_cuda_embedding_grad_f32: bad arguments");
}

} // namespace
