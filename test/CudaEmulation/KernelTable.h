//===- KernelTable.h - The emulated kernels by their symbols ----*- C++ -*-===//
//
// Each *Kernels.cpp compiles a kernel family and lists its kernels with
// TF_EMU_KERNEL(symbol): the table maps the symbols that the launchers
// (runtime/lib/cuda/*.cpp) pass to launchLibraryKernel to bodies that
// unpack the launch's parameters into the kernel's arguments, as
// cuLaunchKernel copies them: sizeof(parameter) bytes from each pointer.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_CUDAEMULATION_KERNELTABLE_H
#define TRANSFUSE_TEST_CUDAEMULATION_KERNELTABLE_H

#include "Grid.h"

#include <cstring>
#include <initializer_list>
#include <string_view>
#include <utility>

namespace transfuse::emu {

struct KernelEntry {
  const char *symbol;
  KernelBody body;
  /// The kernel's parameters: the launch passes as many pointers, then
  /// null.
  size_t parameters;
};

template <typename T> T parameter(const void *address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}

template <typename... Parameters, size_t... I>
void call(void (*kernel)(Parameters...), void *const *params,
          std::index_sequence<I...>) {
  kernel(parameter<Parameters>(params[I])...);
}

template <typename... Parameters>
constexpr size_t parameterCount(void (*)(Parameters...)) {
  return sizeof...(Parameters);
}

/// The body of `Kernel`: the kernel called on the launch's parameters.
template <auto Kernel> void bodyOf(void *const *params) {
  call(Kernel, params, std::make_index_sequence<parameterCount(Kernel)>());
}

/// The entry of `Kernel`, named `symbol`.
template <auto Kernel> KernelEntry entryOf(const char *symbol) {
  return {symbol, &bodyOf<Kernel>, parameterCount(Kernel)};
}

/// Adds its entries to the table, at static initialisation.
struct KernelRegistration {
  KernelRegistration(std::initializer_list<KernelEntry> entries);
};

/// The kernel of `symbol`, or null.
const KernelEntry *findKernel(std::string_view symbol);

} // namespace transfuse::emu

#define TF_EMU_KERNEL(symbol) ::transfuse::emu::entryOf<&symbol>(#symbol)

#endif // TRANSFUSE_TEST_CUDAEMULATION_KERNELTABLE_H
