//===- RuntimeOutputFileTest.cpp - Files written whole or not at all ------===//
//
// An OutputFile replaces its file only on commit; everything else (its
// destruction, a failed write, a file over RLIMIT_FSIZE, a signal) leaves
// the old file byte for byte and no temporary. checkOutput refuses what
// could not be written and what is one of the inputs, by file, not name.
//===----------------------------------------------------------------------===//
#include "RuntimeDataTesting.h"
#include "transfuse/output.hpp"

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace transfuse::test;
using transfuse::checkOutput;
using transfuse::OutputFile;

namespace {

using Names = std::vector<std::string>;

class RuntimeOutputFileTest : public DataTest {
protected:
  std::string old = write("out", "old bytes\n");
};

TEST_F(RuntimeOutputFileTest, ReplacesTheFileOnCommitOnly) {
  OutputFile file(old);
  file.write("new ");
  file.write("bytes\n");
  EXPECT_EQ(readBinary(old), "old bytes\n");
  EXPECT_EQ(dir.temporaries().size(), 1u);
  file.commit();
  EXPECT_EQ(readBinary(old), "new bytes\n");
  EXPECT_EQ(dir.temporaries(), Names{});
}

TEST_F(RuntimeOutputFileTest, WithoutCommitTheOldFileStays) {
  {
    OutputFile file(old);
    file.write("new bytes\n");
  }
  EXPECT_EQ(readBinary(old), "old bytes\n");
  EXPECT_EQ(dir.temporaries(), Names{});
}

TEST_F(RuntimeOutputFileTest, AppendStartsFromACopy) {
  OutputFile file(old, OutputFile::Mode::Append);
  file.write("more\n");
  file.commit();
  EXPECT_EQ(readBinary(old), "old bytes\nmore\n");
  OutputFile fresh(dir.file("fresh"), OutputFile::Mode::Append);
  fresh.write("first\n");
  fresh.commit();
  EXPECT_EQ(readBinary(dir.file("fresh")), "first\n");
}

TEST_F(RuntimeOutputFileTest, ALinkStaysAndItsFileIsReplaced) {
  std::filesystem::create_symlink(old, dir.file("link"));
  OutputFile file(dir.file("link"));
  file.write("through the link\n");
  file.commit();
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link")));
  EXPECT_EQ(readBinary(old), "through the link\n");
}

TEST_F(RuntimeOutputFileTest, DevicesAreWrittenInPlace) {
  OutputFile null("/dev/null");
  null.write("gone");
  null.commit();
  Outcome full = thrown([] {
    OutputFile file("/dev/full");
    file.write("x");
  });
  EXPECT_EQ(full.status, TF_ERROR_IO);
  EXPECT_EQ(full.message, "cannot write '/dev/full': No space left on device");
}

TEST_F(RuntimeOutputFileTest, AFileOverTheSizeLimitIsAnError) {
  // SIGXFSZ would end the process if the write did not take it.
  struct rlimit before;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  struct rlimit small = before;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  Outcome outcome = thrown([&] {
    OutputFile file(old);
    file.write(std::string(10000, 'x'));
    file.commit();
  });
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &before), 0);
  EXPECT_EQ(outcome.status, TF_ERROR_IO);
  EXPECT_EQ(outcome.message, "cannot write '" + old + "': File too large");
  EXPECT_EQ(readBinary(old), "old bytes\n");
  EXPECT_EQ(dir.temporaries(), Names{});
}

TEST_F(RuntimeOutputFileTest, ADirectoryIsNotReplaced) {
  std::filesystem::create_directory(dir.file("taken"));
  Outcome outcome = thrown([&] { OutputFile file(dir.file("taken")); });
  EXPECT_EQ(outcome.message,
            "cannot write '" + dir.file("taken") + "': Is a directory");
}

TEST_F(RuntimeOutputFileTest, ASignalRemovesTheTemporary) {
  for (int signal : {SIGINT, SIGTERM}) {
    EXPECT_EXIT(
        {
          OutputFile file(old);
          file.write("new bytes\n");
          std::raise(signal);
        },
        ::testing::KilledBySignal(signal), "");
    EXPECT_EQ(readBinary(old), "old bytes\n");
    EXPECT_EQ(dir.temporaries(), Names{});
  }
}

TEST_F(RuntimeOutputFileTest, CheckOutputComparesFiles) {
  std::string model = write("model.tfm", "model");
  std::filesystem::create_hard_link(model, dir.file("hard.tfm"));
  std::filesystem::create_symlink(model, dir.file("soft.tfm"));
  std::filesystem::create_directory(dir.file("sub"));
  std::vector<transfuse::FileArgument> inputs = {{"the model", model}};
  for (std::string same : {dir.file("hard.tfm"), dir.file("soft.tfm"),
                           dir.file("sub/../model.tfm")}) {
    Outcome outcome = thrown([&] { checkOutput({"--save", same}, inputs); });
    EXPECT_EQ(outcome.status, TF_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(outcome.message, "--save '" + same +
                                   "' is the same file as the model '" + model +
                                   "'");
  }
  // Two outputs still to be made, in one directory spelt two ways.
  Outcome twice = thrown([&] {
    checkOutput({"--log", dir.file("sub/../new")},
                {{"--save", dir.file("new")}});
  });
  EXPECT_EQ(twice.message, "--log '" + dir.file("sub/../new") +
                               "' is the same file as --save '" +
                               dir.file("new") + "'");
  EXPECT_EQ(thrown([&] {
              checkOutput({"--save", old}, inputs);
            }).status,
            TF_OK);
  EXPECT_EQ(dir.temporaries(), Names{});
}

TEST_F(RuntimeOutputFileTest, CheckOutputRefusesWhatCannotBeWritten) {
  std::filesystem::create_directory(dir.file("sub"));
  struct Case {
    std::string path, message;
  };
  std::vector<Case> cases = {
      {dir.file("sub"), "--out '" + dir.file("sub") + "': is a directory"},
      {dir.file("no/such/x"), "--out '" + dir.file("no/such/x") +
                                  "': the directory '" + dir.file("no/such") +
                                  "' does not exist"},
      {old + "/x", "--out '" + old + "/x': '" + old + "' is not a directory"},
      {"", "--out '': not a file name"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(thrown([&] {
                checkOutput({"--out", c.path}, {});
              }).message,
              c.message);
  EXPECT_EQ(thrown([&] {
              checkOutput({"--out", "/dev/null"}, {});
            }).status,
            TF_OK);
}

} // namespace
