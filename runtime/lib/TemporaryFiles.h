//===- TemporaryFiles.h - Temporaries removed on a signal -------*- C++ -*-===//
//
// The temporaries of OutputFile (output.hpp): created beside the file they
// will replace and, until renamed or removed, listed where a handler of
// SIGINT, SIGTERM and SIGHUP finds them and unlinks them.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_TEMPORARYFILES_H
#define TRANSFUSE_RUNTIME_LIB_TEMPORARYFILES_H

#include <string>

namespace transfuse::rt {

struct Temporary {
  std::string path;
  int fd = -1;
  int slot = -1; // -1: not listed (no slot left, or the path is too long)
};

/// Creates `target.XXXXXX.tmp` (new, mode 0666 less the umask), open for
/// writing, and lists it. False with errno if it cannot be created.
bool createTemporary(const std::string &target, Temporary &temporary);

/// Takes it off the list: once renamed into place, or removed.
void forgetTemporary(Temporary &temporary);

/// Closes and removes it.
void removeTemporary(Temporary &temporary);

/// The file writing `path` replaces: the file a symbolic link names, so that
/// the link stays; `path` itself otherwise.
std::string outputTarget(const std::string &path);

/// The directory `path` is in: "." for a bare name.
std::string directoryOf(const std::string &path);

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_TEMPORARYFILES_H
