//===- Json.h - JSON read from files ----------------------------*- C++ -*-===//
//
// The JSON of safetensors headers, manifests and checkpoint metadata comes
// from files, so its nesting is limited: nlohmann's parser is iterative, but
// its serialiser and comparisons recurse, and a file of a hundred thousand
// '[' would overflow the stack of any message that shows the value. The
// runtime's own JSON nests a few levels deep.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_JSON_H
#define TRANSFUSE_RUNTIME_LIB_JSON_H

#include "Runtime.h"

#include <nlohmann/json.hpp>
#include <string_view>

namespace transfuse::rt {

constexpr int kMaxJsonDepth = 64;

/// Parses `text`, the JSON `what` names ("'w.safetensors': the header");
/// fails with TF_ERROR_FORMAT, the message starting with `what`, on invalid
/// JSON or nesting deeper than kMaxJsonDepth.
inline nlohmann::json parseJson(std::string_view text,
                                const std::string &what) {
  using json = nlohmann::json;
  struct TooDeep {};
  json::parser_callback_t limit = [](int depth, json::parse_event_t, json &) {
    if (depth > kMaxJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), limit);
  } catch (const json::exception &error) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    std::string message = error.what();
    if (size_t close = message.find("] "); close != std::string::npos)
      message = message.substr(close + 2);
    fail(TF_ERROR_FORMAT, what + " is not valid JSON: " + message);
  } catch (const TooDeep &) {
    fail(TF_ERROR_FORMAT, what + " nests deeper than " +
                              std::to_string(kMaxJsonDepth) + " levels");
  }
}

} // namespace transfuse::rt

#endif // TRANSFUSE_RUNTIME_LIB_JSON_H
