//===- Toolkit.cpp - Finding the CUDA toolkit; the architecture list ------===//
#include "transfuse/Backend/CUDABackend.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace mlir;

namespace transfuse {

/// What `root` lacks of a toolkit, or "" if nothing.
static std::string missingFrom(StringRef root) {
  std::string missing;
  for (StringRef part : {"bin/ptxas", "nvvm/libdevice/libdevice.10.bc"}) {
    SmallString<256> path(root);
    llvm::sys::path::append(path, part);
    if (!llvm::sys::fs::exists(path))
      missing += (missing.empty() ? "" : ", ") + part.str();
  }
  return missing;
}

FailureOr<std::string> findCUDAToolkit(StringRef explicitPath,
                                       std::string &error) {
  SmallVector<std::pair<std::string, std::string>> candidates;
  if (!explicitPath.empty()) {
    candidates.push_back({"--cuda-path", explicitPath.str()});
  } else {
    for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
      if (std::optional<std::string> value =
              llvm::sys::Process::GetEnv(variable);
          value && !value->empty())
        candidates.push_back({std::string("$") + variable, *value});
    candidates.push_back({"the default", "/usr/local/cuda"});
  }
  std::string looked;
  for (const auto &[origin, root] : candidates) {
    std::string missing = missingFrom(root);
    if (missing.empty())
      return root;
    looked += "\n  " + root + " (" + origin + "): no " + missing;
  }
  error = "no CUDA toolkit found (set --cuda-path or CUDA_HOME; "
          "tools/install-cuda-toolkit.sh installs one):" +
          looked;
  return failure();
}

FailureOr<std::vector<std::string>> parseCUDAArchs(StringRef list,
                                                   std::string &error) {
  std::vector<std::string> archs;
  SmallVector<StringRef> items;
  list.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    item = item.trim();
    StringRef digits = item;
    unsigned number = 0;
    if (!digits.consume_front("sm_") || digits.size() < 2 ||
        digits.size() > 3 || digits.getAsInteger(10, number) || number < 70) {
      error = "--cuda-arch: '" + item.str() +
              "' is not a GPU architecture like sm_80 or sm_90 (sm_70 or "
              "later)";
      return failure();
    }
    std::string arch = "sm_" + std::to_string(number);
    if (llvm::is_contained(archs, arch)) {
      error = "--cuda-arch: " + arch + " is listed twice";
      return failure();
    }
    archs.push_back(arch);
  }
  if (archs.empty()) {
    error = "--cuda-arch: no architecture given";
    return failure();
  }
  // Oldest first: the last one's PTX is what newer GPUs compile.
  llvm::sort(archs, [](const std::string &a, const std::string &b) {
    return std::stoi(a.substr(3)) < std::stoi(b.substr(3));
  });
  return archs;
}

} // namespace transfuse
