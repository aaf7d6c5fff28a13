//===- Artifact.cpp - Read, validate and load a .tfm ----------------------===//
//
// The container (docs/artifact.md) is checked in the documented order: size
// at least 40 bytes, magic, format version, that 32 + M + C + 8 is the file
// size, the checksum, that the manifest parses, and its target. The code is
// then written to an anonymous memory file (memfd_create) and dlopen'ed from
// /proc/self/fd/N, so nothing is ever extracted to disk.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace transfuse::rt {

namespace {

constexpr char kMagic[8] = {'T', 'R', 'A', 'N', 'S', 'F', 'U', 'S'};
constexpr size_t kHeaderSize = 32;
constexpr size_t kChecksumSize = 8;

uint32_t readU32(const uint8_t *p) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i)
    value = value << 8 | p[i];
  return value;
}

uint64_t readU64(const uint8_t *p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = value << 8 | p[i];
  return value;
}

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%016llx",
                static_cast<unsigned long long>(value));
  return text;
}

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
constexpr const char *kHostMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
constexpr const char *kHostMachineName = "AArch64";
#else
#error "unsupported host architecture"
#endif

/// The code section must be an ELF64 shared object for this machine; dlopen
/// would refuse anything else, with a less clear message.
void checkElf(const uint8_t *code, size_t size, const std::string &where) {
  const char *problem = nullptr;
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(code, ELFMAG, SELFMAG) != 0)
    problem = "is not an ELF file";
  else if (code[EI_CLASS] != ELFCLASS64 || code[EI_DATA] != ELFDATA2LSB)
    problem = "is not a little-endian ELF64 file";
  else if (uint16_t(code[16] | code[17] << 8) != ET_DYN)
    problem = "is not a shared object";
  else if (uint16_t(code[18] | code[19] << 8) != kHostMachine)
    problem = "is built for another machine";
  if (problem)
    fail(TF_ERROR_FORMAT, where + ": the code " + problem + " (expected an " +
                              "ELF64 " + kHostMachineName + " shared object)");
}

/// Generated code leaves the tfrt_* kernels undefined and dlopen resolves
/// them in the global scope. When this library was itself loaded with
/// RTLD_LOCAL (Python's ctypes does that), its symbols are not there:
/// promote it once. The library is found through this function's own
/// address: an exported kernel's could be an interposer's (LD_PRELOAD).
void exportKernelsGlobally() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&exportKernelsGlobally), &info) &&
        info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  });
}

std::string fdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

} // namespace

ArtifactContents checkArtifact(const uint8_t *bytes, uint64_t size,
                               const std::string &where) {
  if (size < kHeaderSize + kChecksumSize)
    fail(TF_ERROR_FORMAT,
         where + ": too small to be a .tfm: " + std::to_string(size) +
             " bytes, at least " + std::to_string(kHeaderSize + kChecksumSize));
  if (std::memcmp(bytes, kMagic, sizeof(kMagic)) != 0)
    fail(TF_ERROR_FORMAT, where + ": not a .tfm file (bad magic)");
  uint32_t version = readU32(bytes + 8);
  if (version != TF_FORMAT_VERSION)
    fail(TF_ERROR_UNSUPPORTED,
         where + ": format version " + std::to_string(version) +
             ", this runtime reads " + std::to_string(TF_FORMAT_VERSION));
  uint64_t manifestSize = readU64(bytes + 16);
  uint64_t codeSize = readU64(bytes + 24);
  if (manifestSize > size || codeSize > size)
    fail(TF_ERROR_FORMAT,
         where + ": truncated: the header declares a manifest of " +
             std::to_string(manifestSize) + " bytes and code of " +
             std::to_string(codeSize) + " bytes, the file has " +
             std::to_string(size));
  uint64_t expected = kHeaderSize + manifestSize + codeSize + kChecksumSize;
  if (expected > size)
    fail(TF_ERROR_FORMAT, where + ": truncated: expected " +
                              std::to_string(expected) + " bytes, got " +
                              std::to_string(size));
  if (expected < size)
    fail(TF_ERROR_FORMAT, where + ": expected " + std::to_string(expected) +
                              " bytes, got " + std::to_string(size) +
                              " (trailing data)");
  uint64_t payload = expected - kChecksumSize;
  uint64_t stored = readU64(bytes + payload);
  uint64_t computed = fnv1a64(bytes, payload);
  if (stored != computed)
    fail(TF_ERROR_FORMAT, where + ": checksum mismatch (stored " + hex(stored) +
                              ", computed " + hex(computed) +
                              "): the file is corrupted");

  ArtifactContents contents;
  contents.manifestJson.assign(
      reinterpret_cast<const char *>(bytes + kHeaderSize), manifestSize);
  contents.manifest = parseManifest(contents.manifestJson, where);
  contents.code = bytes + kHeaderSize + manifestSize;
  contents.codeSize = codeSize;
  checkElf(contents.code, codeSize, where);
  return contents;
}

std::shared_ptr<Artifact> Artifact::open(const std::string &path) {
  std::string where = inQuotes(path);
  Buffer file = readFile(path);
  ArtifactContents contents = checkArtifact(file.data(), file.size(), where);
  const uint8_t *code = contents.code;
  uint64_t codeSize = contents.codeSize;

  std::shared_ptr<Artifact> artifact(new Artifact());
  artifact->path_ = path;
  artifact->manifestJson_ = std::move(contents.manifestJson);
  artifact->manifest_ = std::move(contents.manifest);

  // The code goes to an anonymous file that lives as long as the artifact.
  // (memfd names are limited to 249 bytes.)
  std::string memName = "transfuse:" + artifact->manifest_.model.substr(0, 200);
  int fd = memfd_create(memName.c_str(), MFD_CLOEXEC);
  if (fd < 0)
    fail(TF_ERROR_IO,
         where + ": cannot create a memory file: " + std::strerror(errno));
  artifact->codeFd_ = fd;
  for (uint64_t done = 0; done < codeSize;) {
    ssize_t wrote = ::write(fd, code + done, codeSize - done);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote < 0)
      fail(TF_ERROR_IO, where + ": cannot write the code to a memory file: " +
                            std::strerror(errno));
    done += static_cast<uint64_t>(wrote);
  }

  exportKernelsGlobally();
  // dlopen recognises an object it already has by its path string. Paths
  // /proc/self/fd/N are reused once a descriptor closes, and an object that
  // could not be unloaded would be handed back for a new artifact: move the
  // descriptor until its path is not one dlopen knows.
  for (int attempt = 0; attempt < 64; ++attempt) {
    void *stale =
        dlopen(fdPath(artifact->codeFd_).c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!stale)
      break;
    dlclose(stale);
    int moved =
        fcntl(artifact->codeFd_, F_DUPFD_CLOEXEC, artifact->codeFd_ + 1);
    if (moved < 0)
      fail(TF_ERROR_IO,
           where + ": cannot duplicate a descriptor: " + std::strerror(errno));
    ::close(artifact->codeFd_);
    artifact->codeFd_ = moved;
  }
  artifact->handle_ =
      dlopen(fdPath(artifact->codeFd_).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!artifact->handle_) {
    const char *reason = dlerror();
    fail(TF_ERROR_EXECUTION, where + ": cannot load the code: " +
                                 (reason ? reason : "unknown error"));
  }

  for (EntryPoint &entry : artifact->manifest_.entryPoints) {
    dlerror();
    void *symbol = dlsym(artifact->handle_, entry.symbol.c_str());
    if (!symbol)
      fail(TF_ERROR_FORMAT, where + ": entry point '" + entry.name +
                                "': symbol '" + entry.symbol +
                                "' is not defined by the code");
    entry.fn = reinterpret_cast<EntryFn>(symbol);
  }
  return artifact;
}

const void *Artifact::symbol(const std::string &name) const {
  return handle_ ? dlsym(handle_, name.c_str()) : nullptr;
}

Artifact::~Artifact() {
  if (handle_)
    dlclose(handle_);
  if (codeFd_ >= 0)
    ::close(codeFd_);
}

} // namespace transfuse::rt
