//===- safetensors.cpp - Fuzz the safetensors reader ----------------------===//
//
// Any bytes as a safetensors file (runtime/lib/Safetensors.cpp), the format
// of weights, inputs and checkpoints. A file the reader accepts holds its
// tensors back to back after the header, each as large as its dtype and
// shape say; every byte of them is read, so that ASan checks the reader's
// bounds.
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "Runtime.h"

using namespace transfuse::rt;
namespace fuzz = transfuse::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const fuzz::InputFile input("input.safetensors");
  try {
    TensorFile file = TensorFile::read(input.write(data, size));
    uint64_t headerSize = 0;
    for (int i = 7; i >= 0; --i)
      headerSize = headerSize << 8 | data[i];
    uint64_t covered = 0;
    uint8_t checksum = 0;
    for (const StoredTensor &tensor : file.tensors()) {
      fuzz::expect(static_cast<uint64_t>(checkedNumel(tensor.shape)) *
                           dtypeSize(tensor.dtype) ==
                       tensor.bytes,
                   "a tensor's bytes to match its dtype and shape");
      for (size_t i = 0; i < tensor.bytes; ++i)
        checksum ^= tensor.data[i];
      covered += tensor.bytes;
    }
    fuzz::expect(covered == size - 8 - headerSize,
                 "the tensors to cover the data after the header");
    static volatile uint8_t sink;
    sink = checksum; // keeps the reads
  } catch (const Error &) {
  }
  return 0;
}
