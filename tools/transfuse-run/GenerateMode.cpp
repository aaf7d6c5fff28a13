//===- GenerateMode.cpp - Continuing prompts, one a line ------------------===//
#include "GenerateMode.h"
#include "Tokenizer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <unistd.h>

namespace transfuse::text {
namespace {

/// The prompts' token ids, one prompt a line, each checked against the
/// model; an error names the line as NAME:LINE.
std::vector<std::vector<int64_t>> readPrompts(std::istream &in,
                                              const std::string &name,
                                              const Tokenizer &tokenizer,
                                              const Generator &generator) {
  std::vector<std::vector<int64_t>> prompts;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    try {
      prompts.push_back(tokenizer.encode(line));
      generator.checkPrompt(prompts.back());
    } catch (const std::exception &error) {
      throw std::runtime_error(name + ":" + std::to_string(number) + ": " +
                               error.what());
    }
  }
  if (in.bad())
    throw std::runtime_error("cannot read " + name + ": " +
                             std::strerror(errno));
  return prompts;
}

/// Keeps a continuation on its line: see GenerateMode.h.
std::string escapeLine(const std::string &text) {
  std::string result;
  for (char c : text) {
    if (c == '\\')
      result += "\\\\";
    else if (c == '\n')
      result += "\\n";
    else if (c == '\r')
      result += "\\r";
    else
      result.push_back(c);
  }
  return result;
}

} // namespace

void generate(Session &session, const GenerateModeOptions &options) {
  Generator generator(session);
  Tokenizer tokenizer(generator.maxTokenId(), options.weights);

  std::vector<std::vector<int64_t>> prompts;
  if (!options.prompts || *options.prompts == "-") {
    prompts = readPrompts(std::cin, "<stdin>", tokenizer, generator);
  } else {
    std::ifstream file(*options.prompts, std::ios::binary);
    if (!file)
      throw std::runtime_error("--prompts '" + *options.prompts +
                               "': " + std::strerror(errno));
    prompts = readPrompts(file, *options.prompts, tokenizer, generator);
  }

  GenerateOptions generation = options.generation;
  bool terminal = isatty(STDERR_FILENO);
  size_t batches = (prompts.size() + generator.batchSize() - 1) /
                   static_cast<size_t>(generator.batchSize());
  if (terminal || batches > 1)
    generation.progress = [terminal](size_t done, size_t total) {
      std::fprintf(stderr,
                   terminal ? "\rgenerated %zu/%zu prompts"
                            : "generated %zu/%zu prompts\n",
                   done, total);
      if (terminal && done == total)
        std::fputc('\n', stderr);
    };
  std::vector<Continuation> continuations =
      generator.generate(prompts, generation);

  size_t cut = 0;
  for (const Continuation &continuation : continuations) {
    cut += continuation.end == Continuation::End::Context;
    std::string line = escapeLine(tokenizer.decode(continuation.tokens));
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw std::runtime_error(std::string("cannot write the continuations: ") +
                             std::strerror(errno));
  if (cut > 0)
    std::fprintf(stderr,
                 "warning: %zu of %zu continuations stopped at the model's "
                 "context of %lld tokens, which holds the prompt and the "
                 "continuation together\n",
                 cut, continuations.size(),
                 static_cast<long long>(generator.context()));
}

} // namespace transfuse::text
