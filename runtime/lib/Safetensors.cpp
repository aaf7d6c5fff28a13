//===- Safetensors.cpp - Read and write safetensors files -----------------===//
//
// The format (https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON mapping each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end)} (offsets into the data
// that follows the header) plus an optional "__metadata__" map of strings,
// then the data. As in the reference implementation, the tensors must cover
// the data exactly: no overlap, no hole, nothing after the last one.
//
// Everything is checked before anything is used, so a truncated or
// corrupted file (checkpoint or input) is an error naming the file and the
// tensor, never a crash.
//===----------------------------------------------------------------------===//
#include "Json.h"

#include <algorithm>
#include <limits>

using json = nlohmann::json;

namespace transfuse::rt {

const char *safetensorsDtypeName(tf_dtype dtype) {
  switch (dtype) {
  case TF_F32:
    return "F32";
  case TF_F64:
    return "F64";
  case TF_I64:
    return "I64";
  case TF_I32:
    return "I32";
  case TF_BOOL:
    return "BOOL";
  }
  return "invalid";
}

namespace {

constexpr const char *kMetadataKey = "__metadata__";

bool parseSafetensorsDtype(const std::string &name, tf_dtype &dtype) {
  for (tf_dtype candidate : {TF_F32, TF_F64, TF_I64, TF_I32, TF_BOOL}) {
    if (name == safetensorsDtypeName(candidate)) {
      dtype = candidate;
      return true;
    }
  }
  return false;
}

/// A non-negative integer that fits in int64, or -1.
int64_t nonNegative(const json &value) {
  if (value.is_number_unsigned())
    return value.get<uint64_t>() <=
                   static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? static_cast<int64_t>(value.get<uint64_t>())
               : -1;
  if (value.is_number_integer())
    return value.get<int64_t>() >= 0 ? value.get<int64_t>() : -1;
  return -1;
}

std::string range(int64_t begin, int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

} // namespace

const StoredTensor *TensorFile::find(std::string_view name) const {
  for (const StoredTensor &tensor : tensors_)
    if (tensor.name == name)
      return &tensor;
  return nullptr;
}

TensorFile TensorFile::read(const std::string &path) {
  std::string where = inQuotes(path);
  TensorFile file;
  file.path_ = path;
  file.contents_ = readFile(path);
  const uint8_t *bytes = file.contents_.data();
  uint64_t size = file.contents_.size();

  if (size < 8)
    fail(TF_ERROR_FORMAT, where + ": truncated: " + std::to_string(size) +
                              " bytes, a safetensors file starts with an " +
                              "8-byte header length");
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = headerSize << 8 | bytes[i];
  if (headerSize > size - 8)
    fail(TF_ERROR_FORMAT,
         where + ": bad header length " + std::to_string(headerSize) +
             ": the file has " + std::to_string(size - 8) +
             " bytes after it (truncated or not a " + "safetensors file)");

  json header = parseJson(
      std::string_view(reinterpret_cast<const char *>(bytes + 8), headerSize),
      where + ": the header");
  if (!header.is_object())
    fail(TF_ERROR_FORMAT, where + ": the header is not a JSON object");

  const uint8_t *data = bytes + 8 + headerSize;
  int64_t dataSize = static_cast<int64_t>(size - 8 - headerSize);
  struct Span {
    int64_t begin, end;
    size_t index;
  };
  std::vector<Span> spans;

  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string &name = it.key();
    const json &entry = it.value();
    if (name == kMetadataKey) {
      if (!entry.is_object())
        fail(TF_ERROR_FORMAT, where + ": __metadata__ is not an object");
      for (auto meta = entry.begin(); meta != entry.end(); ++meta) {
        if (!meta.value().is_string())
          fail(TF_ERROR_FORMAT, where + ": __metadata__ value '" + meta.key() +
                                    "' is not a string");
        file.metadata_[meta.key()] = meta.value().get<std::string>();
      }
      continue;
    }
    std::string tensorWhere = where + ": tensor '" + name + "'";
    if (!entry.is_object())
      fail(TF_ERROR_FORMAT, tensorWhere + ": expected an object");
    StoredTensor tensor;
    tensor.name = name;

    auto dtype = entry.find("dtype");
    if (dtype == entry.end() || !dtype->is_string())
      fail(TF_ERROR_FORMAT, tensorWhere + ": missing or non-string 'dtype'");
    if (!parseSafetensorsDtype(dtype->get<std::string>(), tensor.dtype))
      fail(TF_ERROR_UNSUPPORTED,
           tensorWhere + ": unsupported dtype '" + dtype->get<std::string>() +
               "' (the runtime reads F32, F64, I64, I32 and BOOL)");

    auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array())
      fail(TF_ERROR_FORMAT, tensorWhere + ": missing or non-array 'shape'");
    for (const json &dim : *shape) {
      int64_t value = nonNegative(dim);
      if (value < 0)
        fail(TF_ERROR_FORMAT, tensorWhere + ": shape " + shape->dump() +
                                  " is not a list of non-negative integers");
      tensor.shape.push_back(value);
    }

    auto offsets = entry.find("data_offsets");
    if (offsets == entry.end() || !offsets->is_array() ||
        offsets->size() != 2 || nonNegative((*offsets)[0]) < 0 ||
        nonNegative((*offsets)[1]) < 0)
      fail(TF_ERROR_FORMAT, tensorWhere + ": 'data_offsets' is not a pair " +
                                "of non-negative integers");
    int64_t begin = nonNegative((*offsets)[0]);
    int64_t end = nonNegative((*offsets)[1]);
    if (end < begin)
      fail(TF_ERROR_FORMAT, tensorWhere + ": data_offsets " +
                                range(begin, end) + " end before they begin");

    int64_t numel = checkedNumel(tensor.shape);
    int64_t elementSize = static_cast<int64_t>(dtypeSize(tensor.dtype));
    if (numel < 0 || numel > std::numeric_limits<int64_t>::max() / elementSize)
      fail(TF_ERROR_FORMAT, tensorWhere + ": shape " +
                                shapeString(tensor.shape) + " is too large");
    if (end - begin != numel * elementSize)
      fail(TF_ERROR_FORMAT, tensorWhere + ": data_offsets " +
                                range(begin, end) + " hold " +
                                std::to_string(end - begin) + " bytes, but " +
                                safetensorsDtypeName(tensor.dtype) + " " +
                                shapeString(tensor.shape) + " needs " +
                                std::to_string(numel * elementSize));
    if (end > dataSize)
      fail(TF_ERROR_FORMAT, where + ": truncated: tensor '" + name +
                                "' ends at byte " + std::to_string(end) +
                                " of the data, which has " +
                                std::to_string(dataSize) + " bytes");
    tensor.data = data + begin;
    tensor.bytes = static_cast<size_t>(end - begin);
    spans.push_back({begin, end, file.tensors_.size()});
    file.tensors_.push_back(std::move(tensor));
  }

  // The tensors must tile the data: sorted by offset, each begins where the
  // previous ended (empty tensors may sit anywhere).
  std::stable_sort(
      spans.begin(), spans.end(), [](const Span &x, const Span &y) {
        return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
      });
  int64_t covered = 0;
  const Span *previous = nullptr;
  for (const Span &span : spans) {
    if (span.begin == span.end)
      continue;
    if (span.begin < covered)
      fail(TF_ERROR_FORMAT,
           where + ": tensors '" + file.tensors_[previous->index].name + "' " +
               range(previous->begin, previous->end) + " and '" +
               file.tensors_[span.index].name + "' " +
               range(span.begin, span.end) + " overlap");
    if (span.begin > covered)
      fail(TF_ERROR_FORMAT, where + ": bytes " + range(covered, span.begin) +
                                " of the data belong to no tensor");
    covered = span.end;
    previous = &span;
  }
  if (covered != dataSize)
    fail(TF_ERROR_FORMAT, where + ": bytes " + range(covered, dataSize) +
                              " of the data belong to no tensor");
  return file;
}

void writeTensorFile(const std::string &path,
                     std::vector<TensorToWrite> tensors,
                     const std::map<std::string, std::string> &metadata) {
  std::sort(tensors.begin(), tensors.end(),
            [](const TensorToWrite &x, const TensorToWrite &y) {
              size_t sx = dtypeSize(x.dtype), sy = dtypeSize(y.dtype);
              return sx != sy ? sx > sy : x.name < y.name;
            });
  json header = json::object();
  if (!metadata.empty())
    header[kMetadataKey] = metadata;
  uint64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorToWrite &tensor = tensors[i];
    if (tensor.name == kMetadataKey || tensor.name.empty())
      fail(TF_ERROR_INVALID_ARGUMENT, "cannot write " + inQuotes(path) +
                                          ": invalid tensor name '" +
                                          tensor.name + "'");
    if (i > 0 && tensors[i - 1].name == tensor.name)
      fail(TF_ERROR_INVALID_ARGUMENT, "cannot write " + inQuotes(path) +
                                          ": tensor '" + tensor.name +
                                          "' given twice");
    int64_t numel = checkedNumel(tensor.shape);
    if (numel < 0 ||
        static_cast<uint64_t>(numel) * dtypeSize(tensor.dtype) != tensor.bytes)
      fail(TF_ERROR_INVALID_ARGUMENT,
           "cannot write " + inQuotes(path) + ": tensor '" + tensor.name +
               "' has " + std::to_string(tensor.bytes) + " bytes for " +
               dtypeName(tensor.dtype) + " " + shapeString(tensor.shape));
    header[tensor.name] = {{"dtype", safetensorsDtypeName(tensor.dtype)},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + tensor.bytes}}};
    offset += tensor.bytes;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const json::exception &) {
    fail(TF_ERROR_INVALID_ARGUMENT,
         "cannot write " + inQuotes(path) + ": a name is not valid UTF-8");
  }
  // Pad with spaces so the data, and with the sort every tensor, is aligned.
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string length(8, '\0');
  for (int i = 0; i < 8; ++i)
    length[i] =
        static_cast<char>(static_cast<uint64_t>(text.size()) >> (8 * i));

  std::vector<std::string_view> pieces = {length, text};
  for (const TensorToWrite &tensor : tensors)
    pieces.emplace_back(static_cast<const char *>(tensor.data), tensor.bytes);
  writeFileAtomically(path, pieces);
}

} // namespace transfuse::rt
