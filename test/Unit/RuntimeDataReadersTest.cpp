//===- RuntimeDataReadersTest.cpp - Data files to examples ----------------===//
//
// Every format and tokeniser gives the documented examples, the split holds
// out every k-th one, a word vocabulary sees the training split only, and
// every bad file or option is an error naming the file and line.
//===----------------------------------------------------------------------===//
#include "RuntimeDataTesting.h"

using namespace transfuse::test;
using namespace transfuse::data;

namespace {

using Ids = std::vector<int64_t>;

Ids bytes(const std::string &text) { return Ids(text.begin(), text.end()); }

Example sequence(Ids tokens) {
  Example example;
  example.tokens = std::move(tokens);
  return example;
}

Example labelled(int64_t label, Ids tokens) {
  Example example = sequence(std::move(tokens));
  example.label = label;
  return example;
}

Example pair(Ids source, Ids target) {
  Example example = sequence(std::move(source));
  example.target = std::move(target);
  return example;
}

class RuntimeDataReadersTest : public DataTest {
protected:
  /// Options for a new file of `text`.
  DataOptions options(const std::string &text, Format format, Task task) {
    DataOptions options;
    options.path = write("data" + std::to_string(files_++), text);
    options.format = format;
    options.task = task;
    return options;
  }

  DataOptions corpus(const std::string &text, int64_t sequenceLength) {
    DataOptions options =
        this->options(text, Format::Text, Task::LanguageModel);
    options.sequenceLength = sequenceLength;
    return options;
  }

  DataOptions classes(const std::string &text, Format format,
                      int64_t numClasses = 2) {
    DataOptions options = this->options(text, format, Task::Classification);
    options.numClasses = numClasses;
    return options;
  }

  /// The error loading `options` throws, its file named 'data' whatever its
  /// path.
  Outcome failure(const DataOptions &options) {
    Outcome outcome = thrown([&] { loadData(options); });
    std::string quoted = "'" + options.path + "'";
    if (size_t at = outcome.message.find(quoted); at != std::string::npos)
      outcome.message.replace(at, quoted.size(), "'data'");
    return outcome;
  }

private:
  int files_ = 0;
};

TEST_F(RuntimeDataReadersTest, TextCorpusIsCutIntoWindows) {
  // Windows of 3 + 1 bytes, each starting where the previous one's inputs
  // end: 10 bytes give 3, the last byte only a label.
  Data data = loadData(corpus("abcdefghij", 3));
  EXPECT_EQ(data.train.task, Task::LanguageModel);
  EXPECT_EQ(
      data.train.examples,
      (std::vector<Example>{sequence(bytes("abcd")), sequence(bytes("defg")),
                            sequence(bytes("ghij"))}));
  EXPECT_TRUE(data.heldOut.examples.empty());
  EXPECT_FALSE(data.vocabulary);
  // Every byte is a token, newlines and non-ASCII included.
  Data raw = loadData(corpus("a\n\xff", 2));
  EXPECT_EQ(raw.train.examples,
            (std::vector<Example>{sequence({97, 10, 255})}));
}

TEST_F(RuntimeDataReadersTest, EveryKthExampleIsHeldOut) {
  DataOptions options = corpus("abcdefghijklm", 2); // 6 windows
  options.heldOutEvery = 3;
  Data data = loadData(options);
  EXPECT_EQ(
      data.train.examples,
      (std::vector<Example>{sequence(bytes("abc")), sequence(bytes("cde")),
                            sequence(bytes("ghi")), sequence(bytes("ijk"))}));
  EXPECT_EQ(
      data.heldOut.examples,
      (std::vector<Example>{sequence(bytes("efg")), sequence(bytes("klm"))}));
  EXPECT_EQ(data.heldOut.task, Task::LanguageModel);

  // Lines count as examples, blank ones not.
  DataOptions lines =
      this->options("1 2\n\n3 4\n5 6\n7 8\n", Format::Ids, Task::LanguageModel);
  lines.heldOutEvery = 2;
  Data split = loadData(lines);
  EXPECT_EQ(split.train.examples,
            (std::vector<Example>{sequence({1, 2}), sequence({5, 6})}));
  EXPECT_EQ(split.heldOut.examples,
            (std::vector<Example>{sequence({3, 4}), sequence({7, 8})}));
}

TEST_F(RuntimeDataReadersTest, TsvClassificationAsBytes) {
  Data data = loadData(classes("1\thi!\n0\t ok\r\n\n1\tx y\n", Format::Tsv));
  EXPECT_EQ(data.train.task, Task::Classification);
  EXPECT_EQ(data.train.examples,
            (std::vector<Example>{labelled(1, bytes("hi!")),
                                  labelled(0, bytes(" ok")),
                                  labelled(1, bytes("x y"))}));
}

TEST_F(RuntimeDataReadersTest, TsvClassificationAsWords) {
  DataOptions options = classes("1\tgood film\n"
                                "0\tbad film\n"
                                "1\tsecret words only\n"
                                "0\tbad bad plot\n",
                                Format::Tsv);
  options.tokenizer = Tokenizer::Words;
  options.heldOutEvery = 3;
  options.vocabularySize = 7;
  Data data = loadData(options);
  // From the training lines only (1, 2 and 4): bad 3, film 2, then good,
  // the first seen of the words counted once; the held-out words are <unk>.
  ASSERT_TRUE(data.vocabulary);
  EXPECT_EQ(data.vocabulary->words(),
            (std::vector<std::string>{"<pad>", "<unk>", "<s>", "</s>", "bad",
                                      "film", "good"}));
  EXPECT_EQ(data.train.examples,
            (std::vector<Example>{labelled(1, {6, 5}), labelled(0, {4, 5}),
                                  labelled(0, {4, 4, 1})}));
  EXPECT_EQ(data.heldOut.examples,
            (std::vector<Example>{labelled(1, {1, 1, 1})}));
}

TEST_F(RuntimeDataReadersTest, AGivenVocabularyIsUsed) {
  DataOptions options = classes("1\tb a z\n", Format::Tsv);
  options.tokenizer = Tokenizer::Words;
  options.vocabulary = Vocabulary::parse("<pad>\n<unk>\n<s>\n</s>\na\nb");
  Data data = loadData(options);
  EXPECT_EQ(data.vocabulary->words(), options.vocabulary->words());
  EXPECT_EQ(data.train.examples,
            (std::vector<Example>{labelled(1, {5, 4, 1})}));
}

TEST_F(RuntimeDataReadersTest, TsvSeq2SeqAsWords) {
  DataOptions options = this->options("le chat\tthe cat\nle chien\tthe dog\n",
                                      Format::Tsv, Task::Seq2Seq);
  options.tokenizer = Tokenizer::Words;
  Data data = loadData(options);
  // Source and target words share one vocabulary.
  EXPECT_EQ(data.vocabulary->words(),
            (std::vector<std::string>{"<pad>", "<unk>", "<s>", "</s>", "le",
                                      "the", "chat", "cat", "chien", "dog"}));
  EXPECT_EQ(data.train.task, Task::Seq2Seq);
  EXPECT_EQ(data.train.examples,
            (std::vector<Example>{pair({4, 6}, {5, 7}), pair({4, 8}, {5, 9})}));
}

TEST_F(RuntimeDataReadersTest, TsvSeq2SeqAsBytes) {
  Data data =
      loadData(this->options("ab\tba\nc\t\n", Format::Tsv, Task::Seq2Seq));
  // An empty target is an example: the decoder is to say EOS at once.
  EXPECT_EQ(data.train.examples,
            (std::vector<Example>{pair(bytes("ab"), bytes("ba")),
                                  pair(bytes("c"), {})}));
}

TEST_F(RuntimeDataReadersTest, IdFiles) {
  DataOptions lm =
      options("5 6 7\n\n  8\t9 \n", Format::Ids, Task::LanguageModel);
  lm.vocabularySize = 10;
  EXPECT_EQ(loadData(lm).train.examples,
            (std::vector<Example>{sequence({5, 6, 7}), sequence({8, 9})}));

  DataOptions labels = classes("1\t5 6\n 0 \t9\n", Format::Ids);
  labels.vocabularySize = 10;
  EXPECT_EQ(loadData(labels).train.examples,
            (std::vector<Example>{labelled(1, {5, 6}), labelled(0, {9})}));

  DataOptions pairs =
      options("4 5 6\t6 5 4\n7\t7\n", Format::Ids, Task::Seq2Seq);
  pairs.vocabularySize = 8;
  EXPECT_EQ(loadData(pairs).train.examples,
            (std::vector<Example>{pair({4, 5, 6}, {6, 5, 4}), pair({7}, {7})}));
}

TEST_F(RuntimeDataReadersTest, FileErrors) {
  DataOptions missing = corpus("", 4);
  missing.path = dir.file("absent.txt");
  Outcome outcome = failure(missing);
  EXPECT_EQ(outcome.status, TF_ERROR_IO);
  EXPECT_EQ(outcome.message, "cannot read 'data': No such file or directory");

  DataOptions directory = classes("", Format::Tsv);
  directory.path = dir.path();
  outcome = failure(directory);
  EXPECT_EQ(outcome.status, TF_ERROR_IO);
  EXPECT_EQ(outcome.message, "cannot read 'data': Is a directory");
}

TEST_F(RuntimeDataReadersTest, BadFiles) {
  struct Case {
    DataOptions options;
    tf_status status;
    std::string message;
  };
  DataOptions smallVocabulary = corpus("abc\nxyz", 2);
  smallVocabulary.vocabularySize = 100;
  DataOptions idsLm = options("1 2\n3\n", Format::Ids, Task::LanguageModel);
  DataOptions wordsLm =
      options("one two\n\t \n", Format::Tsv, Task::LanguageModel);
  wordsLm.tokenizer = Tokenizer::Words;
  DataOptions bytesTsv = classes("1\tok\n0\tcaf\xc3\xa9\n", Format::Tsv);
  bytesTsv.vocabularySize = 128;
  DataOptions idsTooLarge = classes("1\t1 2\n0\t3 300 4\n", Format::Ids);
  // The first bad line in the file is reported, held out or not.
  DataOptions heldOutFirst = classes("1\t1\n1\t2\n5\t3\n7\t4\n", Format::Tsv);
  heldOutFirst.heldOutEvery = 3;

  const Case cases[] = {
      {corpus("", 4), TF_ERROR_FORMAT, "'data': the corpus is empty"},
      {corpus("abcd", 4), TF_ERROR_FORMAT,
       "'data': 4 bytes make no example, a window of the sequence length 4 "
       "plus one"},
      {smallVocabulary, TF_ERROR_INVALID_ARGUMENT,
       "'data':2: byte 0x78 is outside the model's vocabulary [0, 99]"},
      {classes("", Format::Tsv), TF_ERROR_FORMAT,
       "'data': the file holds no example"},
      {classes("\n\r\n\n", Format::Ids), TF_ERROR_FORMAT,
       "'data': the file holds no example"},
      {classes("1\tgood\n0 bad\n", Format::Tsv), TF_ERROR_FORMAT,
       "'data':2: expected 'label<TAB>text', the line has no tab"},
      {classes("1\tgood\tfun\n", Format::Tsv), TF_ERROR_FORMAT,
       "'data':1: expected 'label<TAB>text', the line has more than one tab"},
      {options("a\tb\n\nc\n", Format::Tsv, Task::Seq2Seq), TF_ERROR_FORMAT,
       "'data':3: expected 'source<TAB>target', the line has no tab"},
      {classes("0\ta\n1\tb\n2\tc\n", Format::Tsv), TF_ERROR_INVALID_ARGUMENT,
       "'data':3: label 2 is outside the 2 classes [0, 1]"},
      {classes("-1\ta\n", Format::Tsv, 3), TF_ERROR_INVALID_ARGUMENT,
       "'data':1: label -1 is outside the 3 classes [0, 2]"},
      {classes("pos\ta\n", Format::Tsv), TF_ERROR_FORMAT,
       "'data':1: label 'pos' is not a class id (an integer)"},
      {classes("1 0\ta\n", Format::Tsv), TF_ERROR_FORMAT,
       "'data':1: label '1 0' is not a class id (an integer)"},
      {classes("\ta\n", Format::Tsv), TF_ERROR_FORMAT,
       "'data':1: label '' is not a class id (an integer)"},
      {heldOutFirst, TF_ERROR_INVALID_ARGUMENT,
       "'data':3: label 5 is outside the 2 classes [0, 1]"},
      {idsTooLarge, TF_ERROR_INVALID_ARGUMENT,
       "'data':2: id 300 is outside the model's vocabulary [0, 255]"},
      {classes("1\t1 -2\n", Format::Ids), TF_ERROR_INVALID_ARGUMENT,
       "'data':1: id -2 is outside the model's vocabulary [0, 255]"},
      {classes("1\t1 2x\n", Format::Ids), TF_ERROR_FORMAT,
       "'data':1: '2x' is not a token id (an integer)"},
      {classes("1\t99999999999999999999\n", Format::Ids), TF_ERROR_FORMAT,
       "'data':1: '99999999999999999999' is not a token id (an integer)"},
      {bytesTsv, TF_ERROR_INVALID_ARGUMENT,
       "'data':2: byte 0xc3 is outside the model's vocabulary [0, 127]"},
      {idsLm, TF_ERROR_FORMAT,
       "'data':2: a sequence needs at least 2 tokens, the line has 1"},
      {wordsLm, TF_ERROR_FORMAT,
       "'data':2: a sequence needs at least 2 tokens, the line has 0"},
      {classes("1\t\n", Format::Tsv), TF_ERROR_FORMAT,
       "'data':1: the text has no tokens"},
      {options("\t5\n", Format::Ids, Task::Seq2Seq), TF_ERROR_FORMAT,
       "'data':1: the source has no tokens"},
  };
  for (const Case &c : cases) {
    Outcome outcome = failure(c.options);
    EXPECT_EQ(outcome.status, c.status) << c.message;
    EXPECT_EQ(outcome.message, c.message);
  }
}

TEST_F(RuntimeDataReadersTest, BadOptions) {
  auto with = [&](auto edit) {
    DataOptions options = corpus("abcdefgh", 2);
    edit(options);
    return failure(options);
  };
  struct Case {
    Outcome outcome;
    std::string message;
  };
  const Case cases[] = {
      {with([](DataOptions &o) { o.vocabularySize = 0; }),
       "the vocabulary size must be positive, got 0"},
      {with([](DataOptions &o) { o.heldOutEvery = 1; }),
       "every k-th example is held out: k must be 0 (none) or at least 2, got "
       "1"},
      {with([](DataOptions &o) { o.heldOutEvery = -4; }),
       "every k-th example is held out: k must be 0 (none) or at least 2, got "
       "-4"},
      {with([](DataOptions &o) { o.task = Task::Seq2Seq; }),
       "the text format is a language-model corpus"},
      {with([](DataOptions &o) { o.sequenceLength = 0; }),
       "the text format needs a positive sequence length, got 0"},
      {with([](DataOptions &o) {
         o.format = Format::Tsv;
         o.task = Task::Classification;
       }),
       "classification needs a positive number of classes, got 0"},
      {with([](DataOptions &o) { o.tokenizer = Tokenizer::Words; }),
       "only the tsv format is tokenised into words"},
      {with([](DataOptions &o) {
         o.format = Format::Ids;
         o.tokenizer = Tokenizer::Words;
       }),
       "only the tsv format is tokenised into words"},
      {with([](DataOptions &o) { o.vocabulary = Vocabulary::build({}, 4); }),
       "a vocabulary is given, but the tokenizer is not words"},
      {with([](DataOptions &o) {
         o.format = Format::Tsv;
         o.tokenizer = Tokenizer::Words;
         o.vocabulary = Vocabulary::build({"a b c"}, 7);
         o.vocabularySize = 6;
       }),
       "the vocabulary has 7 words, more than the model's 6 ids"},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(c.outcome.status, TF_ERROR_INVALID_ARGUMENT) << c.message;
    EXPECT_EQ(c.outcome.message, c.message);
  }
}

} // namespace
