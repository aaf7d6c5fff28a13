//===- DropoutPatterns.cpp - nn.dropout with a counter-based mask ---------===//
//
// A training-mode dropout draws each element's keep bit from Philox4x32-10
// (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011)
// keyed by the step's seed: element e takes word e % 4 of the block whose
// counter is e / 4 (the row-major index) and the op's stream. The draw
// depends on nothing but those, so
// the backward pass regenerates the mask, any tiling or thread count gives
// the same bits, and the runtime's attention kernels (runtime/lib/Philox.h)
// agree with this lowering bit for bit.
//===----------------------------------------------------------------------===//
#include "Builders.h"
#include "Patterns.h"
#include "transfuse/Transforms/DropoutBlocks.h"
#include "transfuse/Transforms/Replica.h"

#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;

namespace transfuse::lowering {
namespace {

constexpr uint32_t kMultiplier0 = 0xD2511F53, kMultiplier1 = 0xCD9E8D57;
constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
constexpr int kRounds = 10;

/// The four 32-bit words of Philox4x32-10 for `counter` and `key`.
std::array<Value, 4> philoxBlock(OpBuilder &b, Location loc,
                                 std::array<Value, 4> counter,
                                 std::array<Value, 2> key) {
  auto constant = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value m0 = constant(kMultiplier0), m1 = constant(kMultiplier1);
  Value w0 = constant(kWeyl0), w1 = constant(kWeyl1);
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) {
      key[0] = arith::AddIOp::create(b, loc, key[0], w0);
      key[1] = arith::AddIOp::create(b, loc, key[1], w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, counter[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, counter[2]);
    auto xor3 = [&](Value x, Value y, Value z) -> Value {
      return arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, x, y),
                                   z);
    };
    counter = {xor3(p1.getHigh(), counter[1], key[0]), p1.getLow(),
               xor3(p0.getHigh(), counter[3], key[1]), p0.getLow()};
  }
  return counter;
}

/// Word `which` (an i32 in [0, 4)) of `block`: two selects on its low bit,
/// one on its high bit.
Value wordOf(OpBuilder &b, Location loc, std::array<Value, 4> block,
             Value which) {
  auto bit = [&](uint32_t mask) -> Value {
    Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    Value masked = arith::AndIOp::create(
        b, loc, which,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(mask)));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, masked,
                                 zero);
  };
  Value odd = bit(1);
  Value low = arith::SelectOp::create(b, loc, odd, block[1], block[0]);
  Value high = arith::SelectOp::create(b, loc, odd, block[3], block[2]);
  return arith::SelectOp::create(b, loc, bit(2), high, low);
}

/// The low and high 32-bit halves of an i64.
std::array<Value, 2> halves(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type();
  Value shift = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
  Value high = arith::ShRUIOp::create(b, loc, value, shift);
  return {arith::TruncIOp::create(b, loc, i32, value),
          arith::TruncIOp::create(b, loc, i32, high)};
}

/// The row-major index in `shape` of the enclosing generic's point, from
/// its linalg.index ops, as an i64.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value index = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [dim, size] : llvm::enumerate(shape)) {
    Value extent = arith::ConstantIndexOp::create(b, loc, size);
    index = arith::AddIOp::create(b, loc,
                                  arith::MulIOp::create(b, loc, index, extent),
                                  linalg::IndexOp::create(b, loc, dim));
  }
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
}

/// An element's Philox block and its word in it (an i32 in [0, 4)).
struct Draw {
  Value block, word;
};

/// The draw of the generic's point in a tensor of `shape` whose elements
/// count from `firstElement` (null for 0). Where the last extent is a
/// multiple of 4, a row starts a block: the block is the row's first plus
/// j >> 2 and the word j & 3, for j the last index, and those two ops are
/// marked for nn-share-dropout-blocks, which computes each block once for
/// its four elements once the loops exist.
Draw drawOf(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
            Value firstElement) {
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  if (shape.empty() || shape.back() % 4 != 0) {
    Value index = linearIndex(b, loc, shape);
    if (firstElement)
      index = arith::AddIOp::create(b, loc, firstElement, index);
    return {arith::ShRUIOp::create(b, loc, index, i64(2)),
            arith::TruncIOp::create(b, loc, b.getI32Type(), index)};
  }
  int64_t last = shape.size() - 1;
  Value row = linearIndex(b, loc, shape.drop_back());
  Value j = arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                         linalg::IndexOp::create(b, loc, last));
  auto inRow = arith::ShRUIOp::create(b, loc, j, i64(2));
  inRow->setAttr(kDropoutBlockAttr, b.getUnitAttr());
  auto word = arith::AndIOp::create(b, loc, j, i64(3));
  word->setAttr(kDropoutWordAttr, b.getUnitAttr());
  Value rowBlock = arith::MulIOp::create(b, loc, row, i64(shape.back() / 4));
  // The replicas before this one hold whole rows: a multiple of 4 elements.
  if (firstElement)
    rowBlock = arith::AddIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, firstElement, i64(2)), rowBlock);
  return {arith::AddIOp::create(b, loc, rowBlock, inRow),
          arith::TruncIOp::create(b, loc, b.getI32Type(), word)};
}

/// Training: x * keep / (1 - rate). Inference (no seed): x.
struct DropoutPattern : OpConversionPattern<nn::DropoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nn::DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double rate = op.getRate().convertToDouble();
    if (!adaptor.getSeed() || rate == 0.0) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    // u = (word >> 8) · 2⁻²⁴ is kept when u >= float(rate): with u exact,
    // that is word >> 8 >= ceil(float(rate) · 2²⁴).
    auto threshold = static_cast<uint32_t>(
        std::ceil(static_cast<double>(static_cast<float>(rate)) * 0x1p24));
    RankedTensorType type = tensorType(op.getResult());
    int64_t stream = op.getStream();
    // A replica's elements follow those of the replicas before it, each
    // holding the tensor's shape: with the batch leading, the N replicas of
    // a data-parallel step draw the mask of the whole batch.
    Value firstElement;
    if (inDataParallelModule(op))
      firstElement = arith::MulIOp::create(
          rewriter, op.getLoc(), replicaIndex(rewriter, op),
          arith::ConstantOp::create(
              rewriter, op.getLoc(),
              rewriter.getI64IntegerAttr(type.getNumElements())));
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, {adaptor.getInput(), adaptor.getSeed()},
        [&](OpBuilder &b, Location loc, ValueRange x) {
          auto i32 = [&](uint32_t v) -> Value {
            return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
          };
          Draw draw = drawOf(b, loc, type.getShape(), firstElement);
          std::array<Value, 2> block = halves(b, loc, draw.block);
          std::array<Value, 2> key = halves(b, loc, x[1]);
          std::array<Value, 4> words = philoxBlock(
              b, loc,
              {block[0], block[1], i32(uint64_t(stream) & 0xffffffff),
               i32(uint64_t(stream) >> 32)},
              key);
          Value word = wordOf(b, loc, words, draw.word);
          Value top = arith::ShRUIOp::create(b, loc, word, i32(8));
          Value keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                             top, i32(threshold));
          Value scaled = arith::MulFOp::create(
              b, loc, x[0],
              scalar(b, loc, type.getElementType(), 1.0 / (1.0 - rate)));
          return arith::SelectOp::create(
              b, loc, keep, scaled, scalar(b, loc, type.getElementType(), 0.0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateDropoutPatterns(RewritePatternSet &patterns) {
  patterns.add<DropoutPattern>(patterns.getContext());
}

} // namespace transfuse::lowering
