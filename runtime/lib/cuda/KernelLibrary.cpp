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

namespace {

/// The kernels of `module`, added to `kernels`; two families defining the
/// same name is a build error of the runtime.
void listKernels(CUmodule module, const char *family,
                 std::map<std::string, CUfunction> &kernels) {
  const Driver &d = driver();
  std::string what =
      std::string("listing the runtime's ") + family + " kernels";
  unsigned count = 0;
  check(d.cuModuleGetFunctionCount(&count, module), what);
  std::vector<CUfunction> functions(count);
  check(d.cuModuleEnumerateFunctions(functions.data(), count, module), what);
  for (CUfunction function : functions) {
    const char *name = nullptr;
    check(d.cuFuncGetName(&name, function), what);
    if (!kernels.emplace(name, function).second)
      fail(TF_ERROR_EXECUTION, std::string("the runtime's kernel '") + name +
                                   "' is defined twice (in " + family + ")");
  }
}

} // namespace

KernelLibrary loadKernelLibrary() {
  KernelLibrary library;
  try {
    for (const Family &family : kFamilies) {
      CUmodule module = nullptr;
      check(driver().cuModuleLoadDataEx(&module, family.fatbin, 0, nullptr,
                                        nullptr),
            std::string("loading the runtime's ") + family.name + " kernels");
      library.modules.push_back(module);
      listKernels(module, family.name, library.kernels);
    }
  } catch (...) {
    for (CUmodule module : library.modules)
      driver().cuModuleUnload(module);
    throw;
  }
  return library;
}

} // namespace transfuse::rt::cuda
