//===- Printable.cpp - Messages safe to print on a terminal ---------------===//
#include "transfuse/printable.hpp"

namespace transfuse {
namespace {

/// The length of the well-formed UTF-8 sequence at `text[i]` that is not a
/// C1 control (U+0080..U+009F), or 0.
size_t printableSequence(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  size_t length = lead >= 0xf0 && lead <= 0xf4   ? 4
                  : lead >= 0xe0                 ? 3
                  : lead >= 0xc2 && lead <= 0xdf ? 2
                                                 : 0;
  if (length == 0 || lead > 0xf4 || i + length > text.size())
    return 0;
  for (size_t k = 1; k < length; ++k)
    if ((byte(i + k) & 0xc0) != 0x80)
      return 0;
  // Overlong forms, surrogates and code points past U+10FFFF.
  unsigned char second = byte(i + 1);
  if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f) ||
      (lead == 0xf0 && second < 0x90) || (lead == 0xf4 && second > 0x8f))
    return 0;
  if (lead == 0xc2 && second <= 0x9f)
    return 0;
  return length;
}

} // namespace

std::string printable(std::string_view text) {
  static const char digits[] = "0123456789abcdef";
  std::string result;
  result.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      result += static_cast<char>(c);
      ++i;
      continue;
    }
    if (size_t length = c >= 0x80 ? printableSequence(text, i) : 0) {
      result.append(text.substr(i, length));
      i += length;
      continue;
    }
    result += "\\x";
    result += digits[c >> 4];
    result += digits[c & 15];
    ++i;
  }
  return result;
}

} // namespace transfuse
