#!/usr/bin/env python3
"""Checks `transfuse-run --text` against PyTorch on the same weights:
greedy continuation for char_lm (bytes), the predicted class and its
probabilities for the classifier (words through a vocabulary stored in the
weights' metadata)."""
import argparse
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_models  # noqa: E402
import safetensors_io  # noqa: E402


def save_weights(module, path, metadata=None):
    weights = {k: v.detach().numpy().astype(np.float32)
               for k, v in module.state_dict().items()}
    safetensors_io.save(path, weights, metadata)


def window(tokens, length):
    """Row 0 holds the last `length` tokens, padding (0) after them."""
    ids = np.zeros((1, length), dtype=np.int64)
    kept = tokens[-length:]
    ids[0, :len(kept)] = kept
    return torch.from_numpy(ids), len(kept) - 1


def greedy(module, text, steps, length):
    tokens = list(text.encode())
    produced = []
    with torch.no_grad():
        for _ in range(steps):
            ids, position = window(tokens, length)
            logits = module(ids)[0, position]
            nxt = int(torch.argmax(logits))
            tokens.append(nxt)
            produced.append(nxt)
    return bytes(produced)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", required=True)
    parser.add_argument("--tfm", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--seq", type=int, required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--classify-tfm",
                        help="the classifier compiled with a larger batch, "
                        "for --classify on a file of examples")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    weights = os.path.join(args.workdir, "weights.safetensors")
    torch.manual_seed(0)
    module = reference_models.build(args.model).eval()

    if args.model == "char_lm":
        save_weights(module, weights)
        text, steps = "the cat ", 12
        expected = greedy(module, text, steps, args.seq)
        result = subprocess.run(
            [args.run, args.tfm, "--weights", weights, "--text", text,
             "--max-new-tokens", str(steps)], check=True, capture_output=True)
        ours = result.stdout.rstrip(b"\n")
        print("OK" if ours == expected else "MISMATCH",
              f"continuation {ours!r} torch {expected!r}")
        sys.exit(0 if ours == expected else 1)

    words = ["<pad>", "<unk>", "a", "good", "film", "bad", "plot"]
    vocabulary = words + [f"w{i}" for i in range(50000 - len(words))]
    save_weights(module, weights, {"vocabulary": "\n".join(vocabulary)})
    text = "a good film with a plot"  # "with" is unknown
    ids = [vocabulary.index(w) if w in words else 1 for w in text.split()]
    with torch.no_grad():
        tokens, _ = window(ids, args.seq)
        probabilities = torch.exp(module(tokens)[0]).numpy()
    result = subprocess.run([args.run, args.tfm, "--weights", weights,
                             "--text", text], check=True, capture_output=True,
                            text=True)
    lines = result.stdout.split("\n")
    predicted = int(lines[0].split()[1])
    ours = np.array([float(line.split(":")[1]) for line in lines[1:] if line])
    good = predicted == int(np.argmax(probabilities)) and \
        np.abs(ours - probabilities).max() <= 1e-4
    print("OK" if good else "MISMATCH",
          f"class {predicted} probabilities {ours} torch {probabilities}")
    if args.classify_tfm:
        good &= check_classify(args, module, vocabulary, weights)
    sys.exit(0 if good else 1)


def check_classify(args, module, vocabulary, weights):
    """--classify on a file: one line per example, each as PyTorch gives
    it for that example alone, over batches the last of which is partial."""
    examples = ["a good film", "bad plot", "a bad film with a good plot",
                "good", "plot plot bad"]
    path = os.path.join(args.workdir, "examples.txt")
    with open(path, "w") as f:
        f.write("".join(e + "\n" for e in examples))
    result = subprocess.run([args.run, args.classify_tfm, "--weights", weights,
                             "--classify", path], check=True,
                            capture_output=True, text=True)
    lines = result.stdout.splitlines()
    good = len(lines) == len(examples)
    for k, (example, line) in enumerate(zip(examples, lines)):
        ids = [vocabulary.index(w) if w in vocabulary[:7] else 1
               for w in example.split()]
        with torch.no_grad():
            expected = torch.exp(module(window(ids, args.seq)[0])[0]).numpy()
        label, probabilities = line.split("\t")
        ours = np.array([float(p) for p in probabilities.split()])
        ok = int(label) == int(np.argmax(expected)) and \
            np.abs(ours - expected).max() <= 1e-4
        good &= ok
        print("OK" if ok else "MISMATCH",
              f"classify line {k + 1}: {line!r} torch {expected}")
    return good


if __name__ == "__main__":
    main()
