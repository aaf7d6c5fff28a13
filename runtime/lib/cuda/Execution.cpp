//===- Execution.cpp - The current execution and kernel launches ----------===//
#include "Execution.h"

#include "DeviceSession.h"

namespace transfuse::rt::cuda {
namespace {
thread_local Execution *currentExecution = nullptr;
} // namespace

Execution::Execution(DeviceSession &session)
    : session_(session), previous_(currentExecution) {
  currentExecution = this;
}

Execution::~Execution() { currentExecution = previous_; }

Execution *Execution::current() { return currentExecution; }

CUstream Execution::stream() const { return session_.stream(); }

void launchLibraryKernel(Execution &execution, const char *symbol, Dim3 grid,
                         Dim3 block, unsigned sharedBytes, void **params) {
  CUfunction function = execution.session().libraryKernel(symbol);
  if (sharedBytes > 48 * 1024)
    execution.session().allowSharedBytes(function, symbol, sharedBytes);
  check(driver().cuLaunchKernel(function, grid.x, grid.y, grid.z, block.x,
                                block.y, block.z, sharedBytes,
                                execution.stream(), params, nullptr),
        std::string("launching kernel ") + symbol);
}

} // namespace transfuse::rt::cuda

using namespace transfuse::rt::cuda;

/// A generated kernel: `kernel` indexes the manifest's cuda.kernels, `args`
/// points to one pointer per kernel parameter (cuLaunchKernel's layout).
extern "C" TF_API void tfrt_cuda_launch(int32_t kernel, int64_t gridX,
                                        int64_t gridY, int64_t gridZ,
                                        int64_t blockX, int64_t blockY,
                                        int64_t blockZ, int32_t sharedBytes,
                                        void **args) {
  onDevice("tfrt_cuda_launch", [&](Execution &execution) {
    CUfunction function = execution.session().kernel(kernel);
    check(driver().cuLaunchKernel(
              function, static_cast<unsigned>(gridX),
              static_cast<unsigned>(gridY), static_cast<unsigned>(gridZ),
              static_cast<unsigned>(blockX), static_cast<unsigned>(blockY),
              static_cast<unsigned>(blockZ), static_cast<unsigned>(sharedBytes),
              execution.stream(), args, nullptr),
          "launching generated kernel " + std::to_string(kernel));
  });
}
