//===- Arguments.h - Checks of the sizes generated code passes --*- C++ -*-===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_ARGUMENTS_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_ARGUMENTS_H

#include "../Runtime.h"

#include <cstdint>
#include <string>

namespace transfuse::rt::cuda {

/// Throws TF_ERROR_EXECUTION "<name> must not be negative, got <value>".
inline void requireNonNegative(const std::string &name, int64_t value) {
  if (value < 0)
    fail(TF_ERROR_EXECUTION,
         name + " must not be negative, got " + std::to_string(value));
}

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_ARGUMENTS_H
