//===- SharedObjectLinker.cpp - An object to a shared object with lld -----===//
//
// lld runs in this process: compiling a model needs no external toolchain.
// The runtime's kernels (tfrt_*) and libc/libm stay undefined, resolved by
// dlopen in the process that loads the artifact.
//===----------------------------------------------------------------------===//
#include "ObjectEmitter.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

LLD_HAS_DRIVER(elf)

using namespace mlir;

namespace transfuse::cpu {

FailureOr<std::string> linkSharedObject(llvm::ArrayRef<char> object,
                                        std::string &error) {
  SmallString<128> objectPath, libraryPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("transfuse", "o", objectPath)) {
    error = "cannot create a temporary file: " + ec.message();
    return failure();
  }
  llvm::sys::fs::createTemporaryFile("transfuse", "so", libraryPath);
  auto cleanup = [&] {
    llvm::sys::fs::remove(objectPath);
    llvm::sys::fs::remove(libraryPath);
  };
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(objectPath, ec);
    file.write(object.data(), object.size());
  }
  std::string log;
  llvm::raw_string_ostream logStream(log);
  const char *args[] = {"ld.lld", "-shared",           "--gc-sections",   "-O2",
                        "-o",     libraryPath.c_str(), objectPath.c_str()};
  lld::Result result =
      lld::lldMain(args, logStream, logStream, {{lld::Gnu, &lld::elf::link}});
  if (result.retCode != 0) {
    error = "linking the shared object failed: " + log;
    cleanup();
    return failure();
  }
  auto library = llvm::MemoryBuffer::getFile(libraryPath);
  if (!library) {
    error = "cannot read the linked shared object";
    cleanup();
    return failure();
  }
  std::string bytes = (*library)->getBuffer().str();
  cleanup();
  return bytes;
}

} // namespace transfuse::cpu
