//===- ManifestParser.h - The manifest parser's checks ----------*- C++ -*-===//
//
// Shared by Manifest.cpp (the container of entry points and parameters) and
// ManifestTraining.cpp (the training section and optimizer state): typed
// accessors that fail with the path of the field they read.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_MANIFESTPARSER_H
#define TRANSFUSE_RUNTIME_LIB_MANIFESTPARSER_H

#include "Runtime.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace transfuse::rt::detail {

using json = nlohmann::json;

inline std::string describe(const json &value) {
  if (value.is_number_float())
    return "a number";
  if (value.is_number())
    return "an integer";
  if (value.is_string())
    return "a string";
  if (value.is_boolean())
    return "a boolean";
  if (value.is_null())
    return "null";
  if (value.is_array())
    return "an array";
  return "an object";
}

inline std::string join(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

inline std::string at(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

class ManifestParser {
public:
  explicit ManifestParser(const std::string &where) : where(where) {}

  Manifest parse(std::string_view text);

private:
  [[noreturn]] void bad(const std::string &path, const std::string &what,
                        tf_status status = TF_ERROR_FORMAT) const {
    fail(status,
         where + ": manifest: " + (path.empty() ? "" : path + ": ") + what);
  }

  /// The member `key` of `object`, or null if absent and not required.
  const json *member(const json &object, const std::string &path,
                     const char *key, bool required) const {
    auto it = object.find(key);
    if (it == object.end()) {
      if (required)
        bad(path, std::string("missing field '") + key + "'");
      return nullptr;
    }
    return &*it;
  }

  const json &object(const json &value, const std::string &path) const {
    if (!value.is_object())
      bad(path, "expected an object, got " + describe(value));
    return value;
  }

  const json &array(const json &value, const std::string &path) const {
    if (!value.is_array())
      bad(path, "expected an array, got " + describe(value));
    return value;
  }

  std::string string(const json &value, const std::string &path,
                     bool nonEmpty = true) const {
    if (!value.is_string())
      bad(path, "expected a string, got " + describe(value));
    std::string text = value.get<std::string>();
    if (nonEmpty && text.empty())
      bad(path, "must not be empty");
    return text;
  }

  int64_t integer(const json &value, const std::string &path) const {
    if (value.is_number_unsigned()) {
      if (value.get<uint64_t>() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        bad(path, "integer out of range");
      return static_cast<int64_t>(value.get<uint64_t>());
    }
    if (!value.is_number_integer())
      bad(path, "expected an integer, got " + describe(value));
    return value.get<int64_t>();
  }

  double number(const json &value, const std::string &path) const {
    if (!value.is_number())
      bad(path, "expected a number, got " + describe(value));
    double result = value.get<double>();
    if (!std::isfinite(result))
      bad(path, "expected a finite number");
    return result;
  }

  std::string optionalString(const json &object, const std::string &path,
                             const char *key) const {
    const json *value = member(object, path, key, false);
    return value ? string(*value, join(path, key), false) : std::string();
  }

  /// name, dtype and shape of a parameter, input or output.
  TensorDesc tensor(const json &value, const std::string &path) const;
  InitRule init(const json &value, const std::string &path,
                tf_dtype dtype) const;
  EntryPoint entryPoint(const json &value, const std::string &path,
                        const Manifest &manifest) const;
  std::vector<TensorDesc> tensorList(const json &object,
                                     const std::string &path,
                                     const char *key) const;

  /// The optional top-level list `key` of tensors the entry points keep
  /// ("state": the optimizer's; "cache": the decoding cache), none of them
  /// named like a parameter or another such tensor.
  std::vector<TensorDesc> variableList(const json &root, const char *key,
                                       const Manifest &manifest) const;
  /// An entry point's list of names in `table` (the top-level list `key`),
  /// as indices into it.
  std::vector<size_t>
  entryVariables(const json &names, const std::string &path, const char *key,
                 const std::vector<TensorDesc> &table) const;

  // The training section (ManifestTraining.cpp).
  Training training(const json &value, const std::string &path) const;

  // Target "cuda" (ManifestCuda.cpp).
  /// The `cuda` section: images, kernels, workspace.
  CudaCode cuda(const json &value, const std::string &path) const;
  /// A non-negative byte count.
  uint64_t bytes(const json &value, const std::string &path) const;
  /// The train_step contract (docs/artifact.md), once everything is parsed.
  void checkTraining(const Manifest &manifest) const;

  const std::string &where;
};

} // namespace transfuse::rt::detail

#endif // TRANSFUSE_RUNTIME_LIB_MANIFESTPARSER_H
