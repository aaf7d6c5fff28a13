//===- RuntimeDataTesting.h - Fixtures of the data tests --------*- C++ -*-===//
#ifndef TRANSFUSE_TEST_UNIT_RUNTIMEDATATESTING_H
#define TRANSFUSE_TEST_UNIT_RUNTIMEDATATESTING_H

#include "RuntimeTesting.h"
#include "transfuse/data.hpp"

namespace transfuse::test {

/// The status and message of the transfuse::Error that `call` throws;
/// TF_OK if it throws none.
template <typename Call> Outcome thrown(Call call) {
  try {
    call();
  } catch (const transfuse::Error &error) {
    return {error.status(), error.what()};
  }
  return {TF_OK, ""};
}

/// Data tests write their files into a temporary directory.
class DataTest : public ::testing::Test {
protected:
  /// Writes `text` to the file `name`; returns its path.
  std::string write(const std::string &name, const std::string &text) {
    std::string path = dir.file(name);
    writeBinary(path, text);
    return path;
  }

  TempDir dir;
};

} // namespace transfuse::test

#endif // TRANSFUSE_TEST_UNIT_RUNTIMEDATATESTING_H
