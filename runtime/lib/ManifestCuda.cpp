//===- ManifestCuda.cpp - The cuda section of a manifest ------------------===//
//
// Target "cuda": the kernel images the code carries (a cubin per GPU
// architecture, PTX for newer ones), the generated kernels in the order
// tfrt_cuda_launch numbers them, and the device workspace. Parsed whether
// or not this runtime was built with CUDA, so that every runtime reports a
// malformed section the same way.
//===----------------------------------------------------------------------===//
#include "ManifestParser.h"

#include <set>

namespace transfuse::rt {
namespace detail {
namespace {

/// "sm_90" / "compute_90": the prefix and a number of two or three digits.
bool isArch(const std::string &text, const std::string &prefix) {
  if (text.size() < prefix.size() + 2 || text.size() > prefix.size() + 3 ||
      text.compare(0, prefix.size(), prefix) != 0)
    return false;
  for (size_t i = prefix.size(); i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9')
      return false;
  return true;
}

} // namespace

uint64_t ManifestParser::bytes(const json &value,
                               const std::string &path) const {
  int64_t count = integer(value, path);
  if (count < 0)
    bad(path, "must be >= 0, got " + std::to_string(count));
  return static_cast<uint64_t>(count);
}

CudaCode ManifestParser::cuda(const json &value,
                              const std::string &path) const {
  object(value, path);
  CudaCode code;
  std::string archsPath = join(path, "archs");
  const json &archs = array(*member(value, path, "archs", true), archsPath);
  for (size_t i = 0; i < archs.size(); ++i) {
    std::string arch = string(archs[i], at(archsPath, i));
    if (!isArch(arch, "sm_"))
      bad(at(archsPath, i),
          "expected an architecture like 'sm_90', got '" + arch + "'");
    code.archs.push_back(arch);
  }

  std::string imagesPath = join(path, "images");
  const json &images = array(*member(value, path, "images", true), imagesPath);
  if (images.empty())
    bad(imagesPath, "the artifact carries no kernel image");
  std::set<std::string> symbols;
  for (size_t i = 0; i < images.size(); ++i) {
    std::string itemPath = at(imagesPath, i);
    object(images[i], itemPath);
    CudaImage image;
    std::string format = string(*member(images[i], itemPath, "format", true),
                                join(itemPath, "format"));
    if (format != "cubin" && format != "ptx")
      bad(join(itemPath, "format"),
          "expected 'cubin' or 'ptx', got '" + format + "'");
    image.ptx = format == "ptx";
    image.arch = string(*member(images[i], itemPath, "arch", true),
                        join(itemPath, "arch"));
    if (!isArch(image.arch, image.ptx ? "compute_" : "sm_"))
      bad(join(itemPath, "arch"),
          std::string("expected an architecture like '") +
              (image.ptx ? "compute_90" : "sm_90") + "', got '" + image.arch +
              "'");
    image.symbol = string(*member(images[i], itemPath, "symbol", true),
                          join(itemPath, "symbol"));
    if (!symbols.insert(image.symbol).second)
      bad(join(itemPath, "symbol"),
          "symbol '" + image.symbol + "' listed twice");
    image.bytes = bytes(*member(images[i], itemPath, "bytes", true),
                        join(itemPath, "bytes"));
    if (image.bytes == 0)
      bad(join(itemPath, "bytes"), "an image cannot be empty");
    code.images.push_back(std::move(image));
  }

  std::string kernelsPath = join(path, "kernels");
  const json &kernels =
      array(*member(value, path, "kernels", true), kernelsPath);
  std::set<std::string> names;
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::string name = string(kernels[i], at(kernelsPath, i));
    if (!names.insert(name).second)
      bad(at(kernelsPath, i), "kernel '" + name + "' listed twice");
    code.kernels.push_back(std::move(name));
  }
  code.workspaceBytes = bytes(*member(value, path, "workspace_bytes", true),
                              join(path, "workspace_bytes"));
  // Artifacts from before the option have no member: they are f32.
  if (const json *precision = member(value, path, "precision", false)) {
    std::string precisionPath = join(path, "precision");
    std::string name = string(*precision, precisionPath);
    if (name != "f32" && name != "tf32")
      bad(precisionPath, "expected 'f32' or 'tf32', got '" + name + "'");
    code.tf32 = name == "tf32";
  }
  return code;
}

} // namespace detail
} // namespace transfuse::rt
