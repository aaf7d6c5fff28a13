#!/usr/bin/env python3
"""Trains an exported model: the models of onnx_modules.py, exported without
constant folding (so that the initializers keep their state_dict names),
compiled with a training configuration (--train-config) and trained for
STEPS steps through the runtime's C API from the weights the compiler
wrote, side by side with the PyTorch module and the same optimizer
(torch.optim, foreach off, clip_grad_norm_) on the same batches. Dropout is
off on both sides (the export is of the eval-mode graph). Every step's loss
and, after the last, every parameter must be within DESIGN.md's bound of
the float64 twin's:

    max|ours - torch64| <= 1e-4 + 4 * max|torch32 - torch64|
"""
import argparse
import copy
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_modules  # noqa: E402
import runtime_api  # noqa: E402

STEPS = 10
LR = 1e-3
CLIP = 0.5

# The training configurations: the classifier's log-probabilities with the
# NLL loss and AdamW, the LM's logits with cross-entropy and Adam.
CONFIGS = {
    "encoder_classifier": f"""
dims {{ name: "batch" value: {onnx_modules.BATCH} }}
training {{
  logits: "output"
  labels {{ name: "labels" dtype: I64 shape: ["batch"] }}
  loss {{ nll {{}} }}
  optimizer {{ adamw {{ lr: {LR} weight_decay: 0.01 }} }}
  clip_grad_norm: {CLIP}
  seed: 1
}}
""",
    "gpt": f"""
training {{
  logits: "output"
  labels {{ name: "labels" dtype: I64
           shape: ["{onnx_modules.BATCH}", "{onnx_modules.SEQ}"] }}
  loss {{ cross_entropy {{}} }}
  optimizer {{ adam {{ lr: {LR} }} }}
  clip_grad_norm: {CLIP}
  seed: 1
}}
""",
}


def torch_loss(model, output, labels):
    if model == "gpt":
        return F.cross_entropy(output.reshape(-1, output.shape[-1]),
                               labels.reshape(-1))
    return F.nll_loss(output, labels)


class Twin:
    """The PyTorch module in one precision with its optimizer."""

    def __init__(self, module, model, dtype):
        self.module = copy.deepcopy(module).to(dtype)
        self.model = model
        params = list(self.module.parameters())
        if model == "gpt":
            self.optimizer = torch.optim.Adam(params, lr=LR, foreach=False)
        else:
            self.optimizer = torch.optim.AdamW(params, lr=LR,
                                               weight_decay=0.01,
                                               foreach=False)

    def step(self, tokens, labels):
        self.optimizer.zero_grad()
        loss = torch_loss(self.model,
                          self.module(torch.from_numpy(tokens)),
                          torch.from_numpy(labels))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.module.parameters(), CLIP)
        self.optimizer.step()
        return loss.item()


def batch(model, rng):
    tokens = onnx_modules.tokens_for(model, rng)
    shape = (onnx_modules.BATCH,) if model == "encoder_classifier" else \
        (onnx_modules.BATCH, onnx_modules.SEQ)
    classes = 3 if model == "encoder_classifier" else onnx_modules.VOCAB
    return tokens, rng.integers(0, classes, shape).astype(np.int64)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compile", required=True)
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--model", required=True, choices=sorted(CONFIGS))
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    path = lambda name: os.path.join(args.workdir, name)

    torch.manual_seed(0)
    make, _ = onnx_modules.MODELS[args.model]
    module = make().eval()
    rng = np.random.default_rng(2)
    tokens, _ = batch(args.model, rng)
    torch.onnx.export(module, (torch.from_numpy(tokens),), path("model.onnx"),
                      opset_version=17, input_names=["tokens"],
                      output_names=["output"], do_constant_folding=False)
    with open(path("train.pbtxt"), "w") as f:
        f.write(CONFIGS[args.model])
    subprocess.run([args.compile, path("model.onnx"), "--train-config",
                    path("train.pbtxt"), "--target=cpu", "-o",
                    path("model.tfm")], check=True)

    lib = runtime_api.load(args.runtime)
    artifact = runtime_api.Artifact(lib, path("model.tfm"))
    session = runtime_api.Session(artifact)
    session.load_parameters(path("model.safetensors"))
    twins = [Twin(module, args.model, torch.float32),
             Twin(module, args.model, torch.float64)]
    ok = True
    worst = (0.0, 0.0)
    for step in range(STEPS):
        tokens, labels = batch(args.model, rng)
        ours = session.train_step({"tokens": tokens, "labels": labels})
        loss32, loss64 = (twin.step(tokens, labels) for twin in twins)
        error, bound = abs(ours["loss"] - loss64), \
            1e-4 + 4 * abs(loss32 - loss64)
        ok &= error <= bound
        worst = max(worst, (error, bound))
    print(("OK" if ok else "MISMATCH") + f" {args.model} losses of {STEPS} "
          f"steps: max err {worst[0]:.3g} bound {worst[1]:.3g}")

    names = [name for name, _, _, _ in artifact.parameters()]
    t32 = dict(twins[0].module.named_parameters())
    t64 = dict(twins[1].module.named_parameters())
    missing = sorted(set(t64) - set(names))
    worst = (0.0, 0.0, "")
    params_ok = not missing
    for name in names:
        ours = torch.from_numpy(np.array(session.parameter(name))).double()
        error = (ours - t64[name].detach()).abs().max().item()
        bound = 1e-4 + 4 * (t32[name].detach().double() -
                            t64[name].detach()).abs().max().item()
        params_ok &= error <= bound
        worst = max(worst, (error, bound, name))
    print(("OK" if params_ok else "MISMATCH") +
          f" {args.model} {len(names)} parameters after {STEPS} steps: max "
          f"err {worst[0]:.3g} bound {worst[1]:.3g}" +
          (f"; not trained: {missing}" if missing else ""))
    sys.exit(0 if ok and params_ok else 1)


if __name__ == "__main__":
    main()
