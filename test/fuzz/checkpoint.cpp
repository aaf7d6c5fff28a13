//===- checkpoint.cpp - Fuzz the checkpoint reader ------------------------===//
//
// Any bytes as a checkpoint to resume the fake classifier of the runtime's
// tests from (test/Unit/FakeTrainManifests.h, run by the shared object of
// test/Unit/Inputs): the safetensors reader, then Session::loadCheckpoint
// (runtime/lib/Checkpoint.cpp), which checks the file against the model
// before it copies anything.
//===----------------------------------------------------------------------===//
#include "FakeTrainManifests.h"
#include "FuzzSupport.h"
#include "Runtime.h"
#include "TfmWriter.h"

using namespace transfuse::rt;
namespace fuzz = transfuse::fuzz;

namespace {

Session &classifier() {
  static const fuzz::InputFile artifact("classifier.tfm");
  static Session session = [] {
    std::string bytes = transfuse::test::tfmBytes(
        transfuse::test::fakeClassifierManifest().dump(),
        transfuse::test::fakeModelCode());
    artifact.write(bytes.data(), bytes.size());
    Session created(Artifact::open(artifact.path()));
    created.initialize(0);
    return created;
  }();
  return session;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const fuzz::InputFile input("checkpoint.safetensors");
  Session &session = classifier();
  try {
    session.loadCheckpoint(TensorFile::read(input.write(data, size)));
  } catch (const Error &) {
  }
  return 0;
}
