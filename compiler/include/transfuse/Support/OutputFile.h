//===- OutputFile.h - Files written whole or not at all ---------*- C++ -*-===//
//
// Every file the compiler's tools write (IR, summaries, LLVM IR, PTX, ptxas
// reports, --dump-phases-to files, .tfm artifacts) goes through OutputFile:
// the bytes go to a temporary beside the file, which replaces it only once
// all of them are written and synced. A failure, a full disk or a signal
// (llvm::sys::RemoveFileOnSignal) removes the temporary and leaves the file
// as it was. checkOutput lets a tool refuse, before any work, an output it
// could not write or that is one of its inputs. The runtime, which links no
// LLVM, has the same contract in transfuse/output.hpp.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_SUPPORT_OUTPUTFILE_H
#define TRANSFUSE_SUPPORT_OUTPUTFILE_H

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace transfuse {

/// A file written atomically. "-" is stdout. The temporary is
/// `PATH.XXXXXX.tmp` beside the file a symbolic link names (the link
/// stays); an existing file that is not a regular one (/dev/null, a pipe) is
/// written in place, as no rename can replace it. Errors read
/// `cannot write 'PATH': REASON`.
class OutputFile {
public:
  /// Null, with `error` set, if it cannot be opened.
  static std::unique_ptr<OutputFile> open(llvm::StringRef path,
                                          std::string &error);
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;
  /// Removes the temporary unless commit() succeeded.
  ~OutputFile();

  llvm::raw_ostream &os() { return *os_; }
  /// Flushes and checks the stream, then fsync, rename over the file, fsync
  /// of its directory. Once only.
  mlir::LogicalResult commit(std::string &error);

private:
  OutputFile(std::string path, std::string target, std::string temporary,
             int fd);
  mlir::LogicalResult fail(std::error_code ec, std::string &error);
  void discard();

  std::string path_, target_, temporary_; // temporary_: "" if in place
  int fd_;                                // -1 for stdout
  std::unique_ptr<llvm::raw_fd_ostream> ownStream_;
  llvm::raw_fd_ostream *os_;
};

/// OutputFile::open, `write`, commit.
mlir::LogicalResult
writeOutputFile(llvm::StringRef path,
                llvm::function_ref<void(llvm::raw_ostream &)> write,
                std::string &error);

/// A file a tool reads or writes, and what named it on the command line
/// (`-o`, `the spec`): messages name both.
struct FileArgument {
  std::string role, path;
};

/// Checks, before any work, that `output` can be written and that writing it
/// destroys nothing the tool needs: it is not a directory, its directory
/// exists and takes a new file, and it is none of `others` (compared as
/// files, by device and inode, so that `./x` and `x`, a symbolic link and a
/// hard link count as the same). "-" passes. Sets `error`:
///   -o 'model.pbtxt' is the same file as the spec 'model.pbtxt'
///   -o 'out/m.tfm': the directory 'out' does not exist
mlir::LogicalResult checkOutput(const FileArgument &output,
                                llvm::ArrayRef<FileArgument> others,
                                std::string &error);

} // namespace transfuse

#endif // TRANSFUSE_SUPPORT_OUTPUTFILE_H
