//===- RuntimeDataGenerateTest.cpp - Generated tasks ----------------------===//
//
// A generated file is a pure function of its options and reads back through
// the readers: copy targets equal their sources, reverse targets are them
// reversed, and sentiment labels are balanced and carried by words of one
// class only.
//===----------------------------------------------------------------------===//
#include "RuntimeDataTesting.h"

#include <algorithm>
#include <map>
#include <set>

using namespace transfuse::test;
using namespace transfuse::data;

namespace {

class RuntimeDataGenerateTest : public DataTest {
protected:
  /// Generates a task and reads it back, all of it as training examples.
  Dataset generated(GeneratedTask task, const GenerateOptions &options) {
    DataOptions data;
    data.path = write("task.tsv", generateTask(task, options));
    data.vocabularySize = options.vocabularySize;
    if (task == GeneratedTask::Sentiment) {
      data.format = Format::Tsv;
      data.task = Task::Classification;
      data.tokenizer = Tokenizer::Words;
      data.numClasses = 2;
      data.vocabularySize = 1000;
    } else {
      data.format = Format::Ids;
      data.task = Task::Seq2Seq;
    }
    return loadData(data).train;
  }
};

GenerateOptions counted(int64_t count, uint64_t seed = 1) {
  GenerateOptions options;
  options.count = count;
  options.seed = seed;
  return options;
}

TEST_F(RuntimeDataGenerateTest, TheSameOptionsGiveTheSameFile) {
  for (GeneratedTask task : {GeneratedTask::Copy, GeneratedTask::Reverse,
                             GeneratedTask::Sentiment}) {
    std::string text = generateTask(task, counted(50, 3));
    EXPECT_EQ(generateTask(task, counted(50, 3)), text);
    EXPECT_NE(generateTask(task, counted(50, 4)), text);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 50);
  }
  // Pinned, so that a change of the generator is a visible one.
  EXPECT_EQ(generateTask(GeneratedTask::Copy, counted(2)),
            "11 10 15 13 12 13\t11 10 15 13 12 13\n"
            "4 14 13 14\t4 14 13 14\n");
  EXPECT_EQ(generateTask(GeneratedTask::Sentiment, counted(1, 0)),
            "1\thonestly the acting was gripping and funny movie and "
            "beautiful direction this year\n");
}

TEST_F(RuntimeDataGenerateTest, CopyTargetsEqualTheirSources) {
  GenerateOptions options = counted(200);
  options.minLength = 3;
  options.maxLength = 7;
  options.vocabularySize = 12;
  Dataset dataset = generated(GeneratedTask::Copy, options);
  ASSERT_EQ(dataset.examples.size(), 200u);
  std::set<size_t> lengths;
  std::set<int64_t> ids;
  for (const Example &example : dataset.examples) {
    EXPECT_EQ(example.target, example.tokens);
    lengths.insert(example.tokens.size());
    ids.insert(example.tokens.begin(), example.tokens.end());
  }
  EXPECT_EQ(lengths, (std::set<size_t>{3, 4, 5, 6, 7}));
  EXPECT_EQ(ids, (std::set<int64_t>{4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST_F(RuntimeDataGenerateTest, ReverseTargetsAreReversed) {
  Dataset dataset = generated(GeneratedTask::Reverse, counted(200));
  bool palindromesOnly = true;
  for (const Example &example : dataset.examples) {
    EXPECT_TRUE(std::equal(example.target.begin(), example.target.end(),
                           example.tokens.rbegin(), example.tokens.rend()));
    palindromesOnly &= example.target == example.tokens;
    EXPECT_GE(example.tokens.size(), 1u);
    EXPECT_LE(example.tokens.size(), 10u);
  }
  EXPECT_FALSE(palindromesOnly);
}

TEST_F(RuntimeDataGenerateTest, SentimentIsBalancedAndCarriedByWords) {
  Dataset dataset = generated(GeneratedTask::Sentiment, counted(1000));
  ASSERT_EQ(dataset.examples.size(), 1000u);
  int64_t positive = 0;
  std::map<int64_t, std::set<int64_t>> classesOfWord;
  for (const Example &example : dataset.examples) {
    positive += example.label;
    for (int64_t word : example.tokens)
      classesOfWord[word].insert(example.label);
  }
  EXPECT_EQ(positive, 500);
  EXPECT_EQ(generated(GeneratedTask::Sentiment, counted(7)).examples.size(),
            7u);
  // Every sentence holds a word seen in its class only (and so none seen in
  // the other class only): a bag of words separates the classes exactly.
  for (const Example &example : dataset.examples)
    EXPECT_TRUE(std::any_of(
        example.tokens.begin(), example.tokens.end(), [&](int64_t word) {
          return classesOfWord[word] == std::set<int64_t>{example.label};
        }));
}

TEST_F(RuntimeDataGenerateTest, LabelsStayBalancedPerPair) {
  std::string text = generateTask(GeneratedTask::Sentiment, counted(7, 5));
  std::vector<char> labels;
  for (size_t line = 0; line < text.size(); line = text.find('\n', line) + 1)
    labels.push_back(text[line]);
  ASSERT_EQ(labels.size(), 7u);
  for (size_t i = 0; i + 1 < labels.size(); i += 2)
    EXPECT_NE(labels[i], labels[i + 1]) << i;
}

TEST_F(RuntimeDataGenerateTest, Errors) {
  auto failure = [](GeneratedTask task, auto edit) {
    GenerateOptions options = counted(5);
    edit(options);
    return thrown([&] { generateTask(task, options); });
  };
  struct Case {
    Outcome outcome;
    std::string message;
  };
  const Case cases[] = {
      {failure(GeneratedTask::Sentiment,
               [](GenerateOptions &o) { o.count = 0; }),
       "generate: the count must be positive, got 0"},
      {failure(GeneratedTask::Copy,
               [](GenerateOptions &o) { o.minLength = 0; }),
       "generate: lengths must satisfy 1 <= min <= max, got 0 and 10"},
      {failure(GeneratedTask::Reverse,
               [](GenerateOptions &o) { o.minLength = 11; }),
       "generate: lengths must satisfy 1 <= min <= max, got 11 and 10"},
      {failure(GeneratedTask::Copy,
               [](GenerateOptions &o) { o.vocabularySize = 4; }),
       "generate: a vocabulary of 4 ids leaves no token above the 4 reserved "
       "ids"},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(c.outcome.status, TF_ERROR_INVALID_ARGUMENT) << c.message;
    EXPECT_EQ(c.outcome.message, c.message);
  }
}

TEST_F(RuntimeDataGenerateTest, FilesAreWrittenAtomically) {
  std::string path = dir.file("out.tsv");
  writeFileAtomically(path, "1\ta\n");
  EXPECT_EQ(readBinary(path), "1\ta\n");
  EXPECT_EQ(dir.temporaries(), std::vector<std::string>{});
  std::string missing = dir.file("no/dir/out.tsv");
  Outcome outcome = thrown([&] { writeFileAtomically(missing, "x"); });
  EXPECT_EQ(outcome.status, TF_ERROR_IO);
  EXPECT_EQ(outcome.message,
            "cannot write '" + missing + "': No such file or directory");
}

} // namespace
