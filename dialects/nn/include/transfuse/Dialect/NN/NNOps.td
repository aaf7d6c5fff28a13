#ifndef TRANSFUSE_NN_OPS
#define TRANSFUSE_NN_OPS

include "transfuse/Dialect/NN/NNBase.td"
include "transfuse/Dialect/NN/NNAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

def NN_ParameterOp : NN_Op<"parameter", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A trainable tensor, named with its PyTorch state_dict key";
  let description = [{
    Declares a parameter of the model. The symbol name is the PyTorch
    `state_dict` key, so checkpoints move between Transfuse and PyTorch
    without renaming; `init` says how the runtime initialises it.

    ```mlir
    nn.parameter @"encoder.layers.0.self_attn.w_q.weight"
        : tensor<512x512xf32> init #nn.init<uniform(-0.0442, 0.0442)>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<NN_FloatTensor>:$type,
                       NN_InitAttr:$init);
  let assemblyFormat = "$sym_name `:` $type `init` $init attr-dict";
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getTensorType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getType());
    }
  }];
}

def NN_ParamLoadOp : NN_Op<"param_load", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads the value of a parameter";
  let description = [{
    ```mlir
    %w = nn.param_load @"generator.weight" : tensor<10000x512xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

def NN_StateOp : NN_Op<"state", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "Optimizer state: a tensor the training step keeps, zero at first";
  let description = [{
    Declares a tensor that `train_step` reads and updates in place across
    calls, such as Adam's moment estimates. The runtime zero-fills it when
    the parameters are initialised and saves it in checkpoints.

    ```mlir
    nn.state @"optimizer.exp_avg.output.weight" : tensor<256x256xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<NN_FloatTensor>:$type);
  let assemblyFormat = "$sym_name `:` $type attr-dict";
}

def NN_CacheOp : NN_Op<"cache", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "Decoding state: a tensor the generation entry points keep";
  let description = [{
    Declares a tensor that the incremental decoding entry points (`encode`,
    `prefill`, `decode_step`) read and update in place across calls: the
    keys or values of one self-attention layer for every position decoded
    so far, `[batch, heads, capacity, head_dim]`, or those of one
    cross-attention layer for every memory position, which `encode` stores.
    The runtime zero-fills it when a session is created; it is neither
    loaded nor saved with the weights.

    ```mlir
    nn.cache @"layers.0.self_attn.key" : tensor<16x4x128x64xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<NN_FloatTensor>:$type);
  let assemblyFormat = "$sym_name `:` $type attr-dict";
}

def NN_ParamStoreOp : NN_Op<"param_store", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Sets the value a parameter or state has after the function";
  let description = [{
    `nn.param_load` reads the value at function entry; `nn.param_store`
    sets the value the parameter (or `nn.state`) holds once the function
    returns, so loads and stores never race. A function stores each name at
    most once; bufferization writes the value in place where it can.

    ```mlir
    nn.param_store %w_new to @"output.weight" : tensor<256x256xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$value, FlatSymbolRefAttr:$name);
  let assemblyFormat = "$value `to` $name attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def NN_MatmulOp : NN_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "Batched matrix product with broadcast batch dimensions";
  let description = [{
    `[..., m, k] x [..., k, n] -> [..., m, n]`, as `torch.matmul` for
    operands of rank 2 or more; leading batch dimensions broadcast.
  }];
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def NN_TransposeOp : NN_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "Permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is operand dimension `perm[i]`.
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs NN_AnyTensor:$result);
  let assemblyFormat = [{
    $input $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def NN_ReshapeOp : NN_Op<"reshape", [Pure, InferTypeOpAdaptor]> {
  let summary = "Reinterprets a tensor with another shape, same element count";
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs NN_AnyTensor:$result);
  let assemblyFormat = [{
    $input $shape attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def NN_SliceOp : NN_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "A contiguous box of a tensor (unit strides)";
  let description = [{
    `result[i...] = input[offsets + i...]`; `offsets[d] + sizes[d]` must not
    exceed the operand's dimension `d`.
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs NN_AnyTensor:$result);
  let assemblyFormat = [{
    $input $offsets $sizes attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def NN_ConcatOp : NN_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "Joins tensors along one axis";
  let arguments = (ins Variadic<NN_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs NN_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, results)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

class NN_BinaryOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)> {
  let description = [{
    Elementwise, with NumPy broadcasting of the two operands.
  }];
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def NN_AddOp : NN_BinaryOp<"add", [Commutative]> {
  let summary = "Elementwise sum";
  let hasCanonicalizer = 1;
}
def NN_SubOp : NN_BinaryOp<"sub"> {
  let summary = "Elementwise difference";
}
def NN_MulOp : NN_BinaryOp<"mul", [Commutative]> {
  let summary = "Elementwise product";
}
def NN_DivOp : NN_BinaryOp<"div"> {
  let summary = "Elementwise quotient";
}

class NN_UnaryOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                   InferTypeOpInterface], traits)> {
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NN_NegOp : NN_UnaryOp<"neg"> { let summary = "Elementwise negation"; }
def NN_ExpOp : NN_UnaryOp<"exp"> { let summary = "Elementwise e^x"; }
def NN_LogOp : NN_UnaryOp<"log"> { let summary = "Elementwise natural log"; }
def NN_SqrtOp : NN_UnaryOp<"sqrt"> { let summary = "Elementwise square root"; }
def NN_RsqrtOp : NN_UnaryOp<"rsqrt"> {
  let summary = "Elementwise 1 / sqrt(x)";
}
def NN_TanhOp : NN_UnaryOp<"tanh"> { let summary = "Elementwise tanh"; }
def NN_ErfOp : NN_UnaryOp<"erf"> {
  let summary = "Elementwise Gauss error function";
  let description = [{
    `erf(x) = 2/√π ∫₀ˣ exp(-t²) dt`. Imported models write GELU with it,
    which `nn-fuse-gelu` turns into `nn.gelu`.
  }];
}
def NN_ReluOp : NN_UnaryOp<"relu"> { let summary = "Elementwise max(x, 0)"; }

def NN_GeluOp : NN_Op<"gelu", [Pure, SameOperandsAndResultType,
                               InferTypeOpInterface]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x * Φ(x)` with the exact erf form, or the tanh approximation when
    `approximate_tanh` is set (`torch.nn.GELU(approximate="tanh")`).
  }];
  let arguments = (ins NN_FloatTensor:$input, UnitAttr:$approximate_tanh);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NN_CompareOp : NN_Op<"compare", [Pure, InferTypeOpAdaptor]> {
  let summary = "Elementwise comparison producing a bool tensor";
  let description = [{
    Broadcasts like the binary ops. Both operands have the same element
    type: float, or integer (token ids compared with a pad id).
  }];
  let arguments = (ins NN_AnyTensor:$lhs, NN_AnyTensor:$rhs,
                       NN_ComparePredicate:$predicate);
  let results = (outs NN_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def NN_MaskedFillOp : NN_Op<"masked_fill", [Pure, InferTypeOpAdaptor]> {
  let summary = "Writes a value where a bool mask is true";
  let description = [{
    As `torch.Tensor.masked_fill`: the mask broadcasts to the input's shape.
    `value` may be `-inf`, the masking value of causal attention.
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_BoolTensor:$mask,
                       F64Attr:$value);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $mask `,` $value attr-dict `:` functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def NN_CastOp : NN_Op<"cast", [Pure, InferTypeOpAdaptor]> {
  let summary = "Converts the element type (bool masks to 0/1 floats, ids)";
  let arguments = (ins NN_AnyTensor:$input, TypeAttr:$to);
  let results = (outs NN_AnyTensor:$result);
  let assemblyFormat = [{
    $input `to` $to attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Normalisations and reductions
//===----------------------------------------------------------------------===//

def NN_SoftmaxOp : NN_Op<"softmax", [Pure, SameOperandsAndResultType,
                                     InferTypeOpInterface]> {
  let summary = "Softmax along one axis";
  let arguments = (ins NN_FloatTensor:$input, I64Attr:$axis);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def NN_LogSoftmaxOp : NN_Op<"log_softmax", [Pure, SameOperandsAndResultType,
                                            InferTypeOpInterface]> {
  let summary = "Log of the softmax along one axis, computed stably";
  let arguments = (ins NN_FloatTensor:$input, I64Attr:$axis);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

class NN_ReduceOp<string mnemonic> : NN_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let description = [{
    Reduces over `axes` (sorted, distinct); with `keep_dims` the reduced
    dimensions stay with size 1.
  }];
  let arguments = (ins NN_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keep_dims);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input $axes attr-dict `:` type($input) `->` type($result)
  }];
}

def NN_ReduceSumOp : NN_ReduceOp<"reduce_sum"> { let summary = "Sum"; }
def NN_ReduceMeanOp : NN_ReduceOp<"reduce_mean"> {
  let summary = "Arithmetic mean";
}
def NN_ReduceMaxOp : NN_ReduceOp<"reduce_max"> { let summary = "Maximum"; }

//===----------------------------------------------------------------------===//
// Embeddings, positions, masks, dropout
//===----------------------------------------------------------------------===//

def NN_EmbeddingOp : NN_Op<"embedding", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gathers rows of a table: [v, d] and ids [...] -> [..., d]";
  let arguments = (ins NN_FloatTensor:$table, NN_IndexTensor:$indices);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
}

def NN_SinusoidalEncodingOp : NN_Op<"sinusoidal_encoding", [Pure]> {
  let summary = "The [seq, d] sinusoidal position table of Vaswani et al.";
  let description = [{
    `pe[p, 2i] = sin(p / 10000^(2i/d))`, `pe[p, 2i+1] = cos(p / 10000^(2i/d))`.
    The shape is the op's type; `d` must be even.
  }];
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def NN_CacheUpdateOp : NN_Op<"cache_update", [Pure,
    AllTypesMatch<["cache", "result"]>]> {
  let summary = "Writes new rows into a key/value cache at per-sequence offsets";
  let description = [{
    `cache: [b, h, capacity, d]`, `rows: [b, h, t, d]` and the i64
    `start: [b]` give the cache with `rows[i, :, j, :]` written at
    `[i, :, start[i] + j, :]` for every `j < t`; the other rows keep their
    values. `start[i] + t <= capacity` is the caller's to ensure (the
    runtime checks a `positions` input against its `max_value`).

    ```mlir
    %k2 = nn.cache_update %k_cache, %k_new at %positions
        : tensor<16x4x128x64xf32>, tensor<16x4x1x64xf32>, tensor<16xi64>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$cache, NN_FloatTensor:$rows,
                       NN_IndexTensor:$start);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $cache `,` $rows `at` $start attr-dict `:` type($cache) `,` type($rows)
    `,` type($start)
  }];
  let hasVerifier = 1;
}

def NN_TriangularMaskOp : NN_Op<"triangular_mask", [Pure]> {
  let summary = "A bool [rows, cols] mask, true where col - row >= diagonal";
  let description = [{
    With `diagonal = 1` this marks the future positions that causal
    attention hides.
  }];
  let arguments = (ins I64Attr:$diagonal);
  let results = (outs NN_BoolTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

// A dropout site's stream: 32 bits, so that the runtime's kernels can take
// the replica of a data-parallel step in the high word of the 64-bit stream
// argument (runtime/lib/shared/Philox.h, dropoutSite).
def NN_DropoutStream : DefaultValuedAttr<ConfinedAttr<I64Attr,
    [IntMinValue<0>, IntMaxValue<4294967295>]>, "0">;

def NN_DropoutOp : NN_Op<"dropout", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "Zeroes elements with probability `rate` in training";
  let description = [{
    Without `seed` (inference) the identity. With it (training), element `e`
    (its row-major index) is kept when the Philox4x32-10 draw for key
    `seed` and counter `(e, stream)` is at least `rate`, and kept elements
    are scaled by `1 / (1 - rate)`; docs/autodiff.md gives the bit-exact
    rule. The same seed and stream give the same mask, so the backward
    pass regenerates the mask instead of storing it. `rate` is in [0, 1).

    ```mlir
    %y = nn.dropout %x seed %s {rate = 0.1 : f64, stream = 3 : i64}
        : tensor<16x128x256xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, Optional<NN_Seed>:$seed,
                       F64Attr:$rate, NN_DropoutStream:$stream);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input (`seed` $seed^)? attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused ops
//===----------------------------------------------------------------------===//

// The attention ops' accessor for the value a hidden score takes:
// mask_fill, or -inf when absent.
defvar hiddenScoreFill = [{
    double getHiddenScoreFill() {
      return getMaskFill() ? getMaskFill()->convertToDouble()
                           : -std::numeric_limits<double>::infinity();
    }
}];

def NN_AttentionOp : NN_Op<"attention", [Pure, InferTypeOpAdaptor]> {
  let summary = "softmax(scale * q kᵀ + mask) v over [batch, heads, seq, dim]";
  let description = [{
    `q: [b, h, sq, dk]`, `k: [b, h, sk, dk]`, `v: [b, h, sk, dv]` give
    `[b, h, sq, dv]`:

    ```
    s = scale * q kᵀ
    hidden = (causal and j > i) or mask     for an i1 mask (true: hidden)
    s = where(hidden, mask_fill, s)
    s = s + mask                            for a float mask
    o = dropout(softmax(s, -1), dropout) v
    ```

    The mask broadcasts to `[b, h, sq, sk]`. `mask_fill` is the value every
    hidden score takes (`-inf` when absent); a finite value such as `-1e9`
    keeps a row whose keys are all hidden uniform instead of NaN, as
    `masked_fill(-1e9)` does. `dropout` is the rate applied to the
    probabilities in training; inference ignores it.
  }];
  let arguments = (ins NN_FloatTensor:$query, NN_FloatTensor:$key,
                       NN_FloatTensor:$value, Optional<NN_AnyTensor>:$mask,
                       F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$mask_fill,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? attr-dict `:`
    functional-type(operands, results)
  }];

  let extraClassDeclaration = hiddenScoreFill;
}

def NN_AttentionIntoOp : NN_Op<"attention_into"> {
  let summary = "`nn.attention` on buffers, writing its result into `out`";
  let description = [{
    The bufferized form of `nn.attention`, with the same attributes and
    semantics: reads `query`, `key`, `value` and the optional `mask`, writes
    `out`. Operands may be any strided views (a transposed or sliced buffer
    included) whose last dimension is contiguous; the runtime kernel takes
    their strides.
  }];
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$query,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$key,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$value,
                       Arg<Optional<NN_AnyMemRef>, "", [MemRead]>:$mask,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$out,
                       F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$mask_fill,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? `into` $out attr-dict `:`
    type($query) `,` type($key) `,` type($value) (`,` type($mask)^)? `into`
    type($out)
  }];
  let extraClassDeclaration = hiddenScoreFill;
  let hasVerifier = 1;
}

def NN_AttentionStatsOp : NN_Op<"attention_stats", [Pure,
    InferTypeOpAdaptor]> {
  let summary = "`nn.attention` in training: also each row's log-sum-exp";
  let description = [{
    `nn.attention` with the same operands and attributes, and `lse: [b, h,
    sq]`, the log-sum-exp of each row's scaled, masked scores (before
    dropout): what `nn.attention_grad` needs to recompute the probabilities
    without storing them. Dropout on the probabilities draws its mask from
    `seed` and `stream` (element `((b·h + i)·sq + j)·sk + k` of the
    probability tensor), as `nn.dropout` does.
  }];
  let arguments = (ins NN_FloatTensor:$query, NN_FloatTensor:$key,
                       NN_FloatTensor:$value, Optional<NN_AnyTensor>:$mask,
                       NN_Seed:$seed, F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$mask_fill,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       NN_DropoutStream:$stream);
  let results = (outs NN_FloatTensor:$result, NN_FloatTensor:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? `seed` $seed attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = hiddenScoreFill;
}

def NN_AttentionGradOp : NN_Op<"attention_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Backward of `nn.attention_stats`: dq, dk and dv";
  let description = [{
    `out` and `lse` are the forward's results, `grad` the gradient of `out`;
    the other operands and attributes are the forward's. The probabilities
    are recomputed tile by tile from `lse` and the dropout mask from `seed`
    and `stream`, so nothing of size `sq · sk` is stored. Hidden scores
    pass no gradient; a float mask gets none.
  }];
  let arguments = (ins NN_FloatTensor:$query, NN_FloatTensor:$key,
                       NN_FloatTensor:$value, Optional<NN_AnyTensor>:$mask,
                       NN_FloatTensor:$out, NN_FloatTensor:$lse,
                       NN_FloatTensor:$grad, NN_Seed:$seed, F64Attr:$scale,
                       UnitAttr:$causal, OptionalAttr<F64Attr>:$mask_fill,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       NN_DropoutStream:$stream);
  let results = (outs NN_FloatTensor:$grad_query, NN_FloatTensor:$grad_key,
                      NN_FloatTensor:$grad_value);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? `out` $out `lse` $lse `grad`
    $grad `seed` $seed attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = hiddenScoreFill;
}

def NN_AttentionStatsIntoOp : NN_Op<"attention_stats_into"> {
  let summary = "`nn.attention_stats` on buffers";
  let description = [{
    The bufferized form of `nn.attention_stats`: reads `query`, `key`,
    `value`, the optional `mask` and `seed`, writes `out` and `lse`.
    Operands may be strided views whose last dimension is contiguous.
  }];
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$query,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$key,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$value,
                       Arg<Optional<NN_AnyMemRef>, "", [MemRead]>:$mask,
                       Arg<NN_SeedMemRef, "", [MemRead]>:$seed,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$out,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$lse,
                       F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$mask_fill,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       NN_DropoutStream:$stream);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? `seed` $seed `into` $out `,`
    $lse attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = hiddenScoreFill;
}

def NN_AttentionGradIntoOp : NN_Op<"attention_grad_into"> {
  let summary = "`nn.attention_grad` on buffers";
  let description = [{
    The bufferized form of `nn.attention_grad`: writes `grad_query`,
    `grad_key` and `grad_value`, reads the rest.
  }];
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$query,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$key,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$value,
                       Arg<Optional<NN_AnyMemRef>, "", [MemRead]>:$mask,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$out,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$lse,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$grad,
                       Arg<NN_SeedMemRef, "", [MemRead]>:$seed,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$grad_query,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$grad_key,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$grad_value,
                       F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$mask_fill,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       NN_DropoutStream:$stream);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? `out` $out `lse` $lse `grad`
    $grad `seed` $seed `into` $grad_query `,` $grad_key `,` $grad_value
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = hiddenScoreFill;
}

def NN_LayerNormOp : NN_Op<"layer_norm", [Pure, InferTypeOpAdaptor,
                                          AttrSizedOperandSegments]> {
  let summary = "Layer normalisation or RMSNorm, optionally of a residual sum";
  let description = [{
    Normalises over the N elements of the dimensions from `axis` to the
    last: `y = (x - mean) * s * gamma + beta`, where `statistic` picks the
    form (`beta` is optional and counts as 0 when absent):

    - `variance` (the default): the biased `var = Σ(x - mean)² / N`, as
      `torch.nn.LayerNorm`;
    - `unbiased_variance`: `var = Σ(x - mean)² / (N - 1)`, the square of
      `x.std()` (N must be at least 2);
    - `mean_square`: `var = Σx² / N` and no centring (`mean` is 0), as
      RMSNorm.

    `s = 1 / sqrt(var + epsilon)`, or with `epsilon_on_std`
    `s = 1 / (sqrt(var) + epsilon)`: the hand-written layer norm of the
    Annotated Transformer, `gamma * (x - mean) / (x.std() + eps) + beta`, is
    `unbiased_variance` with `epsilon_on_std`. With `residual`, `x` is
    `input + residual` (the post-LN sublayer connection).
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$gamma,
                       Optional<NN_FloatTensor>:$beta,
                       Optional<NN_FloatTensor>:$residual,
                       I64Attr:$axis, F64Attr:$epsilon,
                       DefaultValuedAttr<NN_NormStatisticAttr,
                           "::transfuse::nn::NormStatistic::variance">:$statistic,
                       UnitAttr:$epsilon_on_std);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`+` $residual^)? `,` $gamma (`,` $beta^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def NN_FusedMatmulOp : NN_Op<"fused_matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "activation(lhs x rhs(ᵀ) + bias) in one kernel";
  let description = [{
    A matmul with its epilogue: `rhs` is transposed when `transpose_rhs` is
    set (a Linear weight `[out, in]`), the optional `bias` broadcasts to the
    product, then `activation` applies.
  }];
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs,
                       Optional<NN_FloatTensor>:$bias, UnitAttr:$transpose_rhs,
                       DefaultValuedAttr<NN_ActivationAttr,
                           "::transfuse::nn::Activation::none">:$activation);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def NN_CrossEntropyOp : NN_Op<"cross_entropy", [Pure, InferTypeOpAdaptor]> {
  let summary = "Mean cross entropy of logits against class ids";
  let description = [{
    `logits: [..., c]`, `labels: [...]` give a scalar: the mean over labels
    that are not `ignore_index` of `-log_softmax(logits)[label]`, with
    `label_smoothing` as `torch.nn.CrossEntropyLoss`.
  }];
  let arguments = (ins NN_FloatTensor:$logits, NN_IndexTensor:$labels,
                       I64Attr:$ignore_index, F64Attr:$label_smoothing);
  let results = (outs NN_ScalarFloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
}

def NN_NllLossOp : NN_Op<"nll_loss", [Pure, InferTypeOpAdaptor]> {
  let summary = "Mean negative log-likelihood of log-probabilities";
  let description = [{
    `log_probs: [..., c]`, `labels: [...]` give the mean over labels that are
    not `ignore_index` of `-log_probs[label]`, as `torch.nn.NLLLoss`.
  }];
  let arguments = (ins NN_FloatTensor:$log_probs, NN_IndexTensor:$labels,
                       I64Attr:$ignore_index);
  let results = (outs NN_ScalarFloatTensor:$result);
  let assemblyFormat = [{
    $log_probs `,` $labels attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

def NN_LayerNormGradOp : NN_Op<"layer_norm_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Backward of nn.layer_norm: dx, dgamma and dbeta";
  let description = [{
    `grad` is the gradient of the layer norm's result, `input` its full
    normalised operand (`input + residual` when it had a residual; that
    gradient is then `grad_input` for both); `statistic` and
    `epsilon_on_std` are the layer norm's. The mean and `s` are recomputed
    from `input` rather than saved. With `xhat = (x - mean) * s`, sums
    over the N normalised elements (`axis` to the last) and M the divisor
    of `var` (N, or N - 1 for `unbiased_variance`):

        grad_beta  = Σ_rows grad        (computed whether or not beta was)
        grad_gamma = Σ_rows grad * xhat
        grad_input = s * (g - mean(g) - xhat * Σ(g * xhat) / D),
                     g = grad * gamma

    where `mean(g)` is 0 for `mean_square`, and `D = M`, or
    `M * sqrt(var) * s` with `epsilon_on_std`.
  }];
  let arguments = (ins NN_FloatTensor:$grad, NN_FloatTensor:$input,
                       NN_FloatTensor:$gamma, I64Attr:$axis, F64Attr:$epsilon,
                       DefaultValuedAttr<NN_NormStatisticAttr,
                           "::transfuse::nn::NormStatistic::variance">:$statistic,
                       UnitAttr:$epsilon_on_std);
  let results = (outs NN_FloatTensor:$grad_input, NN_FloatTensor:$grad_gamma,
                      NN_FloatTensor:$grad_beta);
  let assemblyFormat = [{
    $grad `,` $input `,` $gamma attr-dict `:` functional-type(operands, results)
  }];
}

def NN_GeluGradOp : NN_Op<"gelu_grad", [Pure,
    AllTypesMatch<["grad", "input", "result"]>]> {
  let summary = "Backward of nn.gelu: grad · gelu'(input)";
  let description = [{
    `gelu'(x) = Φ(x) + x φ(x)` for the erf form; for the tanh approximation
    with `u = √(2/π) (x + 0.044715 x³)` and `t = tanh(u)`,
    `gelu'(x) = (1 + t) / 2 + x (1 - t²) √(2/π) (1 + 3 · 0.044715 x²) / 2`.
  }];
  let arguments = (ins NN_FloatTensor:$grad, NN_FloatTensor:$input,
                       UnitAttr:$approximate_tanh);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($input)";
}

def NN_EmbeddingGradOp : NN_Op<"embedding_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Backward of nn.embedding: scatter-adds rows into the table";
  let description = [{
    `grad: [..., d]`, `indices: [...]` give the `[num_rows, d]` gradient of
    the table: zeros, then `grad[t]` added to row `indices[t]` for every
    index position `t`, so repeated ids accumulate. Ids must lie in
    `[0, num_rows)`; the runtime checks them before running.
  }];
  let arguments = (ins NN_FloatTensor:$grad, NN_IndexTensor:$indices,
                       I64Attr:$num_rows);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

def NN_CrossEntropyGradOp : NN_Op<"cross_entropy_grad",
                                  [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of nn.cross_entropy with respect to the logits";
  let description = [{
    The gradient of the mean loss itself (its adjoint taken as 1), as
    `torch.nn.CrossEntropyLoss(reduction="mean")` computes it: with `C`
    classes, `n` labels that are not `ignore_index`, `p = softmax(logits)`
    and `ls = label_smoothing`, a counted row gets
    `(p - (1 - ls) * onehot(label) - ls / C) / n` and an ignored row 0.
    With no counted label (`n = 0`) the gradient is all zeros, as PyTorch's
    (whose loss is then NaN).
  }];
  let arguments = (ins NN_FloatTensor:$logits, NN_IndexTensor:$labels,
                       I64Attr:$ignore_index, F64Attr:$label_smoothing);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` functional-type(operands, results)
  }];
}

def NN_NllLossGradOp : NN_Op<"nll_loss_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of nn.nll_loss with respect to the log-probabilities";
  let description = [{
    The gradient of the mean loss itself (its adjoint taken as 1): `-1 / n`
    at `[row, label]` of each of the `n` rows whose label is not
    `ignore_index`, 0 elsewhere; all zeros when `n = 0`, as PyTorch's.
  }];
  let arguments = (ins NN_FloatTensor:$log_probs, NN_IndexTensor:$labels,
                       I64Attr:$ignore_index);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $log_probs `,` $labels attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Layers on buffers
//===----------------------------------------------------------------------===//

// The CUDA target keeps these ops whole through bufferization
// (convert-nn-to-linalg{keep-kernel-ops}) for the runtime's kernels: each is
// the op of the same name on buffers, with its attributes and semantics,
// reading its operands and writing its results into the `into` buffers.
// Operands may have any layout; nn-kernel-ops-to-runtime-call makes them
// contiguous where the kernels need it.

def NN_LayerNormIntoOp : NN_Op<"layer_norm_into", [AttrSizedOperandSegments]> {
  let summary = "`nn.layer_norm` on buffers";
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$input,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$gamma,
                       Arg<Optional<NN_FloatMemRef>, "", [MemRead]>:$beta,
                       Arg<Optional<NN_FloatMemRef>, "", [MemRead]>:$residual,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$out,
                       I64Attr:$axis, F64Attr:$epsilon,
                       DefaultValuedAttr<NN_NormStatisticAttr,
                           "::transfuse::nn::NormStatistic::variance">:$statistic,
                       UnitAttr:$epsilon_on_std);
  let assemblyFormat = [{
    $input (`+` $residual^)? `,` $gamma (`,` $beta^)? `into` $out attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_LayerNormGradIntoOp : NN_Op<"layer_norm_grad_into"> {
  let summary = "`nn.layer_norm_grad` on buffers";
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$grad,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$input,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$gamma,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$grad_input,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$grad_gamma,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$grad_beta,
                       I64Attr:$axis, F64Attr:$epsilon,
                       DefaultValuedAttr<NN_NormStatisticAttr,
                           "::transfuse::nn::NormStatistic::variance">:$statistic,
                       UnitAttr:$epsilon_on_std);
  let assemblyFormat = [{
    $grad `,` $input `,` $gamma `into` $grad_input `,` $grad_gamma `,`
    $grad_beta attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_CrossEntropyIntoOp : NN_Op<"cross_entropy_into"> {
  let summary = "`nn.cross_entropy` on buffers";
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$logits,
                       Arg<NN_IndexMemRef, "", [MemRead]>:$labels,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$out,
                       I64Attr:$ignore_index, F64Attr:$label_smoothing);
  let assemblyFormat = [{
    $logits `,` $labels `into` $out attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_CrossEntropyGradIntoOp : NN_Op<"cross_entropy_grad_into"> {
  let summary = "`nn.cross_entropy_grad` on buffers";
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$logits,
                       Arg<NN_IndexMemRef, "", [MemRead]>:$labels,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$out,
                       I64Attr:$ignore_index, F64Attr:$label_smoothing);
  let assemblyFormat = [{
    $logits `,` $labels `into` $out attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_NllLossIntoOp : NN_Op<"nll_loss_into"> {
  let summary = "`nn.nll_loss` on buffers";
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$log_probs,
                       Arg<NN_IndexMemRef, "", [MemRead]>:$labels,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$out,
                       I64Attr:$ignore_index);
  let assemblyFormat = [{
    $log_probs `,` $labels `into` $out attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_NllLossGradIntoOp : NN_Op<"nll_loss_grad_into"> {
  let summary = "`nn.nll_loss_grad` on buffers";
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$log_probs,
                       Arg<NN_IndexMemRef, "", [MemRead]>:$labels,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$out,
                       I64Attr:$ignore_index);
  let assemblyFormat = [{
    $log_probs `,` $labels `into` $out attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_EmbeddingGradIntoOp : NN_Op<"embedding_grad_into"> {
  let summary = "`nn.embedding_grad` on buffers";
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead]>:$grad,
                       Arg<NN_IndexMemRef, "", [MemRead]>:$indices,
                       Arg<NN_FloatMemRef, "", [MemWrite]>:$out,
                       I64Attr:$num_rows);
  let assemblyFormat = [{
    $grad `,` $indices `into` $out attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

// nn-optimizer{runtime-update}, for the CUDA target, builds the training
// step's clipping and updates from these ops instead of chains of
// elementwise ops: each runs as one runtime kernel, one pass over the
// tensors it reads. Scalars that change with the step (the learning rate,
// bias corrections, the clipping factor) are rank-0 f32 operands; the
// settings that do not are attributes. The arithmetic, in f32 and in this
// order, is the elementwise chain's (runtime/lib/shared/OptimizerMath.h).

def NN_F32Scalar : 0DTensorOf<[F32]>;
def NN_F32ScalarMemRef : MemRefRankOf<[F32], [0]>;

def NN_GlobalNormOp : NN_Op<"global_norm", [Pure]> {
  let summary = "The L2 norm of all its operands taken together";
  let description = [{
    `sqrt(Σ_i Σ x_i²)` over every element of every operand, as
    `torch.nn.utils.clip_grad_norm_` measures the gradients. The sum is
    taken in an order fixed by the shapes alone (the result does not
    depend on the thread count) and in at least f32 precision.
  }];
  let arguments = (ins Variadic<NN_FloatTensor>:$inputs);
  let results = (outs NN_F32Scalar:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_AdamUpdateOp : NN_Op<"adam_update", [Pure,
    AllTypesMatch<["param", "grad", "exp_avg", "exp_avg_sq", "new_param",
                   "new_exp_avg", "new_exp_avg_sq"]>]> {
  let summary = "One Adam or AdamW step of one parameter";
  let description = [{
    Per element, in f32, as `torch.optim.Adam`/`AdamW`'s single-tensor step:
    ```
    g  = grad · clip_factor  (+ param · weight_decay, Adam's L2 decay)
    p  = param · decay_factor              (AdamW: 1 - lr · weight_decay)
    m' = exp_avg · β1 + g · (1 - β1)
    v' = exp_avg_sq · β2 + g · g · (1 - β2)
    p' = p - m' / (sqrt(v') / bias_correction2_sqrt + eps) · step_size
    ```
    where `step_size = lr / (1 - β1^t)` and `bias_correction2_sqrt =
    sqrt(1 - β2^t)`. The results are p', m' and v'.
  }];
  let arguments = (ins NN_FloatTensor:$param, NN_FloatTensor:$grad,
                       NN_FloatTensor:$exp_avg, NN_FloatTensor:$exp_avg_sq,
                       NN_F32Scalar:$step_size,
                       NN_F32Scalar:$bias_correction2_sqrt,
                       NN_F32Scalar:$clip_factor, NN_F32Scalar:$decay_factor,
                       F64Attr:$beta1, F64Attr:$beta2, F64Attr:$eps,
                       F64Attr:$weight_decay);
  let results = (outs NN_FloatTensor:$new_param, NN_FloatTensor:$new_exp_avg,
                      NN_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `step_size` $step_size
    `bias_correction2_sqrt` $bias_correction2_sqrt `clip_factor` $clip_factor
    `decay_factor` $decay_factor attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_SgdUpdateOp : NN_Op<"sgd_update", [Pure]> {
  let summary = "One SGD step of one parameter, with or without momentum";
  let description = [{
    Per element, in f32, as `torch.optim.SGD`'s single-tensor step:
    ```
    g  = grad · clip_factor (+ param · weight_decay)
    b' = momentum_buffer · momentum + g      (with a momentum buffer)
    d  = g + b' · momentum if nesterov, else b' (g without a buffer)
    p' = param - d · lr
    ```
    The results are p' and, with a momentum buffer, b'.
  }];
  let arguments = (ins NN_FloatTensor:$param, NN_FloatTensor:$grad,
                       NN_F32Scalar:$lr, NN_F32Scalar:$clip_factor,
                       Optional<NN_FloatTensor>:$momentum_buffer,
                       F64Attr:$momentum, F64Attr:$weight_decay,
                       UnitAttr:$nesterov);
  let results = (outs Variadic<NN_FloatTensor>:$results);
  let assemblyFormat = [{
    $param `,` $grad `lr` $lr `clip_factor` $clip_factor
    (`momentum_buffer` $momentum_buffer^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_GlobalNormIntoOp : NN_Op<"global_norm_into"> {
  let summary = "`nn.global_norm` on buffers";
  let arguments = (ins Arg<Variadic<NN_FloatMemRef>, "", [MemRead]>:$inputs,
                       Arg<NN_F32ScalarMemRef, "", [MemWrite]>:$out);
  let assemblyFormat = [{
    $inputs `into` $out attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_AdamUpdateIntoOp : NN_Op<"adam_update_into"> {
  let summary = "`nn.adam_update` on buffers, in place";
  let description = [{
    Updates `param`, `exp_avg` and `exp_avg_sq` in place.
  }];
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead, MemWrite]>:$param,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$grad,
                       Arg<NN_FloatMemRef, "", [MemRead, MemWrite]>:$exp_avg,
                       Arg<NN_FloatMemRef, "", [MemRead, MemWrite]>:$exp_avg_sq,
                       Arg<NN_F32ScalarMemRef, "", [MemRead]>:$step_size,
                       Arg<NN_F32ScalarMemRef, "",
                           [MemRead]>:$bias_correction2_sqrt,
                       Arg<NN_F32ScalarMemRef, "", [MemRead]>:$clip_factor,
                       Arg<NN_F32ScalarMemRef, "", [MemRead]>:$decay_factor,
                       F64Attr:$beta1, F64Attr:$beta2, F64Attr:$eps,
                       F64Attr:$weight_decay);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `step_size` $step_size
    `bias_correction2_sqrt` $bias_correction2_sqrt `clip_factor` $clip_factor
    `decay_factor` $decay_factor attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_SgdUpdateIntoOp : NN_Op<"sgd_update_into"> {
  let summary = "`nn.sgd_update` on buffers, in place";
  let description = [{
    Updates `param` and, when there is one, `momentum_buffer` in place.
  }];
  let arguments = (ins Arg<NN_FloatMemRef, "", [MemRead, MemWrite]>:$param,
                       Arg<NN_FloatMemRef, "", [MemRead]>:$grad,
                       Arg<NN_F32ScalarMemRef, "", [MemRead]>:$lr,
                       Arg<NN_F32ScalarMemRef, "", [MemRead]>:$clip_factor,
                       Arg<Optional<NN_FloatMemRef>, "",
                           [MemRead, MemWrite]>:$momentum_buffer,
                       F64Attr:$momentum, F64Attr:$weight_decay,
                       UnitAttr:$nesterov);
  let assemblyFormat = [{
    $param `,` $grad `lr` $lr `clip_factor` $clip_factor
    (`momentum_buffer` $momentum_buffer^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//
// Data-parallel training (nn-data-parallel) combines each replica's
// gradients with these. A bucket is one message: the runtime packs its
// tensors, starts the exchange where the op stands and waits for it only
// before the first later use of one of them, so that the exchange overlaps
// the work in between. In a single process both are the identity.

def NN_F32Tensor : StaticShapeTensorOf<[F32]>;
def NN_F32MemRef : StaticShapeMemRefOf<[F32]>;

def NN_AllReduceOp : NN_Op<"all_reduce", [
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Combines each operand across the replicas of a training run";
  let description = [{
    Result `i` is operand `i` combined over every replica by `reduction`
    (`sum`, or `mean` weighted by the runtime's per-replica weights). The
    operands form bucket `bucket`, exchanged as one message; every replica
    issues the same buckets in the same order. The op has effects, so it is
    neither moved, merged nor erased.

    ```mlir
    %a, %b = nn.all_reduce %ga, %gb {bucket = 0 : i64,
        reduction = #nn.reduction<mean>} : tensor<64xf32>, tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Variadic<NN_F32Tensor>:$inputs,
                       NN_ReductionAttr:$reduction, I64Attr:$bucket);
  let results = (outs Variadic<NN_F32Tensor>:$results);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def NN_AllReduceIntoOp : NN_Op<"all_reduce_into"> {
  let summary = "`nn.all_reduce` on buffers, in place";
  let arguments = (ins Arg<Variadic<NN_F32MemRef>, "",
                           [MemRead, MemWrite]>:$buffers,
                       NN_ReductionAttr:$reduction, I64Attr:$bucket);
  let assemblyFormat = "$buffers attr-dict `:` type($buffers)";
  let hasVerifier = 1;
}

#endif // TRANSFUSE_NN_OPS
