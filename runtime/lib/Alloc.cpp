//===- Alloc.cpp - The allocator of generated code ------------------------===//
//
// Generated code allocates its temporaries through
// _mlir_memref_to_llvm_alloc / _mlir_memref_to_llvm_free (MLIR's generic
// allocation functions). A forward pass allocates the same sizes in the
// same order every call, and large blocks from malloc are fresh mappings
// whose every page faults on first touch: caching freed blocks by size
// makes the second and later calls fault-free. The cache keeps at most
// kCacheLimit bytes; beyond that blocks go back to the system.
//===----------------------------------------------------------------------===//
#include "Runtime.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace transfuse::rt {
namespace {

/// Each block starts with a header holding its size; 64 bytes keep the
/// user pointer 64-byte aligned.
constexpr size_t kHeader = 64;
constexpr size_t kCacheLimit = size_t(2) << 30;

struct BlockCache {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> freeBySize;
  size_t cachedBytes = 0;
};

BlockCache &cache() {
  // Never destroyed: generated code may free during static destruction.
  static BlockCache *instance = new BlockCache;
  return *instance;
}

void *allocate(size_t size) {
  BlockCache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.freeBySize.find(size);
    if (it != c.freeBySize.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      c.cachedBytes -= size;
      return static_cast<uint8_t *>(block) + kHeader;
    }
  }
  void *block = std::aligned_alloc(kHeader, kHeader + (size + 63) / 64 * 64);
  if (!block)
    return nullptr;
  *static_cast<size_t *>(block) = size;
  return static_cast<uint8_t *>(block) + kHeader;
}

void release(void *pointer) {
  if (!pointer)
    return;
  void *block = static_cast<uint8_t *>(pointer) - kHeader;
  size_t size = *static_cast<size_t *>(block);
  BlockCache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.cachedBytes + size <= kCacheLimit) {
      c.freeBySize[size].push_back(block);
      c.cachedBytes += size;
      return;
    }
  }
  std::free(block);
}

} // namespace
} // namespace transfuse::rt

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  return transfuse::rt::allocate(size);
}

extern "C" void _mlir_memref_to_llvm_free(void *pointer) {
  transfuse::rt::release(pointer);
}
