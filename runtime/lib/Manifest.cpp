//===- Manifest.cpp - Parse and validate a .tfm manifest ------------------===//
//
// The manifest is the contract between the compiler and the runtime
// (docs/artifact.md). Every field is checked here, once, so the rest of the
// runtime can trust it: a malformed manifest is an error naming the field by
// its path (`entry_points[0].inputs[1].shape[2]`), never a crash later.
// Unknown fields are ignored, so a newer compiler can add some.
//===----------------------------------------------------------------------===//
#include "Json.h"
#include "ManifestParser.h"

#include <cstdio>

#include <set>

namespace transfuse::rt {

namespace {
int64_t findTensor(const std::vector<TensorDesc> &tensors,
                   std::string_view name) {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name)
      return static_cast<int64_t>(i);
  return -1;
}
} // namespace

int64_t Manifest::findParameter(std::string_view name) const {
  return findTensor(parameters, name);
}

int64_t Manifest::findState(std::string_view name) const {
  return findTensor(state, name);
}

int64_t Manifest::findCache(std::string_view name) const {
  return findTensor(cache, name);
}

int64_t EntryPoint::findInput(std::string_view name) const {
  return findTensor(inputs, name);
}

int64_t EntryPoint::findOutput(std::string_view name) const {
  return findTensor(outputs, name);
}

int64_t Manifest::findEntryPoint(std::string_view name) const {
  for (size_t i = 0; i < entryPoints.size(); ++i)
    if (entryPoints[i].name == name)
      return static_cast<int64_t>(i);
  return -1;
}

namespace detail {

TensorDesc ManifestParser::tensor(const json &value,
                                  const std::string &path) const {
  object(value, path);
  TensorDesc desc;
  desc.name = string(*member(value, path, "name", true), join(path, "name"));
  std::string dtype =
      string(*member(value, path, "dtype", true), join(path, "dtype"));
  if (!parseDtype(dtype, desc.dtype))
    bad(join(path, "dtype"),
        "unknown dtype '" + dtype + "' (expected f32, f64, i64, i32 or bool)",
        TF_ERROR_UNSUPPORTED);
  std::string shapePath = join(path, "shape");
  const json &shape = array(*member(value, path, "shape", true), shapePath);
  if (shape.size() > TF_MAX_RANK)
    bad(shapePath, "rank " + std::to_string(shape.size()) +
                       " exceeds the runtime's limit of " +
                       std::to_string(TF_MAX_RANK));
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t dim = integer(shape[i], at(shapePath, i));
    if (dim < 0)
      bad(at(shapePath, i),
          "expected a non-negative size, got " + std::to_string(dim));
    desc.shape.push_back(dim);
  }
  desc.numel = checkedNumel(desc.shape);
  size_t size = dtypeSize(desc.dtype);
  if (desc.numel < 0 ||
      static_cast<uint64_t>(desc.numel) >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / size)
    bad(shapePath,
        "tensor of shape " + shapeString(desc.shape) + " is too large");
  desc.bytes = static_cast<size_t>(desc.numel) * size;
  return desc;
}

InitRule ManifestParser::init(const json &value, const std::string &path,
                              tf_dtype dtype) const {
  object(value, path);
  InitRule rule;
  std::string kindPath = join(path, "kind");
  std::string kind = string(*member(value, path, "kind", true), kindPath);
  int arity;
  if (kind == "zeros") {
    rule.kind = TF_INIT_ZEROS;
    arity = 0;
  } else if (kind == "ones") {
    rule.kind = TF_INIT_ONES;
    arity = 0;
  } else if (kind == "constant") {
    rule.kind = TF_INIT_CONSTANT;
    arity = 1;
  } else if (kind == "uniform") {
    rule.kind = TF_INIT_UNIFORM;
    arity = 2;
  } else if (kind == "normal") {
    rule.kind = TF_INIT_NORMAL;
    arity = 2;
  } else if (kind == "external") {
    rule.kind = TF_INIT_EXTERNAL;
    arity = 0;
  } else {
    bad(kindPath, "unknown init kind '" + kind +
                      "' (expected zeros, ones, constant, uniform, normal or "
                      "external)");
  }
  // Numbers a kind does not take may be present (as 0); they are ignored.
  if (const json *a = member(value, path, "a", arity >= 1))
    rule.a = number(*a, join(path, "a"));
  if (const json *b = member(value, path, "b", arity >= 2))
    rule.b = number(*b, join(path, "b"));
  if (arity < 1)
    rule.a = 0;
  if (arity < 2)
    rule.b = 0;

  if (rule.kind == TF_INIT_UNIFORM && !(rule.a <= rule.b))
    bad(path, "uniform init needs a <= b");
  if (rule.kind == TF_INIT_NORMAL && !(rule.b >= 0))
    bad(path, "normal init needs a standard deviation b >= 0");
  if ((rule.kind == TF_INIT_UNIFORM || rule.kind == TF_INIT_NORMAL) &&
      !isFloat(dtype))
    bad(path, kind + " init needs a floating-point parameter, not " +
                  dtypeName(dtype));
  if (rule.kind == TF_INIT_CONSTANT && isInteger(dtype)) {
    double limit = dtype == TF_I32 ? 2147483648.0 : 9223372036854775808.0;
    if (rule.a != std::trunc(rule.a) || rule.a < -limit || rule.a >= limit)
      bad(join(path, "a"),
          "not a valid " + std::string(dtypeName(dtype)) + " value");
  }
  if (rule.kind == TF_INIT_CONSTANT && dtype == TF_BOOL && rule.a != 0 &&
      rule.a != 1)
    bad(join(path, "a"), "a bool constant must be 0 or 1");
  return rule;
}

std::vector<TensorDesc> ManifestParser::tensorList(const json &object,
                                                   const std::string &path,
                                                   const char *key) const {
  std::string listPath = join(path, key);
  const json &list = array(*member(object, path, key, true), listPath);
  std::vector<TensorDesc> result;
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string itemPath = at(listPath, i);
    TensorDesc desc = tensor(list[i], itemPath);
    if (!names.insert(desc.name).second)
      bad(join(itemPath, "name"), "duplicate name '" + desc.name + "'");
    if (const json *maxValue = member(list[i], itemPath, "max_value", false)) {
      std::string maxPath = join(itemPath, "max_value");
      if (std::string(key) != "inputs" || !isInteger(desc.dtype))
        bad(maxPath, "max_value applies to integer inputs only");
      desc.maxValue = integer(*maxValue, maxPath);
      if (desc.maxValue < 0)
        bad(maxPath, "must be >= 0, got " + std::to_string(desc.maxValue));
      if (desc.dtype == TF_I32 &&
          desc.maxValue > std::numeric_limits<int32_t>::max())
        bad(maxPath, "out of range for i32");
    }
    if (const json *ignore = member(list[i], itemPath, "ignore_value", false)) {
      std::string ignorePath = join(itemPath, "ignore_value");
      if (desc.maxValue < 0)
        bad(ignorePath, "ignore_value applies to inputs with a max_value only");
      desc.ignoreValue = integer(*ignore, ignorePath);
    }
    result.push_back(std::move(desc));
  }
  return result;
}

std::vector<TensorDesc>
ManifestParser::variableList(const json &root, const char *key,
                             const Manifest &manifest) const {
  const json *list = member(root, "", key, false);
  if (!list)
    return {};
  array(*list, key);
  std::vector<TensorDesc> result;
  std::set<std::string> names;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string path = at(key, i);
    TensorDesc desc = tensor((*list)[i], path);
    if (!names.insert(desc.name).second)
      bad(join(path, "name"),
          "duplicate " + std::string(key) + " tensor '" + desc.name + "'");
    if (manifest.findParameter(desc.name) >= 0)
      bad(join(path, "name"),
          "'" + desc.name + "' is already the name of a parameter");
    if (manifest.findState(desc.name) >= 0)
      bad(join(path, "name"),
          "'" + desc.name + "' is already the name of a state tensor");
    if (desc.name == "__metadata__")
      bad(join(path, "name"), "'__metadata__' is reserved by safetensors");
    result.push_back(std::move(desc));
  }
  return result;
}

std::vector<size_t>
ManifestParser::entryVariables(const json &names, const std::string &path,
                               const char *key,
                               const std::vector<TensorDesc> &table) const {
  array(names, path);
  std::vector<size_t> result;
  std::set<int64_t> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string name = string(names[i], at(path, i));
    int64_t index = findTensor(table, name);
    if (index < 0)
      bad(at(path, i),
          "no " + std::string(key) + " tensor named '" + name + "'");
    if (!seen.insert(index).second)
      bad(at(path, i),
          std::string(key) + " tensor '" + name + "' listed twice");
    result.push_back(static_cast<size_t>(index));
  }
  return result;
}

EntryPoint ManifestParser::entryPoint(const json &value,
                                      const std::string &path,
                                      const Manifest &manifest) const {
  object(value, path);
  EntryPoint entry;
  entry.name = string(*member(value, path, "name", true), join(path, "name"));
  entry.symbol =
      string(*member(value, path, "symbol", true), join(path, "symbol"));
  std::string paramsPath = join(path, "parameters");
  const json &params =
      array(*member(value, path, "parameters", true), paramsPath);
  std::set<int64_t> seen;
  for (size_t i = 0; i < params.size(); ++i) {
    std::string name = string(params[i], at(paramsPath, i));
    int64_t index = manifest.findParameter(name);
    if (index < 0)
      bad(at(paramsPath, i), "no parameter named '" + name + "'");
    if (!seen.insert(index).second)
      bad(at(paramsPath, i), "parameter '" + name + "' listed twice");
    entry.parameters.push_back(static_cast<size_t>(index));
  }
  if (const json *state = member(value, path, "state", false)) {
    entry.state =
        entryVariables(*state, join(path, "state"), "state", manifest.state);
    entry.updates = true;
  }
  if (const json *cache = member(value, path, "cache", false))
    entry.cache =
        entryVariables(*cache, join(path, "cache"), "cache", manifest.cache);
  entry.inputs = tensorList(value, path, "inputs");
  entry.outputs = tensorList(value, path, "outputs");
  if (manifest.target == kCudaTarget)
    entry.arenaBytes = bytes(*member(value, path, "arena_bytes", true),
                             join(path, "arena_bytes"));
  return entry;
}

Manifest ManifestParser::parse(std::string_view text) {
  json root = parseJson(text, where + ": manifest");
  object(root, "");

  Manifest manifest;
  manifest.formatVersion =
      integer(*member(root, "", "format_version", true), "format_version");
  if (manifest.formatVersion != TF_FORMAT_VERSION)
    fail(TF_ERROR_UNSUPPORTED, where + ": manifest format_version " +
                                   std::to_string(manifest.formatVersion) +
                                   ", this runtime reads " +
                                   std::to_string(TF_FORMAT_VERSION));
  manifest.target = string(*member(root, "", "target", true), "target");
  if (manifest.target == kCudaTarget && !cudaSupported())
    fail(TF_ERROR_UNSUPPORTED,
         where + ": target 'cuda' but this runtime was built without CUDA "
                 "(TRANSFUSE_CUDA=OFF, or no CUDA toolkit at build time)");
  if (manifest.target != tf_runtime_target() && manifest.target != kCudaTarget)
    fail(
        TF_ERROR_UNSUPPORTED,
        where + ": target '" + manifest.target + "' but this runtime runs '" +
            tf_runtime_target() + "'" +
            (cudaSupported() ? " and '" + std::string(kCudaTarget) + "'" : ""));
  if (manifest.target == kCudaTarget)
    manifest.cuda = cuda(*member(root, "", "cuda", true), "cuda");
  manifest.cpu = optionalString(root, "", "cpu");
  manifest.producer = optionalString(root, "", "producer");
  manifest.model = string(*member(root, "", "model", true), "model");

  const json &params =
      array(*member(root, "", "parameters", true), "parameters");
  for (size_t i = 0; i < params.size(); ++i) {
    std::string path = at("parameters", i);
    TensorDesc desc = tensor(params[i], path);
    if (manifest.findParameter(desc.name) >= 0)
      bad(join(path, "name"), "duplicate parameter '" + desc.name + "'");
    if (desc.name == "__metadata__")
      bad(join(path, "name"), "'__metadata__' is reserved by safetensors");
    desc.init = init(*member(params[i], path, "init", true), join(path, "init"),
                     desc.dtype);
    manifest.parameters.push_back(std::move(desc));
  }
  manifest.state = variableList(root, "state", manifest);
  manifest.cache = variableList(root, "cache", manifest);

  const json &entries =
      array(*member(root, "", "entry_points", true), "entry_points");
  if (entries.empty())
    bad("entry_points", "the manifest declares no entry point");
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string path = at("entry_points", i);
    EntryPoint entry = entryPoint(entries[i], path, manifest);
    if (manifest.findEntryPoint(entry.name) >= 0)
      bad(join(path, "name"), "duplicate entry point '" + entry.name + "'");
    manifest.entryPoints.push_back(std::move(entry));
  }
  if (const json *section = member(root, "", "training", false))
    manifest.training = training(*section, "training");
  checkTraining(manifest);
  manifest.canonicalJson = root.dump();
  // What a checkpoint must agree with: the model's parameters, state and
  // training settings, not the target nor the shapes of the entry points,
  // which the batch size sets: a data-parallel run divides its batch among
  // its ranks, and any number of them resumes the same checkpoint.
  for (const char *key : {"target", "cpu", "cuda", "entry_points", "cache"})
    root.erase(key);
  if (root.contains("training"))
    root["training"].erase("all_reduce_buckets");
  manifest.modelJson = root.dump();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a64(
                    manifest.modelJson.data(), manifest.modelJson.size())));
  manifest.fingerprint = hex;
  return manifest;
}

} // namespace detail

Manifest parseManifest(std::string_view json, const std::string &where) {
  return detail::ManifestParser(where).parse(json);
}

} // namespace transfuse::rt
