#!/usr/bin/env python3
"""Checks the gradient rule of every differentiable nn op numerically.

For each op of the table below, on small random operands: a module whose
float operands are nn.parameters and whose `loss` is
sum(op(...) * W), W a fixed random tensor (so that every output element
weighs differently), goes through `transfuse-opt -nn-autodiff` and then the
CPU plan and codegen pipelines (read from Pipeline.cpp, as backward_ops.py
does), mlir-translate, llc and a shared object called with ctypes. The
analytic gradients `loss_and_grads` returns are compared with

  * central finite differences of the compiled `loss` itself, so the rule
    is checked against the very function the compiler differentiates;
  * torch.autograd of the same expression in float64, so a forward and a
    gradient that are wrong in the same way are caught too.

Ops run in float64 where the lowering takes it, so the finite differences
are accurate to ~1e-9; those the runtime's f32-only kernels run
(attention) and the f32 cast use float32, with a wide step and a
relative tolerance to match. One line per op:
`OK <op> (<dtype>): fd err X tol Y, torch err Z tol W`.

Ids, labels and masks are constants of the module: only float operands are
differentiated. Inputs stay away from kinks (relu at 0, ties of max) that
finite differences cannot cross.
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys
import traceback

import numpy as np
import torch
import torch.nn.functional as F

# Finite-difference step and tolerances per dtype: (step, rtol). An error
# is within tolerance when |a - b| <= rtol * max(1, max|b|).
FD = {"f64": (1e-6, 1e-6), "f32": (1e-2, 1e-2)}
TORCH_RTOL = 1e-4
NP = {"f64": np.float64, "f32": np.float32}
CTYPES = {"f64": ctypes.c_double, "f32": ctypes.c_float}


# --- Philox dropout mask (docs/artifact.md) ----------------------------------------

def philox_keep(shape, seed, stream, rate):
    """The keep mask nn.dropout draws: element e is kept iff u >= rate with
    u = (x[e % 4] >> 8) * 2^-24, x the four words of Philox-4x32-10 of
    counter (lo(e / 4), hi(e / 4), lo(stream), hi(stream)) under key
    (lo(seed), hi(seed))."""
    mask32 = np.uint64(0xFFFFFFFF)
    e = np.arange(int(np.prod(shape)), dtype=np.uint64)
    block = e >> np.uint64(2)
    ctr = [block & mask32, block >> np.uint64(32),
           np.full_like(e, stream & 0xFFFFFFFF),
           np.full_like(e, stream >> 32)]
    key = [seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF]
    for _ in range(10):
        p0 = ctr[0] * np.uint64(0xD2511F53)
        p1 = ctr[2] * np.uint64(0xCD9E8D57)
        ctr = [(p1 >> np.uint64(32)) ^ ctr[1] ^ np.uint64(key[0]),
               p1 & mask32,
               (p0 >> np.uint64(32)) ^ ctr[3] ^ np.uint64(key[1]),
               p0 & mask32]
        key = [(key[0] + 0x9E3779B9) & 0xFFFFFFFF,
               (key[1] + 0xBB67AE85) & 0xFFFFFFFF]
    word = np.choose((e & np.uint64(3)).astype(np.int64), ctr)
    u = (word >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)
    return (u >= np.float32(rate)).reshape(shape)


# --- Operand generators -------------------------------------------------------------

def normal(rng, shape):
    return rng.standard_normal(shape)


def positive(rng, shape):
    """Away from 0, where log, sqrt and rsqrt are smooth and tame."""
    return rng.uniform(0.5, 2.0, shape)


def off_zero(rng, shape):
    """Normal values at least 0.1 from 0 (relu's kink, a divisor's pole)."""
    x = rng.standard_normal(shape)
    return np.sign(x) * (0.1 + np.abs(x))


def distinct(rng, shape):
    """Values 0.1 apart in random order: no ties for max to break."""
    return rng.permutation(np.arange(np.prod(shape)) * 0.1 - 1).reshape(shape)


# --- MLIR text ------------------------------------------------------------------------

def tensor_type(shape, element):
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims}x{element}>" if shape else f"tensor<{element}>"


def dense(array, element):
    """A dense<...> literal of `array` (float, int or bool)."""
    if array.dtype == np.bool_:
        body = np.array2string(array, separator=", ", threshold=1 << 30,
                               formatter={"bool": lambda b: str(b).lower()})
    elif np.issubdtype(array.dtype, np.integer):
        body = np.array2string(array, separator=", ", threshold=1 << 30)
    else:
        body = np.array2string(array, separator=", ", threshold=1 << 30,
                               floatmode="unique",
                               formatter={"float": lambda v: repr(float(v))})
    body = body.replace("\n", "")
    if array.ndim == 0:
        body = body.strip()
    return f"dense<{body}> : {tensor_type(array.shape, element)}"


class Case:
    """One op under test: its float operands (parameters), its constants
    (ids, labels, masks), the nn op as MLIR and the same op in torch."""

    def __init__(self, name, floats, mlir, torch_fn, constants=None,
                 dtype="f64"):
        self.name = name
        self.floats = floats          # [(name, shape, generator)]
        self.constants = constants or {}  # {name: (numpy array, element)}
        # (types {name: type}, result type) -> the op, or a list of
        # statements whose last is the op (the others name their results).
        self.mlir = mlir
        self.torch_fn = torch_fn      # ({name: tensor}) -> tensor
        self.dtype = dtype

    def module(self, values, result_shape):
        """The MLIR module of `loss` = sum(op(...) * weights)."""
        el = self.dtype
        types = {n: tensor_type(v.shape, el) for n, v in values.items()}
        for n, (array, element) in self.constants.items():
            types[n] = tensor_type(array.shape, element)
        result = tensor_type(result_shape, el)
        lines = [f"  nn.parameter @{n} : {types[n]} init <zeros>"
                 for n in values]
        # The weights are an argument rather than a constant, so that the
        # backward sweep ends at parameters and arguments only.
        lines.append(f"  func.func @loss(%_weights: {result} {{nn.name = "
                     f"\"weights\"}}) -> {tensor_type((), el)} {{")
        for n in values:
            lines.append(f"    %{n} = nn.param_load @{n} : {types[n]}")
        for n, (array, element) in self.constants.items():
            lines.append(f"    %{n} = arith.constant {dense(array, element)}")
        body = self.mlir(types, result)
        if isinstance(body, str):
            body = [body]
        lines += [f"    {line}" for line in body[:-1]]
        lines.append(f"    %_out = {body[-1]}")
        lines.append(f"    %_weighted = nn.mul %_out, %_weights : "
                     f"({result}, {result}) -> {result}")
        if result_shape:
            axes = ", ".join(str(a) for a in range(len(result_shape)))
            lines.append(f"    %_loss = nn.reduce_sum %_weighted [{axes}] : {result} -> "
                         f"{tensor_type((), el)}")
        loss = "%_loss" if result_shape else "%_weighted"
        lines.append(f"    return {loss} : {tensor_type((), el)}")
        lines.append("  }")
        return "module {\n" + "\n".join(lines) + "\n}\n"

    def torch_loss(self, values, weights):
        """The same loss in torch float64, and the leaves it depends on."""
        leaves = {n: torch.tensor(v, dtype=torch.float64, requires_grad=True)
                  for n, v in values.items()}
        args = dict(leaves)
        for n, (array, _) in self.constants.items():
            args[n] = torch.from_numpy(array)
        y = self.torch_fn(args)
        loss = (y * torch.from_numpy(weights.astype(np.float64))).sum()
        return loss, leaves


def binary(op):
    return lambda t, r: (f"nn.{op} %a, %b : ({t['a']}, {t['b']}) -> {r}")


def unary(op, attrs=""):
    return lambda t, r: f"nn.{op} %a {attrs}: {t['a']}".replace("  ", " ")


def cases():
    """The table: every differentiable nn op, its variants included."""
    table = []
    # Binary ops broadcast [3, 1, 4] against [2, 4] both ways.
    shapes = [("a", (3, 1, 4), normal), ("b", (2, 4), normal)]
    table += [
        Case("add", shapes, binary("add"), lambda x: x["a"] + x["b"]),
        Case("sub", shapes, binary("sub"), lambda x: x["a"] - x["b"]),
        Case("mul", shapes, binary("mul"), lambda x: x["a"] * x["b"]),
        Case("div", [("a", (3, 1, 4), normal), ("b", (2, 4), off_zero)],
             binary("div"), lambda x: x["a"] / x["b"]),
        Case("div_scalar_rhs", [("a", (2, 3), normal), ("b", (), off_zero)],
             binary("div"), lambda x: x["a"] / x["b"]),
        # Without broadcasting both gradients are the same value, which
        # loss_and_grads returns twice (computed, through the exp).
        Case("add_shared_gradient", [("a", (2, 3), normal),
                                     ("b", (2, 3), normal)],
             lambda t, r: [f"%sum = nn.add %a, %b : ({t['a']}, {t['b']}) "
                           f"-> {r}", f"nn.exp %sum : {r}"],
             lambda x: (x["a"] + x["b"]).exp()),
    ]
    one = lambda gen=normal: [("a", (3, 4), gen)]
    table += [
        Case("neg", one(), unary("neg"), lambda x: -x["a"]),
        Case("exp", one(), unary("exp"), lambda x: x["a"].exp()),
        Case("log", one(positive), unary("log"), lambda x: x["a"].log()),
        Case("sqrt", one(positive), unary("sqrt"), lambda x: x["a"].sqrt()),
        Case("rsqrt", one(positive), unary("rsqrt"),
             lambda x: x["a"].rsqrt()),
        Case("tanh", one(), unary("tanh"), lambda x: x["a"].tanh()),
        Case("erf", one(), unary("erf"), lambda x: x["a"].erf()),
        Case("relu", one(off_zero), unary("relu"), lambda x: x["a"].relu()),
        Case("gelu", one(), unary("gelu"), lambda x: F.gelu(x["a"])),
        Case("gelu_tanh", one(), unary("gelu", "{approximate_tanh} "),
             lambda x: F.gelu(x["a"], approximate="tanh")),
    ]
    mask = np.array([[True, False, False, True]])
    table.append(Case(
        "masked_fill", one(), lambda t, r:
        f"nn.masked_fill %a, %mask, 2.5 : ({t['a']}, {t['mask']}) -> {r}",
        lambda x: x["a"].masked_fill(x["mask"], 2.5),
        constants={"mask": (mask, "i1")}))
    table.append(Case(
        "cast_f32_f32", one(), lambda t, r:
        f"nn.cast %a to f32 : {t['a']} -> {r}", lambda x: x["a"],
        dtype="f32"))
    cube = [("a", (2, 3, 4), normal)]
    table += [
        Case("transpose", cube, lambda t, r:
             f"nn.transpose %a [2, 0, 1] : {t['a']} -> {r}",
             lambda x: x["a"].permute(2, 0, 1)),
        Case("reshape", cube, lambda t, r:
             f"nn.reshape %a [4, 6] : {t['a']} -> {r}",
             lambda x: x["a"].reshape(4, 6)),
        Case("slice", cube, lambda t, r:
             f"nn.slice %a [1, 0, 1] [1, 2, 2] : {t['a']} -> {r}",
             lambda x: x["a"][1:2, 0:2, 1:3]),
        Case("concat", [("a", (2, 3), normal), ("b", (2, 2), normal)],
             lambda t, r: f"nn.concat %a, %b {{axis = 1 : i64}} : "
                          f"({t['a']}, {t['b']}) -> {r}",
             lambda x: torch.cat([x["a"], x["b"]], 1)),
        Case("reduce_sum", cube, lambda t, r:
             f"nn.reduce_sum %a [0, 2] : {t['a']} -> {r}",
             lambda x: x["a"].sum((0, 2))),
        Case("reduce_mean", cube, lambda t, r:
             f"nn.reduce_mean %a [1] {{keep_dims}} : {t['a']} -> {r}",
             lambda x: x["a"].mean(1, keepdim=True)),
        Case("reduce_max", [("a", (2, 3, 4), distinct)], lambda t, r:
             f"nn.reduce_max %a [2] : {t['a']} -> {r}",
             lambda x: x["a"].amax(2)),
        Case("softmax", cube, lambda t, r:
             f"nn.softmax %a {{axis = 1 : i64}} : {t['a']}",
             lambda x: x["a"].softmax(1)),
        Case("log_softmax", cube, lambda t, r:
             f"nn.log_softmax %a {{axis = 2 : i64}} : {t['a']}",
             lambda x: x["a"].log_softmax(2)),
        Case("matmul", [("a", (2, 1, 3, 4), normal), ("b", (3, 4, 5), normal)],
             binary("matmul"), lambda x: x["a"] @ x["b"]),
    ]
    table += fused_matmul_cases()
    ids = np.array([[1, 4, 1, 6], [4, 1, 3, 1]], np.int64)
    table.append(Case(
        "embedding", [("table", (7, 3), normal)], lambda t, r:
        f"nn.embedding %table[%ids] : ({t['table']}, {t['ids']}) -> {r}",
        lambda x: F.embedding(x["ids"], x["table"]),
        constants={"ids": (ids, "i64")}))
    table += layer_norm_cases() + attention_cases() + loss_cases()
    table.append(Case(
        "dropout", [("a", (4, 8), normal)], lambda t, r:
        f"nn.dropout %a seed %seed {{rate = 0.3 : f64, stream = 5 : i64}} : "
        f"{t['a']}",
        lambda x: x["a"] * torch.from_numpy(
            philox_keep((4, 8), 1234, 5, 0.3).astype(np.float64)) / 0.7,
        constants={"seed": (np.array(1234, np.int64), "i64")}))
    return table


def fused_matmul_cases():
    def mlir(attrs, bias):
        operands = "%x, %w" + (" bias %b" if bias else "")
        return lambda t, r: (
            f"nn.fused_matmul {operands} {attrs} : ({t['x']}, {t['w']}"
            + (f", {t['b']}" if bias else "") + f") -> {r}")

    def reference(act, bias, transposed):
        def fn(x):
            w = x["w"].transpose(-1, -2) if transposed else x["w"]
            y = x["x"] @ w + (x["b"] if bias else 0)
            return {"none": y, "relu": y.relu(), "gelu": F.gelu(y),
                    "gelu_tanh": F.gelu(y, approximate="tanh")}[act]
        return fn

    table = [Case("fused_matmul_none",
                  [("x", (2, 3, 4), normal), ("w", (4, 5), normal)],
                  mlir("", False), reference("none", False, False))]
    for act in ("none", "relu", "gelu", "gelu_tanh"):
        # relu's kink: the pre-activation is kept off 0 by the bias.
        floats = [("x", (2, 3, 4), normal), ("w", (5, 4), normal),
                  ("b", (5,), normal)]
        table.append(Case(
            f"fused_matmul_{act}_bias_transpose_rhs", floats,
            mlir(f"{{activation = #nn.activation<{act}>, transpose_rhs}}",
                 True), reference(act, True, True)))
    return table


def layer_norm_cases():
    attrs = "{axis = 2 : i64, epsilon = 1.0e-5 : f64}"
    floats = [("x", (2, 3, 6), normal), ("g", (6,), normal),
              ("b", (6,), normal)]
    return [
        Case("layer_norm", floats, lambda t, r:
             f"nn.layer_norm %x, %g, %b {attrs} : "
             f"({t['x']}, {t['g']}, {t['b']}) -> {r}",
             lambda x: F.layer_norm(x["x"], (6,), x["g"], x["b"], 1e-5)),
        # The residual is negated first: the input's and the residual's
        # gradients are then different values (add_shared_gradient checks
        # two parameters sharing one).
        Case("layer_norm_residual", floats + [("res", (2, 3, 6), normal)],
             lambda t, r: [f"%neg = nn.neg %res : {t['res']}",
                           f"nn.layer_norm %x + %neg, %g, %b {attrs} : "
                           f"({t['x']}, {t['g']}, {t['b']}, {t['res']}) -> "
                           f"{r}"],
             lambda x: F.layer_norm(x["x"] - x["res"], (6,), x["g"], x["b"],
                                    1e-5)),
    ] + layer_norm_form_cases()


def layer_norm_form_cases():
    """The other forms of nn.layer_norm against their PyTorch definitions:
    the Annotated Transformer's LayerNorm (x.std() is unbiased, ε added to
    it), the biased std plus ε, and RMSNorm with and without beta."""
    floats = [("x", (2, 3, 6), normal), ("g", (6,), normal)]
    bias = [("b", (6,), normal)]

    def norm(attrs, with_beta):
        operands = "%x, %g, %b" if with_beta else "%x, %g"
        return lambda t, r: (
            f"nn.layer_norm {operands} {{axis = 2 : i64, {attrs}}} : "
            f"({t['x']}, {t['g']}" + (f", {t['b']}" if with_beta else "")
            + f") -> {r}")

    def std_plus_epsilon(unbiased):
        def fn(x):
            centred = x["x"] - x["x"].mean(-1, keepdim=True)
            std = x["x"].std(-1, keepdim=True, unbiased=unbiased)
            return x["g"] * centred / (std + 1e-6) + x["b"]
        return fn

    def rms(with_beta):
        def fn(x):
            y = x["x"] * torch.rsqrt(x["x"].pow(2).mean(-1, keepdim=True)
                                     + 1e-6) * x["g"]
            return y + x["b"] if with_beta else y
        return fn

    unbiased = "statistic = #nn.norm_statistic<unbiased_variance>"
    mean_square = "statistic = #nn.norm_statistic<mean_square>"
    return [
        Case("layer_norm_unbiased_std_plus_epsilon", floats + bias,
             norm(f"epsilon = 1.0e-6 : f64, epsilon_on_std, {unbiased}", True),
             std_plus_epsilon(True)),
        Case("layer_norm_biased_std_plus_epsilon", floats + bias,
             norm("epsilon = 1.0e-6 : f64, epsilon_on_std", True),
             std_plus_epsilon(False)),
        Case("layer_norm_rms", floats,
             norm(f"epsilon = 1.0e-6 : f64, {mean_square}", False), rms(False)),
        Case("layer_norm_rms_bias", floats + bias,
             norm(f"epsilon = 1.0e-6 : f64, {mean_square}", True), rms(True)),
    ]


def torch_attention(scale, causal, mask_name=None, fill=float("-inf")):
    def fn(x):
        q, k, v = x["q"], x["k"], x["v"]
        s = scale * q @ k.transpose(-1, -2)
        hidden = torch.zeros(s.shape, dtype=torch.bool)
        if causal:
            sq, sk = s.shape[-2:]
            hidden |= torch.ones(sq, sk, dtype=torch.bool).triu(1)
        if mask_name:
            hidden = hidden | x[mask_name]
        return s.masked_fill(hidden, fill).softmax(-1) @ v
    return fn


def attention_cases():
    """nn.attention runs on the runtime's f32 kernels (forward with row
    statistics, and the recomputing backward)."""
    def mlir(attrs, mask):
        operands = "%q, %k, %v" + (" mask %mask" if mask else "")
        return lambda t, r: (
            f"nn.attention {operands} {attrs} : ({t['q']}, {t['k']}, {t['v']}"
            + (f", {t['mask']}" if mask else "") + f") -> {r}")

    square = [("q", (2, 2, 4, 3), normal), ("k", (2, 2, 4, 3), normal),
              ("v", (2, 2, 4, 5), normal)]
    cross = [("q", (2, 2, 3, 4), normal), ("k", (2, 2, 5, 4), normal),
             ("v", (2, 2, 5, 3), normal)]
    # Key padding per batch row ([b, 1, 1, sk], true: hidden); key 0 stays.
    padding = np.array([[False, False, True, False, True],
                        [False, True, False, False, False]]
                       ).reshape(2, 1, 1, 5)
    both = np.array([False, False, False, True]).reshape(1, 1, 1, 4)
    return [
        Case("attention_causal", square,
             mlir("{scale = 0.5 : f64, causal}", False),
             torch_attention(0.5, True), dtype="f32"),
        Case("attention_bool_mask", cross,
             mlir("{scale = 0.5 : f64}", True),
             torch_attention(0.5, False, "mask"),
             constants={"mask": (padding, "i1")}, dtype="f32"),
        Case("attention_causal_bool_mask_fill", square,
             mlir("{scale = 0.3 : f64, causal, mask_fill = -1.0e+09 : f64}",
                  True),
             torch_attention(0.3, True, "mask", -1e9),
             constants={"mask": (both, "i1")}, dtype="f32"),
    ]


def loss_cases():
    labels = np.array([[1, 3, 6, 0, 3], [3, 2, 2, 5, 4]], np.int64)
    return [
        Case("cross_entropy", [("l", (2, 5, 7), normal)], lambda t, r:
             f"nn.cross_entropy %l, %y {{ignore_index = 3 : i64, "
             f"label_smoothing = 0.1 : f64}} : ({t['l']}, {t['y']}) -> {r}",
             lambda x: F.cross_entropy(x["l"].reshape(-1, 7),
                                       x["y"].reshape(-1), ignore_index=3,
                                       label_smoothing=0.1),
             constants={"y": (labels, "i64")}),
        Case("cross_entropy_hard", [("l", (2, 5, 7), normal)], lambda t, r:
             f"nn.cross_entropy %l, %y {{ignore_index = -100 : i64, "
             f"label_smoothing = 0.0 : f64}} : ({t['l']}, {t['y']}) -> {r}",
             lambda x: F.cross_entropy(x["l"].reshape(-1, 7),
                                       x["y"].reshape(-1)),
             constants={"y": (labels, "i64")}),
        Case("nll_loss", [("l", (6, 7), normal)], lambda t, r:
             f"nn.nll_loss %l, %y {{ignore_index = 2 : i64}} : "
             f"({t['l']}, {t['y']}) -> {r}",
             lambda x: F.nll_loss(x["l"], x["y"], ignore_index=2),
             constants={"y": (np.array([0, 2, 6, 3, 2, 1], np.int64),
                              "i64")}),
    ]


# --- Compiling and calling ------------------------------------------------------------

def pipeline(source, name):
    """A pipeline string constant of Pipeline.cpp, its literals joined."""
    text = open(source).read()
    body = re.search(name + r" =\s*((?:\"[^\"]*\"\s*)+);", text).group(1)
    return "".join(re.findall(r"\"([^\"]*)\"", body))


def run(command, **kwargs):
    """Runs a tool; a failure raises with its stderr."""
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    tool = os.path.basename(command[0])
    if done.returncode < 0:
        raise RuntimeError(f"{tool} crashed (signal {-done.returncode}); "
                           f"its input is in the work directory")
    if done.returncode != 0:
        raise RuntimeError(f"{tool} failed:\n" + done.stderr.strip())
    return done.stdout


def build(args, name, text):
    """Differentiates and compiles one module into a loaded shared object."""
    base = os.path.join(args.workdir, name)
    with open(base + ".mlir", "w") as f:
        f.write(text)
    source = os.path.join(args.src_root, "compiler", "lib", "Pipeline",
                          "Pipeline.cpp")
    passes = pipeline(source, "kPlanPipeline") + ", " + pipeline(
        source, "kCodegenPipeline")
    differentiated = run([args.opt, base + ".mlir", "-nn-autodiff"])
    with open(base + ".grad.mlir", "w") as f:
        f.write(differentiated)
    llvm_dialect = run([args.opt, "--pass-pipeline=builtin.module("
                        + passes + ")"], input=differentiated)
    run([args.translate, "--mlir-to-llvmir", "-o", base + ".ll"],
        input=llvm_dialect)
    run([args.llc, "-O2", "-filetype=obj", "-relocation-model=pic",
         base + ".ll", "-o", base + ".o"])
    runtime = os.path.dirname(args.runtime)
    run(["cc", "-shared", base + ".o", "-o", base + ".so", "-L" + runtime,
         "-Wl,-rpath," + runtime, "-ltransfuse_runtime"])
    try:
        return ctypes.CDLL(base + ".so")
    except OSError as error:
        raise RuntimeError(f"loading the compiled code failed: {error}")


def caller(lib, name, dtype):
    """A Python function calling `name` (parameters, then out-parameters
    for the loss and, for loss_and_grads, the gradients) on numpy arrays."""
    fn = getattr(lib, name)
    fn.restype = None

    def call(values, outputs):
        arrays = [np.ascontiguousarray(v, NP[dtype]) for v in values]
        outs = [np.zeros(shape, NP[dtype]) for shape in outputs]
        fn(*[a.ctypes.data_as(ctypes.c_void_p) for a in arrays + outs])
        return outs
    return call


def finite_differences(loss, values, step, fixed):
    """Central differences of loss(values + fixed) with respect to every
    element of `values`."""
    grads = []
    for index, value in enumerate(values):
        grad = np.zeros(value.shape, np.float64)
        for position in np.ndindex(*value.shape):
            shifted = [v.copy() for v in values]
            shifted[index][position] = value[position] + step
            up = loss(shifted + fixed)
            shifted[index][position] = value[position] - step
            down = loss(shifted + fixed)
            grad[position] = (up - down) / (2 * step)
        grads.append(grad)
    return grads


def max_error(ours, reference):
    """(max|ours - reference| over all tensors, max|reference|)."""
    error = max(float(np.max(np.abs(np.asarray(o, np.float64) - r)))
                for o, r in zip(ours, reference))
    scale = max(float(np.max(np.abs(r))) for r in reference)
    return error, scale


def sample(case, rng):
    """Random float operands of a case and random loss weights shaped as
    its result (the torch op, run once, gives the shape)."""
    values = {n: np.asarray(gen(rng, shape), NP[case.dtype])
              for n, shape, gen in case.floats}
    probe = {n: torch.from_numpy(v.astype(np.float64))
             for n, v in values.items()}
    probe.update({n: torch.from_numpy(a)
                  for n, (a, _) in case.constants.items()})
    with torch.no_grad():
        shape = tuple(case.torch_fn(probe).shape)
    return values, np.asarray(rng.standard_normal(shape), NP[case.dtype])


def check(args, case, rng):
    """Builds and checks one case; returns True when it passes."""
    values, weights = sample(case, rng)
    lib = build(args, case.name, case.module(values, weights.shape))
    operands = list(values.values())
    loss_fn = caller(lib, "loss", case.dtype)
    grads_fn = caller(lib, "loss_and_grads", case.dtype)
    outputs = grads_fn(operands + [weights],
                       [()] + [v.shape for v in operands])
    ours_loss, ours = float(outputs[0]), outputs[1:]

    step, rtol = FD[case.dtype]
    numeric = finite_differences(
        lambda vs: float(loss_fn(vs, [()])[0]), operands, step, [weights])
    fd_error, fd_scale = max_error(ours, numeric)
    fd_tol = rtol * max(1.0, fd_scale)

    loss, leaves = case.torch_loss(values, weights)
    loss.backward()
    torch_error, torch_scale = max_error(
        ours, [leaf.grad.numpy() for leaf in leaves.values()])
    torch_tol = TORCH_RTOL * max(1.0, torch_scale)
    loss_error = abs(ours_loss - float(loss))
    loss_tol = TORCH_RTOL * max(1.0, abs(float(loss)))

    ok = fd_error <= fd_tol and torch_error <= torch_tol and \
        loss_error <= loss_tol
    print(f"{'OK' if ok else 'FAIL'} {case.name} ({case.dtype}): "
          f"fd err {fd_error:.3g} tol {fd_tol:.3g}, "
          f"torch err {torch_error:.3g} tol {torch_tol:.3g}, "
          f"loss err {loss_error:.3g} tol {loss_tol:.3g}", flush=True)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for flag in ("opt", "translate", "llc", "runtime", "src-root", "workdir"):
        parser.add_argument("--" + flag, required=True)
    parser.add_argument("--only", action="append", default=[],
                        help="check only these ops (repeatable)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    # A generator per case, seeded by its place in the whole table, so
    # that --only checks the same data as a full run.
    table = [(index, case) for index, case in enumerate(cases())
             if not args.only or case.name in args.only]
    failed = []
    for index, case in table:
        rng = np.random.default_rng(1000 + index)
        try:
            if not check(args, case, rng):
                failed.append(case.name)
        except Exception as error:  # one op's failure must not hide the rest
            message = str(error).strip().splitlines() or [repr(error)]
            print(f"FAIL {case.name} ({case.dtype}): {message[0]}",
                  flush=True)
            for line in message[1:6]:
                print(f"    {line}")
            if not isinstance(error, RuntimeError):
                traceback.print_exc()
            failed.append(case.name)
    if failed:
        sys.exit(f"FAILED: {len(failed)} of {len(table)} ops: "
                 + ", ".join(failed))
    print(f"all {len(table)} ops match")


if __name__ == "__main__":
    main()
