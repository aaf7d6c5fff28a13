//===- ArtifactWriter.cpp - The .tfm container ----------------------------===//
#include "transfuse/Backend/Artifact.h"
#include "transfuse/Support/OutputFile.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace transfuse {

uint64_t fnv1a64(StringRef bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 1099511628211ull;
  }
  return hash;
}

LogicalResult writeArtifact(StringRef path, const ArtifactInfo &info,
                            StringRef code, std::string &error) {
  std::string manifest = renderManifest(info);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  auto u32 = [&](uint32_t v) {
    char buffer[4];
    llvm::support::endian::write32le(buffer, v);
    os.write(buffer, 4);
  };
  auto u64 = [&](uint64_t v) {
    char buffer[8];
    llvm::support::endian::write64le(buffer, v);
    os.write(buffer, 8);
  };
  os << "TRANSFUS";
  u32(/*format version=*/1);
  u32(0);
  u64(manifest.size());
  u64(code.size());
  os << manifest << code;
  os.flush();
  uint64_t checksum = fnv1a64(bytes);
  u64(checksum);
  os.flush();

  // Atomically: a failed compile never leaves half a file behind.
  return writeOutputFile(
      path, [&](raw_ostream &file) { file << bytes; }, error);
}

} // namespace transfuse
