#ifndef TRANSFUSE_NN_ATTRS
#define TRANSFUSE_NN_ATTRS

include "transfuse/Dialect/NN/NNBase.td"

def NN_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "elementwise comparison", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::transfuse::nn";
}

def NN_Activation : I32EnumAttr<"Activation",
    "activation applied in a matmul epilogue", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"relu", 1>,
      I32EnumAttrCase<"gelu", 2>, I32EnumAttrCase<"gelu_tanh", 3>]> {
  let cppNamespace = "::transfuse::nn";
  let genSpecializedAttr = 0;
}
// Printed as `#nn.activation<relu>` in attribute dictionaries.
def NN_ActivationAttr : EnumAttr<NN_Dialect, NN_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def NN_NormStatistic : I32EnumAttr<"NormStatistic",
    "the row statistic a layer norm divides by", [
      // Σ(x - μ)² / N, as torch.nn.LayerNorm.
      I32EnumAttrCase<"variance", 0>,
      // Σ(x - μ)² / (N - 1), the square of torch's default x.std().
      I32EnumAttrCase<"unbiased_variance", 1>,
      // Σx² / N of the uncentred input, as RMSNorm.
      I32EnumAttrCase<"mean_square", 2>]> {
  let cppNamespace = "::transfuse::nn";
  let genSpecializedAttr = 0;
}
// Printed as `#nn.norm_statistic<mean_square>` in attribute dictionaries.
def NN_NormStatisticAttr : EnumAttr<NN_Dialect, NN_NormStatistic,
                                    "norm_statistic"> {
  let assemblyFormat = "`<` $value `>`";
}

def NN_Reduction : I32EnumAttr<"Reduction",
    "how a collective combines the replicas' values", [
      // Σ_r x_r.
      I32EnumAttrCase<"sum", 0>,
      // Σ_r w_r · x_r with the replicas' weights (Σ_r w_r = 1), which the
      // runtime is given per step; 1 / replicas each unless told otherwise.
      I32EnumAttrCase<"mean", 1>]> {
  let cppNamespace = "::transfuse::nn";
  let genSpecializedAttr = 0;
}
// Printed as `#nn.reduction<mean>` in attribute dictionaries.
def NN_ReductionAttr : EnumAttr<NN_Dialect, NN_Reduction, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def NN_InitKind : I32EnumAttr<"InitKind", "parameter initialisation", [
      I32EnumAttrCase<"zeros", 0>, I32EnumAttrCase<"ones", 1>,
      I32EnumAttrCase<"constant", 2>, I32EnumAttrCase<"uniform", 3>,
      I32EnumAttrCase<"normal", 4>, I32EnumAttrCase<"external", 5>]> {
  let cppNamespace = "::transfuse::nn";
  let genSpecializedAttr = 0;
}

def NN_InitAttr : NN_Attr<"Init", "init"> {
  let summary = "How a parameter is initialised";
  let description = [{
    Resolved at import time to one of: `zeros`, `ones`, `constant(c)`,
    `uniform(low, high)`, `normal(mean, std)`. Named schemes (PyTorch's
    Linear default, Xavier) are turned into concrete bounds by the importer,
    so the runtime implements only these five. `external` marks a parameter
    whose values come with the model (an ONNX model's initializers, written
    to a weights file): the runtime refuses to initialise it.

    ```mlir
    #nn.init<uniform(-0.0441942, 0.0441942)>
    #nn.init<normal(0.0, 1.0)>
    #nn.init<ones>
    ```
  }];
  let parameters = (ins "InitKind":$kind, APFloatParameter<"">:$a,
                        APFloatParameter<"">:$b);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "InitKind":$kind, CArg<"double", "0.0">:$a,
                     CArg<"double", "0.0">:$b), [{
      return $_get($_ctxt, kind, ::llvm::APFloat(a), ::llvm::APFloat(b));
    }]>
  ];
}

#endif // TRANSFUSE_NN_ATTRS
