//===- InitAttrTest.cpp - #nn.init rules built from C++ -------------------===//
//
// The text parser never reads the numbers a kind does not take, so the
// verifier's rule that they are zero is only reachable from C++.
//===----------------------------------------------------------------------===//
#include "transfuse/Dialect/NN/NNOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace transfuse::nn;

namespace {

class InitAttrTest : public ::testing::Test {
protected:
  InitAttrTest() { context.loadDialect<NNDialect>(); }

  /// Builds the attribute, returning the verifier's message or "".
  std::string check(InitKind kind, double a, double b) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
    InitAttr::getChecked(emitError, &context, kind, llvm::APFloat(a),
                         llvm::APFloat(b));
    return message;
  }

  MLIRContext context;
};

TEST_F(InitAttrTest, AcceptsTheNumbersEachKindTakes) {
  EXPECT_EQ(check(InitKind::zeros, 0, 0), "");
  EXPECT_EQ(check(InitKind::constant, 0.5, 0), "");
  EXPECT_EQ(check(InitKind::uniform, -0.1, 0.1), "");
  EXPECT_EQ(check(InitKind::normal, 0, 0.02), "");
}

TEST_F(InitAttrTest, RejectsNumbersAKindDoesNotTake) {
  EXPECT_EQ(check(InitKind::zeros, 1, 0), "zeros init takes 0 numbers");
  EXPECT_EQ(check(InitKind::ones, 0, 2), "ones init takes 0 numbers");
  EXPECT_EQ(check(InitKind::constant, 0.5, 3), "constant init takes 1 numbers");
}

TEST_F(InitAttrTest, PrintsWhatItParses) {
  Attribute attr = InitAttr::get(&context, InitKind::uniform, -0.25, 0.25);
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  EXPECT_EQ(text, "#nn.init<uniform(-2.500000e-01, 2.500000e-01)>");
  EXPECT_EQ(parseAttribute(text, &context), attr);
}

} // namespace
