//===- GenerateMode.cpp - Continuing prompts, one a line ------------------===//
#include "GenerateMode.h"
#include "LineFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace transfuse::text {
namespace {

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

  std::vector<std::vector<int64_t>> prompts =
      readTokenLines(options.prompts, "--prompts", tokenizer,
                     [&](const std::vector<int64_t> &prompt) {
                       generator.checkPrompt(prompt);
                     });

  GenerateOptions generation = options.generation;
  size_t batches = (prompts.size() + generator.batchSize() - 1) /
                   static_cast<size_t>(generator.batchSize());
  generation.progress = progressReporter("generated", batches);
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
