//===- OutputFile.cpp - Files written whole or not at all -----------------===//
//
// llvm::ToolOutputFile writes the file itself, so a failure loses the old
// one; llvm::sys::fs::TempFile replaces every '%' of its model, so it cannot
// name a temporary after an arbitrary path. This is TempFile's scheme (a
// new file, RemoveFileOnSignal) named after the path, with the fsyncs a
// rename needs to be atomic after a crash.
//===----------------------------------------------------------------------===//
#include "transfuse/Support/OutputFile.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

#include <csignal>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <unistd.h>

using namespace mlir;
namespace fs = llvm::sys::fs;

namespace transfuse {
namespace {

std::error_code lastError() { return {errno, std::generic_category()}; }

/// The file writing `path` replaces: the file a symbolic link names, so that
/// the link stays; `path` itself otherwise.
std::string outputTarget(StringRef path) {
  SmallString<256> real;
  if (fs::is_symlink_file(path) && !fs::real_path(path, real))
    return real.str().str();
  return path.str();
}

std::string directoryOf(StringRef path) {
  StringRef parent = llvm::sys::path::parent_path(path);
  return parent.empty() ? "." : parent.str();
}

/// Creates `target.XXXXXX.tmp`, new, removed on a signal until renamed.
std::error_code createTemporary(StringRef target, std::string &path, int &fd) {
  std::error_code ec;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string suffix;
    unsigned bits = llvm::sys::Process::GetRandomNumber();
    for (int i = 0; i < 6; ++i, bits /= 36)
      suffix += "0123456789abcdefghijklmnopqrstuvwxyz"[bits % 36];
    path = (target + "." + suffix + ".tmp").str();
    // Listed before it exists, so that no signal finds it unlisted.
    llvm::sys::RemoveFileOnSignal(path);
    ec = fs::openFileForWrite(path, fd, fs::CD_CreateNew);
    if (!ec)
      return ec;
    llvm::sys::DontRemoveFileOnSignal(path);
    if (ec != std::errc::file_exists)
      return ec;
  }
  return ec;
}

void removeTemporary(const std::string &path) {
  fs::remove(path);
  llvm::sys::DontRemoveFileOnSignal(path);
}

void syncDirectory(StringRef path) {
  int fd =
      ::open(directoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// What makes two paths the same file: its device and inode or, for a file
/// still to be made, its directory's and its name.
struct FileId {
  fs::UniqueID id;
  std::string name;
  bool operator==(const FileId &other) const {
    return id == other.id && name == other.name;
  }
};

/// None for what no output can overwrite (a device, a pipe) or no path
/// reaches.
std::optional<FileId> fileId(StringRef path) {
  fs::file_status status;
  if (std::error_code ec = fs::status(path, status)) {
    fs::file_status directory;
    if (ec != std::errc::no_such_file_or_directory ||
        fs::status(directoryOf(path), directory))
      return std::nullopt;
    return FileId{directory.getUniqueID(),
                  llvm::sys::path::filename(path).str()};
  }
  if (!fs::is_regular_file(status))
    return std::nullopt;
  return FileId{status.getUniqueID(), ""};
}

} // namespace

OutputFile::OutputFile(std::string path, std::string target,
                       std::string temporary, int fd)
    : path_(std::move(path)), target_(std::move(target)),
      temporary_(std::move(temporary)), fd_(fd) {
  if (fd_ < 0) {
    os_ = &llvm::outs();
    return;
  }
  ownStream_ =
      std::make_unique<llvm::raw_fd_ostream>(fd_, /*shouldClose=*/false);
  os_ = ownStream_.get();
}

std::unique_ptr<OutputFile> OutputFile::open(StringRef path,
                                             std::string &error) {
  auto failed = [&](std::error_code ec) {
    error = ("cannot write '" + path + "': " + ec.message()).str();
    return nullptr;
  };
  // A file over RLIMIT_FSIZE must fail its write (EFBIG) and be reported,
  // not end the process with a crash report from LLVM's handler of SIGXFSZ.
  static std::once_flag ignored;
  std::call_once(ignored, [] { std::signal(SIGXFSZ, SIG_IGN); });
  if (path == "-")
    return std::unique_ptr<OutputFile>(new OutputFile("-", "-", "", -1));
  std::string target = outputTarget(path);
  fs::file_status status;
  bool exists = !fs::status(target, status);
  if (exists && fs::is_directory(status))
    return failed(std::make_error_code(std::errc::is_a_directory));
  int fd = -1;
  if (exists && !fs::is_regular_file(status)) {
    if (std::error_code ec =
            fs::openFileForWrite(target, fd, fs::CD_OpenExisting))
      return failed(ec);
    return std::unique_ptr<OutputFile>(
        new OutputFile(path.str(), target, "", fd));
  }
  std::string temporary;
  if (std::error_code ec = createTemporary(target, temporary, fd))
    return failed(ec);
  return std::unique_ptr<OutputFile>(
      new OutputFile(path.str(), target, temporary, fd));
}

OutputFile::~OutputFile() { discard(); }

LogicalResult OutputFile::fail(std::error_code ec, std::string &error) {
  error = "cannot write '" + path_ + "': " + ec.message();
  discard();
  return failure();
}

LogicalResult OutputFile::commit(std::string &error) {
  os_->flush();
  if (os_->has_error()) {
    std::error_code ec = os_->error();
    // Reported here, not by the stream's destructor as a fatal error.
    os_->clear_error();
    return fail(ec, error);
  }
  if (fd_ < 0)
    return success();
  ownStream_.reset();
  if (!temporary_.empty() && ::fsync(fd_) != 0)
    return fail(lastError(), error);
  int fd = fd_;
  fd_ = -1;
  if (std::error_code ec = llvm::sys::Process::SafelyCloseFileDescriptor(fd))
    return fail(ec, error);
  if (temporary_.empty())
    return success();
  if (std::error_code ec = fs::rename(temporary_, target_))
    return fail(ec, error);
  llvm::sys::DontRemoveFileOnSignal(temporary_);
  temporary_.clear();
  syncDirectory(target_);
  return success();
}

void OutputFile::discard() {
  if (ownStream_) {
    // Empty the buffer now: the stream's destructor reports an error of its
    // last flush as fatal.
    ownStream_->flush();
    ownStream_->clear_error();
    ownStream_.reset();
  }
  if (fd_ >= 0)
    llvm::sys::Process::SafelyCloseFileDescriptor(fd_);
  fd_ = -1;
  if (!temporary_.empty())
    removeTemporary(temporary_);
  temporary_.clear();
}

LogicalResult writeOutputFile(StringRef path,
                              llvm::function_ref<void(raw_ostream &)> write,
                              std::string &error) {
  std::unique_ptr<OutputFile> file = OutputFile::open(path, error);
  if (!file)
    return failure();
  write(file->os());
  return file->commit(error);
}

LogicalResult checkOutput(const FileArgument &output,
                          ArrayRef<FileArgument> others, std::string &error) {
  std::string named = output.role + " '" + output.path + "'";
  auto refuse = [&](const Twine &why) {
    error = (named + why).str();
    return failure();
  };
  if (output.path == "-")
    return success();
  if (output.path.empty())
    return refuse(": not a file name");

  if (std::optional<FileId> id = fileId(output.path))
    for (const FileArgument &other : others)
      if (other.path != "-" && fileId(other.path) == id)
        return refuse(" is the same file as " + other.role + " '" + other.path +
                      "'");

  std::string target = outputTarget(output.path);
  fs::file_status status;
  if (!fs::status(target, status)) {
    if (fs::is_directory(status))
      return refuse(": is a directory");
    // Written in place (OutputFile): its permissions say it all.
    if (!fs::is_regular_file(status)) {
      if (::access(target.c_str(), W_OK) != 0)
        return refuse(": " + lastError().message());
      return success();
    }
  }
  std::string directory = directoryOf(target);
  std::error_code ec = fs::status(directory, status);
  if (ec == std::errc::no_such_file_or_directory)
    return refuse(": the directory '" + directory + "' does not exist");
  if (!ec && !fs::is_directory(status))
    return refuse(": '" + directory + "' is not a directory");
  std::string probe;
  int fd = -1;
  if (std::error_code ec = createTemporary(target, probe, fd))
    return refuse(": cannot create a file in '" + directory +
                  "': " + ec.message());
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  removeTemporary(probe);
  return success();
}

} // namespace transfuse
