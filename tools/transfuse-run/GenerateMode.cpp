//===- GenerateMode.cpp - Continuing prompts, one a line ------------------===//
#include "GenerateMode.h"
#include "LineFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

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

/// What one line of output says of a prompt.
struct Line {
  std::vector<int64_t> tokens;
  Continuation::End end = Continuation::End::Length;
  std::optional<double> score;
};

size_t chunks(size_t prompts, int64_t promptsPerChunk) {
  return (prompts + promptsPerChunk - 1) / static_cast<size_t>(promptsPerChunk);
}

std::vector<Line> sample(Generator &generator,
                         const std::vector<std::vector<int64_t>> &prompts,
                         GenerateOptions options) {
  options.progress = progressReporter(
      "generated", chunks(prompts.size(), generator.batchSize()));
  std::vector<Line> lines;
  for (Continuation &continuation : generator.generate(prompts, options))
    lines.push_back({std::move(continuation.tokens), continuation.end, {}});
  return lines;
}

std::vector<Line> searchBeams(BeamSearch &search,
                              const std::vector<std::vector<int64_t>> &prompts,
                              BeamSearchOptions options, bool scores) {
  options.progress = progressReporter(
      "generated",
      chunks(prompts.size(), search.promptsPerChunk(options.beamWidth)));
  std::vector<Line> lines;
  for (BeamSearchResult &result : search.search(prompts, options)) {
    Hypothesis &best = result.hypotheses.front();
    lines.push_back(
        {std::move(best.tokens), best.end,
         scores ? std::optional<double>(best.score) : std::nullopt});
  }
  return lines;
}

} // namespace

void generate(Session &session, const GenerateModeOptions &options) {
  Generator generator(session);
  // Beam search's own checks (reorder_cache, the width against the batch)
  // come before the prompts are read, which may be from a terminal.
  std::optional<BeamSearch> search;
  if (options.beam) {
    search.emplace(session);
    search->check(*options.beam);
  }
  Tokenizer tokenizer(generator.maxTokenId(), options.weights);

  std::vector<std::vector<int64_t>> prompts =
      readTokenLines(options.prompts, "--prompts", tokenizer,
                     [&](const std::vector<int64_t> &prompt) {
                       generator.checkPrompt(prompt);
                     });
  std::vector<Line> lines =
      search ? searchBeams(*search, prompts, *options.beam, options.scores)
             : sample(generator, prompts, options.generation);

  size_t cut = 0;
  for (const Line &line : lines) {
    cut += line.end == Continuation::End::Context;
    // std::to_string formats a double as %f: six decimals.
    std::string text = line.score ? std::to_string(*line.score) + "\t" : "";
    text += escapeLine(tokenizer.decode(line.tokens));
    text.push_back('\n');
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    throw std::runtime_error(std::string("cannot write the continuations: ") +
                             std::strerror(errno));
  if (cut > 0)
    std::fprintf(stderr,
                 "warning: %zu of %zu continuations stopped at the model's "
                 "context of %lld tokens, which holds the prompt and the "
                 "continuation together\n",
                 cut, lines.size(),
                 static_cast<long long>(generator.context()));
}

} // namespace transfuse::text
