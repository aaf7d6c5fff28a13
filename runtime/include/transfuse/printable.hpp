//===- printable.hpp - Text safe to print on a terminal ---------*- C++ -*-===//
//
// Error messages quote what they were given (tensor names from a file, a
// line of data, a path, an argument), and a control byte among them (ESC
// starts a terminal escape sequence) must not reach a terminal raw. The
// runtime's errors pass through printable(); the tools print theirs with it.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_PRINTABLE_HPP
#define TRANSFUSE_PRINTABLE_HPP

#include "transfuse/transfuse.h"

#include <string>
#include <string_view>

namespace transfuse {

/// `text` with every byte that is not printable ASCII or well-formed UTF-8
/// (control bytes, line breaks, C1 controls, malformed sequences) written
/// as `\xNN`: one line, safe to print.
TF_API std::string printable(std::string_view text);

} // namespace transfuse

#endif // TRANSFUSE_PRINTABLE_HPP
