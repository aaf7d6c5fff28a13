//===- Libraries.cpp - Opening NVIDIA's libraries at run time -------------===//
#include "Libraries.h"

#include "../Runtime.h"

#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace transfuse::rt::cuda {

void *openNvidiaLibrary(const std::string &soname, const char *variable,
                        const char *what) {
  std::vector<std::string> candidates;
  if (const char *path = std::getenv(variable))
    candidates.push_back(path);
  candidates.push_back(soname);
  candidates.push_back(std::string(TRANSFUSE_CUDA_LIBRARY_DIR) + "/" + soname);
  std::string tried;
  for (const std::string &candidate : candidates) {
    if (void *library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
      return library;
    const char *reason = dlerror();
    tried += "; " + std::string(reason ? reason : candidate);
  }
  fail(TF_ERROR_UNSUPPORTED, std::string("cannot load ") + what + " (set " +
                                 variable + " to its path)" + tried);
}

} // namespace transfuse::rt::cuda
