//===- DropoutBlocks.h - Marks of a dropout draw's block and word -*- C++
//-*-===//
//
// Four consecutive elements of a dropout share a Philox block (docs/
// autodiff.md). Where a row of the tensor dropped starts a block, the
// lowering of nn.dropout computes an element's block within its row as
// j >> 2 and its word as j & 3, j its last index, and marks those two ops;
// nn-share-dropout-blocks then unrolls the loop over j by 4 and computes
// each block once.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TRANSFORMS_DROPOUTBLOCKS_H
#define TRANSFUSE_TRANSFORMS_DROPOUTBLOCKS_H

#include "llvm/ADT/StringRef.h"

namespace transfuse {

/// On the arith.shrui of j by 2.
inline constexpr llvm::StringLiteral kDropoutBlockAttr = "nn.dropout_block";
/// On the arith.andi of j with 3.
inline constexpr llvm::StringLiteral kDropoutWordAttr = "nn.dropout_word";

} // namespace transfuse

#endif // TRANSFUSE_TRANSFORMS_DROPOUTBLOCKS_H
