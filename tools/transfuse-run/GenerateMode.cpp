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

/// The reserved ids of transfuse-data (docs/data.md): an encoder-decoder's
/// target starts with BOS and ends before EOS.
constexpr int64_t kBos = 2, kEos = 3;

/// What the model continues: the prompts, and an encoder-decoder's sources.
struct Requests {
  std::vector<std::vector<int64_t>> prompts, sources;
};

std::vector<Line> sample(Generator &generator, const Requests &requests,
                         GenerateOptions options) {
  options.progress = progressReporter(
      "generated", chunks(requests.prompts.size(), generator.batchSize()));
  std::vector<Line> lines;
  for (Continuation &continuation :
       generator.generate(requests.prompts, options, requests.sources))
    lines.push_back({std::move(continuation.tokens), continuation.end, {}});
  return lines;
}

std::vector<Line> searchBeams(BeamSearch &search, const Requests &requests,
                              BeamSearchOptions options, bool scores) {
  options.progress = progressReporter(
      "generated", chunks(requests.prompts.size(),
                          search.promptsPerChunk(options.beamWidth)));
  std::vector<Line> lines;
  for (BeamSearchResult &result :
       search.search(requests.prompts, options, requests.sources)) {
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
  GenerateOptions generation = options.generation;
  std::optional<BeamSearchOptions> beam = options.beam;
  if (generator.encodes() && !generation.eos) {
    generation.eos = kEos;
    if (beam)
      beam->eos = kEos;
  }
  // Beam search's own checks (reorder_cache, the width against the batch)
  // come before the prompts are read, which may be from a terminal.
  std::optional<BeamSearch> search;
  if (beam) {
    search.emplace(session);
    search->check(*beam);
  }
  Tokenizer tokenizer(generator.encodes() ? generator.maxSourceId()
                                          : generator.maxTokenId(),
                      options.weights, options.tokenIds);

  // An encoder-decoder's lines are sources, each translated from BOS.
  Requests requests;
  std::vector<std::vector<int64_t>> lines =
      readTokenLines(options.prompts, "--prompts", tokenizer,
                     [&](const std::vector<int64_t> &line) {
                       if (generator.encodes())
                         generator.checkSource(line);
                       else
                         generator.checkPrompt(line);
                     });
  if (generator.encodes()) {
    requests.sources = std::move(lines);
    requests.prompts.assign(requests.sources.size(), {kBos});
  } else {
    requests.prompts = std::move(lines);
  }
  std::vector<Line> results =
      search ? searchBeams(*search, requests, *beam, options.scores)
             : sample(generator, requests, generation);

  size_t cut = 0;
  for (const Line &line : results) {
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
                 cut, results.size(),
                 static_cast<long long>(generator.context()));
}

} // namespace transfuse::text
