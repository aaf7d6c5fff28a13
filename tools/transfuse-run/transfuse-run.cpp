//===- transfuse-run.cpp - Run an entry point of a compiled model ---------===//
//
//   transfuse-run MODEL.tfm [--weights W.safetensors | --seed N]
//                 [--inputs IN.safetensors] --outputs OUT.safetensors
//                 [--entry forward] [--threads N]
//   transfuse-run MODEL.tfm [--weights W.safetensors] --text "..."
//                 [--max-new-tokens N]
//   transfuse-run MODEL.tfm [--weights W.safetensors] --generate
//                 [--prompts FILE] [--max-new-tokens N] [--temperature T]
//                 [--top-k K] [--top-p P] [--sample-seed N] [--eos ID]
//                 [--token-ids]
//   transfuse-run MODEL.tfm [--weights W.safetensors] --generate --beam W
//                 [--length-penalty A] [--scores] [--prompts FILE]
//                 [--max-new-tokens N] [--eos ID] [--token-ids]
//   transfuse-run MODEL.tfm [--weights W.safetensors] --classify FILE
//                 [--token-ids]
//
// Loads the model, takes its parameters from --weights (or initialises them
// from --seed, 0 by default), binds every tensor of --inputs by name to the
// entry point's inputs, runs it and writes every output to --outputs
// (atomically). --text runs forward on one text; --generate continues the
// prompts of FILE, one a line, with the model's prefill and decode_step
// (GenerateMode.h), by sampling or, with --beam, by beam search
// (transfuse/beam_search.hpp); --classify runs a classifier on every line of
// FILE (ClassifyMode.h). Any failure is one line `error: ...` on stderr and
// exit 1.
//
// Links only the runtime (transfuse_runtime), never the compiler.
//===----------------------------------------------------------------------===//
#include "ClassifyMode.h"
#include "GenerateMode.h"
#include "TextMode.h"
#include "transfuse/output.hpp"
#include "transfuse/printable.hpp"
#include "transfuse/transfuse.hpp"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace {

const char *const kUsage =
    "usage: transfuse-run MODEL.tfm [--weights W.safetensors | --seed N]\n"
    "                     [--inputs IN.safetensors] --outputs "
    "OUT.safetensors\n"
    "                     [--entry NAME] [--threads N] [--refuse-nonfinite]\n"
    "       transfuse-run MODEL.tfm [--weights W.safetensors] --text TEXT\n"
    "                     [--max-new-tokens N]\n"
    "       transfuse-run MODEL.tfm [--weights W.safetensors] --generate\n"
    "                     [--prompts FILE] [--max-new-tokens N]\n"
    "                     [--temperature T] [--top-k K] [--top-p P]\n"
    "                     [--sample-seed N] [--eos ID] [--token-ids]\n"
    "       transfuse-run MODEL.tfm [--weights W.safetensors] --generate\n"
    "                     --beam W [--length-penalty A] [--scores]\n"
    "                     [--prompts FILE] [--max-new-tokens N] [--eos ID]\n"
    "                     [--token-ids]\n"
    "       transfuse-run MODEL.tfm [--weights W.safetensors] --classify FILE\n"
    "                     [--token-ids]\n"
    "\n"
    "Runs entry point NAME (default: forward) of a compiled model and writes\n"
    "its outputs to OUT. Parameters come from W, or are initialised from the\n"
    "seed N (default 0) when no weights are given; a parameter of W holding\n"
    "NaN or infinity is a warning, or with --refuse-nonfinite an error.\n"
    "Inputs are bound by name.\n"
    "With --text, tokenises TEXT (bytes, or the vocabulary in W's metadata)\n"
    "and prints the predicted class and its probabilities, or continues the\n"
    "text greedily for N tokens (default 64, at most 1048576).\n"
    "With --generate, continues each line of FILE (default: stdin) by up to\n"
    "N tokens with a language model's prefill and decode_step, and writes\n"
    "one line per prompt: the continuation, with \\ written \\\\,\n"
    "a line feed \\n and a carriage return \\r. T = 0 (the default) picks\n"
    "the likeliest token; above 0 it samples softmax(logits / T), from the\n"
    "K likeliest tokens (0: all, the default) and within those from the\n"
    "fewest whose probability reaches P (default 1), reproducibly for a\n"
    "given --sample-seed (default 0). A continuation ends before token ID,\n"
    "and where the prompt and it fill the model's context. For an\n"
    "encoder-decoder each line is a source, and its line of output the\n"
    "target generated from BOS (id 2), ending before EOS (id 3) unless\n"
    "--eos names another.\n"
    "With --beam, continues each prompt by beam search of width W (at most\n"
    "the model's batch) instead of sampling: the hypothesis of the best\n"
    "sum of log-probabilities divided by ((5 + length) / 6)^A (A >= 0,\n"
    "default 0); --scores starts each line with that score and a tab.\n"
    "With --classify, runs a classifier on each line of FILE (- for stdin)\n"
    "and writes one line per example: the class, a tab and the probability\n"
    "of every class.\n"
    "With --token-ids, the lines --generate and --classify read, and those\n"
    "--generate writes, are token ids in decimal, separated by spaces.\n";

/// Each new token is a forward pass: a million take long already.
constexpr uint64_t kMaxNewTokens = 1 << 20;

struct UsageError {
  std::string message;
};

struct Options {
  std::string model;
  std::optional<std::string> weights, inputs, outputs;
  std::optional<uint64_t> seed;
  std::optional<int32_t> threads;
  bool refuseNonFinite = false;
  std::string entry = "forward";
  std::optional<std::string> text;
  int64_t maxNewTokens = 64;
  bool generate = false;
  std::optional<std::string> classify;
  std::optional<std::string> prompts;
  transfuse::GenerateOptions generation;
  /// --beam's width, and the options only it takes.
  std::optional<int64_t> beam;
  double lengthPenalty = 0;
  bool scores = false;
  bool tokenIds = false;
  /// The first option given that only --generate takes, that only --beam
  /// takes, and that only sampling takes.
  std::optional<std::string> generateOnly, beamOnly, samplingOnly;
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

double parseNumber(const std::string &flag, const std::string &text) {
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0')
    throw UsageError{flag + ": '" + text + "' is not a number"};
  return value;
}

/// What --beam asks for; only with --beam.
transfuse::BeamSearchOptions beamOptions(const Options &options) {
  transfuse::BeamSearchOptions beam;
  beam.beamWidth = *options.beam;
  beam.lengthPenalty = options.lengthPenalty;
  beam.maxNewTokens = options.maxNewTokens;
  beam.eos = options.generation.eos;
  return beam;
}

Options parseOptions(int argc, char **argv) {
  Options options;
  bool haveModel = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
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
    auto takeValue = [&]() -> std::string {
      if (inlineValue)
        return value;
      if (i + 1 >= argc)
        throw UsageError{flag + " needs a value"};
      return argv[++i];
    };
    auto noteFirst = [&](std::optional<std::string> &first) {
      if (!first)
        first = flag;
    };
    if (flag == "--weights")
      options.weights = takeValue();
    else if (flag == "--refuse-nonfinite" && !inlineValue)
      options.refuseNonFinite = true;
    else if (flag == "--inputs")
      options.inputs = takeValue();
    else if (flag == "--outputs")
      options.outputs = takeValue();
    else if (flag == "--entry")
      options.entry = takeValue();
    else if (flag == "--text")
      options.text = takeValue();
    else if (flag == "--generate" && !inlineValue)
      options.generate = true;
    else if (flag == "--beam") {
      noteFirst(options.generateOnly);
      options.beam =
          static_cast<int64_t>(parseUnsigned(flag, takeValue(), INT64_MAX));
    } else if (flag == "--length-penalty") {
      noteFirst(options.generateOnly);
      noteFirst(options.beamOnly);
      options.lengthPenalty = parseNumber(flag, takeValue());
    } else if (flag == "--scores" && !inlineValue) {
      noteFirst(options.generateOnly);
      noteFirst(options.beamOnly);
      options.scores = true;
    } else if (flag == "--classify")
      options.classify = takeValue();
    else if (flag == "--token-ids" && !inlineValue)
      options.tokenIds = true;
    else if (flag == "--prompts" || flag == "--temperature" ||
             flag == "--top-k" || flag == "--top-p" ||
             flag == "--sample-seed" || flag == "--eos") {
      noteFirst(options.generateOnly);
      if (flag != "--prompts" && flag != "--eos")
        noteFirst(options.samplingOnly);
      transfuse::SamplingOptions &sampling = options.generation.sampling;
      if (flag == "--prompts")
        options.prompts = takeValue();
      else if (flag == "--temperature")
        sampling.temperature = parseNumber(flag, takeValue());
      else if (flag == "--top-k")
        sampling.topK =
            static_cast<int64_t>(parseUnsigned(flag, takeValue(), INT64_MAX));
      else if (flag == "--top-p")
        sampling.topP = parseNumber(flag, takeValue());
      else if (flag == "--sample-seed")
        sampling.seed = parseUnsigned(flag, takeValue(), UINT64_MAX);
      else
        options.generation.eos =
            static_cast<int64_t>(parseUnsigned(flag, takeValue(), INT64_MAX));
    } else if (flag == "--max-new-tokens")
      options.maxNewTokens =
          static_cast<int64_t>(parseUnsigned(flag, takeValue(), kMaxNewTokens));
    else if (flag == "--seed")
      options.seed = parseUnsigned(flag, takeValue(), UINT64_MAX);
    else if (flag == "--threads") {
      options.threads =
          static_cast<int32_t>(parseUnsigned(flag, takeValue(), 4096));
      if (*options.threads == 0)
        throw UsageError{"--threads: must be at least 1"};
    } else
      throw UsageError{"unknown option '" + flag + "'"};
  }
  if (!haveModel)
    throw UsageError{"no model given (transfuse-run --help for usage)"};
  if (options.generateOnly && !options.generate)
    throw UsageError{*options.generateOnly + " needs --generate"};
  if (options.classify && (options.text || options.generate))
    throw UsageError{"--classify excludes --text and --generate"};
  if (options.tokenIds && !options.generate && !options.classify)
    throw UsageError{"--token-ids needs --generate or --classify"};
  if (options.classify && (options.outputs || options.inputs))
    throw UsageError{"--classify takes the place of --inputs and --outputs"};
  if (!options.outputs && !options.text && !options.generate &&
      !options.classify)
    throw UsageError{"no --outputs file given"};
  if (options.text && (options.outputs || options.inputs))
    throw UsageError{"--text takes the place of --inputs and --outputs"};
  if (options.generate && options.text)
    throw UsageError{"--generate and --text exclude each other"};
  if (options.generate && (options.outputs || options.inputs))
    throw UsageError{"--generate takes the place of --inputs and --outputs"};
  if (options.beamOnly && !options.beam)
    throw UsageError{*options.beamOnly + " needs --beam"};
  if (options.beam && options.samplingOnly)
    throw UsageError{"--beam excludes " + *options.samplingOnly +
                     ": beam search does not sample"};
  options.generation.maxNewTokens = options.maxNewTokens;
  try {
    transfuse::validate(options.generation.sampling);
    if (options.beam)
      transfuse::validate(beamOptions(options));
  } catch (const transfuse::Error &error) {
    throw UsageError{error.what()};
  }
  if (options.weights && options.seed)
    throw UsageError{"--weights and --seed exclude each other: the seed "
                     "only initialises parameters that are not loaded"};
  if (options.refuseNonFinite && !options.weights)
    throw UsageError{"--refuse-nonfinite checks --weights, and none are given"};
  return options;
}

/// Loaded weights holding NaN or an infinity (a run that diverged, a faulty
/// conversion) would make every output NaN with no hint of the cause: each
/// such parameter is named, as a warning or, with --refuse-nonfinite, as
/// the error.
void checkFiniteWeights(const transfuse::Artifact &artifact,
                        transfuse::Session &session, const std::string &path,
                        bool refuse) {
  for (const tf_tensor_info &info : artifact.parameters()) {
    tf_tensor view = session.parameter(info.name);
    int64_t first = tf_tensor_first_nonfinite(&view);
    if (first < 0)
      continue;
    std::string message = "'" + path + "': parameter '" + info.name +
                          "' holds NaN or infinity (first at element " +
                          std::to_string(first) + ")";
    if (refuse)
      throw std::runtime_error(message + "; --refuse-nonfinite");
    std::fprintf(stderr, "warning: %s\n",
                 transfuse::printable(message).c_str());
  }
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
    if (options.outputs) {
      std::vector<transfuse::FileArgument> inputs = {
          {"the model", options.model}};
      if (options.weights)
        inputs.push_back({"--weights", *options.weights});
      if (options.inputs)
        inputs.push_back({"--inputs", *options.inputs});
      transfuse::checkOutput({"--outputs", *options.outputs}, inputs);
    }
    if (options.threads)
      transfuse::setNumThreads(*options.threads);
    transfuse::Artifact artifact = transfuse::Artifact::open(options.model);
    // Generation runs prefill and decode_step, whatever --entry says.
    if (!options.generate)
      artifact.findEntryPoint(options.entry);
    transfuse::Session session(artifact);
    if (options.weights) {
      session.loadParameters(*options.weights);
      checkFiniteWeights(artifact, session, *options.weights,
                         options.refuseNonFinite);
    } else
      session.initParameters(options.seed.value_or(0));

    if (options.generate) {
      std::optional<transfuse::BeamSearchOptions> beam;
      if (options.beam)
        beam = beamOptions(options);
      transfuse::text::generate(session, {options.prompts, options.weights,
                                          options.tokenIds, options.generation,
                                          beam, options.scores});
      return 0;
    }
    if (options.classify) {
      transfuse::text::classify(
          artifact, session,
          {*options.classify, options.weights, options.tokenIds});
      return 0;
    }
    if (options.text) {
      transfuse::text::run(
          artifact, session,
          {*options.text, options.maxNewTokens, options.weights});
      return 0;
    }

    std::optional<transfuse::TensorFile> inputFile;
    std::vector<tf_named_tensor> inputs;
    if (options.inputs) {
      inputFile = transfuse::TensorFile::read(*options.inputs);
      inputs = inputFile->all();
    }
    std::vector<tf_named_tensor> outputs;
    try {
      outputs = session.run(options.entry, inputs);
    } catch (const transfuse::Error &error) {
      // The entry point exists, so a bad argument is a bad input, and the
      // inputs came from the file: name it.
      if (options.inputs && error.status() == TF_ERROR_INVALID_ARGUMENT)
        die("'" + *options.inputs + "': " + error.what());
      throw;
    }
    transfuse::TensorFile::write(*options.outputs, outputs);
  } catch (const transfuse::Error &error) {
    die(error.what());
  } catch (const std::exception &error) {
    die(error.what());
  }
  return 0;
}
