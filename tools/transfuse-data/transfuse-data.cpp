//===- transfuse-data.cpp - Write generated training data -----------------===//
//
//   transfuse-data generate copy|reverse|sentiment --count N --out FILE
//                  [--seed S] [--min-length N] [--max-length N]
//                  [--vocab-size V]
//
// Writes N examples of a generated task (docs/data.md) to FILE, atomically:
// copy and reverse as seq2seq id pairs, sentiment as `label<TAB>text`. The
// file is a pure function of the task, the seed and the options. Any failure
// is one line `error: ...` on stderr and exit 1.
//
// Links only the runtime (transfuse_runtime), never the compiler.
//===----------------------------------------------------------------------===//
#include "transfuse/data.hpp"
#include "transfuse/output.hpp"
#include "transfuse/printable.hpp"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using transfuse::data::GeneratedTask;

const char *const kUsage =
    "usage: transfuse-data generate copy|reverse|sentiment\n"
    "                      --count N --out FILE [--seed S]\n"
    "                      [--min-length N] [--max-length N] [--vocab-size V]\n"
    "\n"
    "Writes N examples of a generated task to FILE (atomically), the same\n"
    "for the same seed (default 0). copy and reverse: one seq2seq example\n"
    "per line, `source ids<TAB>target ids`, the target the source copied or\n"
    "reversed; lengths in [min, max] (default 1 and 10), ids in [4, V)\n"
    "(default V = 16; ids 0-3 are <pad>, <unk>, BOS and EOS).\n"
    "sentiment: `label<TAB>sentence`, 1 positive, 0 negative.\n"
    "N is at most 10000000, and N * max at most 100000000.\n";

/// The file is made in memory, then written: the limits keep it to about a
/// gigabyte (a sentiment example is some 60 bytes; copy and reverse write a
/// token and its copy in some 6).
constexpr uint64_t kMaxCount = 10'000'000;
constexpr uint64_t kMaxTokens = 100'000'000;

struct UsageError {
  std::string message;
};

const std::map<std::string, GeneratedTask> kTasks = {
    {"copy", GeneratedTask::Copy},
    {"reverse", GeneratedTask::Reverse},
    {"sentiment", GeneratedTask::Sentiment}};

const std::set<std::string> kFlags = {"--out",        "--count",
                                      "--seed",       "--min-length",
                                      "--max-length", "--vocab-size"};

struct Options {
  GeneratedTask task = GeneratedTask::Copy;
  std::string out;
  transfuse::data::GenerateOptions generate;
};

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

int64_t parseCount(const std::string &flag, const std::string &text,
                   uint64_t max) {
  return static_cast<int64_t>(parseUnsigned(flag, text, max));
}

Options parseOptions(int argc, char **argv) {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg.compare(0, 2, "--") != 0) {
      if (!arg.empty() && arg[0] == '-')
        throw UsageError{"unknown option '" + arg + "'"};
      positional.push_back(arg);
      continue;
    }
    std::string flag = arg, value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos)
      flag = arg.substr(0, eq);
    if (!kFlags.count(flag))
      throw UsageError{"unknown option '" + flag + "'"};
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw UsageError{flag + " needs a value"};
    }
    values[flag] = value;
  }

  if (positional.empty() || positional[0] != "generate")
    throw UsageError{"expected 'generate' (transfuse-data --help for usage)"};
  if (positional.size() < 2)
    throw UsageError{"generate: no task given (copy, reverse or sentiment)"};
  if (positional.size() > 2)
    throw UsageError{"generate: one task only, got '" + positional[1] +
                     "' and '" + positional[2] + "'"};
  auto task = kTasks.find(positional[1]);
  if (task == kTasks.end())
    throw UsageError{"generate: unknown task '" + positional[1] +
                     "' (copy, reverse or sentiment)"};

  Options options;
  options.task = task->second;
  transfuse::data::GenerateOptions &generate = options.generate;
  for (const auto &[flag, value] : values) {
    if (flag == "--out")
      options.out = value;
    else if (flag == "--count")
      generate.count = parseCount(flag, value, kMaxCount);
    else if (flag == "--seed")
      generate.seed = parseUnsigned(flag, value, UINT64_MAX);
    else if (options.task == GeneratedTask::Sentiment)
      throw UsageError{flag + " is an option of the copy and reverse tasks"};
    else if (flag == "--min-length")
      generate.minLength = parseCount(flag, value, kMaxTokens);
    else if (flag == "--max-length")
      generate.maxLength = parseCount(flag, value, kMaxTokens);
    else
      generate.vocabularySize = parseCount(flag, value, INT64_MAX);
  }
  if (!values.count("--count"))
    throw UsageError{"generate: no --count given"};
  if (options.out.empty())
    throw UsageError{"generate: no --out file given"};
  // Both at most 10^8 here: the product does not overflow.
  if (options.task != GeneratedTask::Sentiment &&
      static_cast<uint64_t>(generate.count) * generate.maxLength > kMaxTokens)
    throw UsageError{
        "generate: " + std::to_string(generate.count) + " sequences of up to " +
        std::to_string(generate.maxLength) + " tokens are over the limit of " +
        std::to_string(kMaxTokens) + " tokens"};
  return options;
}

[[noreturn]] void die(const std::string &message) {
  // One line without control bytes, whatever the message quotes.
  std::fprintf(stderr, "error: %s\n", transfuse::printable(message).c_str());
  std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
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
    transfuse::checkOutput({"--out", options.out}, {});
    transfuse::data::writeFileAtomically(
        options.out,
        transfuse::data::generateTask(options.task, options.generate));
  } catch (const std::exception &error) {
    // transfuse::Error, or std::bad_alloc if memory runs out even so.
    die(error.what());
  }
  return 0;
}
