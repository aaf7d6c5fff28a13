//===- KernelTable.cpp - The emulated kernels by their symbols ------------===//
#include "KernelTable.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace transfuse::emu {
namespace {

std::map<std::string, KernelEntry, std::less<>> &table() {
  static std::map<std::string, KernelEntry, std::less<>> kernels;
  return kernels;
}

} // namespace

KernelRegistration::KernelRegistration(
    std::initializer_list<KernelEntry> entries) {
  for (const KernelEntry &entry : entries)
    if (!table().emplace(entry.symbol, entry).second) {
      // Two families with one symbol: the runtime would load either.
      std::fprintf(stderr, "CUDA emulation: kernel %s listed twice\n",
                   entry.symbol);
      std::abort();
    }
}

const KernelEntry *findKernel(std::string_view symbol) {
  auto found = table().find(symbol);
  return found == table().end() ? nullptr : &found->second;
}

} // namespace transfuse::emu
