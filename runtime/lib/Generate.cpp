//===- Generate.cpp - Continuing prompts with a causal LM -----------------===//
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

Generator::Generator(Session &session) : session_(session) {
  rt::CausalLmShape shape =
      rt::causalLmShape(tf_session_artifact(session.get()));
  batch_ = shape.batch;
  context_ = shape.context;
  vocabulary_ = shape.vocabulary;
  maxId_ = shape.maxId;
}

void Generator::checkPrompt(const std::vector<int64_t> &prompt) const {
  if (prompt.empty())
    invalid("empty prompt");
  if (static_cast<int64_t>(prompt.size()) > context_)
    invalid(std::to_string(prompt.size()) +
            " tokens, more than the model's context of " +
            std::to_string(context_));
  for (int64_t id : prompt)
    if (id < 0 || id > maxId_)
      invalid("token id " + std::to_string(id) +
              " is outside the model's ids 0.." + std::to_string(maxId_));
}

void Generator::checkLimits(int64_t maxNewTokens,
                            const std::optional<int64_t> &eos) const {
  if (maxNewTokens < 0)
    invalid("the number of new tokens must be at least 0, not " +
            std::to_string(maxNewTokens));
  if (eos && (*eos < 0 || *eos >= vocabulary_))
    invalid("the stop token " + std::to_string(*eos) +
            " is outside the model's vocabulary 0.." +
            std::to_string(vocabulary_ - 1));
}

void Generator::checkPrompts(
    const std::vector<std::vector<int64_t>> &prompts) const {
  for (size_t i = 0; i < prompts.size(); ++i) {
    try {
      checkPrompt(prompts[i]);
    } catch (const Error &error) {
      throw Error(error.status(),
                  "prompt " + std::to_string(i + 1) + ": " + error.what());
    }
  }
}

std::vector<Continuation>
Generator::generate(const std::vector<std::vector<int64_t>> &prompts,
                    const GenerateOptions &options) {
  validate(options.sampling);
  checkLimits(options.maxNewTokens, options.eos);
  checkPrompts(prompts);

  std::vector<Continuation> results(prompts.size());
  if (options.maxNewTokens == 0)
    return results;
  for (size_t first = 0; first < prompts.size(); first += batch_) {
    generateBatch(prompts, first, options, results);
    if (options.progress)
      options.progress(std::min(first + batch_, prompts.size()),
                       prompts.size());
  }
  return results;
}

void Generator::generateBatch(const std::vector<std::vector<int64_t>> &prompts,
                              size_t first, const GenerateOptions &options,
                              std::vector<Continuation> &results) {
  size_t rows = std::min<size_t>(batch_, prompts.size() - first);
  // Per row: the length of its sequence so far, its last token, and whether
  // it still generates. Padding rows never do.
  std::vector<int64_t> length(batch_), last(batch_);
  std::vector<bool> active(batch_, false);

  auto finish = [&](size_t row, Continuation::End end) {
    results[first + row].end = end;
    active[row] = false;
  };
  // Takes the row's next token from its logits.
  auto advance = [&](size_t row, const float *logits) {
    Continuation &out = results[first + row];
    int64_t token;
    try {
      token = sampleToken(logits, vocabulary_, options.sampling, first + row,
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
    else if (length[row] == context_)
      finish(row, Continuation::End::Context);
  };

  // Prefill on the prompts, right-padded with zeros; the padding rows copy
  // the batch's first prompt.
  std::vector<int64_t> tokens(batch_ * context_, 0);
  for (size_t row = 0; row < static_cast<size_t>(batch_); ++row) {
    const std::vector<int64_t> &prompt =
        prompts[first + (row < rows ? row : 0)];
    std::copy(prompt.begin(), prompt.end(), tokens.begin() + row * context_);
    length[row] = static_cast<int64_t>(prompt.size());
    if (row >= rows)
      continue;
    active[row] = true;
    if (length[row] == context_)
      finish(row, Continuation::End::Context);
  }
  if (std::none_of(active.begin(), active.end(), [](bool a) { return a; }))
    return;
  {
    const float *data = rt::runPrefill(session_, batch_, context_, tokens);
    for (size_t row = 0; row < rows; ++row)
      if (active[row])
        advance(row, data + (row * context_ + length[row] - 1) * vocabulary_);
  }

  // Each step feeds every active row its last token, at that token's
  // position (within the context, as an active row is shorter than it).
  // Finished rows are fed token 0 at position 0 of their own cache, and
  // their logits ignored.
  std::vector<int64_t> next(batch_), positions(batch_);
  while (std::any_of(active.begin(), active.end(), [](bool a) { return a; })) {
    for (size_t row = 0; row < static_cast<size_t>(batch_); ++row) {
      next[row] = active[row] ? last[row] : 0;
      positions[row] = active[row] ? length[row] - 1 : 0;
    }
    const float *data = rt::runDecodeStep(session_, batch_, next, positions);
    for (size_t row = 0; row < rows; ++row)
      if (active[row])
        advance(row, data + row * vocabulary_);
  }
}

} // namespace transfuse
