//===- SpecTest.cpp - Loading and validating model specs ------------------===//
#include "transfuse/Spec/Spec.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace transfuse::spec;

namespace {

TEST(DimOverride, ParsesNameAndValue) {
  std::string why;
  auto override = parseDimOverride("batch=32", why);
  ASSERT_TRUE(mlir::succeeded(override));
  EXPECT_EQ(override->name, "batch");
  EXPECT_EQ(override->value, 32);
}

TEST(DimOverride, RejectsMissingValue) {
  std::string why;
  EXPECT_TRUE(mlir::failed(parseDimOverride("batch", why)));
  EXPECT_EQ(why, "-D batch: expected name=positive integer");
}

TEST(DimOverride, RejectsNonPositiveValue) {
  std::string why;
  EXPECT_TRUE(mlir::failed(parseDimOverride("batch=0", why)));
  EXPECT_TRUE(mlir::failed(parseDimOverride("batch=-3", why)));
}

} // namespace
