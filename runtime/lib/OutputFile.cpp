//===- OutputFile.cpp - Files written whole or not at all -----------------===//
//
// A temporary beside the file, fsync, rename, fsync of the directory: after
// a crash the file is the old one or the new one, never a part. SIGXFSZ is
// blocked while writing, so that a file over RLIMIT_FSIZE (`ulimit -f`) is an
// error like a full disk (EFBIG) rather than the end of the process.
//===----------------------------------------------------------------------===//
#include "transfuse/output.hpp"

#include "Runtime.h"
#include "TemporaryFiles.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace transfuse {
namespace {

/// write() until all of `bytes` is written; false with errno if it fails.
bool writeAll(int fd, std::string_view bytes) {
  sigset_t fileSize, before;
  sigemptyset(&fileSize);
  sigaddset(&fileSize, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &fileSize, &before);
  bool written = true;
  while (!bytes.empty()) {
    ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0) {
      if (wrote == 0)
        errno = EIO;
      written = false;
      break;
    }
    bytes.remove_prefix(static_cast<size_t>(wrote));
  }
  int error = errno;
  // Past the limit the kernel also sent SIGXFSZ, pending while blocked: take
  // it, or unblocking would end the process after all.
  if (!written && error == EFBIG && !sigismember(&before, SIGXFSZ)) {
    struct timespec now = {0, 0};
    sigtimedwait(&fileSize, nullptr, &now);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  errno = error;
  return written;
}

void syncDirectory(const std::string &path) {
  int fd =
      ::open(rt::directoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

} // namespace

OutputFile::OutputFile(const std::string &path, Mode mode)
    : path_(path), target_(rt::outputTarget(path)) {
  struct stat info;
  bool exists = ::stat(target_.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode)) {
    errno = EISDIR;
    abandon();
  }
  if (exists && !S_ISREG(info.st_mode)) {
    fd_ = ::open(target_.c_str(),
                 O_WRONLY | O_CLOEXEC | (mode == Mode::Append ? O_APPEND : 0));
    if (fd_ < 0)
      abandon();
    return;
  }
  rt::Temporary temporary;
  if (!rt::createTemporary(target_, temporary))
    abandon();
  temporary_ = temporary.path;
  fd_ = temporary.fd;
  slot_ = temporary.slot;
  if (mode == Mode::Append && exists) {
    try {
      rt::Buffer old = rt::readFile(target_);
      write({reinterpret_cast<const char *>(old.data()), old.size()});
    } catch (...) {
      discard(); // no destructor runs for a constructor that throws
      throw;
    }
  }
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::write(std::string_view bytes) {
  if (fd_ < 0)
    rt::fail(TF_ERROR_IO,
             "cannot write " + rt::inQuotes(path_) + ": already closed");
  if (!writeAll(fd_, bytes))
    abandon();
}

void OutputFile::commit() {
  if (fd_ < 0)
    rt::fail(TF_ERROR_IO,
             "cannot write " + rt::inQuotes(path_) + ": already closed");
  if (temporary_.empty()) {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0)
      abandon();
    return;
  }
  if (::fsync(fd_) != 0)
    abandon();
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 || ::rename(temporary_.c_str(), target_.c_str()) != 0)
    abandon();
  rt::Temporary renamed{temporary_, -1, slot_};
  rt::forgetTemporary(renamed);
  temporary_.clear();
  slot_ = -1;
  syncDirectory(target_);
}

void OutputFile::abandon() {
  std::string message =
      "cannot write " + rt::inQuotes(path_) + ": " + std::strerror(errno);
  discard();
  rt::fail(TF_ERROR_IO, message);
}

void OutputFile::discard() noexcept {
  if (!temporary_.empty()) {
    rt::Temporary temporary{temporary_, fd_, slot_};
    rt::removeTemporary(temporary);
  } else if (fd_ >= 0) {
    ::close(fd_);
  }
  fd_ = -1;
  slot_ = -1;
  temporary_.clear();
}

} // namespace transfuse
