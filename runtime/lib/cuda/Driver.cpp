//===- Driver.cpp - Opening libcuda.so.1 ----------------------------------===//
#include "Driver.h"
#include "Libraries.h"

#include "../Runtime.h"

#include <dlfcn.h>
#include <mutex>
#include <optional>

namespace transfuse::rt::cuda {
namespace {

constexpr const char *kLibrary = "libcuda.so.1";

std::string versionText(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

Driver load() {
  void *library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    fail(TF_ERROR_UNSUPPORTED,
         std::string("no CUDA driver: ") + kLibrary + " cannot be loaded (" +
             (reason ? reason : "unknown reason") +
             "); a CUDA artifact runs where an NVIDIA GPU and its driver are");
  }
  Driver d;
#define TF_CUDA_LOAD_MEMBER(name)                                              \
  d.name = reinterpret_cast<decltype(d.name)>(                                 \
      dlsym(library, TF_CUDA_STRINGIFY_EXPANDED(name)));                       \
  if (!d.name)                                                                 \
    fail(TF_ERROR_UNSUPPORTED, std::string("the CUDA driver lacks ") +         \
                                   TF_CUDA_STRINGIFY_EXPANDED(name) +          \
                                   ": it is older than CUDA " +                \
                                   versionText(CUDA_VERSION));
  TF_CUDA_DRIVER_FUNCTIONS(TF_CUDA_LOAD_MEMBER)
#undef TF_CUDA_LOAD_MEMBER

  CUresult result = d.cuInit(0);
  if (result == CUDA_ERROR_NO_DEVICE)
    fail(TF_ERROR_UNSUPPORTED,
         "no CUDA GPU: the driver is installed but finds no device");
  if (result != CUDA_SUCCESS) {
    // The error functions work before cuInit succeeds.
    std::string text = errorText(result);
    fail(TF_ERROR_UNSUPPORTED,
         "the CUDA driver cannot be initialised: " + text);
  }
  check(d.cuDriverGetVersion(&d.version), "cuDriverGetVersion");
  return d;
}

} // namespace

const Driver &driver() {
  // A failure is not cached: a later session asks again (and fails with the
  // same message unless the machine changed).
  static std::mutex mutex;
  static std::optional<Driver> instance;
  std::lock_guard<std::mutex> lock(mutex);
  if (!instance)
    instance = load();
  return *instance;
}

std::string errorText(CUresult result) {
  void *library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  std::string text = "CUDA error " + std::to_string(int(result));
  if (!library)
    return text;
  auto name = reinterpret_cast<decltype(&::cuGetErrorName)>(
      dlsym(library, "cuGetErrorName"));
  auto description = reinterpret_cast<decltype(&::cuGetErrorString)>(
      dlsym(library, "cuGetErrorString"));
  const char *nameText = nullptr, *descriptionText = nullptr;
  if (name && name(result, &nameText) == CUDA_SUCCESS && nameText)
    text = nameText;
  if (description && description(result, &descriptionText) == CUDA_SUCCESS &&
      descriptionText)
    text += std::string(" (") + descriptionText + ")";
  dlclose(library);
  return text;
}

void check(CUresult result, const std::string &what) {
  if (result != CUDA_SUCCESS)
    fail(TF_ERROR_EXECUTION, what + ": " + errorText(result));
}

} // namespace transfuse::rt::cuda
