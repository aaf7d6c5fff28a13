"""Inputs, weights and output checks for the fake model of the runtime tests.

The fake model (test/Unit/Inputs/fake_model.c, manifest in
test/Unit/TfmWriter.h) stands in for generated code:

  forward(w f32[3,4], b f32[3]; x f32[2,4], y f32[2,4])
      -> sum = x + y, proj = x @ w.T + b
  embed(table f32[5,2]; tokens i64[2,3] in [0, 4]) -> rows = table[tokens]

Subcommands:
  weights OUT [--variant ok|missing|extra|f64|shape]
  inputs OUT [--variant ok|wide|f64|missing|extra]
  tokens OUT ID...
  check-forward WEIGHTS INPUTS OUTPUTS   prints "OK forward: ..." or fails
  check-embed WEIGHTS INPUTS OUTPUTS     prints "OK embed: ..." or fails
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import safetensors_io  # noqa: E402


def weights(variant):
    rng = np.random.default_rng(7)
    tensors = {
        "w": rng.standard_normal((3, 4)).astype(np.float32),
        "b": rng.standard_normal(3).astype(np.float32),
        "table": rng.standard_normal((5, 2)).astype(np.float32),
    }
    if variant == "missing":
        del tensors["b"]
    elif variant == "extra":
        tensors["extra.weight"] = np.zeros(2, np.float32)
    elif variant == "f64":
        tensors["w"] = tensors["w"].astype(np.float64)
    elif variant == "shape":
        tensors["w"] = tensors["w"].T.copy()
    return tensors


def inputs(variant):
    rng = np.random.default_rng(11)
    tensors = {
        "x": rng.standard_normal((2, 4)).astype(np.float32),
        "y": rng.standard_normal((2, 4)).astype(np.float32),
    }
    if variant == "wide":
        tensors["x"] = np.zeros((2, 5), np.float32)
    elif variant == "f64":
        tensors["y"] = tensors["y"].astype(np.float64)
    elif variant == "missing":
        del tensors["y"]
    elif variant == "extra":
        tensors["z"] = np.zeros(1, np.float32)
    return tensors


def compare(name, actual, expected, tolerance):
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        sys.exit(f"FAIL {name}: got {actual.dtype}{list(actual.shape)}, "
                 f"expected {expected.dtype}{list(expected.shape)}")
    error = float(np.max(np.abs(actual.astype(np.float64) - expected))) if actual.size else 0.0
    if error > tolerance:
        sys.exit(f"FAIL {name}: max error {error:.3g} > {tolerance:.3g}")


def check(kind, weights_path, inputs_path, outputs_path):
    w, _ = safetensors_io.load(weights_path)
    i, _ = safetensors_io.load(inputs_path)
    o, _ = safetensors_io.load(outputs_path)
    if kind == "forward":
        x, y = i["x"].astype(np.float64), i["y"].astype(np.float64)
        expected = {
            "sum": (x + y).astype(np.float32),
            "proj": (x @ w["w"].astype(np.float64).T + w["b"]).astype(np.float32),
        }
    else:
        expected = {"rows": w["table"][i["tokens"]]}
    if sorted(o) != sorted(expected):
        sys.exit(f"FAIL: outputs {sorted(o)}, expected {sorted(expected)}")
    for name in sorted(expected):
        compare(name, o[name], expected[name], 1e-5)
    print(f"OK {kind}: " + ", ".join(
        f"{name} {list(o[name].shape)}" for name in sorted(expected)))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("weights", "inputs"):
        p = sub.add_parser(name)
        p.add_argument("out")
        p.add_argument("--variant", default="ok")
    p = sub.add_parser("tokens")
    p.add_argument("out")
    p.add_argument("ids", type=int, nargs="+")
    for name in ("check-forward", "check-embed"):
        p = sub.add_parser(name)
        p.add_argument("weights")
        p.add_argument("inputs")
        p.add_argument("outputs")
    args = parser.parse_args()

    if args.command == "weights":
        safetensors_io.save(args.out, weights(args.variant), {"format": "pt"})
    elif args.command == "inputs":
        safetensors_io.save(args.out, inputs(args.variant))
    elif args.command == "tokens":
        tokens = np.array(args.ids, np.int64).reshape(2, -1)
        safetensors_io.save(args.out, {"tokens": tokens})
    else:
        check(args.command[len("check-"):], args.weights, args.inputs, args.outputs)


if __name__ == "__main__":
    main()
