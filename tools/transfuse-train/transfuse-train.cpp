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
#include "transfuse/printable.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace {

[[noreturn]] void die(const std::string &message) {
  std::fflush(stdout);
  // One line without control bytes, whatever the message quotes.
  std::fprintf(stderr, "error: %s\n", transfuse::printable(message).c_str());
  std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
  using namespace transfuse::train;
  // A file over RLIMIT_FSIZE (`ulimit -f`) is an error to report, like a
  // full disk, not the end of the process.
  std::signal(SIGXFSZ, SIG_IGN);
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
