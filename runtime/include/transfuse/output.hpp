//===- output.hpp - Files written whole or not at all -----------*- C++ -*-===//
//
// Every file the runtime and its tools write (checkpoints, weights, outputs,
// generated data, metrics logs) goes through OutputFile: the bytes go to a
// temporary beside the file, which replaces it only once all of them are
// written and synced. A failure, a full disk or SIGINT/SIGTERM/SIGHUP
// removes the temporary and leaves the file as it was. checkOutput lets a
// tool refuse, before any work, an output it could not write or that is one
// of its inputs.
//
//   transfuse::checkOutput({"--out", path}, {{"--data", data}});
//   transfuse::OutputFile file(path);
//   file.write(text);
//   file.commit();
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_OUTPUT_HPP
#define TRANSFUSE_OUTPUT_HPP

#include "transfuse/transfuse.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace transfuse {

/// A file written atomically. The temporary is `PATH.XXXXXX.tmp` beside the
/// file a symbolic link names (the link stays); an existing file that is not
/// a regular one (/dev/null, a pipe) is written in place, as no rename can
/// replace it. Errors are transfuse::Error (TF_ERROR_IO) naming the path.
class TF_API OutputFile {
public:
  enum class Mode {
    Replace,
    /// Starts from a copy of the file (if there is one), to add to it.
    Append,
  };

  explicit OutputFile(const std::string &path, Mode mode = Mode::Replace);
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;
  /// Removes the temporary unless commit() succeeded.
  ~OutputFile();

  void write(std::string_view bytes);
  /// fsync, rename over the file, fsync of its directory. Once only.
  void commit();

  const std::string &path() const { return path_; }

private:
  /// Removes the temporary, then throws the error of errno.
  [[noreturn]] void abandon();
  void discard() noexcept;

  std::string path_;
  std::string target_;    // the file replaced: path_, or what its link names
  std::string temporary_; // empty when written in place
  int fd_ = -1;
  int slot_ = -1; // in the registry of temporaries removed on a signal
};

/// A file a tool reads or writes, and what named it on the command line
/// (`--save`, `the model`): messages name both.
struct FileArgument {
  std::string role, path;
};

/// Checks, before any work, that `output` can be written and that writing it
/// destroys nothing the tool needs: it is not a directory, its directory
/// exists and takes a new file, and it is none of `others` (compared as
/// files, by device and inode, so that `./x` and `x`, a symbolic link and a
/// hard link count as the same). Throws transfuse::Error:
///   --save 'runs/c.safetensors': the directory 'runs' does not exist
///   --log 'm.tfm' is the same file as the model 'm.tfm'
TF_API void checkOutput(const FileArgument &output,
                        const std::vector<FileArgument> &others);

} // namespace transfuse

#endif // TRANSFUSE_OUTPUT_HPP
