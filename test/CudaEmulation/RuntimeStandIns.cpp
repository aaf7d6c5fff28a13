//===- RuntimeStandIns.cpp - The launchers' runtime, on the CPU -----------===//
//
// The launchers (runtime/lib/cuda/{Attention,LayerNorm,Losses,Embedding,
// Optimizer}.cpp) are compiled unchanged against these definitions of what
// they use from the rest of the CUDA runtime (Execution.cpp, Driver.cpp):
// launchLibraryKernel runs the emulated kernel of a symbol, synchronously
// (the stream is the host's program order), and the driver's memset writes
// host memory: "device" pointers are host pointers here.
//===----------------------------------------------------------------------===//
#include "DeviceTesting.h"
#include "Grid.h"
#include "KernelTable.h"

#include "cuda/DeviceSession.h"
#include "cuda/Execution.h"

#include <cstring>

namespace transfuse::rt::cuda {
namespace {

thread_local Execution *currentExecution = nullptr;

CUresult hostMemsetD8Async(CUdeviceptr address, unsigned char value,
                           size_t bytes, CUstream) {
  std::memset(reinterpret_cast<void *>(address), value, bytes);
  return CUDA_SUCCESS;
}

} // namespace

Execution::Execution(DeviceSession &session)
    : session_(session), previous_(currentExecution) {
  currentExecution = this;
}

Execution::~Execution() { currentExecution = previous_; }

Execution *Execution::current() { return currentExecution; }

CUstream Execution::stream() const { return nullptr; }

void launchLibraryKernel(Execution &, const char *symbol, Dim3 grid, Dim3 block,
                         unsigned sharedBytes, void **params) {
  const emu::KernelEntry *kernel = emu::findKernel(symbol);
  if (!kernel)
    fail(TF_ERROR_EXECUTION, std::string("no kernel ") + symbol);
  // launch() passes one pointer per argument, then null.
  for (size_t i = 0; i < kernel->parameters; ++i)
    if (!params[i])
      fail(TF_ERROR_EXECUTION, std::string("kernel ") + symbol + " takes " +
                                   std::to_string(kernel->parameters) +
                                   " arguments, launched with " +
                                   std::to_string(i));
  if (params[kernel->parameters])
    fail(TF_ERROR_EXECUTION,
         std::string("kernel ") + symbol + " launched with more than its " +
             std::to_string(kernel->parameters) + " arguments");
  emu::Launch launch{symbol,
                     kernel->body,
                     params,
                     {grid.x, grid.y, grid.z},
                     {block.x, block.y, block.z},
                     sharedBytes};
  std::string error = emu::launchError(launch);
  if (!error.empty())
    fail(TF_ERROR_EXECUTION,
         std::string("launching kernel ") + symbol + ": " + error);
  emu::runGrid(launch);
}

const Driver &driver() {
  static const Driver hostDriver = [] {
    Driver host;
    host.cuMemsetD8Async = hostMemsetD8Async;
    return host;
  }();
  return hostDriver;
}

std::string errorText(CUresult result) {
  return "CUresult " + std::to_string(result);
}

void check(CUresult result, const std::string &what) {
  if (result != CUDA_SUCCESS)
    fail(TF_ERROR_EXECUTION, what + ": " + errorText(result));
}

} // namespace transfuse::rt::cuda

namespace transfuse::emu {

std::string runOnDevice(const std::function<void()> &calls) {
  // Execution keeps a reference to its session, which only the runtime's
  // own definitions of its members (not linked here) read: any storage
  // will do.
  alignas(rt::cuda::DeviceSession) static unsigned char
      session[sizeof(rt::cuda::DeviceSession)];
  rt::cuda::Execution execution(
      *reinterpret_cast<rt::cuda::DeviceSession *>(session));
  calls();
  return execution.error();
}

} // namespace transfuse::emu
