//===- Files.cpp - Reading example files, writing text atomically ---------===//
//
// Example files are read line by line. Blank lines are skipped, so that a
// final newline or a gap between examples is harmless, but keep their
// numbers: every message names the line as an editor shows it.
//===----------------------------------------------------------------------===//
#include "Data.h"

namespace transfuse::data {
namespace detail {

std::vector<std::string_view> splitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t end = 0;
  while (true) {
    size_t begin = end;
    while (begin < text.size() && isSpace(text[begin]))
      ++begin;
    if (begin == text.size())
      return words;
    end = begin;
    while (end < text.size() && !isSpace(text[end]))
      ++end;
    words.push_back(text.substr(begin, end - begin));
  }
}

std::string readText(const std::string &path) {
  rt::Buffer contents = rt::readFile(path);
  return std::string(reinterpret_cast<const char *>(contents.data()),
                     contents.size());
}

std::vector<Record> readRecords(const std::string &path, const char *layout) {
  std::string text = readText(path);
  std::string_view rest = text;
  std::vector<Record> records;
  for (int64_t line = 1; !rest.empty(); ++line) {
    size_t newline = rest.find('\n');
    std::string_view content = rest.substr(0, newline);
    rest.remove_prefix(newline == std::string_view::npos ? rest.size()
                                                         : newline + 1);
    if (!content.empty() && content.back() == '\r')
      content.remove_suffix(1);
    if (content.empty())
      continue;
    Record record;
    record.line = line;
    if (!layout) {
      record.fields.emplace_back(content);
      records.push_back(std::move(record));
      continue;
    }
    size_t tab = content.find('\t');
    if (tab == std::string_view::npos)
      rt::fail(TF_ERROR_FORMAT, at(path, line) + ": expected '" + layout +
                                    "', the line has no tab");
    if (content.find('\t', tab + 1) != std::string_view::npos)
      rt::fail(TF_ERROR_FORMAT, at(path, line) + ": expected '" + layout +
                                    "', the line has more than one tab");
    record.fields.emplace_back(content.substr(0, tab));
    record.fields.emplace_back(content.substr(tab + 1));
    records.push_back(std::move(record));
  }
  return records;
}

} // namespace detail

void writeFileAtomically(const std::string &path, std::string_view text) {
  rt::writeFileAtomically(path, {text});
}

} // namespace transfuse::data
