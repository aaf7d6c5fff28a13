//===- FuzzSupport.h - What the fuzz targets share --------------*- C++ -*-===//
//
// The readers under test take paths, as the tools call them: each input is
// written to a file first, in memory where /dev/shm is. A reader may fail
// only with transfuse::Error; anything else it throws escapes the target and
// libFuzzer reports it as a crash, as it does a violated `expect`.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_FUZZ_FUZZSUPPORT_H
#define TRANSFUSE_TEST_FUZZ_FUZZSUPPORT_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace transfuse::fuzz {

/// Aborts with `what` when `condition` does not hold: a finding.
inline void expect(bool condition, const char *what) {
  if (condition)
    return;
  std::fprintf(stderr, "fuzz target: expected %s\n", what);
  std::abort();
}

/// One file per process and `name`, rewritten for every input and removed
/// at exit.
class InputFile {
public:
  explicit InputFile(const std::string &name) {
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                      : std::getenv("TMPDIR")       ? std::getenv("TMPDIR")
                                                    : "/tmp";
    path_ = std::string(dir) + "/transfuse-fuzz-" + std::to_string(getpid()) +
            "-" + name;
  }
  ~InputFile() { std::remove(path_.c_str()); }
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;

  const std::string &path() const { return path_; }

  /// Writes `size` bytes at `data` and returns the path.
  const std::string &write(const void *data, size_t size) const {
    std::FILE *file = std::fopen(path_.c_str(), "wb");
    bool written = file && std::fwrite(data, 1, size, file) == size;
    if (!file || std::fclose(file) != 0 || !written)
      throw std::runtime_error("cannot write " + path_);
    return path_;
  }

private:
  std::string path_;
};

} // namespace transfuse::fuzz

#endif // TRANSFUSE_TEST_FUZZ_FUZZSUPPORT_H
