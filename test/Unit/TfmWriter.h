//===- TfmWriter.h - Write .tfm files for the runtime's tests ---*- C++ -*-===//
//
// The container of docs/artifact.md, written without the compiler, around
// the hand-written shared object of Inputs/fake_model.c (built by CMake; its
// path is TRANSFUSE_FAKE_MODEL) and the manifest that describes it.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_UNIT_TFMWRITER_H
#define TRANSFUSE_TEST_UNIT_TFMWRITER_H

#include <cstdint>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace transfuse::test {

inline uint64_t fnv1a64(const std::string &bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

inline void appendLE(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>(value >> (8 * i)));
}

/// The bytes of a .tfm: header, manifest, code, FNV-1a 64 checksum.
inline std::string tfmBytes(const std::string &manifest,
                            const std::string &code,
                            uint32_t formatVersion = 1) {
  std::string out = "TRANSFUS";
  appendLE(out, formatVersion, 4);
  appendLE(out, 0, 4);
  appendLE(out, manifest.size(), 8);
  appendLE(out, code.size(), 8);
  out += manifest;
  out += code;
  appendLE(out, fnv1a64(out), 8);
  return out;
}

inline std::string readBinary(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void writeBinary(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

/// The shared object built from Inputs/fake_model.c.
inline std::string fakeModelCode() { return readBinary(TRANSFUSE_FAKE_MODEL); }

/// The manifest of fake_model.c: its three parameters and five entry
/// points (see the comments there).
inline nlohmann::json fakeManifest() {
  using json = nlohmann::json;
  auto tensor = [](const char *name, const char *dtype, json shape) {
    return json{{"name", name}, {"dtype", dtype}, {"shape", shape}};
  };
  auto param = [&](const char *name, json shape, const char *kind, double a,
                   double b) {
    json p = tensor(name, "f32", shape);
    p["init"] = {{"kind", kind}, {"a", a}, {"b", b}};
    return p;
  };
  json tokens = tensor("tokens", "i64", {2, 3});
  tokens["max_value"] = 4;
  json ids = tensor("ids", "i32", {4});
  ids["max_value"] = 9;
  json xy =
      json::array({tensor("x", "f32", {2, 4}), tensor("y", "f32", {2, 4})});
  json sumProj = json::array(
      {tensor("sum", "f32", {2, 4}), tensor("proj", "f32", {2, 3})});
  return {
      {"format_version", 1},
      {"target", "cpu"},
      {"cpu", "x86-64"},
      {"producer", "TfmWriter.h"},
      {"model", "fake"},
      {"parameters",
       {param("w", {3, 4}, "normal", 0.0, 0.5),
        param("b", {3}, "uniform", -0.1, 0.1),
        param("table", {5, 2}, "uniform", -1.0, 1.0)}},
      {"entry_points",
       {{{"name", "forward"},
         {"symbol", "tf_entry_forward"},
         {"parameters", {"w", "b"}},
         {"inputs", xy},
         {"outputs", sumProj}},
        {{"name", "forward_bw"},
         {"symbol", "tf_entry_forward_bw"},
         {"parameters", {"b", "w"}},
         {"inputs", xy},
         {"outputs", sumProj}},
        {{"name", "embed"},
         {"symbol", "tf_entry_embed"},
         {"parameters", {"table"}},
         {"inputs", {tokens}},
         {"outputs", {tensor("rows", "f32", {2, 3, 2})}}},
        {{"name", "mixed"},
         {"symbol", "tf_entry_mixed"},
         {"parameters", json::array()},
         {"inputs",
          {ids, tensor("mask", "bool", {4}),
           tensor("scale", "f64", json::array())}},
         {"outputs", {tensor("out", "f64", {4})}}},
        {{"name", "fail"},
         {"symbol", "tf_entry_fail"},
         {"parameters", json::array()},
         {"inputs", json::array()},
         {"outputs", {tensor("out", "f32", {1})}}}}},
  };
}

} // namespace transfuse::test

#endif // TRANSFUSE_TEST_UNIT_TFMWRITER_H
