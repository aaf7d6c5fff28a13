#!/usr/bin/env python3
"""Checks a seed model's compiled training entry points against PyTorch.

The spec is copied with every dropout rate set to 0 (so both sides compute
the same function) and its training section overridden so that the parts
of train_step a short run would otherwise leave idle are exercised: a
learning-rate schedule still warming up, and a gradient-norm clip small
enough to clip. The PyTorch twin (reference_models.py) gets the same
weights, which the runtime loads through its C API (runtime_api.py), and
both see the same random batches, with ignored or padded labels where the
task has them. Checked, each per DESIGN.md's bound

    max|ours - torch64| <= 1e-4 + 4 * max|torch32 - torch64|

(torch64 and torch32: the twin run in float64 and float32):

  * loss_and_grads: the loss and every parameter's gradient;
  * train_step, TRAIN_STEPS times on fresh batches, against torch.optim
    (foreach off), clip_grad_norm_ and a LambdaLR whose k-th step uses the
    schedule's factor at step k + 1: before each step both twins are set
    to the session's parameters and optimizer state and take the same
    step; then the step's loss, gradient norm and learning rate (to
    float32 rounding) and every parameter after it, and every optimizer
    state tensor after the last step, must be within the bound of theirs.

One `OK <model> <what>: max err X bound Y` line per check; any check out of
bound prints MISMATCH and the run exits non-zero.

By default the spec copy is compiled for the CPU and both sides start from
the twin's PyTorch initialisation. The GPU check (gpu_check.py, which
imports the pieces below) runs the same checks on an artifact compiled
elsewhere (--artifact), with the twins on a CUDA device in exact float32
(--device), starting from the runtime's own seeded initialisation copied
into the twins (--init-seed), so that no weights have to travel.
"""
import argparse
import copy
import math
import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_models  # noqa: E402
import runtime_api  # noqa: E402
import safetensors_io  # noqa: E402

TRAIN_STEPS = 10
# The learning rate is a float32 output: it can only match to its rounding
# (a cosine computed in float32 loses a few ulps more).
LR_RELATIVE_TOLERANCE = 1e-5

# The optimizers of the variants. "spec" keeps the spec's optimizer (kind,
# betas, eps) at a learning rate that moves the parameters visibly in ten
# steps; the others exercise what the seed specs do not use.
OPTIMIZERS = {
    "adamw": {"kind": "adamw", "lr": 1e-3, "weight_decay": 0.1},
    "sgd": {"kind": "sgd", "lr": 0.05, "momentum": 0.9, "nesterov": True,
            "weight_decay": 0.01},
}
# Each still warming up, or past its warm-up, within TRAIN_STEPS; the
# cosine reaches its end (and stays at min_lr) before the last step.
SCHEDULES = {
    "constant": {"kind": "constant"},
    "linear_warmup": {"kind": "linear_warmup", "warmup_steps": 3},
    "inverse_sqrt": {"kind": "inverse_sqrt", "warmup_steps": 4},
    "cosine": {"kind": "cosine", "warmup_steps": 3, "total_steps": 8,
               "min_lr": 1e-4},
}
OVERRIDE_LR = 1e-3
# Adam divides by sqrt(v) + eps, so a gradient element near 0 -- the key
# projection's bias has an exactly zero gradient (softmax ignores a shift
# of all scores) -- takes a step of up to lr driven by float32 rounding
# alone, in PyTorch's float32 as in ours. So can any element whose gradient
# is small against its float32 rounding, which reaches 3e-7 (a weight of
# sentiment_classifier's feed-forward, with AVX-512 GEMMs). With eps well
# above that rounding a step is comparable element by element, and eps
# still enters every update.
ADAM_EPS = 1e-5


# --- The spec copy -------------------------------------------------------------

def without_dropout(spec):
    """The spec's text with every dropout rate (dropout layers, and the
    dropout of attention and feed-forward layers) set to 0."""
    spec = re.sub(r"dropout\s*\{\s*rate:\s*[-+0-9.eE]+\s*\}",
                  "dropout { rate: 0.0 }", spec)
    return re.sub(r"\bdropout:\s*[-+0-9.eE]+", "dropout: 0.0", spec)


def training_block(spec):
    """The span of the spec's top-level `training { ... }` block."""
    start = re.search(r"^training\s*\{", spec, re.M)
    if not start:
        sys.exit("error: the spec has no training section")
    depth = 0
    for index in range(start.end() - 1, len(spec)):
        depth += {"{": 1, "}": -1}.get(spec[index], 0)
        if depth == 0:
            return start.start(), index + 1
    sys.exit("error: the spec's training section is not closed")


def fields(text):
    """{key: value} of the scalar `key: value` pairs in a text-format
    message, values as Python numbers or booleans."""
    values = {}
    for key, value in re.findall(r"(\w+):\s*([^\s{}]+)", text):
        if value in ("true", "false"):
            values[key] = value == "true"
        else:
            values[key] = float(value)
    return values


def spec_optimizer(training):
    """The optimizer of a training section, as OPTIMIZERS writes them."""
    found = re.search(r"optimizer\s*\{\s*(\w+)\s*\{([^}]*)\}\s*\}", training)
    if not found:
        sys.exit("error: no optimizer in the spec's training section")
    return {"kind": found.group(1), **fields(found.group(2))}


def spec_loss(training):
    """(kind, ignore_index, label_smoothing) of a training section."""
    found = re.search(r"loss\s*\{\s*(\w+)\s*\{([^}]*)\}\s*\}", training)
    if not found:
        sys.exit("error: no loss in the spec's training section")
    values = fields(found.group(2))
    return (found.group(1), int(values.get("ignore_index", -100)),
            values.get("label_smoothing", 0.0))


def text_format(message):
    """`kind { key: value ... }` of an optimizer or schedule dict."""
    pairs = []
    for key, value in message.items():
        if key == "kind":
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif key.endswith("_steps"):
            value = str(int(value))
        else:
            value = repr(float(value))
        pairs.append(f"{key}: {value}")
    return message["kind"] + " { " + " ".join(pairs) + (" }" if pairs else "}")


def with_training(spec, optimizer, schedule, clip):
    """The spec's text with its training section's optimizer, schedule and
    gradient clipping replaced."""
    begin, end = training_block(spec)
    training = spec[begin:end]
    training = re.sub(r"^[ \t]*clip_grad_norm:.*\n", "", training, flags=re.M)
    training = re.sub(r"optimizer\s*\{\s*\w+\s*\{[^}]*\}\s*\}",
                      "optimizer { " + text_format(optimizer) + " }", training)
    training = re.sub(r"schedule\s*\{\s*\w+\s*\{[^}]*\}\s*\}",
                      "schedule { " + text_format(schedule) + " }\n"
                      f"  clip_grad_norm: {clip!r}", training)
    return spec[:begin] + training + spec[end:]


def spec_copy(spec, optimizer="spec", schedule="linear_warmup",
              adam_eps=ADAM_EPS, clip=0.5):
    """The copy of spec text `spec` that the checks compile, and what its
    train_step does: (copy, optimizer settings, schedule, the training
    section before the overrides, which keeps the loss)."""
    spec = without_dropout(spec)
    training = spec[slice(*training_block(spec))]
    settings = (spec_optimizer(training) if optimizer == "spec"
                else dict(OPTIMIZERS[optimizer]))
    if optimizer == "spec":
        settings["lr"] = OVERRIDE_LR
    if settings["kind"] != "sgd":
        settings["eps"] = adam_eps
    schedule = SCHEDULES[schedule]
    return (with_training(spec, settings, schedule, clip), settings, schedule,
            training)


# --- Learning rate --------------------------------------------------------------

def lr_factor(schedule, step):
    """The schedule's factor of the base learning rate at 1-based `step`."""
    kind = schedule["kind"]
    warmup = schedule.get("warmup_steps", 0)
    if kind == "constant":
        return 1.0
    if kind == "linear_warmup":
        return min(1.0, step / warmup)
    if kind == "inverse_sqrt":
        return min(step ** -0.5, step * warmup ** -1.5) * warmup ** 0.5
    if kind == "cosine":
        if warmup > 0 and step <= warmup:
            return step / warmup
        floor = schedule.get("min_lr", 0.0) / schedule["lr"]
        progress = min(1.0, (step - warmup)
                       / max(1, schedule["total_steps"] - warmup))
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))
    raise ValueError(f"unknown schedule {kind}")


# --- The PyTorch side ----------------------------------------------------------

def exact_float32():
    """PyTorch's CUDA float32 as float32: no TF32 in matmuls or
    convolutions, which would otherwise round the inputs to 10 bits."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


def build_twin(model):
    """The seed model's twin without dropout, freshly initialised."""
    config = dict(reference_models.CONFIGS[model])
    config["dropout"] = 0.0
    if model.startswith("transformer_"):
        return reference_models.make_model(**config)
    if model == "sentiment_classifier":
        return reference_models.CTransformer(**config)
    return reference_models.CharLM(**config)


class Task:
    """How the model's batches look and how its loss is computed."""

    def __init__(self, model, dims, loss, label_limits, device="cpu"):
        self.model = model
        self.dims = dims
        self.device = device
        self.loss_kind, self.ignore_index, self.smoothing = loss
        # Only labels whose range holds the ignored value get some ignored:
        # a narrower rule than the runtime's, which also accepts the
        # manifest's ignore_value.
        self.can_ignore = {
            name: limit < 0 or 0 <= self.ignore_index <= limit
            for name, limit in label_limits.items()}

    def batch(self, rng):
        """{name: int64 array}: the model inputs then the labels."""
        batch, model = self.dims["batch"], self.model
        if model.startswith("char_lm"):
            tokens = rng.integers(0, 256, (batch, self.dims["seq"]))
            targets = rng.integers(0, 256, tokens.shape)
            return {"tokens": tokens,
                    "targets": self.some_ignored(rng, "targets", targets)}
        if model == "sentiment_classifier":
            tokens = padded(rng, batch, self.dims["seq"], 50000)
            label = rng.integers(0, 2, (batch,))
            return {"tokens": tokens, "label": self.some_ignored(rng, "label", label)}
        # Teacher forcing: tgt_y is tgt shifted by one; padding is ignored.
        src = padded(rng, batch, self.dims["src_len"], 10000)
        target = padded(rng, batch, self.dims["tgt_len"] + 1, 10000)
        return {"src": src, "tgt": target[:, :-1], "tgt_y": target[:, 1:]}

    def some_ignored(self, rng, name, labels):
        """`labels` with about a fifth set to the ignored value, keeping
        the first label so that some always count (unchanged where the
        runtime would refuse the ignored value)."""
        labels = labels.copy()
        if not self.can_ignore.get(name, True):
            return labels
        ignored = rng.random(labels.shape) < 0.2
        ignored.flat[0] = False
        labels[ignored] = self.ignore_index
        return labels

    def loss(self, module, batch):
        """The spec's training loss of `module` (on the task's device) on
        `batch` (PyTorch)."""
        t = {k: torch.from_numpy(v).to(self.device) for k, v in batch.items()}
        if self.model.startswith("char_lm"):
            scores, labels = module(t["tokens"]), t["targets"]
        elif self.model == "sentiment_classifier":
            scores, labels = module(t["tokens"]), t["label"]
        else:
            scores, labels = module(t["src"], t["tgt"]), t["tgt_y"]
        scores = scores.reshape(-1, scores.shape[-1])
        labels = labels.reshape(-1)
        if self.loss_kind == "nll":
            return F.nll_loss(scores, labels, ignore_index=self.ignore_index)
        return F.cross_entropy(scores, labels, ignore_index=self.ignore_index,
                               label_smoothing=self.smoothing)


def padded(rng, batch, length, vocab):
    """Ids in [1, vocab) with each row's tail padded (0) to a random length,
    at least two ids kept so that every row has a label that counts."""
    tokens = rng.integers(1, vocab, size=(batch, length))
    for row in range(batch):
        tokens[row, rng.integers(min(2, length), length + 1):] = 0
    return tokens


def torch_gradients(module, task, batch):
    """(loss, {name: gradient}) of the twin, as numpy float64."""
    module.zero_grad(set_to_none=True)
    loss = task.loss(module, batch)
    loss.backward()
    grads = {name: p.grad.double().cpu().numpy() for name, p in
             module.named_parameters()}
    return float(loss), grads


def load_twin(module, values):
    """Sets a twin's parameters to {name: numpy array} (every one of
    them), converted to the twin's dtype and device."""
    params = dict(module.named_parameters())
    if set(values) != set(params):
        raise ValueError(f"parameters differ from the twin's: "
                         f"{sorted(set(values) ^ set(params))[:3]}")
    with torch.no_grad():
        for name, value in values.items():
            params[name].copy_(torch.from_numpy(value))


def make_optimizer(module, settings, schedule):
    """torch.optim's optimizer for `settings` and a LambdaLR whose k-th
    step (from 0) uses the schedule's factor at step k + 1."""
    params = list(module.parameters())
    kind, lr = settings["kind"], settings["lr"]
    if kind == "sgd":
        optimizer = torch.optim.SGD(
            params, lr=lr, momentum=settings.get("momentum", 0.0),
            nesterov=settings.get("nesterov", False),
            weight_decay=settings.get("weight_decay", 0.0), foreach=False)
    else:
        cls = torch.optim.AdamW if kind == "adamw" else torch.optim.Adam
        default_decay = 0.01 if kind == "adamw" else 0.0
        optimizer = cls(params, lr=lr,
                        betas=(settings.get("beta1", 0.9),
                               settings.get("beta2", 0.999)),
                        eps=settings.get("eps", 1e-8),
                        weight_decay=settings.get("weight_decay",
                                                  default_decay),
                        foreach=False)
    schedule = dict(schedule, lr=lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda k: lr_factor(schedule, k + 1))
    return optimizer, scheduler


class Replica:
    """A twin with its optimizer and schedule, stepped from whatever
    parameters and optimizer state it is given."""

    def __init__(self, module, settings, schedule):
        self.module = module
        self.params = dict(module.named_parameters())
        self.optimizer, self.scheduler = make_optimizer(module, settings,
                                                        schedule)

    def load(self, params, state):
        """Sets the parameters and the optimizer state (torch's keys) from
        numpy arrays; the step count stays torch's own."""
        with torch.no_grad():
            for name, value in params.items():
                self.params[name].copy_(torch.from_numpy(value))
            for name, p in self.params.items():
                for key, buffer in self.optimizer.state[p].items():
                    if torch.is_tensor(buffer) and buffer.dim() > 0:
                        buffer.copy_(torch.from_numpy(
                            state[f"optimizer.{key}.{name}"]))

    def step(self, task, batch, clip):
        """One training step: (loss, grad_norm, lr), then the parameters
        and state after it, as numpy float64."""
        self.optimizer.zero_grad(set_to_none=False)
        loss = task.loss(self.module, batch)
        loss.backward()
        params = list(self.params.values())
        if clip > 0:
            norm = torch.nn.utils.clip_grad_norm_(params, clip)
        else:
            norm = torch.norm(torch.stack([p.grad.norm() for p in params]))
        lr = self.optimizer.param_groups[0]["lr"]
        self.optimizer.step()
        self.scheduler.step()
        values = {name: p.detach().double().cpu().numpy().copy()
                  for name, p in self.params.items()}
        state = {}
        for name, p in self.params.items():
            for key, buffer in self.optimizer.state[p].items():
                if torch.is_tensor(buffer) and buffer.dim() > 0:
                    state[f"optimizer.{key}.{name}"] = \
                        buffer.double().cpu().numpy().copy()
        return (float(loss), float(norm), lr), values, state


# --- Checks ----------------------------------------------------------------------

class Checks:
    """Prints one line per check and remembers the failures."""

    def __init__(self, model):
        self.model = model
        self.failures = []

    def record(self, what, error, bound, detail=""):
        ok = error <= bound
        verdict = "OK" if ok else "MISMATCH"
        print(f"{verdict} {self.model} {what}: max err {error:.3g} "
              f"bound {bound:.3g}{detail}", flush=True)
        if not ok:
            self.failures.append(what)

    def fail(self, what, message):
        print(f"MISMATCH {self.model} {what}: {message}", flush=True)
        self.failures.append(what)

    def tensors(self, what, ours, t32, t64, verbose):
        """One check over many tensors ({name: array} each), each under its
        own bound; the line shows the tensor closest to its bound, and every
        tensor out of bound gets a line of its own. Returns {name: (error,
        bound)}, or None when the tensors do not even correspond."""
        if set(ours) != set(t64):
            missing = sorted(set(t64) - set(ours))[:3]
            extra = sorted(set(ours) - set(t64))[:3]
            return self.fail(what, f"tensors differ: missing {missing}, "
                                   f"unexpected {extra}")
        worst = None
        deviations = {}
        for name in t64:
            if ours[name].shape != t64[name].shape:
                return self.fail(what, f"{name} has shape {ours[name].shape}, "
                                       f"expected {t64[name].shape}")
            error, bound = deviation(ours[name], t32[name], t64[name])
            deviations[name] = (error, bound)
            if verbose or error > bound:
                verdict = "OK" if error <= bound else "MISMATCH"
                print(f"  {verdict} {name}: max err {error:.3g} "
                      f"bound {bound:.3g}")
            if worst is None or error / bound > worst[0] / worst[1]:
                worst = (error, bound, name)
        error, bound, name = worst
        self.record(f"{what} ({len(t64)} tensors)", error, bound,
                    f" (closest to its bound: {name})")
        return deviations


def deviation(ours, t32, t64):
    """(max|ours - torch64|, DESIGN.md's bound for it)."""
    ours = np.asarray(ours, np.float64)
    error = float(np.max(np.abs(ours - t64))) if ours.size else 0.0
    torch_error = float(np.max(np.abs(np.asarray(t32, np.float64) - t64)))
    return error, 1e-4 + 4 * torch_error


def check_signatures(checks, artifact, data):
    """loss_and_grads takes the model inputs and labels (no dropout seed:
    every rate is 0), train_step those and `step`."""
    for entry, expected in (("loss_and_grads", data),
                            ("train_step", data + ["step"])):
        names = [name for name, *_ in artifact.inputs(entry)]
        if names != expected:
            checks.fail(f"{entry} inputs", f"{names}, expected {expected}")
    outputs = [name for name, *_ in artifact.outputs("train_step")]
    if outputs[:3] != ["loss", "grad_norm", "lr"]:
        checks.fail("train_step outputs", f"{outputs}, expected loss, "
                                          f"grad_norm, lr")


def check_gradients(checks, session, task, twins, batch, params, verbose):
    """loss_and_grads against autograd; the parameters must not change.
    Returns the session's outputs, the loss's (error, bound) and each
    gradient's {name: (error, bound)} (None when the outputs were not
    those expected), for callers that compare them further."""
    before = {name: session.parameter(name) for name in params}
    outputs = session.run("loss_and_grads", batch)
    expected = ["loss"] + [f"grad.{name}" for name in params]
    if list(outputs) != expected:
        checks.fail("loss_and_grads outputs",
                    f"got {list(outputs)[:4]}..., expected "
                    f"{expected[:4]}... ({len(expected)} in all)")
        return outputs, None, None
    loss32, grads32 = torch_gradients(twins[0], task, batch)
    loss64, grads64 = torch_gradients(twins[1], task, batch)
    loss = deviation(outputs["loss"], loss32, np.float64(loss64))
    checks.record("loss_and_grads loss", *loss)
    ours = {name: outputs[f"grad.{name}"] for name in params}
    grads = checks.tensors("loss_and_grads grads", ours, grads32, grads64,
                           verbose)
    changed = [name for name in params
               if not np.array_equal(session.parameter(name), before[name])]
    if changed:
        checks.fail("loss_and_grads", f"changed parameters {changed[:3]}")
    return outputs, loss, grads


def check_training(checks, session, twins, task, batches, settings,
                   schedule, clip, params, state_names, verbose):
    """The session's train_steps against torch.optim, step by step: before
    each step both twins are set to the session's parameters and optimizer
    state, take the same step, and the session's results after it must be
    within the bound of theirs. (Left to run freely, trajectories part:
    Adam turns float32 rounding in near-zero gradients into steps of up to
    lr, so ours and PyTorch's float32 drift apart from float64 in
    different directions; stepping from the same state checks every
    update without that noise compounding.)

    Returns one dict per step taken: the session's "result" (step, loss,
    grad_norm, lr), the (error, bound) of its "loss", "grad_norm" and "lr",
    and {name: (error, bound)} of its "parameters"; the last step's has
    the optimizer "state"'s too."""
    dtypes = (np.float32, np.float64)
    replicas = [Replica(twin, settings, schedule) for twin in twins]
    clipped = 0
    steps = []
    for step, batch in enumerate(batches, start=1):
        ours_params = {name: session.parameter(name) for name in params}
        ours_state = {name: session.state(name) for name in state_names}
        expected = []
        for replica, dtype in zip(replicas, dtypes):
            replica.load({n: v.astype(dtype) for n, v in ours_params.items()},
                         {n: v.astype(dtype) for n, v in ours_state.items()})
            expected.append(replica.step(task, batch, clip))
        result = session.train_step(batch)
        if result["step"] != step:
            checks.fail("train_step", f"call {step} reported step "
                                      f"{result['step']}")
            return steps
        (loss32, norm32, _), (loss64, norm64, lr) = (expected[0][0],
                                                     expected[1][0])
        clipped += clip > 0 and norm64 > clip
        record = {
            "result": result,
            "loss": deviation(result["loss"], loss32, np.float64(loss64)),
            "grad_norm": deviation(result["grad_norm"], norm32,
                                   np.float64(norm64)),
            "lr": (abs(result["lr"] - lr), LR_RELATIVE_TOLERANCE * lr)}
        checks.record(f"train_step {step} loss", *record["loss"])
        checks.record(f"train_step {step} grad_norm", *record["grad_norm"],
                      f" (norm {norm64:.4g}, clip {clip:g})")
        checks.record(f"train_step {step} lr", *record["lr"],
                      f" (lr {lr:.6g})")
        after = {name: session.parameter(name) for name in params}
        record["parameters"] = checks.tensors(
            f"train_step {step} parameters", after, expected[0][1],
            expected[1][1], verbose)
        steps.append(record)
    if clip > 0 and clipped == 0:
        checks.fail("train_step clipping",
                    f"no step's gradient norm exceeded {clip}: the clip "
                    f"was never exercised")
    if session.step() != len(batches):
        checks.fail("train_step", f"the session counts {session.step()} "
                                  f"steps, expected {len(batches)}")
    state32, state64 = expected[0][2], expected[1][2]
    if set(state_names) != set(state64):
        extra = sorted(set(state_names) - set(state64))[:3]
        missing = sorted(set(state64) - set(state_names))[:3]
        checks.fail("optimizer state", f"names differ from torch's: "
                                       f"extra {extra}, missing {missing}")
        return steps
    if state_names:
        state = {name: session.state(name) for name in state_names}
        steps[-1]["state"] = checks.tensors(
            f"train_step {len(batches)} optimizer state", state, state32,
            state64, verbose)
    return steps


# --- Driver ----------------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compile",
                        help="the transfuse-compile binary (unless "
                             "--artifact is given)")
    parser.add_argument("--artifact",
                        help="a .tfm already compiled from the spec copy "
                             "(any target), checked instead of compiling one")
    parser.add_argument("--device", default="cpu",
                        help="the twins' torch device (cuda: exact float32, "
                             "no TF32)")
    parser.add_argument("--init-seed", type=int,
                        help="start from the runtime's initialisation with "
                             "this seed, copied into the twins, instead of "
                             "the twin's weights loaded into the session")
    parser.add_argument("--runtime", required=True,
                        help="the path of libtransfuse_runtime.so")
    parser.add_argument("--spec", required=True)
    parser.add_argument("--model", required=True,
                        choices=sorted(reference_models.CONFIGS))
    parser.add_argument("--workdir", required=True)
    parser.add_argument("-D", action="append", default=[], dest="dims",
                        help="a spec dimension, NAME=VALUE")
    parser.add_argument("--optimizer", default="spec",
                        choices=["spec"] + sorted(OPTIMIZERS),
                        help="the spec's optimizer (at lr 1e-3) or a variant")
    parser.add_argument("--schedule", default="linear_warmup",
                        choices=sorted(SCHEDULES))
    parser.add_argument("--adam-eps", type=float, default=ADAM_EPS,
                        help="Adam's and AdamW's eps (see ADAM_EPS)")
    parser.add_argument("--clip", type=float, default=0.5,
                        help="clip_grad_norm (0: no clipping)")
    parser.add_argument("--steps", type=int, default=TRAIN_STEPS)
    parser.add_argument("--skip-gradients", action="store_true",
                        help="check train_step only")
    # PyTorch's and the runtime's OpenMP pools, both busy-waiting on the
    # same few cores, slow each other down twenty-fold: one thread each.
    parser.add_argument("--threads", type=int, default=1,
                        help="PyTorch's and the runtime's threads (0: their "
                             "defaults)")
    parser.add_argument("--verbose", action="store_true",
                        help="a line for every tensor, not only the worst")
    return parser.parse_args()


def main():
    args = parse_args()
    if not args.compile and not args.artifact:
        sys.exit("error: give --compile or --artifact")
    try:
        failures = run(args)
    except subprocess.CalledProcessError as error:
        sys.exit(f"FAILED: {args.model}: {error.cmd[0]} exited with "
                 f"status {error.returncode}")
    except runtime_api.TransfuseError as error:
        sys.exit(f"FAILED: {args.model}: {error}")
    if failures:
        sys.exit(f"FAILED: {args.model}: {len(failures)} check(s) out of "
                 f"bound: {', '.join(failures[:5])}")


def same_weights(session, twins, weights, init_seed):
    """Gives the session the twins' weights (saved in file `weights`), or,
    with an init seed, the twins the session's initialisation."""
    if init_seed is None:
        session.load_parameters(weights)
        return
    session.init_parameters(init_seed)
    values = {name: session.parameter(name)
              for name in dict(twins[0].named_parameters())}
    for twin in twins:
        load_twin(twin, values)


def run(args):
    """Compiles the spec copy (unless given an artifact) and runs every
    check; returns the failures."""
    dims = {k: int(v) for k, v in (d.split("=") for d in args.dims)}
    os.makedirs(args.workdir, exist_ok=True)
    path = lambda name: os.path.join(args.workdir, name)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if device.type == "cuda":
        exact_float32()

    spec, settings, schedule, training = spec_copy(
        open(args.spec).read(), args.optimizer, args.schedule, args.adam_eps,
        args.clip)
    with open(path("spec.pbtxt"), "w") as f:
        f.write(spec)
    model_path = args.artifact or path("model.tfm")
    if not args.artifact:
        subprocess.run([args.compile, path("spec.pbtxt"),
                        *[f"-D{d}" for d in args.dims], "--target=cpu",
                        "-o", model_path], check=True)

    torch.manual_seed(0)
    twin32 = build_twin(args.model).train()
    twin64 = copy.deepcopy(twin32).double()
    if args.init_seed is None:
        safetensors_io.save(path("weights.safetensors"),
                            {k: v.detach().numpy() for k, v in
                             twin32.state_dict().items()})
    twin32.to(device)
    twin64.to(device)

    lib = runtime_api.load(args.runtime)
    if args.threads:
        lib.tf_set_num_threads(args.threads)
    artifact = runtime_api.Artifact(lib, model_path)
    params = [name for name, *_ in artifact.parameters()]
    state_names = [name for name, *_ in artifact.state()]
    limits = {name: limit for name, _, _, limit in
              artifact.inputs("train_step")}
    task = Task(args.model, dims, spec_loss(training), limits, device)
    rng = np.random.default_rng(1)
    checks = Checks(args.model)
    twins = (twin32, twin64)
    check_signatures(checks, artifact,
                     list(task.batch(np.random.default_rng(0))))

    if not args.skip_gradients:
        session = runtime_api.Session(artifact)
        same_weights(session, twins, path("weights.safetensors"),
                     args.init_seed)
        check_gradients(checks, session, task, twins, task.batch(rng), params,
                        args.verbose)
        session.destroy()

    session = runtime_api.Session(artifact)
    same_weights(session, twins, path("weights.safetensors"), args.init_seed)
    batches = [task.batch(rng) for _ in range(args.steps)]
    check_training(checks, session, twins, task, batches, settings,
                   schedule, args.clip, params, state_names, args.verbose)
    session.destroy()
    return checks.failures


if __name__ == "__main__":
    main()
