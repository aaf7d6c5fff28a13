//===- KernelLibrary.cpp - The embedded fatbins of the kernel families ----===//
//
// The build generates KernelLibraryImages.inc, one TF_CUDA_FAMILY(name,
// path) per kernels/<name>.cu, and the assembler embeds each fatbin
// (.incbin) as a hidden symbol of this library.
//===----------------------------------------------------------------------===//
#include "KernelLibrary.h"

#include "../Runtime.h"

namespace {

#define TF_CUDA_FAMILY(name, path)                                             \
  __asm__(".section .rodata\n"                                                 \
          ".balign 64\n"                                                       \
          ".globl tf_cuda_family_" #name "\n"                                  \
          ".hidden tf_cuda_family_" #name "\n"                                 \
          "tf_cuda_family_" #name ":\n"                                        \
          ".incbin \"" path "\"\n"                                             \
          ".previous\n");
#include "KernelLibraryImages.inc"
#undef TF_CUDA_FAMILY

} // namespace

#define TF_CUDA_FAMILY(name, path)                                             \
  extern "C" __attribute__((visibility("hidden")))                             \
  const unsigned char tf_cuda_family_##name[];
#include "KernelLibraryImages.inc"
#undef TF_CUDA_FAMILY

namespace transfuse::rt::cuda {
namespace {

struct Family {
  const char *name;
  const unsigned char *fatbin;
};

constexpr Family kFamilies[] = {
#define TF_CUDA_FAMILY(name, path) {#name, tf_cuda_family_##name},
#include "KernelLibraryImages.inc"
#undef TF_CUDA_FAMILY
};

} // namespace

std::vector<CUmodule> loadKernelLibrary() {
  std::vector<CUmodule> modules;
  try {
    for (const Family &family : kFamilies) {
      CUmodule module = nullptr;
      check(driver().cuModuleLoadDataEx(&module, family.fatbin, 0, nullptr,
                                        nullptr),
            std::string("loading the runtime's ") + family.name + " kernels");
      modules.push_back(module);
    }
  } catch (...) {
    for (CUmodule module : modules)
      driver().cuModuleUnload(module);
    throw;
  }
  return modules;
}

} // namespace transfuse::rt::cuda
