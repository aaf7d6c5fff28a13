//===- File.cpp - Whole-file reads and atomic writes ----------------------===//
#include "Runtime.h"
#include "transfuse/output.hpp"

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
  OutputFile file(path);
  for (std::string_view piece : pieces)
    file.write(piece);
  file.commit();
}

} // namespace transfuse::rt
