//===- RuntimeDataVocabularyTest.cpp - Whitespace-word vocabularies -------===//
//
// The reserved words come first, then the most frequent words, ties going
// to the word seen first; the newline format round-trips and gives the ids
// that `transfuse-run --text` reads from it.
//===----------------------------------------------------------------------===//
#include "RuntimeDataTesting.h"

#include <sstream>

using namespace transfuse::test;
using transfuse::data::Vocabulary;

namespace {

using Words = std::vector<std::string>;

const Words kReserved = {"<pad>", "<unk>", "<s>", "</s>"};

Words with(Words words) {
  words.insert(words.begin(), kReserved.begin(), kReserved.end());
  return words;
}

TEST(RuntimeDataVocabularyTest, TopWordsByCountThenFirstOccurrence) {
  // Counts: b 2, a 2, c 2, d 1, e 1; b is seen first, then a, c, d, e.
  std::vector<std::string_view> texts = {"b a c a", "c d b e"};
  EXPECT_EQ(Vocabulary::build(texts, 7).words(), with({"b", "a", "c"}));
  EXPECT_EQ(Vocabulary::build(texts, 8).words(), with({"b", "a", "c", "d"}));
  EXPECT_EQ(Vocabulary::build(texts, 100).words(),
            with({"b", "a", "c", "d", "e"}));
  EXPECT_EQ(Vocabulary::build(texts, 4).words(), kReserved);
  // A more frequent word goes first wherever it was seen.
  EXPECT_EQ(Vocabulary::build({"x y z z z y"}, 100).words(),
            with({"z", "y", "x"}));
}

TEST(RuntimeDataVocabularyTest, WordsAreSplitAtAnyWhitespace) {
  Vocabulary vocabulary =
      Vocabulary::build({"  one\ttwo\r\nthree\v\ffour  ", ""}, 100);
  EXPECT_EQ(vocabulary.words(), with({"one", "two", "three", "four"}));
}

TEST(RuntimeDataVocabularyTest, ReservedWordsInTheTextKeepTheirIds) {
  Vocabulary vocabulary = Vocabulary::build({"<unk> x <pad> x </s>"}, 100);
  EXPECT_EQ(vocabulary.words(), with({"x"}));
  EXPECT_EQ(vocabulary.encode("<pad> <unk> <s> </s> x"),
            (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(RuntimeDataVocabularyTest, UnknownWordsAreUnk) {
  Vocabulary vocabulary = Vocabulary::build({"the cat sat the"}, 100);
  EXPECT_EQ(vocabulary.id("the"), 4);
  EXPECT_EQ(vocabulary.id("dog"), transfuse::data::kUnknownId);
  EXPECT_EQ(vocabulary.encode(" the dog\tsat "),
            (std::vector<int64_t>{4, 1, 6}));
  EXPECT_EQ(vocabulary.encode(""), std::vector<int64_t>{});
}

TEST(RuntimeDataVocabularyTest, SerialisedOneWordPerLineInIdOrder) {
  Vocabulary vocabulary = Vocabulary::build({"b a a"}, 100);
  EXPECT_EQ(vocabulary.serialize(), "<pad>\n<unk>\n<s>\n</s>\na\nb");
}

TEST(RuntimeDataVocabularyTest, RoundTrip) {
  Vocabulary vocabulary =
      Vocabulary::build({"the cat sat on the mat", "a dog, a cat."}, 9);
  Vocabulary parsed = Vocabulary::parse(vocabulary.serialize());
  EXPECT_EQ(parsed.words(), vocabulary.words());
  EXPECT_EQ(parsed.encode("a cat on a mat"),
            vocabulary.encode("a cat on a mat"));
  // A final newline, as a text editor leaves it, reads the same.
  EXPECT_EQ(Vocabulary::parse(vocabulary.serialize() + "\n").words(),
            vocabulary.words());
}

TEST(RuntimeDataVocabularyTest, TransfuseRunReadsTheSameIds) {
  // tools/transfuse-run/TextMode.cpp: std::getline, a word's id its line.
  Vocabulary vocabulary = Vocabulary::build({"c b a c b c"}, 100);
  std::istringstream lines(vocabulary.serialize());
  std::string word;
  int64_t id = 0;
  for (; std::getline(lines, word); ++id)
    EXPECT_EQ(vocabulary.id(word), id) << word;
  EXPECT_EQ(id, vocabulary.size());
}

TEST(RuntimeDataVocabularyTest, TooSmallForTheReservedWords) {
  Outcome outcome = thrown([] { Vocabulary::build({"a"}, 3); });
  EXPECT_EQ(outcome.status, TF_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(outcome.message,
            "a vocabulary of 3 words cannot hold the 4 reserved ones");
}

TEST(RuntimeDataVocabularyTest, ParseErrors) {
  const std::string reserved = "<pad>\n<unk>\n<s>\n</s>\n";
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"", "w.txt: line 1 is '', expected '<pad>' (the reserved words come "
           "first)"},
      {"<pad>\n<unk>\nhello\n</s>",
       "w.txt: line 3 is 'hello', expected '<s>' (the reserved words come "
       "first)"},
      // The carriage return is quoted escaped, as every control byte is.
      {"<pad>\r\n<unk>", "w.txt: line 1 is '<pad>\\x0d', expected '<pad>'"},
      {reserved + "a\n\nb", "w.txt: line 6 is empty"},
      {reserved + "a\n\n", "w.txt: line 6 is empty"},
      {reserved + "new york", "w.txt: line 5 ('new york') holds whitespace"},
      {reserved + "a\nb\na", "w.txt: line 7 repeats 'a' (line 5)"},
  };
  for (const Case &c : cases) {
    Outcome outcome = thrown([&] { Vocabulary::parse(c.text, "w.txt"); });
    EXPECT_EQ(outcome.status, TF_ERROR_FORMAT) << c.message;
    EXPECT_CONTAINS(outcome.message, c.message);
  }
}

} // namespace
