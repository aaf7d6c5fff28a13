#ifndef TRANSFUSE_NN_BASE
#define TRANSFUSE_NN_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let cppNamespace = "::transfuse::nn";
  let summary = "Transformer graphs: primitive tensor ops, fused ops, losses";
  let description = [{
    The `nn` dialect holds a transformer model as the spec importer produces
    it and as the fusion, autodiff and optimizer passes transform it. Values
    are statically shaped ranked tensors: `f32` activations and parameters,
    integer token ids and labels, `i1` masks. Elementwise binary ops and
    `nn.compare` broadcast their operands as NumPy and PyTorch do.

    Trainable parameters are module-level `nn.parameter` symbols named with
    their PyTorch `state_dict` key and carrying their initialisation rule;
    functions read them with `nn.param_load`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class NN_Op<string mnemonic, list<Trait> traits = []>
    : Op<NN_Dialect, mnemonic, traits>;

class NN_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<NN_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def NN_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16, F64]>;
def NN_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def NN_BoolTensor : StaticShapeTensorOf<[I1]>;
def NN_AnyTensor : StaticShapeTensorOf<[AnyType]>;
def NN_FloatMemRef : StaticShapeMemRefOf<[F32, F16, BF16, F64]>;
def NN_AnyMemRef : StaticShapeMemRefOf<[AnyType]>;
def NN_IndexMemRef : StaticShapeMemRefOf<[I32, I64]>;
def NN_ScalarFloatTensor : 0DTensorOf<[F32, F16, BF16, F64]>;
// A dropout seed: the 64-bit Philox key of one training step.
def NN_Seed : 0DTensorOf<[I64]>, BuildableType<
    "::mlir::RankedTensorType::get({}, $_builder.getIntegerType(64))">;
def NN_SeedMemRef : MemRefRankOf<[I64], [0]>, BuildableType<
    "::mlir::MemRefType::get({}, $_builder.getIntegerType(64))">;

#endif // TRANSFUSE_NN_BASE
