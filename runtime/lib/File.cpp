//===- File.cpp - Whole-file reads and atomic writes ----------------------===//
#include "Runtime.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace transfuse::rt {

namespace {

/// Closes a descriptor on scope exit.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

std::string reason() { return std::strerror(errno); }

} // namespace

Buffer readFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail(TF_ERROR_IO, "cannot read " + inQuotes(path) + ": " + reason());
  FdCloser closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0)
    fail(TF_ERROR_IO, "cannot read " + inQuotes(path) + ": " + reason());
  if (S_ISDIR(info.st_mode))
    fail(TF_ERROR_IO, "cannot read " + inQuotes(path) + ": Is a directory");
  if (!S_ISREG(info.st_mode))
    fail(TF_ERROR_IO, "cannot read " + inQuotes(path) + ": not a regular file");
  Buffer buffer(static_cast<size_t>(info.st_size));
  size_t done = 0;
  while (done < buffer.size()) {
    ssize_t got = ::read(fd, buffer.data() + done, buffer.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      fail(TF_ERROR_IO, "cannot read " + inQuotes(path) + ": " + reason());
    if (got == 0)
      fail(TF_ERROR_IO, "cannot read " + inQuotes(path) +
                            ": the file shrank while it was read");
    done += static_cast<size_t>(got);
  }
  return buffer;
}

void writeFileAtomically(const std::string &path,
                         const std::vector<std::string_view> &pieces) {
  std::string temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    fail(TF_ERROR_IO, "cannot write " + inQuotes(temp) + ": " + reason());
  auto abandon = [&](const std::string &what) {
    std::string message = what + ": " + reason();
    if (fd >= 0)
      ::close(fd);
    ::unlink(temp.c_str());
    fail(TF_ERROR_IO, message);
  };
  for (std::string_view piece : pieces) {
    size_t done = 0;
    while (done < piece.size()) {
      ssize_t wrote = ::write(fd, piece.data() + done, piece.size() - done);
      if (wrote < 0 && errno == EINTR)
        continue;
      if (wrote < 0)
        abandon("cannot write " + inQuotes(temp));
      done += static_cast<size_t>(wrote);
    }
  }
  if (::fsync(fd) != 0)
    abandon("cannot sync " + inQuotes(temp));
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    abandon("cannot write " + inQuotes(temp));
  if (::rename(temp.c_str(), path.c_str()) != 0)
    abandon("cannot rename " + inQuotes(temp) + " to " + inQuotes(path));
  // Make the rename itself durable.
  std::string dir = ".";
  if (size_t slash = path.rfind('/'); slash != std::string::npos)
    dir = slash ? path.substr(0, slash) : "/";
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
}

} // namespace transfuse::rt
