//===- transfuse-train.cpp - Train a compiled model -----------------------===//
//
//   transfuse-train MODEL.tfm --data PATH [--steps N] [--eval-every K]
//                   [--save CKPT] [--save-every K] [--resume CKPT]
//                   [--log METRICS.jsonl] [--threads N] ...
//   mpirun -np N transfuse-train MODEL.tfm ...   (compiled --data-parallel)
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

/// The rank of a data-parallel run this process is, "" in a single process;
/// nothing is joined for it.
std::string rankPrefix() {
  int32_t rank = 0, size = 1;
  if (tf_world(&rank, &size) != TF_OK || size == 1)
    return "";
  return "rank " + std::to_string(rank) + " of " + std::to_string(size) + ": ";
}

[[noreturn]] void die(const std::string &message) {
  std::fflush(stdout);
  // One line without control bytes, whatever the message quotes.
  std::fprintf(stderr, "error: %s%s\n", rankPrefix().c_str(),
               transfuse::printable(message).c_str());
  std::fflush(stderr);
  // The other ranks of a data-parallel run would wait for this one.
  tf_world_abort(1);
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
