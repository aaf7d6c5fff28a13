"""Incremental decoding equals recomputing the whole sequence.

Compiles a causal LM or encoder-decoder spec for the CPU, initialises its
parameters and, in one session of the runtime's C API, compares the logits
of `prefill` and of `decode_step` after it with those of `forward` on the
full sequences: at every position, within 1e-5. Each row's prompt has its
own length (the rest of the prefill row is other tokens, as padding), and
the steps then feed the sequence's following tokens, so rows are at
different positions in the same step. Then `reorder_cache` permutes the
cached sequences, and a step decodes each row as the sequence it came from.

An encoder-decoder (an artifact with `encode`) runs `encode` on the sources
first; each source row is padded with zeros after a length of its own, and
prefill, decode_step and forward take the same sources. Its target tokens
are drawn from 1 up: a step does not mask the target's padding
(docs/generation.md). Prints one OK line per check, or MISMATCH with the
worst element.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtime_api  # noqa: E402

TOLERANCE = 1e-5


def compare(what, ours, reference):
    """One OK or MISMATCH line for `ours` against `reference`."""
    error = np.abs(ours.astype(np.float64) - reference)
    worst = np.unravel_index(np.argmax(error), error.shape)
    status = "OK" if error[worst] <= TOLERANCE else "MISMATCH"
    print(f"{status} {what}: max |difference| {error[worst]:.3g} at "
          f"{tuple(int(i) for i in worst)} (bound {TOLERANCE:g})")
    return status == "OK"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", required=True)
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("-D", action="append", default=[], dest="dims")
    args = parser.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    artifact_path = os.path.join(args.workdir, "model.tfm")
    command = [args.compile, args.spec, "--target=cpu", "--inference-only",
               "-o", artifact_path]
    for dim in args.dims:
        command += ["-D", dim]
    subprocess.run(command, check=True)

    lib = runtime_api.load(args.runtime)
    artifact = runtime_api.Artifact(lib, artifact_path)
    manifest = json.loads(artifact.manifest_json())
    entries = {e["name"]: e for e in manifest["entry_points"]}
    for name in ("prefill", "decode_step"):
        if name not in entries:
            print(f"MISMATCH {args.model}: no '{name}' entry point")
            return 1
    forward_inputs = entries["forward"]["inputs"]
    source_names = [i["name"] for i in entries.get("encode", {}).get(
        "inputs", [])]
    tokens_info, = [i for i in forward_inputs
                    if i["name"] not in source_names]
    target = tokens_info["name"]
    logits_name = entries["prefill"]["outputs"][0]["name"]
    batch, length = tokens_info["shape"]
    vocab = tokens_info["max_value"] + 1
    print(f"{args.model}: cache of {len(manifest['cache'])} tensors, "
          f"batch {batch}, capacity {length}")

    session = runtime_api.Session(artifact)
    session.init_parameters(7)
    rng = np.random.default_rng(11)
    # Sources padded after lengths from 1 to the whole row.
    sources = {}
    for info in forward_inputs:
        if info["name"] not in source_names:
            continue
        rows, columns = info["shape"]
        source = rng.integers(1, info["max_value"] + 1, size=(rows, columns),
                              dtype=np.int64)
        for row, used in enumerate(np.linspace(1, columns, rows).astype(int)):
            source[row, used:] = 0
        sources[info["name"]] = source
    low = 1 if sources else 0
    tokens = rng.integers(low, vocab, size=(batch, length), dtype=np.int64)

    def run(entry, **inputs):
        return session.run(entry, {**sources, **inputs})

    full = run("forward", **{target: tokens})[logits_name]
    if sources:
        run("encode")

    # Prompts of different lengths: one token in the first row (which then
    # decodes every other position), the whole sequence in the last; the
    # rest of each prefill row is padding.
    prompt = rng.integers(1, length, size=batch)
    prompt[0], prompt[-1] = 1, length
    padded = tokens.copy()
    for row in range(batch):
        padded[row, prompt[row]:] = rng.integers(low, vocab,
                                                 length - prompt[row])
    prefilled = run("prefill", **{target: padded})[logits_name]
    ok = True
    for row in range(batch):
        ok &= compare(f"{args.model} prefill row {row}, "
                      f"{prompt[row]} prompt tokens",
                      prefilled[row, :prompt[row]],
                      full[row, :prompt[row]])

    # Each step feeds every row its next token; a row that has reached the
    # end writes its last position again, and its logits are not compared.
    steps = 0
    position = prompt.copy()
    while (position < length).any():
        at = np.minimum(position, length - 1)
        step = run("decode_step", **{
            target: tokens[np.arange(batch), at].reshape(batch, 1),
            "positions": at.astype(np.int64)})[logits_name]
        for row in np.nonzero(position < length)[0]:
            ok &= compare(f"{args.model} decode_step {steps} row {row} "
                          f"position {position[row]}", step[row, 0],
                          full[row, position[row]])
        position += 1
        steps += 1
    print(f"{args.model}: {steps} decode steps compared")

    # reorder_cache: after a prefill, the sequences permuted (one of them
    # twice, one dropped) decode as the rows they came from.
    beams = np.roll(np.arange(batch), 1)
    beams[0] = beams[-1]
    run("prefill", **{target: tokens})
    session.run("reorder_cache", {"beams": beams.astype(np.int64)})
    at = np.full(batch, length - 1, dtype=np.int64)
    # The sources move with their rows' caches.
    sources = {name: source[beams] for name, source in sources.items()}
    step = run("decode_step", **{
        target: tokens[beams, length - 1].reshape(batch, 1),
        "positions": at})[logits_name]
    for row in range(batch):
        ok &= compare(f"{args.model} reorder_cache row {row} from "
                      f"{beams[row]}", step[row, 0],
                      full[beams[row], length - 1])
    session.destroy()
    artifact.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
