#ifndef TRANSFUSE_TRANSFORMS_PASSES
#define TRANSFUSE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

// The runtime-call passes' choice of kernels.
defvar runtimeTargetOption = Option<"target", "target",
    "::transfuse::RuntimeTarget", "::transfuse::RuntimeTarget::CPU",
    "Whose kernels to call: cpu (tfrt_*) or cuda (tfrt_cuda_*)", [{
      ::llvm::cl::values(
          clEnumValN(::transfuse::RuntimeTarget::CPU, "cpu",
                     "the CPU runtime's kernels"),
          clEnumValN(::transfuse::RuntimeTarget::CUDA, "cuda",
                     "the CUDA runtime's kernels"))
    }]>;

def FuseAttention : Pass<"nn-fuse-attention"> {
  let summary = "Replaces softmax(q kᵀ · scale + masks) v with nn.attention";
  let description = [{
    Finds scaled dot-product attention written in primitive ops and replaces
    it with one `nn.attention`. It anchors on `matmul(p, v)` where `p` is a
    softmax over the last axis (optionally followed by dropout) and walks the
    scores back to `matmul(q, kᵀ)`, accepting on the way:

    - constant scalar scales (`div` / `mul`) on the scores, and on q and on
      k, also before a head split (`reshape` / `transpose`);
    - `masked_fill` with an `i1` mask and any fill value (`-inf`, `-1e9`),
      and `add` of a float mask (`-inf` / `-1e9` constants, `0/1` masks made
      additive);
    - a causal mask, as `nn.triangular_mask {diagonal = 1}` or an equal
      constant (boolean or additive), which becomes the `causal` flag.

    Heads may be split (`[b, h, s, d]`) or folded into the batch
    (`[b·h, s, d]`, reshaped around the fused op). At most one mask that is
    not causal is kept (`mask` operand). The graph is left alone when the
    softmax is over another axis, a scale is not a constant, a mask does not
    broadcast to the scores, or the scores or probabilities have another
    user (attention weights that are also returned).
  }];
  let dependentDialects = ["::transfuse::nn::NNDialect"];
}

def FuseLayerNorm : Pass<"nn-fuse-layer-norm"> {
  let summary = "Replaces mean / variance / normalise / affine with nn.layer_norm";
  let description = [{
    Matches the three forms of normalisation over the trailing axes,
    `(x - μ) · rsqrt(σ² + ε) · γ` (or `/ sqrt(σ² + ε)`, σ² biased as
    `mean((x - μ)²)`, `mean(x²) - μ²` or unbiased as `sum((x - μ)²) /
    (N - 1)`), `γ · (x - μ) / (sqrt(σ²) + ε)` and RMSNorm's
    `x · rsqrt(mean(x²) + ε) · γ`, and replaces each with `nn.layer_norm`
    of that statistic and ε placement; an added β of the normalised shape
    becomes its beta. A layer norm of `a + b` (same shapes) then takes the
    sum as its `residual` form, the post-LN sublayer connection.
  }];
  let dependentDialects = ["::transfuse::nn::NNDialect"];
}

def FuseQKVProjections : Pass<"nn-fuse-qkv-projections"> {
  let summary = "One matmul for the q, k and v projections of one input";
  let description = [{
    For each `nn.attention`, finds the Linear projections (`x Wᵀ + b` of
    parameters) that produce its query, key and value. Those that read the
    same input (q, k and v of self-attention; k and v of cross-attention)
    become one matmul with the weights and biases concatenated, and slices
    of its result. The parameters keep their own names: the concatenation
    is a view of them the backend may materialise once.
  }];
  let dependentDialects = ["::transfuse::nn::NNDialect"];
}

def FuseGelu : Pass<"nn-fuse-gelu"> {
  let summary = "Replaces the erf form of GELU with nn.gelu";
  let description = [{
    Matches `x · 0.5 · (1 + erf(x / √2))` (or `x · (1/√2)` inside the erf),
    a tree of `nn.mul` in any order and grouping whose scalar factors
    multiply to 1/2, as exporters and hand-written models write
    `torch.nn.GELU()`, and replaces it with `nn.gelu(x)`.
  }];
  let dependentDialects = ["::transfuse::nn::NNDialect"];
}

def FuseMatmulEpilogue : Pass<"nn-fuse-matmul-epilogue"> {
  let summary = "matmul + bias + ReLU/GELU into nn.fused_matmul";
  let description = [{
    Folds a transposed Linear weight into `transpose_rhs`, a bias added along
    the last axis into `bias`, and a following ReLU or GELU into
    `activation` of one `nn.fused_matmul`.
  }];
  let dependentDialects = ["::transfuse::nn::NNDialect"];
}

def ExternalizeParameters : Pass<"nn-externalize-parameters", "::mlir::ModuleOp"> {
  let summary = "Turns nn.param_load into leading arguments of each function";
  let description = [{
    Code generation sees parameters as buffers the caller owns: each
    function gets one leading argument per parameter it reads, in the order
    of the module's `nn.parameter`s, named by an `nn.param` argument
    attribute, and its `nn.param_load`s read that argument. Calls are
    updated to pass the arguments on, and the `nn.parameter` declarations
    are removed: from here on parameters are buffers the caller owns.

    Optimizer state (`nn.state`) becomes arguments after the parameters in
    the functions that use it. A function that stores (`nn.param_store`,
    the training step) takes its parameters and state as buffers: each is
    read once as a `restrict writable` tensor, and each store becomes
    `bufferization.materialize_in_destination` into that tensor and then
    into the buffer, so that bufferization updates it in place.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::transfuse::nn::NNDialect"];
}

def ConvertNNToLinalg : Pass<"convert-nn-to-linalg"> {
  let summary = "Lowers nn ops to linalg, tensor and arith on tensors";
  let description = [{
    Elementwise ops (with broadcasting) become `linalg.generic`, reductions
    `linalg.reduce`, matmuls `linalg.matmul` / `linalg.batch_matmul`, shape
    ops `tensor` reshapes, slices and inserts, and constant-shaped ops
    (`sinusoidal_encoding`, `triangular_mask`) constants. Fused ops expand
    into the same building blocks, except f32 `nn.attention`, which stays
    whole for bufferization into `nn.attention_into` and the runtime's fused
    kernel unless `expand-attention` is set. With `keep-kernel-ops`, f32
    `nn.layer_norm`, `nn.layer_norm_grad`, the losses and their gradients
    and `nn.embedding_grad` stay whole too, for the runtime's kernels (the
    CUDA target); with `keep-cross-entropy`, f32 `nn.cross_entropy` and
    `nn.cross_entropy_grad` alone (the CPU runtime's kernels read the
    logits two or three times where their loops make eight passes).
    `nn.cache_update` becomes a loop over the sequences that
    inserts each one's rows, or with `whole-cache-updates` one elementwise
    `linalg.generic` over the cache that takes the new rows where they land
    (no loop indexed on the host: the CUDA target). Parameters must be
    arguments already (`nn-externalize-parameters`); dropout is the
    identity (inference).
  }];
  let options = [
    Option<"expandAttention", "expand-attention", "bool", "false",
           "Expand every nn.attention into matmuls and a softmax">,
    Option<"keepKernelOps", "keep-kernel-ops", "bool", "false",
           "Keep f32 layer norm, losses and the embedding gradient whole">,
    Option<"keepCrossEntropy", "keep-cross-entropy", "bool", "false",
           "Keep f32 cross entropy and its gradient whole">,
    Option<"wholeCacheUpdates", "whole-cache-updates", "bool", "false",
           "Update a decoding cache by one elementwise pass over it">
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def AttentionToRuntimeCall
    : Pass<"nn-attention-to-runtime-call", "::mlir::ModuleOp"> {
  let summary = "Runs bufferized attention on the runtime's fused kernel";
  let description = [{
    Every `nn.attention_into` (bufferized `nn.attention`) becomes one call
    to `tfrt_attention_f32` (docs/artifact.md), which takes each operand as
    a pointer and strides. First, a transpose keeping the last dimension
    that only feeds the op becomes a transposed view of its source, and one
    that only copies the op's result elsewhere becomes a view the op writes
    through, when nothing in between touches the memory involved. Operands
    must be rank-4 f32 (the mask i1 or f32) with a contiguous last
    dimension; anything else is an error.

    With `target=cuda` the ops call the CUDA runtime's twins
    (`tfrt_cuda_attention_f32`, ...), which take the dropout seed by its
    address (device memory the host code cannot read) and, for the
    backward, a scratch buffer of one float per query row.
  }];
  let options = [runtimeTargetOption];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect"
  ];
}

def MatmulToRuntimeCall : Pass<"nn-matmul-to-runtime-call", "::mlir::ModuleOp"> {
  let summary = "Runs bufferized matmuls on the runtime's tuned GEMM";
  let description = [{
    After bufferization, a `linalg.matmul` or `linalg.batch_matmul` of
    contiguous row-major f32 buffers whose output was just zeroed (a zero
    fill, or a copy of a buffer that holds zeros at that point) becomes one
    call to `tfrt_matmul_f32` (docs/artifact.md), which the runtime
    implements with OpenBLAS; the zeroing goes away. A `linalg.matmul`
    whose indexing maps read its lhs as `[k, m]` or its rhs as `[n, k]`
    passes `trans_a` or `trans_b`, so the operand is read where it lies.
    When the next op computes `act(C + bias)` from the product alone, with
    a bias `[n]` over C's rows and no activation or ReLU, and C dies there,
    the call applies them to each tile of C while it is in cache
    (`bias`, `activation` 1) and writes that op's output, and the op goes
    (GemmEpilogue.h). Anything else is left for the generic lowering. With
    `target=cuda` the call is of `tfrt_cuda_matmul_f32`, the same GEMM on
    cuBLASLt, without the epilogue for now (cuBLASLt's has not been run on
    a GPU yet).
  }];
  let options = [runtimeTargetOption];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"
  ];
}

def KernelOpsToRuntimeCall
    : Pass<"nn-kernel-ops-to-runtime-call", "::mlir::ModuleOp"> {
  let summary = "Runs layers on buffers on the runtime's kernels";
  let description = [{
    Every `nn.layer_norm_into`, `nn.layer_norm_grad_into`,
    `nn.cross_entropy_into`, `nn.cross_entropy_grad_into`,
    `nn.nll_loss_into`, `nn.nll_loss_grad_into` and `nn.embedding_grad_into`
    becomes, with `target=cuda`, one call of the CUDA runtime's kernel for
    it (`tfrt_cuda_layer_norm_f32`, ...; docs/artifact.md). With
    `target=cpu` (the default), `nn.cross_entropy_into` and
    `nn.cross_entropy_grad_into` become calls of the CPU runtime's
    `tfrt_cross_entropy_f32` and `tfrt_cross_entropy_grad_f32`, with the
    same arguments, and the other ops are an error: the CPU runtime has no
    kernel for them. Dense buffers by
    address, sizes as rows and columns, attributes as scalars, and the
    scratch memory the kernel needs as a fresh buffer. An operand that is a
    strided view is copied into a dense buffer first. Operands must be f32.
    `nn.global_norm_into` becomes one call for the sums of squares of all
    its tensors and one for the norm; a run of adjacent
    `nn.adam_update_into` (`nn.sgd_update_into`) ops with the same
    attributes and step scalars becomes one call over all their tensors.
    Calls over many tensors take host arrays (`memref.alloca`, filled by
    `memref.store`) of the tensors' element counts and addresses.
  }];
  let options = [runtimeTargetOption];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect"
  ];
}

def FuseElementwiseLoops : Pass<"nn-fuse-elementwise-loops"> {
  let summary = "Fuses chains of elementwise linalg.generic ops into one loop";
  let description = [{
    Upstream elementwise fusion, restricted to a `linalg.generic` producer
    feeding a `linalg.generic` consumer: fills and named contractions stay
    as they are, so matmuls remain recognisable for the runtime's GEMM.
    A producer folds into its sole reader, or into an elementwise reader
    that every other reader follows in its block: the fused loop then keeps
    the producer's values as outputs, which those readers read instead. A
    value is never computed in two loops.
    A fusion whose loop body would exceed `max-body-ops` operations is left
    out, which keeps this pass and the code generation of the loop linear
    in the length of a chain.
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "unsigned", /*default=*/"256",
           "The most operations one fused loop body may hold">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ApproximateMath : Pass<"nn-approximate-math"> {
  let summary = "Expands f32 exp, log, tanh and erf into polynomial arithmetic";
  let description = [{
    Upstream's polynomial approximations (Cephes' exp and log, as Eigen and
    XLA use them; rational tanh and erf) for f32 `math` ops. Lowered to LLVM
    as they are, these ops become `llvm.exp` and friends, which the loop
    vectoriser widens and instruction selection then splits back into one
    libm call per lane; as plain arithmetic the softmax, cross-entropy and
    GELU loops vectorise whole. Other types and other ops are left alone.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

def ParallelizeLoops : Pass<"nn-parallelize-loops"> {
  let summary = "Splits each sizeable bufferized loop nest into parallel tiles";
  let description = [{
    Every linalg op on buffers outside any loop whose iteration space holds
    at least `min-tile-work` iterations per tile has its leading parallel
    dimensions (one, or two when the first is too short) tiled into an
    `scf.parallel` of at most `max-tiles` tiles, each running the op on
    subviews. The code generator hands those loops to OpenMP, whose static
    schedule spreads the tiles over the runtime's threads; the innermost
    dimension stays whole inside a tile so that it vectorises. Ops whose
    first loop is a reduction, and small ops, are left as they are.
  }];
  let options = [
    Option<"minTileWork", "min-tile-work", "int64_t", /*default=*/"16384",
           "fewest iterations of the op's loop nest in one tile">,
    Option<"maxTiles", "max-tiles", "int64_t", /*default=*/"64",
           "most tiles per op">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::affine::AffineDialect",
    "::mlir::memref::MemRefDialect", "::mlir::linalg::LinalgDialect"
  ];
}

def DeallocAfterLastUse : Pass<"nn-dealloc-after-last-use"> {
  let summary = "Frees each temporary buffer right after its last use";
  let description = [{
    A `memref.dealloc` of a `memref.alloc` in the same block moves up to
    just after the last op of that block that uses the buffer: directly,
    from inside its regions (a parallel loop's body, say), or through a
    derived handle (a view, or the pointer arithmetic from
    `memref.extract_aligned_pointer_as_index` that feeds a runtime call).
    A buffer with a handle used outside the block is left alone. The
    deallocation pipeline frees at the end of the block; this bounds peak
    memory by what is live at once instead of the sum of all temporaries.
  }];
}

def PlanDeviceMemory : Pass<"nn-plan-device-memory", "::mlir::ModuleOp"> {
  let summary = "Places every temporary in one arena, from their lifetimes";
  let description = [{
    For the GPU, where nothing is allocated while a step runs: each function
    with a body gets a last argument, the arena (`memref<Nxi8>` with the
    `nn.arena` argument attribute), and each of its `memref.alloc`s becomes
    a `memref.view` of it. A temporary lives from its allocation to its
    `memref.dealloc` (which goes) or the end of the function; temporaries
    whose lifetimes overlap get disjoint bytes (256-byte aligned), others
    share them, placed first fit in order of decreasing size. The function's
    `nn.arena_bytes` attribute gives N, what the runtime allocates.

    A constant passed to a runtime call is first copied into a temporary:
    constants live with the generated kernels on the device. An allocation
    that is dynamic or inside a region, or a call of a function with a body,
    is an error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def SplitReductions : Pass<"nn-split-reductions"> {
  let summary = "Splits reductions with few results for many GPU threads";
  let description = [{
    A `linalg.generic` on tensors with one result that reduces at least
    256 elements into fewer than 16384 results, with an associative
    combiner (`yield combine(%out, x)`: integer add, max, min, float add
    with `reassoc`) and projected-permutation maps, has one reduction
    dimension d of size E split as d = r * c + p (c dividing E): a first op
    computes `[c, results...]` partials, starting at the combiner's
    neutral element, each over every c-th element; a second combines them
    into the original init. The pass repeats on both until nothing is left
    to split. c is chosen so that the first op has about 16384 results and
    each of them still reduces at least 16 elements.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ScalarsToTensors : Pass<"nn-scalars-to-tensors", "::mlir::ModuleOp"> {
  let summary = "Rewrites host scalar arithmetic on tensor elements as 0-d ops";
  let description = [{
    For the CUDA target, on tensors: every `tensor.extract` at the top of a
    function, and every scalar arithmetic op computed from one (the
    optimizer's seed, learning rate and bias corrections), becomes a
    `linalg.generic` on 0-d tensors, so that it runs on the device, where
    the tensors are. The uses of each such scalar read its 0-d tensor: a
    0-d `tensor.from_elements` of it becomes the tensor, a use inside a
    region extracts it there (inside the kernel), and a `linalg.fill` of
    it becomes a broadcast. Extracting at a computed index is an error.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MapLoopsToGPU : Pass<"nn-map-loops-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Turns every loop nest of a host function into GPU loops";
  let description = [{
    For the CUDA target, after planning: every linalg op and `memref.copy`
    left in a function's body is lowered to loops with its parallel
    dimensions outermost, and its parallel iteration space, flattened, is
    split into blocks of up to 256 threads, one thread per iteration:

    ```mlir
    scf.parallel (%block) = (0) to (B) step (1) {
      scf.parallel (%thread) = (0) to (T) step (1) {
        // i = %block * T + %thread; if i < N: the body at the
        // delinearised indices, its reductions in order
      }
    }
    ```

    which `gpu-map-parallel-loops` maps to the grid and the block. When the
    body is straight-line code and the last loop runs a multiple of 4
    times from 0, each thread runs 4 consecutive iterations of it: what
    does not depend on that loop once, loads and stores of 4 consecutive
    elements as one aligned `vector.load` / `vector.store` (16 bytes of
    f32) where the buffer's layout proves the alignment, the rest once per
    iteration. An op without parallel loops (a full reduction, an op on
    0-d buffers), or anything else left that touches memory, runs on one
    thread. The host keeps only runtime calls, views and address
    arithmetic; an op whose result the host would need from device memory
    is an error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def PromoteAccumulators : Pass<"nn-promote-accumulators"> {
  let summary = "Keeps a loop's running element in a register";
  let description = [{
    For the CUDA target after `nn-map-loops-to-gpu`, and for the CPU after
    `convert-linalg-to-loops`: a reduction lowered to loops loads and stores
    its output element on every iteration. When
    an `scf.for` body loads an element whose buffer and indices are fixed
    across the loop, then stores it, and nothing else in the loop can touch
    that buffer's memory, the element is loaded once before the loop,
    carried in an iter_arg and stored once after it:

    ```mlir
    scf.for %k = %c0 to %c8 step %c1 {
      %a = memref.load %acc[%i] : memref<4xf32>
      %x = memref.load %in[%i, %k] : memref<4x8xf32>
      %s = arith.addf %a, %x : f32
      memref.store %s, %acc[%i] : memref<4xf32>
    }
    // becomes
    %a0 = memref.load %acc[%i] : memref<4xf32>
    %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %a0) -> (f32) {
      %x = memref.load %in[%i, %k] : memref<4x8xf32>
      %s = arith.addf %a, %x : f32
      scf.yield %s : f32
    }
    memref.store %r, %acc[%i] : memref<4xf32>
    ```

    The same operations run in the same order: results do not change. A
    store to memory the loop's loads may alias keeps each load behind it,
    so on the GPU this is the difference between one memory round trip per
    iteration and loads in flight together; on the CPU, between a scalar
    loop and one LLVM vectorises (which reorders a `reassoc` sum). Loops are taken innermost
    first, so a nest loses the load and store altogether. Memory is told
    apart by the buffer it views: distinct function arguments (the entry
    point's buffers are distinct allocations), allocations and globals
    never overlap, and two `memref.view` slices of one buffer only if their
    static byte ranges do not intersect. Anything else that may touch the
    element's memory in the loop, or an op with a memref operand that does
    not declare its effects, leaves the loop as it is.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def ShareDropoutBlocks : Pass<"nn-share-dropout-blocks"> {
  let summary = "Computes each Philox block of a dropout once for its four elements";
  let description = [{
    For the CPU, after `convert-linalg-to-loops`. Four consecutive elements
    of a dropout share a Philox block, one word each (docs/autodiff.md).
    Where a row of the tensor dropped starts a block, the lowering of
    `nn.dropout` computes an element's block within its row as `j >> 2`
    and its word as `j & 3`, for `j` its last index, on ops marked
    `nn.dropout_block` and `nn.dropout_word`. An `scf.for` over `j` that
    starts at a multiple of 4 and runs by 1 a multiple of 4 times is
    unrolled by 4: copy `i` sees `j + i` with `j` a multiple of 4, so its
    block is copy 0's and its word `i`. A load in the loop of an element
    fixed across it that nothing there can write (the seed, which each copy
    loads again) moves before the loop, once. The copies' Philox rounds are
    then the same ops on the same values, and CSE in the loop keeps one set:

    ```mlir
    scf.for %j = %c0 to %c8 step %c1 {
      %e = arith.index_castui %j : index to i64
      %b = arith.shrui %e, %c2 {nn.dropout_block} : i64
      %w = arith.andi %e, %c3 {nn.dropout_word} : i64
      ... Philox of %b, word %w ...
    }
    // becomes
    scf.for %j = %c0 to %c8 step %c4 {
      %e = arith.index_castui %j : index to i64
      %b = arith.shrui %e, %c2 {nn.dropout_block} : i64
      ... Philox of %b once, words 0, 1, 2 and 3 for j .. j + 3 ...
    }
    ```

    A loop whose marked ops use anything but its own index, or that does
    not run over whole blocks, is left as it is; its elements each compute
    their own block, which gives the same bits.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def SinkIntoLaunches : Pass<"nn-sink-into-launches"> {
  let summary = "Moves views, constants and tables into the launches using them";
  let description = [{
    Before outlining: the strided views of buffers (subviews, transposes),
    constants, constant tables (`memref.get_global`) and side-effect-free
    scalar arithmetic a `gpu.launch` uses are cloned into it, transitively,
    so that a kernel's only buffer arguments are statically shaped buffers
    of identity layout (function arguments, temporaries in the arena and
    their reshapes), which it takes as bare pointers.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MergeGPUModules : Pass<"nn-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Gathers the outlined kernels in one module, without duplicates";
  let description = [{
    After `gpu-kernel-outlining`: every `gpu.module` is merged into one,
    `@kernels`. Kernels with the same code (compared by their text) are
    kept once, and launches of the others are redirected to it; constant
    tables are kept once by name.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def LowerKernelLaunches : Pass<"nn-lower-kernel-launches", "::mlir::ModuleOp"> {
  let summary = "Lowers gpu.launch_func to calls of the CUDA runtime";
  let description = [{
    Each `gpu.launch_func` becomes a call of
    `tfrt_cuda_launch(kernel, gridX, gridY, gridZ, blockX, blockY, blockZ,
    sharedBytes, args)`, where `kernel` indexes the module's
    `nn.cuda_kernels` (the names of the launched kernels in order of first
    launch) and `args` points to one pointer per kernel argument
    (cuLaunchKernel's layout): a buffer's address, an index as i64. The
    runtime owns the module and the stream: nothing is loaded in a global
    constructor and no stream is created or synchronised per launch.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect"];
}

def OutlineLoops : Pass<"nn-outline-loops", "::mlir::ModuleOp"> {
  let summary = "Moves each top-level loop nest of a function into its own";
  let description = [{
    Every op with regions and no results directly in a function's body (an
    `scf.for` nest, an `omp.parallel` of tiles) becomes a call to a new
    private, never-inlined function `@<function>.loop<N>` holding it. The
    constants and side-effect-free ops it uses (loop bounds, views of
    buffers) are cloned in with it, so its bounds stay constant; what else
    it uses (buffers, scalars) becomes an argument. An op that would need
    a buffer of non-identity layout or dynamic shape as an argument stays.

    LLVM's scalar evolution proves each loop's trip count by walking back
    through every loop before it in the function, so a training step of a
    few thousand loops in sequence took minutes to optimise; in functions
    of one loop nest each, the walk is short.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def LowerOwnedDeallocs : Pass<"nn-lower-owned-deallocs"> {
  let summary = "Lowers deallocs of distinct, owned allocations to memref.dealloc";
  let description = [{
    A `bufferization.dealloc` that retains nothing, whose conditions are all
    constant true and whose operands are distinct `memref.alloc` results
    frees each of them once: distinct allocations cannot alias. This pass
    replaces such an op with one `memref.dealloc` per operand, in linear
    time; any other dealloc is left to `buffer-deallocation-simplification`,
    whose alias checks of every pair of operands are quadratic in the size
    of the op that ends a deep model's function.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def UnshareInitTensors : Pass<"nn-unshare-init-tensors"> {
  let summary = "Gives every loop an init tensor of its own";
  let description = [{
    CSE merges equal `tensor.empty` ops, and equal `linalg.fill` ops of
    them, leaving one op whose uses are the init operands of every loop of
    that type. One-Shot analysis then puts all their in-place results in
    one alias set and checks each write against the whole set, which makes
    bufferization quadratic in the number of layers; and reductions that
    accumulate into a shared fill conflict, each getting a copy of it.
    This pass clones such an empty tensor, or a fill of an empty tensor
    with its empty tensor, once per use, just before the op of its block
    that holds the use, and erases the original. Run it after the last CSE
    and before `eliminate-empty-tensors` and `one-shot-bufferize`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CheckMemory : Pass<"nn-check-memory", "::mlir::ModuleOp"> {
  let summary = "Refuses a model whose estimated memory exceeds a limit";
  let description = [{
    Estimates, in bytes, what running the module's model takes and fails
    with the estimate and its parts when it exceeds `limit-bytes`. The
    estimate is an upper bound: the parameters (every `nn.parameter`);
    for a model that trains (`nn.training`), one gradient per parameter
    and the optimizer's slots (two for Adam/AdamW, one for SGD with
    momentum); and the activations, every op result of `@loss` and of the
    functions it calls, doubled for their gradients (training), or of
    `@forward` (inference). Run after fusion, so that attention's score
    matrices, which the fused kernel never stores, are not counted. The
    module's `nn.dims` are named in the message, since they are what a
    user changes (`-D`). Sizes saturate: no shape can overflow the sum.
  }];
  let options = [
    Option<"limitBytes", "limit-bytes", "uint64_t",
           /*default=*/"uint64_t(64) << 30",
           "The most bytes the model may need (default 64 GiB)">
  ];
}

def Autodiff : Pass<"nn-autodiff", "::mlir::ModuleOp"> {
  let summary = "Builds loss_and_grads: the loss and every parameter's gradient";
  let description = [{
    Reverse-mode differentiation of the `loss` function (which the spec's
    training section defines) with respect to every `nn.parameter`. The new
    function `loss_and_grads` takes the loss function's arguments and
    returns the loss, then one gradient per parameter in declaration order
    (result attribute `nn.grad` names it; a parameter the loss does not
    read gets zeros). Its body is the loss with every call inlined, then
    the backward pass: walking that body from the end, each op's gradient
    rule (`DifferentiableOpInterface`) turns its results' adjoints into its
    operands'; adjoints of a value read several times are summed. An op
    with no rule on the path to the loss is an error naming it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::transfuse::nn::NNDialect"
  ];
}

def Optimizer : Pass<"nn-optimizer", "::mlir::ModuleOp"> {
  let summary = "Builds train_step: loss, gradients, clipping and the update";
  let description = [{
    From `loss_and_grads` and the module's `nn.training` settings, builds
    `train_step`: the same arguments (the dropout seed derived from the
    training seed and the step) plus `step`, the 1-based number of the
    update being taken. It computes the loss and the gradients, their
    global L2 norm, clips them to `clip_grad_norm` as
    `torch.nn.utils.clip_grad_norm_` does, takes the learning rate from the
    schedule, and stores every parameter's update (SGD with momentum and
    Nesterov, Adam or AdamW, as `torch.optim`) and the optimizer state it
    keeps (`nn.state`, zero at first) with `nn.param_store`. It returns the
    loss, the gradient norm before clipping and the learning rate used.

    By default the norm and the updates are chains of elementwise nn ops,
    which the CPU target fuses into its loops. With `runtime-update` (the
    CUDA target) they are `nn.global_norm` and one `nn.adam_update` or
    `nn.sgd_update` per parameter, each run by a runtime kernel in one
    pass over its tensors, with the same f32 arithmetic.
  }];
  let options = [
    Option<"runtimeUpdate", "runtime-update", "bool", /*default=*/"false",
           "Build the norm and the updates from the ops the runtime's "
           "kernels run">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::transfuse::nn::NNDialect"
  ];
}

def DataParallel : Pass<"nn-data-parallel", "::mlir::ModuleOp"> {
  let summary = "Averages loss_and_grads's loss and gradients over replicas";
  let description = [{
    Makes `loss_and_grads` (and so `train_step`, which nn-optimizer builds
    from it) a data-parallel step: every replica computes the loss and the
    gradients of its own shard of the batch, and these become their mean
    over the replicas (`nn.all_reduce`, weighted by each replica's share of
    the counted labels, which the runtime sets per step), so that clipping,
    the update and the reported loss are the same on every replica.

    The gradients are grouped, in the order backward produces them, into
    buckets of at least `bucket-bytes` (the last may be smaller), and each
    bucket's all-reduce stands right after its last gradient is computed:
    the runtime starts the exchange there and waits for it only where a
    gradient is next used, so communication overlaps the rest of backward.
    The loss, known before backward starts, is bucket 0 of its own.
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"4194304",
           "Gradient bytes per all-reduce (the last bucket may hold fewer)">
  ];
  let dependentDialects = ["::transfuse::nn::NNDialect"];
}

def CollectivesToRuntimeCall
    : Pass<"nn-collectives-to-runtime-call", "::mlir::ModuleOp"> {
  let summary = "Runs nn.all_reduce_into as calls of the runtime";
  let description = [{
    Each `nn.all_reduce_into` becomes `tfrt_all_reduce_add(bucket, address,
    count)` for each of its buffers and `tfrt_all_reduce_start(bucket,
    reduction)` where it stands, and `tfrt_all_reduce_wait(bucket)` right
    before the first later op of its block that touches one of the buffers
    or a view of one (or contains such an op), at the latest before the
    block's terminator. Buffers must be dense row-major f32. With
    `target=cuda` the calls are the CUDA runtime's (`tfrt_cuda_all_reduce_*`,
    device addresses).
  }];
  let options = [runtimeTargetOption];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // TRANSFUSE_TRANSFORMS_PASSES
