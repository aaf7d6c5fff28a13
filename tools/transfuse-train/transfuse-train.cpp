//===- transfuse-train.cpp - Train a compiled model -----------------------===//
//
//   transfuse-train MODEL.tfm --data PATH [--steps N] [--eval-every K]
//                   [--save CKPT] [--save-every K] [--resume CKPT]
//                   [--log METRICS.jsonl] [--threads N] ...
//
// Runs the model's train_step over batches of the data, shows progress,
// evaluates on held-out examples, writes checkpoints atomically and resumes
// from them bit for bit (docs/training.md). Any failure is one line
// `error: ...` on stderr and exit 1.
//
// Links only the runtime (transfuse_runtime), never the compiler.
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "Trainer.h"

#include <cstdio>
#include <cstdlib>

namespace {

[[noreturn]] void die(std::string message) {
  // One line, whatever the message holds.
  for (char &c : message)
    if (c == '\n' || c == '\r')
      c = ' ';
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
  using namespace transfuse::train;
  Options options;
  try {
    options = parseOptions(argc, argv);
  } catch (const UsageError &error) {
    die(error.message);
  }
  try {
    if (options.threads)
      transfuse::setNumThreads(*options.threads);
    run(options);
  } catch (const std::exception &error) {
    die(error.what());
  }
  return 0;
}
