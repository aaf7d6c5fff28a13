//===- NoCuda.cpp - The CUDA entry points of a runtime built without it ---===//
#include "Runtime.h"

namespace transfuse::rt {

bool cudaSupported() { return false; }

std::unique_ptr<Device> openCudaDevice(const Artifact &artifact) {
  fail(TF_ERROR_UNSUPPORTED,
       inQuotes(artifact.path()) +
           " is a CUDA artifact and this runtime was built without CUDA");
}

} // namespace transfuse::rt
