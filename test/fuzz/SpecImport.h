//===- SpecImport.h - The spec targets' import ------------------*- C++ -*-===//
//
// What transfuse-compile does first with a spec: Spec::parse, then
// importSpec, in a context of its own for every input (a shared one would
// keep every attribute any input ever made). An import either succeeds or
// fails with at least one error diagnostic, which the tool prints.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_FUZZ_SPECIMPORT_H
#define TRANSFUSE_TEST_FUZZ_SPECIMPORT_H

#include "llvm/ADT/StringRef.h"

namespace transfuse::fuzz {

/// Parses and imports `text`, as the spec file "fuzz.pbtxt".
void importSpecText(llvm::StringRef text);

} // namespace transfuse::fuzz

#endif // TRANSFUSE_TEST_FUZZ_SPECIMPORT_H
