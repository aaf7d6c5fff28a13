//===- InvalidArgument.h - Errors in what a caller of the C++ API passes --===//
//
// Private to the runtime's generation code (Generate.cpp, Sampling.cpp,
// BeamSearch.cpp, DecodingEntryPoints.cpp), which report bad options and
// prompts as transfuse::Error with TF_ERROR_INVALID_ARGUMENT.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_INVALIDARGUMENT_H
#define TRANSFUSE_RUNTIME_LIB_INVALIDARGUMENT_H

#include "transfuse/transfuse.hpp"

#include <sstream>
#include <string>

namespace transfuse::detail {

[[noreturn]] inline void invalid(const std::string &message) {
  throw Error(TF_ERROR_INVALID_ARGUMENT, message);
}

/// A number as a message shows it: `0.5`, `inf`, `1e+30`.
inline std::string str(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

} // namespace transfuse::detail

#endif // TRANSFUSE_RUNTIME_LIB_INVALIDARGUMENT_H
