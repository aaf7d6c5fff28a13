#!/usr/bin/env python3
"""Runs each nn backward op, compiled through the CPU pipeline's plan and
codegen passes, on small random inputs and compares its results with
torch.autograd's gradients of the forward op, computed in float64.

The pass pipelines are read from compiler/lib/Pipeline/Pipeline.cpp so the
ops run through exactly what transfuse-compile runs. The LLVM dialect goes
through mlir-translate and llc into a shared object linked against the
runtime (allocation and OpenMP entry points), called with ctypes: memrefs
are bare pointers and results are out-parameters, in order.
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys

import numpy as np
import torch

TOLERANCE = 1e-5

MODULE = """
func.func @layer_norm_grad(%dy: tensor<3x4x8xf32>, %x: tensor<3x4x8xf32>, %g: tensor<8xf32>) -> (tensor<3x4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<8xf32>) -> (tensor<3x4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x4x8xf32>, tensor<8xf32>, tensor<8xf32>
}
func.func @layer_norm_grad_2d(%dy: tensor<3x4x8xf32>, %x: tensor<3x4x8xf32>, %g: tensor<4x8xf32>) -> (tensor<3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0:3 = nn.layer_norm_grad %dy, %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<4x8xf32>) -> (tensor<3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @embedding_grad(%dy: tensor<2x5x6xf32>, %ids: tensor<2x5xi64>) -> tensor<7x6xf32> {
  %0 = nn.embedding_grad %dy, %ids {num_rows = 7 : i64} : (tensor<2x5x6xf32>, tensor<2x5xi64>) -> tensor<7x6xf32>
  return %0 : tensor<7x6xf32>
}
func.func @cross_entropy_grad(%l: tensor<2x5x7xf32>, %y: tensor<2x5xi64>) -> tensor<2x5x7xf32> {
  %0 = nn.cross_entropy_grad %l, %y {ignore_index = -100 : i64, label_smoothing = 0.1 : f64} : (tensor<2x5x7xf32>, tensor<2x5xi64>) -> tensor<2x5x7xf32>
  return %0 : tensor<2x5x7xf32>
}
func.func @cross_entropy_grad_hard(%l: tensor<6x7xf32>, %y: tensor<6xi32>) -> tensor<6x7xf32> {
  %0 = nn.cross_entropy_grad %l, %y {ignore_index = 3 : i64, label_smoothing = 0.0 : f64} : (tensor<6x7xf32>, tensor<6xi32>) -> tensor<6x7xf32>
  return %0 : tensor<6x7xf32>
}
func.func @nll_loss_grad(%l: tensor<6x7xf32>, %y: tensor<6xi64>) -> tensor<6x7xf32> {
  %0 = nn.nll_loss_grad %l, %y {ignore_index = 2 : i64} : (tensor<6x7xf32>, tensor<6xi64>) -> tensor<6x7xf32>
  return %0 : tensor<6x7xf32>
}
"""


def pipeline(source, name):
    """A pipeline string constant of Pipeline.cpp, its literals joined."""
    text = open(source).read()
    body = re.search(name + r" =\s*((?:\"[^\"]*\"\s*)+);", text).group(1)
    return "".join(re.findall(r"\"([^\"]*)\"", body))


def build(args):
    source = os.path.join(args.src_root, "compiler", "lib", "Pipeline",
                          "Pipeline.cpp")
    passes = pipeline(source, "kPlanPipeline") + ", " + pipeline(
        source, "kCodegenPipeline")
    os.makedirs(args.workdir, exist_ok=True)
    mlir = os.path.join(args.workdir, "backward_ops.mlir")
    with open(mlir, "w") as f:
        f.write(MODULE)
    llvm_dialect = subprocess.run(
        [args.opt, mlir, "--pass-pipeline=builtin.module(" + passes + ")"],
        check=True, capture_output=True, text=True).stdout
    ll = os.path.join(args.workdir, "backward_ops.ll")
    subprocess.run([args.translate, "--mlir-to-llvmir", "-o", ll],
                   input=llvm_dialect, check=True, text=True)
    obj = os.path.join(args.workdir, "backward_ops.o")
    subprocess.run([args.llc, "-O2", "-filetype=obj", "-relocation-model=pic",
                    ll, "-o", obj], check=True)
    lib = os.path.join(args.workdir, "libbackward_ops.so")
    runtime = os.path.dirname(args.runtime)
    subprocess.run(["cc", "-shared", obj, "-o", lib, "-L" + runtime,
                    "-Wl,-rpath," + runtime, "-ltransfuse_runtime"],
                   check=True)
    return ctypes.CDLL(lib)


def call(lib, name, inputs, output_shapes):
    """Runs `name` on float32/int64/int32 arrays, returns float32 results."""
    inputs = [np.ascontiguousarray(a) for a in inputs]
    outputs = [np.zeros(shape, np.float32) for shape in output_shapes]
    pointers = [a.ctypes.data_as(ctypes.c_void_p) for a in inputs + outputs]
    fn = getattr(lib, name)
    fn.restype = None
    fn(*pointers)
    return outputs


def report(name, ours, reference):
    worst = 0.0
    for got, want in zip(ours, reference):
        worst = max(worst, float(np.max(np.abs(got - want.numpy()))))
    verdict = "OK" if worst <= TOLERANCE else "FAIL"
    print(f"{verdict} {name} max error {worst:.3g}")
    return worst <= TOLERANCE


def leaf(array):
    return torch.tensor(array, dtype=torch.float64, requires_grad=True)


def check_layer_norm(lib, rng, name, normalized):
    x = rng.standard_normal((3, 4, 8)).astype(np.float32) * 2 + 0.5
    dy = rng.standard_normal((3, 4, 8)).astype(np.float32)
    gamma = rng.standard_normal(normalized).astype(np.float32)
    beta = rng.standard_normal(normalized).astype(np.float32)
    ours = call(lib, name, [dy, x, gamma],
                [x.shape, gamma.shape, gamma.shape])
    tx, tg, tb = leaf(x), leaf(gamma), leaf(beta)
    y = torch.nn.functional.layer_norm(tx, normalized, tg, tb, eps=1e-5)
    y.backward(torch.from_numpy(dy).double())
    return report(name, ours, [tx.grad, tg.grad, tb.grad])


def check_embedding(lib, rng):
    # Ids 1 and 4 repeat (1 three times); row 0 is never used.
    ids = np.array([[1, 4, 1, 6, 2], [4, 1, 3, 5, 2]], np.int64)
    dy = rng.standard_normal((2, 5, 6)).astype(np.float32)
    ours = call(lib, "embedding_grad", [dy, ids], [(7, 6)])
    table = leaf(rng.standard_normal((7, 6)))
    out = torch.nn.functional.embedding(torch.from_numpy(ids), table)
    out.backward(torch.from_numpy(dy).double())
    return report("embedding_grad", ours, [table.grad])


def check_cross_entropy(lib, rng, name, labels, ignore, smoothing):
    logits = rng.standard_normal(labels.shape + (7,)).astype(np.float32) * 3
    ours = call(lib, name, [logits, labels], [logits.shape])
    t = leaf(logits)
    loss = torch.nn.functional.cross_entropy(
        t.reshape(-1, 7), torch.from_numpy(labels.astype(np.int64)).reshape(-1),
        ignore_index=ignore, label_smoothing=smoothing)
    loss.backward()
    return report(name, ours, [t.grad])


def check_nll(lib, rng):
    labels = np.array([0, 2, 6, 3, 2, 1], np.int64)
    log_probs = np.log(rng.dirichlet(np.ones(7), 6)).astype(np.float32)
    ours = call(lib, "nll_loss_grad", [log_probs, labels], [log_probs.shape])
    t = leaf(log_probs)
    torch.nn.functional.nll_loss(t, torch.from_numpy(labels),
                                 ignore_index=2).backward()
    return report("nll_loss_grad", ours, [t.grad])


def main():
    parser = argparse.ArgumentParser()
    for flag in ("opt", "translate", "llc", "runtime", "src-root", "workdir"):
        parser.add_argument("--" + flag, required=True)
    args = parser.parse_args()
    lib = build(args)
    rng = np.random.default_rng(7)
    results = [
        check_layer_norm(lib, rng, "layer_norm_grad", (8,)),
        check_layer_norm(lib, rng, "layer_norm_grad_2d", (4, 8)),
        check_embedding(lib, rng),
        # -100 ignored in each row; one row of labels ignored twice.
        check_cross_entropy(lib, rng, "cross_entropy_grad",
                            np.array([[1, -100, 6, 0, 3],
                                      [-100, 2, 2, 5, -100]], np.int64),
                            -100, 0.1),
        check_cross_entropy(lib, rng, "cross_entropy_grad_hard",
                            np.array([3, 0, 6, 3, 1, 4], np.int32), 3, 0.0),
        check_nll(lib, rng),
    ]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
