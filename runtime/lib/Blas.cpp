//===- Blas.cpp - OpenBLAS, loaded when the first kernel needs it ---------===//
//
// The runtime opens OpenBLAS itself rather than linking it, for two reasons:
//  - OpenBLAS picks its kernels from the CPU model in its load-time
//    constructor, and Debian's build does not know recent Xeons: it falls
//    back to SSE3 kernels, five times slower than its AVX-512 ones. Loading
//    it lazily lets the runtime name the core (OPENBLAS_CORETYPE) first when
//    the CPU has AVX-512 and the user has not chosen.
//  - The OpenMP build shares libgomp's thread pool with the runtime's own
//    kernels, so the two never compete for cores; the pthread build keeps
//    its threads spinning after each call. The OpenMP build is preferred,
//    then whatever libopenblas.so.0 the system selects.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace transfuse::rt {
namespace {

/// The OpenBLAS core whose sgemm kernels every AVX-512 CPU runs well.
constexpr const char *kAvx512Core = "SkylakeX";

bool hasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq");
}

template <typename Fn> Fn symbol(void *library, const char *name) {
  void *address = dlsym(library, name);
  if (!address)
    fail(TF_ERROR_UNSUPPORTED,
         std::string("OpenBLAS lacks ") + name + ": " + dlerror());
  return reinterpret_cast<Fn>(address);
}

Blas load() {
  if (!std::getenv("OPENBLAS_CORETYPE") && hasAvx512())
    setenv("OPENBLAS_CORETYPE", kAvx512Core, /*overwrite=*/0);
  void *library = nullptr;
  std::string tried;
  for (const char *path : {TRANSFUSE_OPENBLAS_OPENMP, "libopenblas.so.0"}) {
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library)
      break;
    tried += std::string("\n  ") + dlerror();
  }
  if (!library)
    fail(TF_ERROR_UNSUPPORTED, "cannot load OpenBLAS:" + tried);
  Blas blas;
  blas.sgemm = symbol<Blas::Sgemm>(library, "cblas_sgemm");
  blas.setNumThreads =
      symbol<void (*)(int)>(library, "openblas_set_num_threads");
  blas.coreName = symbol<char *(*)()>(library, "openblas_get_corename");
  return blas;
}

} // namespace

const Blas &blas() {
  static const Blas loaded = load();
  return loaded;
}

} // namespace transfuse::rt
