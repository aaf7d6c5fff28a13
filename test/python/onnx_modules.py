#!/usr/bin/env python3
"""Models written with PyTorch's own layers, as users export them: a
classifier on nn.TransformerEncoder (key padding mask) and a GPT-style
causal LM on nn.MultiheadAttention, nn.GELU and pre-LN blocks. Each is
exported by torch.onnx.export (opset 17, with and without constant
folding), compiled for the CPU, run by transfuse-run on the weights the
compiler wrote, and compared with PyTorch per DESIGN.md's bound; the
summary must show every attention fused and GELU taken into a matmul.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import forward_parity  # noqa: E402
import safetensors_io  # noqa: E402

VOCAB, SEQ, BATCH = 50, 8, 3


class EncoderClassifier(nn.Module):
    def __init__(self, d=32, heads=4, layers=2, classes=3):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d)
        self.position = nn.Embedding(SEQ, d)
        layer = nn.TransformerEncoderLayer(d, heads, 64, dropout=0.1,
                                           batch_first=True)
        # Without nested tensors, whose fast path zeroes the padded
        # positions in eval mode, which the exported graph does not.
        self.encoder = nn.TransformerEncoder(layer, layers,
                                             enable_nested_tensor=False)
        self.classify = nn.Linear(d, classes)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position.weight[: tokens.shape[1]]
        x = self.encoder(x, src_key_padding_mask=tokens == 0)
        return torch.log_softmax(self.classify(x.mean(dim=1)), -1)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                                 nn.Linear(4 * d, d))

    def forward(self, x, mask):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, d=32, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d)
        self.position = nn.Parameter(torch.randn(SEQ, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)
        self.register_buffer(
            "mask", torch.triu(torch.ones(SEQ, SEQ, dtype=torch.bool), 1))

    def forward(self, tokens):
        x = self.embed(tokens) + self.position
        for block in self.blocks:
            x = block(x, self.mask)
        return self.head(self.ln(x))


MODELS = {"encoder_classifier": (EncoderClassifier, 2),
          "gpt": (GPT, 2)}


def tokens_for(model, rng):
    tokens = rng.integers(1, VOCAB, (BATCH, SEQ))
    if model == "encoder_classifier":
        for row in range(1, BATCH):
            tokens[row, SEQ - 2 * row:] = 0
    return tokens.astype(np.int64)


def forward(module, tokens):
    with torch.no_grad():
        return module(torch.from_numpy(tokens))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--model", required=True, choices=sorted(MODELS))
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--no-constant-folding", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    path = lambda name: os.path.join(args.workdir, name)

    torch.manual_seed(0)
    make, attention_layers = MODELS[args.model]
    module = make().eval()
    tokens = tokens_for(args.model, np.random.default_rng(1))
    safetensors_io.save(path("inputs.safetensors"), {"tokens": tokens})
    torch.onnx.export(module, (torch.from_numpy(tokens),), path("model.onnx"),
                      opset_version=17, input_names=["tokens"],
                      output_names=["output"],
                      do_constant_folding=not args.no_constant_folding)
    expected32 = forward(module, tokens)
    expected64 = forward(module.double(), tokens)

    within = forward_parity.compile_run_compare(
        args.compile, args.run, path("model.onnx"), args.workdir, [],
        path("model.safetensors"), expected32, expected64, args.model)

    summary = subprocess.run(
        [args.compile, path("model.onnx"), "--inference-only",
         "--emit=summary"], check=True, capture_output=True, text=True).stdout
    forward_ops = summary.split("ops in @forward")[1]
    count = lambda op: int((re.search(re.escape(op) + r"\s+(\d+)",
                                      forward_ops) or [0, 0])[1])
    fused = count("nn.attention") == attention_layers and \
        count("nn.softmax") == 0 and count("nn.erf") == 0 and \
        count("nn.gelu") == 0
    print(("OK" if fused else "MISMATCH") +
          f" fused: nn.attention {count('nn.attention')}, nn.softmax "
          f"{count('nn.softmax')}, nn.erf {count('nn.erf')}, nn.gelu "
          f"{count('nn.gelu')}")
    sys.exit(0 if within and fused else 1)


if __name__ == "__main__":
    main()
