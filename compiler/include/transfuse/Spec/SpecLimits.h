//===- SpecLimits.h - What a spec may hold, checked before import ---------===//
//
// The limits a model spec must keep (docs/errors.md lists them): they hold
// before any IR is built, so that shape arithmetic cannot overflow and a
// hostile spec cannot make the compiler run out of memory or time.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_SPEC_SPECLIMITS_H
#define TRANSFUSE_SPEC_SPECLIMITS_H

#include "mlir/Support/LLVM.h"
#include <cstdint>
#include <optional>
#include <string>

namespace transfuse::spec {

class SpecCursor;

/// Every integer of a spec (sizes, dims, counts, axes, ids) lies within
/// ±(2^31 - 1), so a product of a tensor's dims fits in 128 bits and a
/// product of two in 64.
constexpr int64_t kMaxSpecInteger = 2147483647;

/// The most layer instances a spec may expand to, counting each repeat of a
/// block: beyond it the compiler's IR alone would exhaust memory.
constexpr int64_t kMaxLayerInstances = 100000;

/// `text` with bytes that are not printable ASCII as C escapes (`\1B`), safe
/// to print in a diagnostic.
std::string escapeForDisplay(llvm::StringRef text);

/// The offset of the first byte of `text` that is neither printable UTF-8 nor
/// a tab or line break.
std::optional<size_t> findNonText(llvm::StringRef text);

/// Rejects, at the field, every value the schema allows but the project
/// cannot use: integers beyond kMaxSpecInteger, NaN, infinities (except in
/// masks), enum numbers the schema does not name, strings that are not
/// printable UTF-8, and fields the schema does not have.
mlir::LogicalResult checkSpecValues(const SpecCursor &root);

} // namespace transfuse::spec

#endif // TRANSFUSE_SPEC_SPECLIMITS_H
