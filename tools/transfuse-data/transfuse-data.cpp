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

#include <cerrno>
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
    "sentiment: `label<TAB>sentence`, 1 positive, 0 negative.\n";

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
  if (errno == ERANGE || value > max)
    throw UsageError{flag + ": " + text + " is out of range"};
  return value;
}

int64_t parseCount(const std::string &flag, const std::string &text) {
  return static_cast<int64_t>(parseUnsigned(flag, text, INT64_MAX));
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
      generate.count = parseCount(flag, value);
    else if (flag == "--seed")
      generate.seed = parseUnsigned(flag, value, UINT64_MAX);
    else if (options.task == GeneratedTask::Sentiment)
      throw UsageError{flag + " is an option of the copy and reverse tasks"};
    else if (flag == "--min-length")
      generate.minLength = parseCount(flag, value);
    else if (flag == "--max-length")
      generate.maxLength = parseCount(flag, value);
    else
      generate.vocabularySize = parseCount(flag, value);
  }
  if (!values.count("--count"))
    throw UsageError{"generate: no --count given"};
  if (options.out.empty())
    throw UsageError{"generate: no --out file given"};
  return options;
}

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  try {
    options = parseOptions(argc, argv);
  } catch (const UsageError &error) {
    die(error.message);
  }
  try {
    transfuse::data::writeFileAtomically(
        options.out,
        transfuse::data::generateTask(options.task, options.generate));
  } catch (const std::exception &error) {
    // transfuse::Error, or std::bad_alloc for too large a --count.
    die(error.what());
  }
  return 0;
}
