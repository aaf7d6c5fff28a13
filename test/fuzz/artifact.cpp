//===- artifact.cpp - Fuzz the .tfm container and manifest reader ---------===//
//
// What Artifact::open reads before it loads any code (checkArtifact in
// runtime/lib/Artifact.cpp, the manifest parser of Manifest*.cpp). An input
// starting with the container's magic is a whole .tfm, whose checksum the
// target sets, since a mutation would rarely get one right; any other input
// is a manifest, put in a container with code that is no ELF file, so that
// the fuzzer spends its time in the manifest. Nothing is ever loaded.
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "Runtime.h"

#include <cstring>
#include <string>
#include <vector>

using namespace transfuse::rt;
namespace fuzz = transfuse::fuzz;

namespace {

void appendLE(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>(value >> (8 * i)));
}

/// The .tfm the input stands for (docs/artifact.md), exactly as large as it
/// is, so that ASan sees any read past its end.
std::vector<uint8_t> container(const uint8_t *data, size_t size) {
  std::string bytes;
  if (size >= 8 && std::memcmp(data, "TRANSFUS", 8) == 0) {
    bytes.assign(reinterpret_cast<const char *>(data), size);
  } else {
    const std::string code = "not an ELF shared object";
    bytes = "TRANSFUS";
    appendLE(bytes, TF_FORMAT_VERSION, 4);
    appendLE(bytes, 0, 4);
    appendLE(bytes, size, 8);
    appendLE(bytes, code.size(), 8);
    bytes.append(reinterpret_cast<const char *>(data), size);
    bytes += code;
    appendLE(bytes, 0, 8);
  }
  if (bytes.size() >= 40) {
    size_t payload = bytes.size() - 8;
    bytes.resize(payload);
    appendLE(bytes, fnv1a64(bytes.data(), payload), 8);
  }
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes = container(data, size);
  try {
    ArtifactContents contents =
        checkArtifact(bytes.data(), bytes.size(), "'fuzz.tfm'");
    fuzz::expect(!contents.manifest.entryPoints.empty(),
                 "an accepted manifest to have an entry point");
  } catch (const Error &) {
  }
  return 0;
}
