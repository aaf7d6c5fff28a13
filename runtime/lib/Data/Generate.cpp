//===- Generate.cpp - Synthetic tasks for training offline ----------------===//
//
// Copy and reverse are the sequence tasks of "The Annotated Transformer":
// a model that learns them has working attention and a working decoder.
// Sentiment is a classification task a small encoder learns to near 100%:
// the label is carried by its sentiment words (only ones of its polarity,
// no negation), around neutral words both classes share.
//
// Everything is drawn from one SplitMix64 stream of the seed, so a file is a
// pure function of the task and its options.
//===----------------------------------------------------------------------===//
#include "Data.h"

#include <algorithm>
#include <cstring>

namespace transfuse::data {
namespace {

using Words = std::vector<const char *>;

const Words kPositive = {"good",     "great",     "excellent",  "wonderful",
                         "superb",   "brilliant", "delightful", "enjoyable",
                         "charming", "beautiful", "clever",     "gripping",
                         "funny",    "touching",  "memorable",  "stunning"};
const Words kNegative = {"bad",      "awful",   "terrible", "boring",
                         "dull",     "poor",    "weak",     "tedious",
                         "dreadful", "clumsy",  "bland",    "messy",
                         "lifeless", "painful", "shallow",  "annoying"};
const Words kNouns = {"film",      "movie",     "story",  "plot",
                      "acting",    "cast",      "script", "ending",
                      "music",     "dialogue",  "pacing", "soundtrack",
                      "direction", "characters"};
const Words kIntensifiers = {"really", "quite", "very",
                             "rather", "truly", "simply"};
// Empty strings make the opener or closer optional.
const Words kOpeners = {"",         "",        "",       "i thought",
                        "honestly", "overall", "for me", "all in all"};
const Words kClosers = {"",
                        "",
                        "",
                        "from start to finish",
                        "this year",
                        "on the big screen",
                        "for the whole family"};

class Generator {
public:
  explicit Generator(uint64_t seed) : random_(seed) {}

  int64_t below(int64_t bound) {
    return static_cast<int64_t>(random_.below(static_cast<uint64_t>(bound)));
  }
  const char *pick(const Words &words) { return words[below(words.size())]; }

  /// "source ids<TAB>target ids", the target copied or reversed.
  std::string sequencePair(const GenerateOptions &options, bool reverse) {
    int64_t length =
        options.minLength + below(options.maxLength - options.minLength + 1);
    std::vector<int64_t> source;
    for (int64_t i = 0; i < length; ++i)
      source.push_back(kNumReservedIds +
                       below(options.vocabularySize - kNumReservedIds));
    std::vector<int64_t> target = source;
    if (reverse)
      std::reverse(target.begin(), target.end());
    return join(source) + "\t" + join(target);
  }

  /// A sentence whose sentiment words are all positive or all negative.
  std::string sentence(bool positive) {
    const Words &adjectives = positive ? kPositive : kNegative;
    std::string text = pick(kOpeners);
    auto add = [&](const std::string &words) {
      if (!words.empty())
        text += (text.empty() ? "" : " ") + words;
    };
    for (int64_t clause = 0, clauses = 1 + below(2); clause < clauses;
         ++clause) {
      if (clause > 0)
        add("and");
      std::string noun = pick(kNouns), adjective = pick(adjectives);
      switch (below(5)) {
      case 0:
        add("the " + noun + " was " + adjective);
        break;
      case 1:
        add("the " + noun + " was " + pick(kIntensifiers) + " " + adjective);
        break;
      case 2:
        add(article(adjective) + " " + adjective + " " + noun);
        break;
      case 3:
        add("the " + noun + " felt " + adjective);
        break;
      case 4:
        add(adjective + " " + noun + " and " + pick(adjectives) + " " +
            pick(kNouns));
        break;
      }
    }
    add(pick(kClosers));
    return text;
  }

private:
  static std::string article(const std::string &word) {
    return std::strchr("aeiou", word[0]) ? "an" : "a";
  }

  static std::string join(const std::vector<int64_t> &ids) {
    std::string text;
    for (size_t i = 0; i < ids.size(); ++i)
      text += (i ? " " : "") + std::to_string(ids[i]);
    return text;
  }

  SplitMix64 random_;
};

void checkOptions(GeneratedTask task, const GenerateOptions &options) {
  auto bad = [](const std::string &message) {
    rt::fail(TF_ERROR_INVALID_ARGUMENT, "generate: " + message);
  };
  if (options.count < 1)
    bad("the count must be positive, got " + std::to_string(options.count));
  if (task == GeneratedTask::Sentiment)
    return;
  if (options.minLength < 1 || options.maxLength < options.minLength)
    bad("lengths must satisfy 1 <= min <= max, got " +
        std::to_string(options.minLength) + " and " +
        std::to_string(options.maxLength));
  if (options.vocabularySize <= kNumReservedIds)
    bad("a vocabulary of " + std::to_string(options.vocabularySize) +
        " ids leaves no token above the " + std::to_string(kNumReservedIds) +
        " reserved ids");
}

} // namespace

std::string generateTask(GeneratedTask task, const GenerateOptions &options) {
  checkOptions(task, options);
  Generator generator(options.seed);
  std::string text;
  bool positive = false;
  for (int64_t i = 0; i < options.count; ++i) {
    switch (task) {
    case GeneratedTask::Copy:
    case GeneratedTask::Reverse:
      text += generator.sequencePair(options, task == GeneratedTask::Reverse);
      break;
    case GeneratedTask::Sentiment:
      // Each pair of examples holds one of each class, in a random order:
      // the classes are balanced, and yet the label of every k-th example
      // (a held-out split) is random.
      positive = i % 2 == 0 ? generator.below(2) == 1 : !positive;
      text += (positive ? "1\t" : "0\t") + generator.sentence(positive);
      break;
    }
    text += '\n';
  }
  return text;
}

} // namespace transfuse::data
