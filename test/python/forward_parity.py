#!/usr/bin/env python3
"""Compiles a seed spec for the CPU, runs its forward pass with transfuse-run
on the weights of the PyTorch reference model, and compares every output
with PyTorch's, per DESIGN.md's bound:

    max|ours - torch64| <= 1e-4 + 4 * max|torch32 - torch64|

Token inputs are random; the encoder-decoder's rows end in padding of
different lengths, so the padding masks are exercised.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_models  # noqa: E402
import safetensors_io  # noqa: E402


def padded_tokens(rng, batch, length, vocab):
    """Ids in [1, vocab) with each row's tail padded (0) to a random length."""
    tokens = rng.integers(1, vocab, size=(batch, length))
    for row in range(batch):
        keep = rng.integers(1, length + 1)
        tokens[row, keep:] = 0
    return tokens


def make_inputs(model, dims, rng):
    if model == "char_lm":
        return {"tokens": rng.integers(0, 256, (dims["batch"], dims["seq"]))}
    if model == "sentiment_classifier":
        return {"tokens": padded_tokens(rng, dims["batch"], dims["seq"], 50000)}
    return {"src": padded_tokens(rng, dims["batch"], dims["src_len"], 10000),
            "tgt": padded_tokens(rng, dims["batch"], dims["tgt_len"], 10000)}


def torch_forward(module, model, inputs, device="cpu"):
    """The module's outputs for numpy `inputs`, on the module's device."""
    tensors = {k: torch.from_numpy(v).to(device) for k, v in inputs.items()}
    with torch.no_grad():
        if model in ("char_lm", "sentiment_classifier"):
            return module(tensors["tokens"])
        return module(tensors["src"], tensors["tgt"])


def compile_run_compare(compile_cmd, run_cmd, model_path, workdir, flags,
                        weights, expected32, expected64, label):
    """Compiles `model_path` (a spec or an ONNX file, with `flags`) for the
    CPU, runs its forward with transfuse-run on `weights` and
    WORKDIR/inputs.safetensors, and prints how its one output compares with
    the twins' per DESIGN.md's bound: `OK|MISMATCH LABEL OUTPUT: ...`.
    Returns whether it is within the bound."""
    path = lambda name: os.path.join(workdir, name)
    subprocess.run([compile_cmd, model_path, *flags, "--target=cpu",
                    "--inference-only", "-o", path("model.tfm")], check=True)
    subprocess.run([run_cmd, path("model.tfm"), "--weights", weights,
                    "--inputs", path("inputs.safetensors"),
                    "--outputs", path("outputs.safetensors")], check=True)
    outputs, _ = safetensors_io.load(path("outputs.safetensors"))
    if len(outputs) != 1:
        sys.exit(f"expected one output, got {sorted(outputs)}")
    name, ours = next(iter(outputs.items()))
    ours = torch.from_numpy(np.array(ours)).double()
    torch_error = (expected32.double() - expected64).abs().max().item()
    error = (ours - expected64).abs().max().item()
    bound = 1e-4 + 4 * torch_error
    within = error <= bound
    print(f"{'OK' if within else 'MISMATCH'} {label} {name}: "
          f"max|ours - torch64| = {error:.3g}, bound {bound:.3g} "
          f"(torch32 error {torch_error:.3g})")
    return within


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("-D", action="append", default=[], dest="dims")
    args = parser.parse_args()
    dims = {k: int(v) for k, v in (d.split("=") for d in args.dims)}
    os.makedirs(args.workdir, exist_ok=True)
    path = lambda name: os.path.join(args.workdir, name)

    torch.manual_seed(0)
    module = reference_models.build(args.model).eval()
    weights = {k: v.detach().numpy().astype(np.float32)
               for k, v in module.state_dict().items()}
    safetensors_io.save(path("weights.safetensors"), weights)
    inputs = make_inputs(args.model, dims, np.random.default_rng(1))
    safetensors_io.save(path("inputs.safetensors"),
                        {k: v.astype(np.int64) for k, v in inputs.items()})

    expected32 = torch_forward(module, args.model, inputs)
    expected64 = torch_forward(module.double(), args.model, inputs)

    # Only the forward pass runs: the training entry points would triple
    # the compile time.
    within = compile_run_compare(
        args.compile, args.run, args.spec, args.workdir,
        [f"-D{d}" for d in args.dims], path("weights.safetensors"),
        expected32, expected64, args.model)
    sys.exit(0 if within else 1)


if __name__ == "__main__":
    main()
