#!/usr/bin/env python3
"""Whether a model's PyTorch twin (reference_models.py) has the parameters
of its artifact: the same names and shapes, in any order. The GPU benchmark
copies the runtime's initialisation into the twin by name, so a twin that
drifted from its spec would only fail on a GPU machine; this says so here.

    twin_signature.py MODEL ARTIFACT.tfm --runtime libtransfuse_runtime.so

Prints the count of tensors and values that match, or each difference, and
exits 1 on a difference.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("artifact")
    parser.add_argument("--runtime", required=True)
    args = parser.parse_args()

    import reference_models
    import runtime_api
    import torch
    artifact = runtime_api.Artifact(runtime_api.load(args.runtime),
                                    args.artifact)
    ours = {name: tuple(shape)
            for name, _, shape, _ in artifact.parameters()}
    twin = {name: tuple(p.shape) for name, p in
            reference_models.build(args.model).named_parameters()}
    problems = [f"only in the artifact: {n} {ours[n]}"
                for n in sorted(set(ours) - set(twin))]
    problems += [f"only in the twin: {n} {twin[n]}"
                 for n in sorted(set(twin) - set(ours))]
    problems += [f"shape of {n}: artifact {ours[n]}, twin {twin[n]}"
                 for n in sorted(set(ours) & set(twin)) if ours[n] != twin[n]]
    for line in problems:
        print(line)
    if problems:
        return 1
    values = sum(int(torch.Size(s).numel()) for s in ours.values())
    print(f"{args.model}: {len(ours)} tensors, {values:,} values, names and "
          f"shapes as the twin's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
