//===- DeviceTesting.h - What the emulated kernels' tests share -*- C++ -*-===//
//
// Buffers are std::vectors of their exact size, so that AddressSanitizer
// sees a kernel reading or writing past one; what a kernel must write
// starts as NaN, so that an element it leaves alone shows.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_CUDAEMULATION_DEVICETESTING_H
#define TRANSFUSE_TEST_CUDAEMULATION_DEVICETESTING_H

#include "RandomFloats.h"
#include "cuda/Execution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace transfuse::emu {

/// Calls `calls`, which call tfrt_cuda_* functions, inside an execution,
/// as a CUDA entry point runs them; returns the failure the execution
/// recorded, empty when none.
std::string runOnDevice(const std::function<void()> &calls);

/// Launches kernel `symbol` directly, as the launchers do (for the launch
/// shapes they never make); returns the failure, empty when none.
template <typename... Args>
std::string launchKernel(const char *symbol, rt::cuda::Dim3 grid,
                         rt::cuda::Dim3 block, unsigned sharedBytes,
                         Args... args) {
  return runOnDevice([&] {
    rt::cuda::onDevice("launch", [&](rt::cuda::Execution &execution) {
      rt::cuda::launch(execution, symbol, grid, block, sharedBytes, args...);
    });
  });
}

/// `count` floats that a kernel must overwrite.
inline std::vector<float> unwritten(size_t count) {
  return std::vector<float>(count, NAN);
}

inline ::testing::AssertionResult sameBits(const std::vector<float> &got,
                                           const std::vector<float> &want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << got.size() << " elements, expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0)
      return ::testing::AssertionFailure()
             << "element " << i << " = " << got[i] << ", expected the bits of "
             << want[i];
  return ::testing::AssertionSuccess();
}

/// Whether every element of `got` lies within tolerance · max(1, |want|)
/// of `want`, NaN where `want` is NaN.
inline ::testing::AssertionResult near(const char *what,
                                       const std::vector<float> &got,
                                       const std::vector<double> &want,
                                       double tolerance) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << what << ": " << got.size() << " elements, expected "
           << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    bool matches = std::isnan(want[i])
                       ? std::isnan(got[i])
                       : std::abs(got[i] - want[i]) <=
                             tolerance * std::max(1.0, std::abs(want[i]));
    if (!matches)
      return ::testing::AssertionFailure()
             << what << "[" << i << "] = " << got[i] << ", expected "
             << want[i];
  }
  return ::testing::AssertionSuccess();
}

} // namespace transfuse::emu

#endif // TRANSFUSE_TEST_CUDAEMULATION_DEVICETESTING_H
