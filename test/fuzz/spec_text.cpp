//===- spec_text.cpp - Fuzz the text spec importer ------------------------===//
//
// Any bytes as a model spec in protobuf text format (models/model.proto),
// through compiler/lib/Spec and compiler/lib/Import. Its dictionary, the
// schema's names, is written by the fuzz build (test/fuzz/CMakeLists.txt).
//===----------------------------------------------------------------------===//
#include "SpecImport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  transfuse::fuzz::importSpecText(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  return 0;
}
