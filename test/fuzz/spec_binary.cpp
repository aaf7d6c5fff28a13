//===- spec_binary.cpp - Fuzz the spec importer through the wire format ---===//
//
// Any bytes as a model spec in protobuf's binary format, printed as text
// and imported as spec_text imports it. Mutations of the binary form change
// a field, a layer or a repeated entry rather than a character, so most
// inputs are well-formed specs and the fuzzer spends its time in the
// importer's checks of layers, shapes and the training section, not in the
// text parser.
//===----------------------------------------------------------------------===//
#include "SpecImport.h"
#include "model.pb.h"

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // protobuf logs every string that is not UTF-8 as an error on stderr.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  transfuse::spec::Model model;
  // -1 keeps such an input out of the corpus.
  if (size > INT32_MAX || !model.ParseFromArray(data, static_cast<int>(size)))
    return -1;
  // Printed, a field the schema lacks is a number the text parser refuses.
  model.DiscardUnknownFields();
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(model, &text))
    return 0;
  transfuse::fuzz::importSpecText(text);
  return 0;
}
