//===- make_test_tfm.cpp - Write .tfm files for the lit tests -------------===//
//
//   make-test-tfm -o OUT.tfm [--model fake|classifier|lm|seq2seq]
//                 [--manifest M.json] [--code LIB.so]
//                 [--target T] [--format-version N]
//   make-test-tfm [--model ...] --print-manifest
//
// Packs a shared object (by default the one built from Inputs/fake_model.c
// and Inputs/fake_train_model.c) with a manifest (by default that of
// --model: fakeManifest() of TfmWriter.h, or one of FakeTrainManifests.h;
// a file is taken byte for byte) into a .tfm.
// --target rewrites the manifest's target and --format-version the
// container's version, to make files the runtime must refuse. Built for the
// tests only; the compiler writes the real ones.
//===----------------------------------------------------------------------===//
#include "FakeTrainManifests.h"
#include "TfmWriter.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>

namespace {

[[noreturn]] void usage(const std::string &message) {
  std::cerr << "make-test-tfm: " << message << "\n"
            << "usage: make-test-tfm -o OUT.tfm "
               "[--model fake|classifier|lm|seq2seq] [--manifest M.json]\n"
               "                     [--code LIB.so] [--target T] "
               "[--format-version N]\n"
               "       make-test-tfm [--model ...] --print-manifest\n";
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  using namespace transfuse::test;
  const std::map<std::string, std::function<nlohmann::json()>> models = {
      {"fake", fakeManifest},
      {"classifier", fakeClassifierManifest},
      {"lm", fakeLanguageModelManifest},
      {"seq2seq", fakeSeq2SeqManifest}};
  std::string output, manifestPath, codePath = TRANSFUSE_FAKE_MODEL, target;
  std::string model = "fake";
  uint32_t version = 1;
  bool print = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "-o")
      output = value();
    else if (arg == "--model")
      model = value();
    else if (arg == "--manifest")
      manifestPath = value();
    else if (arg == "--code")
      codePath = value();
    else if (arg == "--target")
      target = value();
    else if (arg == "--format-version")
      version = static_cast<uint32_t>(std::stoul(value()));
    else if (arg == "--print-manifest")
      print = true;
    else
      usage("unknown argument '" + arg + "'");
  }
  if (!models.count(model))
    usage("unknown model '" + model + "'");
  try {
    // A manifest file goes in byte for byte, so it may be malformed.
    std::string manifest = manifestPath.empty() ? models.at(model)().dump()
                                                : readBinary(manifestPath);
    if (!target.empty()) {
      nlohmann::json parsed = nlohmann::json::parse(manifest);
      parsed["target"] = target;
      manifest = parsed.dump();
    }
    if (print) {
      std::cout << nlohmann::json::parse(manifest).dump(2) << "\n";
      return 0;
    }
    if (output.empty())
      usage("no output file (-o)");
    writeBinary(output, tfmBytes(manifest, readBinary(codePath), version));
  } catch (const std::exception &error) {
    std::cerr << "make-test-tfm: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
