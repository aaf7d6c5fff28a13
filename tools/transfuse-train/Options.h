//===- Options.h - transfuse-train's command line ---------------*- C++ -*-===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_OPTIONS_H
#define TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_OPTIONS_H

#include "transfuse/data.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace transfuse::train {

/// A bad command line: reported as one line, exit 1.
struct UsageError {
  std::string message;
};

struct Options {
  std::string model, data;
  /// Train until this many updates are done in all (a resumed run goes on
  /// toward it); one epoch of the training data if unset.
  std::optional<int64_t> steps;
  int64_t evalEvery = 0; // 0: at the end only
  int64_t saveEvery = 0; // 0: at the end only
  std::optional<std::string> save, resume, log;
  /// Parameters to start from (not a checkpoint: no optimizer state).
  std::optional<std::string> weights;
  std::optional<int32_t> threads;
  std::optional<data::Format> format;       // else from the extension
  std::optional<data::Tokenizer> tokenizer; // else from the vocabulary size
  int64_t heldOutEvery = 10;
  std::optional<uint64_t> seed; // else the checkpoint's or the manifest's
  int64_t sample = 0;           // tokens to generate after training
  double temperature = 0;       // 0: greedy
  std::optional<std::string> prompt;
  bool quiet = false;
};

/// Parses argv; prints the help and exits 0 on --help.
Options parseOptions(int argc, char **argv);

} // namespace transfuse::train

#endif // TRANSFUSE_TOOLS_TRANSFUSE_TRAIN_OPTIONS_H
