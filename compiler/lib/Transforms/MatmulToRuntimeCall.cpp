//===- MatmulToRuntimeCall.cpp - Bufferized matmuls to tfrt_matmul_f32 ----===//
#include "BufferUtils.h"
#include "GemmEpilogue.h"
#include "transfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace transfuse {
#define GEN_PASS_DEF_MATMULTORUNTIMECALL
#include "transfuse/Transforms/Passes.h.inc"
} // namespace transfuse

using namespace mlir;
using namespace transfuse::buffers;

namespace {

constexpr llvm::StringLiteral kGemm = "tfrt_matmul_f32";
constexpr llvm::StringLiteral kCUDAGemm = "tfrt_cuda_matmul_f32";

bool isContiguousF32(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32() &&
         type.getLayout().isIdentity();
}

bool isZeroFill(linalg::FillOp fill) {
  FloatAttr zero;
  return matchPattern(fill.getInputs()[0], m_Constant(&zero)) &&
         zero.getValue().isZero();
}

/// Whether `buffer` holds zeros right before `point`: the last op before it
/// in the block that writes its memory (through any view) is a zero fill of
/// `buffer` itself. Ops that only read it (a copy from it, a linalg op
/// taking it as an input) and ops making views of it are passed over.
bool isZeroBefore(Operation *point, Value buffer) {
  Aliases aliases = aliasesOf(buffer);
  for (Operation *prev = point->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (!touches(prev, aliases) || isView(prev))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(prev))
      return fill.getOutputs()[0] == buffer && isZeroFill(fill);
    if (auto copy = dyn_cast<memref::CopyOp>(prev);
        copy && !aliases.contains(copy.getTarget()))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(prev);
    if (linalgOp && llvm::none_of(linalgOp.getDpsInits(), [&](Value init) {
          return aliases.contains(init);
        }))
      continue;
    return false;
  }
  return false;
}

/// The op that zeroes `output` last before `op`: a zero fill of it, or a
/// copy into it from a zero buffer, with nothing touching its memory in
/// between. The GEMM overwrites, so the zeroing goes away.
Operation *findZeroInit(Operation *op, Value output) {
  Aliases aliases = aliasesOf(output);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (!touches(prev, aliases) || isView(prev))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(prev);
        fill && fill.getOutputs()[0] == output)
      return isZeroFill(fill) ? prev : nullptr;
    if (auto copy = dyn_cast<memref::CopyOp>(prev);
        copy && copy.getTarget() == output)
      return isZeroBefore(copy, copy.getSource()) ? prev : nullptr;
    return nullptr;
  }
  return nullptr;
}

func::FuncOp declareGemm(ModuleOp module, StringRef name) {
  MLIRContext *context = module.getContext();
  Type i64 = IntegerType::get(context, 64), i32 = IntegerType::get(context, 32);
  Type ptr = LLVM::LLVMPointerType::get(context);
  return declareRuntimeFunction(
      module, name,
      FunctionType::get(context,
                        {i64, i64, i64, i64, ptr, i64, ptr, i64, i32, i32, ptr,
                         i32, ptr, i64},
                        {}));
}

/// Which operands a GEMM reads transposed where they lie.
struct Transposes {
  bool a = false, b = false;
};

/// How a linalg.matmul reads its operands: A as [m, k] or [k, m], B as
/// [k, n] or [n, k] (a Linear weight); nothing for other maps.
std::optional<Transposes> transposesOf(linalg::MatmulOp matmul) {
  MLIRContext *context = matmul.getContext();
  AffineExpr m, n, k;
  bindDims(context, m, n, k);
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(3, 0, results, context);
  };
  for (bool a : {false, true})
    for (bool b : {false, true})
      if (matmul.getIndexingMapsArray() ==
          SmallVector<AffineMap>{a ? map({k, m}) : map({m, k}),
                                 b ? map({n, k}) : map({k, n}), map({m, n})})
        return Transposes{a, b};
  return std::nullopt;
}

/// Replaces `op` (C = op(A) op(B) over `batch` entries of [m, k] x [k, n],
/// A stored [k, m] and B [n, k] where `transposes` says) by a call; with
/// `epilogues`, the call also applies the bias and ReLU that the next op
/// adds to C (GemmEpilogue.h) and writes that op's output.
LogicalResult rewrite(linalg::LinalgOp op, Transposes transposes,
                      func::FuncOp gemm, bool epilogues) {
  Value a = op.getDpsInputs()[0], bMat = op.getDpsInputs()[1],
        c = op.getDpsInits()[0];
  if (!isContiguousF32(a) || !isContiguousF32(bMat) || !isContiguousF32(c))
    return failure();
  Operation *zeroInit = findZeroInit(op, c);
  if (!zeroInit)
    return failure();
  auto aShape = cast<MemRefType>(a.getType()).getShape();
  auto cShape = cast<MemRefType>(c.getType()).getShape();
  int64_t rank = aShape.size();
  int64_t batch = rank == 3 ? aShape[0] : 1;
  int64_t m = cShape[rank - 2], n = cShape.back();
  int64_t k = aShape[transposes.a ? rank - 2 : rank - 1];
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto i64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  auto i32 = [&](int32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  std::optional<GemmEpilogue> epilogue;
  // A batch's bias would be per entry; the generated code has none.
  if (epilogues && rank == 2)
    epilogue = findGemmEpilogue(op, zeroInit, a, bMat, c);
  if (epilogue)
    hoistEpilogueOutput(*epilogue, op);
  Value bias = epilogue
                   ? pointerOf(b, loc, epilogue->bias)
                   : LLVM::ZeroOp::create(
                         b, loc, LLVM::LLVMPointerType::get(b.getContext()));
  int32_t activation =
      epilogue ? static_cast<int32_t>(epilogue->activation) : 0;
  func::CallOp::create(
      b, loc, gemm,
      ValueRange{i64(batch), i64(m), i64(n), i64(k), pointerOf(b, loc, a),
                 i64(rank == 3 ? m * k : 0), pointerOf(b, loc, bMat),
                 i64(rank == 3 ? k * n : 0), i32(transposes.a),
                 i32(transposes.b), bias, i32(activation),
                 pointerOf(b, loc, epilogue ? epilogue->output : c),
                 i64(rank == 3 ? m * n : 0)});
  if (epilogue)
    epilogue->op.erase();
  zeroInit->erase();
  op.erase();
  return success();
}

struct MatmulToRuntimeCallPass
    : transfuse::impl::MatmulToRuntimeCallBase<MatmulToRuntimeCallPass> {
  using MatmulToRuntimeCallBase::MatmulToRuntimeCallBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, Transposes>> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      if (auto batched = dyn_cast<linalg::BatchMatmulOp>(op.getOperation());
          batched && op.getIndexingMapsArray() ==
                         batched.getDefaultIndexingMaps(op->getContext()))
        matmuls.push_back({op, Transposes{}});
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
        if (std::optional<Transposes> transposes = transposesOf(matmul))
          matmuls.push_back({op, *transposes});
    });
    if (matmuls.empty())
      return;
    bool cuda = target == transfuse::RuntimeTarget::CUDA;
    func::FuncOp gemm = declareGemm(module, cuda ? kCUDAGemm : kGemm);
    // cuBLASLt's epilogue has not been run on a GPU yet: the CUDA target
    // keeps bias and activation in generated kernels until it has.
    for (auto [op, transposes] : matmuls)
      (void)rewrite(op, transposes, gemm, /*epilogues=*/!cuda);
  }
};

} // namespace
