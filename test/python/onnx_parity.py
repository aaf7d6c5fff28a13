#!/usr/bin/env python3
"""Exports a seed model's PyTorch reference with torch.onnx.export, compiles
the ONNX file for the CPU, runs it with transfuse-run on the weights the
compiler wrote from the initializers, and compares the output with
PyTorch's per DESIGN.md's bound:

    max|ours - torch64| <= 1e-4 + 4 * max|torch32 - torch64|

Then checks that the fusion passes recover from the export as many
attention and layer-norm ops as from the model's spec (--spec). With
--dynamic the export's batch and sequence sizes are symbolic, bound by the
same -D as the spec's.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import forward_parity  # noqa: E402
import reference_models  # noqa: E402
import safetensors_io  # noqa: E402

FUSED_OPS = ("nn.attention", "nn.layer_norm")


# With --dynamic, the inputs' sizes are symbolic in the export, named
# after the spec's dims, and bound again by -D when compiling.
DYNAMIC_AXES = {"tokens": {0: "batch", 1: "seq"},
                "src": {0: "batch", 1: "src_len"},
                "tgt": {0: "batch", 1: "tgt_len"}}


def export(module, model, inputs, opset, path, dynamic):
    names = ["tokens"] if model in ("char_lm", "sentiment_classifier") \
        else ["src", "tgt"]
    args = tuple(torch.from_numpy(inputs[name]) for name in names)
    torch.onnx.export(module, args, path, opset_version=opset,
                      input_names=names, output_names=["output"],
                      dynamic_axes={name: DYNAMIC_AXES[name]
                                    for name in names} if dynamic else None)


def fused_counts(compile_cmd, model_path, defines):
    """The fused ops of @forward in the compile summary."""
    summary = subprocess.run(
        [compile_cmd, model_path, *defines, "--inference-only",
         "--emit=summary"], check=True, capture_output=True, text=True).stdout
    forward = summary.split("ops in @forward")[1].split("ops in @")[0]
    counts = {}
    for op in FUSED_OPS:
        found = re.search(re.escape(op) + r"\s+(\d+)", forward)
        counts[op] = int(found.group(1)) if found else 0
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--opset", type=int, required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--dynamic", action="store_true")
    parser.add_argument("-D", action="append", default=[], dest="dims")
    args = parser.parse_args()
    dims = {k: int(v) for k, v in (d.split("=") for d in args.dims)}
    os.makedirs(args.workdir, exist_ok=True)
    path = lambda name: os.path.join(args.workdir, name)

    torch.manual_seed(0)
    module = reference_models.build(args.model).eval()
    inputs = forward_parity.make_inputs(args.model, dims,
                                        np.random.default_rng(1))
    inputs = {k: v.astype(np.int64) for k, v in inputs.items()}
    safetensors_io.save(path("inputs.safetensors"), inputs)
    export(module, args.model, inputs, args.opset, path("model.onnx"),
           args.dynamic)
    defines = [f"-D{d}" for d in args.dims]

    expected32 = forward_parity.torch_forward(module, args.model, inputs)
    expected64 = forward_parity.torch_forward(module.double(), args.model,
                                              inputs)

    onnx_defines = defines if args.dynamic else []
    within = forward_parity.compile_run_compare(
        args.compile, args.run, path("model.onnx"), args.workdir,
        onnx_defines, path("model.safetensors"), expected32, expected64,
        f"{args.model} opset {args.opset}")

    from_onnx = fused_counts(args.compile, path("model.onnx"), onnx_defines)
    from_spec = fused_counts(args.compile, args.spec, defines)
    same = from_onnx == from_spec
    print(("OK" if same else "MISMATCH") + " fused: " + ", ".join(
        f"{op} {from_onnx[op]} (spec {from_spec[op]})" for op in FUSED_OPS))
    sys.exit(0 if within and same else 1)


if __name__ == "__main__":
    main()
