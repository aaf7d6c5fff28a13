//===- Generate.cpp - Continuing prompts with a compiled decoder
//-----------===//
#include "transfuse/generate.hpp"

#include "DecodingEntryPoints.h"
#include "InvalidArgument.h"

#include <algorithm>
#include <string>

namespace transfuse {
namespace {

using detail::invalid;
using detail::str;

} // namespace

Generator::Generator(Session &session)
    : session_(session),
      shape_(std::make_shared<rt::DecoderShape>(
          rt::decoderShape(tf_session_artifact(session.get())))) {}

int64_t Generator::batchSize() const { return shape_->batch; }
int64_t Generator::context() const { return shape_->context; }
int64_t Generator::vocabularySize() const { return shape_->vocabulary; }
int64_t Generator::maxTokenId() const { return shape_->maxId; }
bool Generator::encodes() const { return shape_->encodes(); }
int64_t Generator::sourceLength() const { return shape_->sourceLength; }
int64_t Generator::maxSourceId() const { return shape_->sourceMaxId; }

namespace {

/// Throws unless `tokens` is at most `length` ids in 0..maxId.
void checkTokens(const std::vector<int64_t> &tokens, int64_t length,
                 const char *limit, int64_t maxId) {
  if (static_cast<int64_t>(tokens.size()) > length)
    invalid(std::to_string(tokens.size()) + " tokens, more than the model's " +
            limit + " of " + std::to_string(length));
  for (int64_t id : tokens)
    if (id < 0 || id > maxId)
      invalid("token id " + std::to_string(id) +
              " is outside the model's ids 0.." + std::to_string(maxId));
}

} // namespace

void Generator::checkPrompt(const std::vector<int64_t> &prompt) const {
  if (prompt.empty())
    invalid("empty prompt");
  checkTokens(prompt, shape_->context, "context", shape_->maxId);
}

void Generator::checkSource(const std::vector<int64_t> &source) const {
  if (source.empty())
    invalid("empty source");
  checkTokens(source, shape_->sourceLength, "source length",
              shape_->sourceMaxId);
}

void Generator::checkLimits(int64_t maxNewTokens,
                            const std::optional<int64_t> &eos) const {
  if (maxNewTokens < 0)
    invalid("the number of new tokens must be at least 0, not " +
            std::to_string(maxNewTokens));
  if (eos && (*eos < 0 || *eos >= shape_->vocabulary))
    invalid("the stop token " + std::to_string(*eos) +
            " is outside the model's vocabulary 0.." +
            std::to_string(shape_->vocabulary - 1));
}

void Generator::checkPrompts(
    const std::vector<std::vector<int64_t>> &prompts,
    const std::vector<std::vector<int64_t>> &sources) const {
  if (encodes() && sources.size() != prompts.size())
    invalid(std::to_string(prompts.size()) + " prompts but " +
            std::to_string(sources.size()) +
            " sources: an encoder-decoder needs a source per prompt");
  if (!encodes() && !sources.empty())
    invalid("a causal language model takes no sources");
  for (size_t i = 0; i < prompts.size(); ++i) {
    try {
      checkPrompt(prompts[i]);
      if (encodes())
        checkSource(sources[i]);
    } catch (const Error &error) {
      throw Error(error.status(),
                  "prompt " + std::to_string(i + 1) + ": " + error.what());
    }
  }
}

std::vector<Continuation>
Generator::generate(const std::vector<std::vector<int64_t>> &prompts,
                    const GenerateOptions &options,
                    const std::vector<std::vector<int64_t>> &sources) {
  validate(options.sampling);
  checkLimits(options.maxNewTokens, options.eos);
  checkPrompts(prompts, sources);

  std::vector<Continuation> results(prompts.size());
  if (options.maxNewTokens == 0)
    return results;
  size_t batch = static_cast<size_t>(shape_->batch);
  for (size_t first = 0; first < prompts.size(); first += batch) {
    generateBatch(prompts, sources, first, options, results);
    if (options.progress)
      options.progress(std::min(first + batch, prompts.size()), prompts.size());
  }
  return results;
}

void Generator::generateBatch(const std::vector<std::vector<int64_t>> &prompts,
                              const std::vector<std::vector<int64_t>> &sources,
                              size_t first, const GenerateOptions &options,
                              std::vector<Continuation> &results) {
  const rt::DecoderShape &shape = *shape_;
  int64_t batch = shape.batch, context = shape.context;
  int64_t vocabulary = shape.vocabulary;
  size_t rows = std::min<size_t>(batch, prompts.size() - first);
  // Per row: the length of its sequence so far, its last token, and whether
  // it still generates. Padding rows never do.
  std::vector<int64_t> length(batch), last(batch);
  std::vector<bool> active(batch, false);

  auto finish = [&](size_t row, Continuation::End end) {
    results[first + row].end = end;
    active[row] = false;
  };
  // Takes the row's next token from its logits.
  auto advance = [&](size_t row, const float *logits) {
    Continuation &out = results[first + row];
    int64_t token;
    try {
      token = sampleToken(logits, vocabulary, options.sampling, first + row,
                          out.tokens.size());
    } catch (const Error &error) {
      throw Error(error.status(), "prompt " + std::to_string(first + row + 1) +
                                      ": " + error.what());
    }
    if (options.eos && token == *options.eos)
      return finish(row, Continuation::End::Eos);
    out.tokens.push_back(token);
    last[row] = token;
    ++length[row];
    if (static_cast<int64_t>(out.tokens.size()) == options.maxNewTokens)
      finish(row, Continuation::End::Length);
    else if (length[row] == context)
      finish(row, Continuation::End::Context);
  };

  // Prefill on the prompts, right-padded with zeros; the padding rows copy
  // the batch's first prompt (and source).
  std::vector<int64_t> tokens(batch * context, 0);
  std::vector<size_t> promptOfRow(batch);
  for (size_t row = 0; row < static_cast<size_t>(batch); ++row) {
    promptOfRow[row] = first + (row < rows ? row : 0);
    const std::vector<int64_t> &prompt = prompts[promptOfRow[row]];
    std::copy(prompt.begin(), prompt.end(), tokens.begin() + row * context);
    length[row] = static_cast<int64_t>(prompt.size());
    if (row >= rows)
      continue;
    active[row] = true;
    if (length[row] == context)
      finish(row, Continuation::End::Context);
  }
  if (std::none_of(active.begin(), active.end(), [](bool a) { return a; }))
    return;
  std::vector<int64_t> sourceRows = rt::sourceRows(shape, sources, promptOfRow);
  if (shape.encodes())
    rt::runEncode(session_, shape, sourceRows);
  {
    std::vector<float> held;
    std::vector<const float *> logits =
        rt::runPrompts(session_, shape, tokens, length, sourceRows, held);
    for (size_t row = 0; row < rows; ++row)
      if (active[row])
        advance(row, logits[row]);
  }

  // Each step feeds every active row its last token, at that token's
  // position (within the context, as an active row is shorter than it).
  // Finished rows are fed token 0 at position 0 of their own cache, and
  // their logits ignored.
  std::vector<int64_t> next(batch), positions(batch);
  while (std::any_of(active.begin(), active.end(), [](bool a) { return a; })) {
    for (size_t row = 0; row < static_cast<size_t>(batch); ++row) {
      next[row] = active[row] ? last[row] : 0;
      positions[row] = active[row] ? length[row] - 1 : 0;
    }
    const float *data =
        rt::runDecodeStep(session_, shape, next, positions, sourceRows);
    for (size_t row = 0; row < rows; ++row)
      if (active[row])
        advance(row, data + row * vocabulary);
  }
}

} // namespace transfuse
