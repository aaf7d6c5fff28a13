//===- LineFile.cpp - Token ids from a file of lines, and progress --------===//
#include "LineFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <unistd.h>

namespace transfuse::text {
namespace {

std::vector<std::vector<int64_t>>
readLines(std::istream &in, const std::string &name, const Tokenizer &tokenizer,
          const std::function<void(const std::vector<int64_t> &)> &check) {
  std::vector<std::vector<int64_t>> lines;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    try {
      lines.push_back(tokenizer.encode(line));
      check(lines.back());
    } catch (const std::exception &error) {
      throw std::runtime_error(name + ":" + std::to_string(number) + ": " +
                               error.what());
    }
  }
  if (in.bad())
    throw std::runtime_error("cannot read " + name + ": " +
                             std::strerror(errno));
  return lines;
}

} // namespace

std::vector<std::vector<int64_t>>
readTokenLines(const std::optional<std::string> &path, const std::string &flag,
               const Tokenizer &tokenizer,
               const std::function<void(const std::vector<int64_t> &)> &check) {
  if (!path || *path == "-")
    return readLines(std::cin, "<stdin>", tokenizer, check);
  std::ifstream file(*path, std::ios::binary);
  if (!file)
    throw std::runtime_error(flag + " '" + *path +
                             "': " + std::strerror(errno));
  return readLines(file, *path, tokenizer, check);
}

std::function<void(size_t, size_t)> progressReporter(const std::string &verb,
                                                     size_t batches) {
  bool terminal = isatty(STDERR_FILENO);
  if (!terminal && batches <= 1)
    return nullptr;
  return [terminal, verb](size_t done, size_t total) {
    std::fprintf(stderr, terminal ? "\r%s %zu/%zu lines" : "%s %zu/%zu lines\n",
                 verb.c_str(), done, total);
    if (terminal && done == total)
      std::fputc('\n', stderr);
  };
}

} // namespace transfuse::text
