//===- Options.cpp - transfuse-train's command line -----------------------===//
//
// Every value is checked here, before anything is read or written, so a
// mistyped flag costs nothing.
//===----------------------------------------------------------------------===//
#include "Options.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

namespace transfuse::train {
namespace {

const char *const kUsage =
    "usage: transfuse-train MODEL.tfm --data PATH [--steps N]\n"
    "                       [--eval-every K] [--save CKPT] [--save-every K]\n"
    "                       [--resume CKPT | --weights W] [--log "
    "METRICS.jsonl]\n"
    "                       [--format text|tsv|ids] [--tokenizer bytes|words]\n"
    "                       [--held-out-every K] [--seed S] [--threads N]\n"
    "                       [--sample N] [--temperature T] [--prompt TEXT]\n"
    "                       [--quiet]\n"
    "\n"
    "Trains a compiled model with its train_step on the data at PATH.\n"
    "The task comes from the model's training inputs and labels: a\n"
    "language model (labels shaped like the input), a classifier (one\n"
    "label per row) or seq2seq (a source and a decoder input).\n"
    "\n"
    "  --data PATH          text (a byte corpus, language models), tsv\n"
    "                       (label<TAB>text, source<TAB>target, or a\n"
    "                       sequence per line) or ids (tsv with token ids)\n"
    "  --format F           default: tsv for .tsv, ids for .ids, else text\n"
    "                       for language models and tsv for the others\n"
    "  --tokenizer T        bytes or words (tsv); default: bytes when the\n"
    "                       model takes 256 ids or fewer, else words\n"
    "  --steps N            train until N updates are done in all (a\n"
    "                       resumed run goes on toward N); default: one\n"
    "                       epoch\n"
    "  --held-out-every K   hold out every K-th example for evaluation\n"
    "                       (default 10; 0 holds out none)\n"
    "  --eval-every K       evaluate on the held-out examples every K steps\n"
    "                       (always at the end)\n"
    "  --save CKPT          write a checkpoint at the end (atomically)\n"
    "  --save-every K       and every K steps\n"
    "  --resume CKPT        continue from a checkpoint of the same model,\n"
    "                       bit for bit as if training had not stopped\n"
    "  --weights W          start from the parameters in W (safetensors,\n"
    "                       e.g. those transfuse-compile wrote for an ONNX\n"
    "                       model), the optimizer from scratch\n"
    "  --log FILE           append JSON lines: every step, every evaluation\n"
    "  --seed S             parameters and data order (default: the\n"
    "                       model's training seed, or the checkpoint's)\n"
    "  --threads N          threads of the kernels (default: all CPUs)\n"
    "  --sample N           language models: generate N tokens at the end\n"
    "                       (at most 1048576)\n"
    "  --temperature T      sample at temperature T (default 0: greedy)\n"
    "  --prompt TEXT        start the sample from TEXT (default: the start\n"
    "                       of the first training example)\n"
    "  --quiet              print errors only (and the sample)\n";

/// A sample is generated one forward pass per token: a million takes long
/// already, and more would only exhaust memory.
constexpr uint64_t kMaxSampleTokens = 1 << 20;

uint64_t parseUnsigned(const std::string &flag, const std::string &text,
                       uint64_t max) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError{flag + ": '" + text + "' is not a non-negative integer"};
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE)
    throw UsageError{flag + ": " + text + " is out of range"};
  if (value > max)
    throw UsageError{flag + ": " + text + " is over the limit of " +
                     std::to_string(max)};
  return value;
}

int64_t parsePositive(const std::string &flag, const std::string &text,
                      uint64_t max = INT64_MAX) {
  int64_t value = static_cast<int64_t>(parseUnsigned(flag, text, max));
  if (value == 0)
    throw UsageError{flag + ": must be at least 1"};
  return value;
}

template <typename T>
T parseChoice(const std::string &flag, const std::string &text,
              const std::map<std::string, T> &choices, const char *list) {
  auto it = choices.find(text);
  if (it == choices.end())
    throw UsageError{flag + ": '" + text + "' is not " + list};
  return it->second;
}

} // namespace

Options parseOptions(int argc, char **argv) {
  Options options;
  bool haveModel = false;
  using Handler = std::function<void(const std::string &, const std::string &)>;
  const std::map<std::string, Handler> flags = {
      {"--data", [&](auto &, auto &v) { options.data = v; }},
      {"--steps",
       [&](auto &f, auto &v) {
         options.steps = parsePositive(f, v, TF_MAX_STEP);
       }},
      {"--eval-every",
       [&](auto &f, auto &v) { options.evalEvery = parsePositive(f, v); }},
      {"--save-every",
       [&](auto &f, auto &v) { options.saveEvery = parsePositive(f, v); }},
      {"--save", [&](auto &, auto &v) { options.save = v; }},
      {"--resume", [&](auto &, auto &v) { options.resume = v; }},
      {"--weights", [&](auto &, auto &v) { options.weights = v; }},
      {"--log", [&](auto &, auto &v) { options.log = v; }},
      {"--threads",
       [&](auto &f, auto &v) {
         options.threads = static_cast<int32_t>(parseUnsigned(f, v, 4096));
         if (*options.threads == 0)
           throw UsageError{f + ": must be at least 1"};
       }},
      {"--format",
       [&](auto &f, auto &v) {
         options.format =
             parseChoice<data::Format>(f, v,
                                       {{"text", data::Format::Text},
                                        {"tsv", data::Format::Tsv},
                                        {"ids", data::Format::Ids}},
                                       "text, tsv or ids");
       }},
      {"--tokenizer",
       [&](auto &f, auto &v) {
         options.tokenizer =
             parseChoice<data::Tokenizer>(f, v,
                                          {{"bytes", data::Tokenizer::Bytes},
                                           {"words", data::Tokenizer::Words}},
                                          "bytes or words");
       }},
      {"--held-out-every",
       [&](auto &f, auto &v) {
         options.heldOutEvery =
             static_cast<int64_t>(parseUnsigned(f, v, INT64_MAX));
         if (options.heldOutEvery == 1)
           throw UsageError{f + ": must be 0 (hold out nothing) or at least "
                                "2 (1 would leave nothing to train on)"};
       }},
      {"--seed",
       [&](auto &f, auto &v) {
         options.seed = parseUnsigned(f, v, UINT64_MAX);
       }},
      {"--sample",
       [&](auto &f, auto &v) {
         options.sample = parsePositive(f, v, kMaxSampleTokens);
       }},
      {"--temperature",
       [&](auto &f, auto &v) {
         char *end = nullptr;
         options.temperature = std::strtod(v.c_str(), &end);
         if (v.empty() || *end || !std::isfinite(options.temperature) ||
             options.temperature < 0)
           throw UsageError{f + ": '" + v +
                            "' is not a temperature (a number >= 0)"};
       }},
      {"--prompt", [&](auto &, auto &v) { options.prompt = v; }},
  };

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg == "--quiet") {
      options.quiet = true;
      continue;
    }
    if (arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
      if (!arg.empty() && arg[0] == '-' && arg != "-")
        throw UsageError{"unknown option '" + arg + "'"};
      if (haveModel)
        throw UsageError{"more than one model given ('" + options.model +
                         "' and '" + arg + "')"};
      options.model = arg;
      haveModel = true;
      continue;
    }
    std::string flag = arg, value;
    bool inlineValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    auto handler = flags.find(flag);
    if (handler == flags.end())
      throw UsageError{"unknown option '" + flag + "'"};
    if (!inlineValue) {
      if (i + 1 >= argc)
        throw UsageError{flag + " needs a value"};
      value = argv[++i];
    }
    handler->second(flag, value);
  }
  if (!haveModel)
    throw UsageError{"no model given (transfuse-train --help for usage)"};
  if (options.data.empty())
    throw UsageError{"no --data given"};
  if (options.saveEvery && !options.save)
    throw UsageError{"--save-every needs --save (the checkpoint to write)"};
  if (options.resume && options.weights)
    throw UsageError{"--weights and --resume both give the parameters: a "
                     "resumed run takes them from its checkpoint"};
  if ((options.temperature > 0 || options.prompt) && !options.sample)
    throw UsageError{"--temperature and --prompt need --sample N"};
  return options;
}

} // namespace transfuse::train
