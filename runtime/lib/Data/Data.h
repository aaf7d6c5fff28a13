//===- Data.h - Internals shared by the data layer's sources ----*- C++ -*-===//
#ifndef TRANSFUSE_RUNTIME_LIB_DATA_DATA_H
#define TRANSFUSE_RUNTIME_LIB_DATA_DATA_H

#include "../Runtime.h"
#include "transfuse/data.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace transfuse::data::detail {

/// What `std::istream >> word` splits at in the C locale, as
/// `transfuse-run --text` reads words.
inline bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

/// The whitespace-separated words of `text`, viewing it.
std::vector<std::string_view> splitWords(std::string_view text);

/// `'path':line`, the way messages name a line of a data file.
inline std::string at(const std::string &path, int64_t line) {
  return rt::inQuotes(path) + ":" + std::to_string(line);
}

/// A non-blank line of an example file: its number and its fields, the
/// line cut at its one tab, or whole.
struct Record {
  int64_t line = 0;
  std::vector<std::string> fields;
};

/// The non-blank lines of `path` (without "\n" or "\r\n"). With `layout`
/// (e.g. "label<TAB>text") every line must hold exactly one tab and has two
/// fields; without, a line is one field.
std::vector<Record> readRecords(const std::string &path,
                                const char *layout = nullptr);

/// The whole file.
std::string readText(const std::string &path);

} // namespace transfuse::data::detail

#endif // TRANSFUSE_RUNTIME_LIB_DATA_DATA_H
