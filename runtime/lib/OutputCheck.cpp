//===- OutputCheck.cpp - Outputs refused before any work ------------------===//
//
// A tool checks its outputs first, so that a run that could not save, or
// would save over its own model or data, fails at once instead of at its
// end. Writability is tried, not guessed from permission bits: a temporary
// is created and removed where the output's will be (root passes every
// permission check, a read-only file system none).
//===----------------------------------------------------------------------===//
#include "transfuse/output.hpp"

#include "Runtime.h"
#include "TemporaryFiles.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace transfuse {
namespace {

/// What makes two paths the same file: its device and inode or, for a file
/// still to be made, its directory's and its name.
struct FileId {
  dev_t device;
  ino_t inode;
  std::string name;
  bool operator==(const FileId &other) const {
    return device == other.device && inode == other.inode && name == other.name;
  }
};

/// None for what no output can overwrite (a device, a pipe) or no path
/// reaches.
std::optional<FileId> fileId(const std::string &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode))
      return std::nullopt;
    return FileId{info.st_dev, info.st_ino, ""};
  }
  std::string directory = rt::directoryOf(path);
  if (errno != ENOENT || ::stat(directory.c_str(), &info) != 0)
    return std::nullopt;
  size_t slash = path.find_last_of('/');
  return FileId{info.st_dev, info.st_ino,
                slash == std::string::npos ? path : path.substr(slash + 1)};
}

} // namespace

void checkOutput(const FileArgument &output,
                 const std::vector<FileArgument> &others) {
  std::string named = output.role + " " + rt::inQuotes(output.path);
  auto refuse = [&](tf_status status, const std::string &why) {
    rt::fail(status, named + why);
  };
  if (output.path.empty())
    refuse(TF_ERROR_INVALID_ARGUMENT, ": not a file name");

  if (std::optional<FileId> id = fileId(output.path))
    for (const FileArgument &other : others)
      if (fileId(other.path) == id)
        refuse(TF_ERROR_INVALID_ARGUMENT, " is the same file as " + other.role +
                                              " " + rt::inQuotes(other.path));

  std::string target = rt::outputTarget(output.path);
  struct stat info;
  if (::stat(target.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode))
      refuse(TF_ERROR_IO, ": is a directory");
    // Written in place (OutputFile): its permissions say it all.
    if (!S_ISREG(info.st_mode)) {
      if (::access(target.c_str(), W_OK) != 0)
        refuse(TF_ERROR_IO, ": " + std::string(std::strerror(errno)));
      return;
    }
  }
  std::string directory = rt::directoryOf(target);
  if (::stat(directory.c_str(), &info) != 0 && errno == ENOENT)
    refuse(TF_ERROR_IO,
           ": the directory " + rt::inQuotes(directory) + " does not exist");
  if (::stat(directory.c_str(), &info) == 0 && !S_ISDIR(info.st_mode))
    refuse(TF_ERROR_IO, ": " + rt::inQuotes(directory) + " is not a directory");
  rt::Temporary probe;
  if (!rt::createTemporary(target, probe))
    refuse(TF_ERROR_IO, ": cannot create a file in " + rt::inQuotes(directory) +
                            ": " + std::strerror(errno));
  rt::removeTemporary(probe);
}

} // namespace transfuse
