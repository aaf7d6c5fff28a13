#!/usr/bin/env python3
"""The GPU check: the CUDA artifacts of the seed models on a real GPU.

A GPU machine is lent for minutes and has no MLIR, so everything that needs
the compiler is done beforehand (gpu_check_prep.py, `make gpu-check-prep`):
the CUDA artifacts, the batches and the CPU artifacts' results, all in
build-gpu-check/. There, once tools/gpu-check.sh has built the runtime and
tools, this script runs every check (docs/gpu-check.md):

  a. per seed model, against PyTorch on the GPU (training_parity.py's
     checks, twins in exact float32 and in float64, DESIGN.md's bound): the
     forward outputs, the `loss` entry point, loss_and_grads, and STEPS
     train_steps;
  b. cpu: the same results against the CPU artifact's on the same weights
     (the runtime's seeded initialisation) and batches;
  c. determinism: forward and loss_and_grads twice, bit for bit;
  d. graphs: the same calls replayed as CUDA graphs (the default) and
     launched kernel by kernel (TRANSFUSE_CUDA_GRAPHS=0), bit for bit;
  e. compute-sanitizer's memcheck (on training steps that capture and
     replay graphs) and racecheck (on one training step) of
     transfuse-train.

Subcommands: `machine` and `prepared` report what the machine has and what
was prepared; `run` runs every check, each model's in a subprocess
(`worker`) whose checks each have a time limit, all within a total budget,
then prints a table and writes gpu-check.json.
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

SCHEMA = "transfuse-gpu-check/2"

# What is prepared, at the sizes of the CPU parity tests (training-parity
# and forward-parity; transformer_base at training-parity-base's sizes).
MODELS = {
    "char_lm": {"batch": 2, "seq": 8},
    "sentiment_classifier": {"batch": 3, "seq": 16},
    "transformer_small": {"batch": 3, "src_len": 7, "tgt_len": 5},
    # The layer-norm kernels in the unbiased-std, epsilon-on-std form.
    "transformer_small_annotated": {"batch": 3, "src_len": 7, "tgt_len": 5},
    "transformer_base": {"batch": 2, "src_len": 5, "tgt_len": 4},
}
# training_parity.spec_copy's options: the CPU parity tests' defaults.
SPEC_OPTIONS = {"optimizer": "spec", "schedule": "linear_warmup",
                "adam_eps": 1e-6, "clip": 0.5}
STEPS = 5
INIT_SEED = 1
# The seeds of the batches (numpy's default_rng): the forward inputs, then
# one stream for loss_and_grads' batch and the train steps' batches.
FORWARD_SEED = 2
BATCH_SEED = 1

# The sanitizer runs: transfuse-train, one step, on the prepared data.
SANITIZERS = [("memcheck", "char_lm"), ("racecheck", "char_lm"),
              ("memcheck", "transformer_small"),
              ("racecheck", "transformer_small")]
SANITIZER_OPTIONS = {
    "memcheck": ["--tool", "memcheck", "--leak-check", "full"],
    "racecheck": ["--tool", "racecheck"],
}
# Training steps per sanitizer run: memcheck's three are run uncaptured,
# captured and replayed as a CUDA graph; racecheck looks inside kernels,
# which are the same in a graph, and is the slow one.
SANITIZER_STEPS = {"memcheck": 3, "racecheck": 1}
# An exit status the programs checked never use, so that a sanitizer's
# finding is told apart from the program's own failure.
SANITIZER_EXIT = 86

# The order the units run in: the quick models, the sanitizers on the
# smallest model, the largest model, the second sanitizer model; what the
# budget does not reach is reported as not run.
ORDER = [("model", "char_lm"), ("model", "sentiment_classifier"),
         ("model", "transformer_small"),
         ("model", "transformer_small_annotated"), ("sanitizer", 0),
         ("sanitizer", 1), ("model", "transformer_base"), ("sanitizer", 2),
         ("sanitizer", 3)]

CHECKS = ["forward", "loss", "loss_and_grads", "train_step", "cpu",
          "determinism", "decoding", "graphs", "nccl"]
# The models whose data-parallel CUDA artifact (--data-parallel) the nccl
# check runs: dropout everywhere, and padding.
DATA_PARALLEL_MODELS = ("char_lm", "transformer_small")
# Seconds per check on an H100, generous: a check that takes longer hangs.
# "setup" imports PyTorch, opens the GPU, cuBLASLt and the artifact.
TIMEOUTS = {
    "small": {"setup": 120, "forward": 60, "decoding": 60, "loss": 60,
              "loss_and_grads": 90, "train_step": 150, "cpu": 60,
              "determinism": 30, "graphs": 60, "nccl": 90},
    "transformer_base": {"setup": 180, "forward": 90, "decoding": 90,
                         "loss": 60,
                         "loss_and_grads": 120, "train_step": 240, "cpu": 120,
                         "determinism": 60, "graphs": 120, "nccl": 180},
}
SANITIZER_TIMEOUT = {"memcheck": 150, "racecheck": 180}
# Seconds kept for the table and the JSON when the budget runs out, and the
# least a unit gets started with.
RESERVE = 10
MIN_UNIT = 20

# Fingerprints of tensors too large to carry: the largest magnitudes (so
# that a sparse gradient, an embedding's, is sampled where it is not 0)
# and others at random; tensors this small or smaller are kept whole.
SAMPLE_LARGEST = 16
SAMPLE_RANDOM = 48

FAILING = ("FAIL", "ERROR", "TIMEOUT", "NOT_RUN")


# --- Shared with the preparation ---------------------------------------------

def model_spec(model):
    return os.path.join(ROOT, "models", f"{model}.pbtxt")


def fnv1a(text):
    value = 0xcbf29ce484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return value


def sha256(array):
    import numpy as np
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def fingerprint(name, array):
    """What is kept of a tensor: its shape, float64 L2 norm, sum and largest
    magnitude, the SHA-256 of its bytes, and a fixed sample of elements
    (flat indices and values; every element of a small tensor)."""
    import numpy as np
    flat = np.asarray(array, np.float64).ravel()
    if flat.size <= SAMPLE_LARGEST + SAMPLE_RANDOM:
        index = np.arange(flat.size)
    else:
        largest = np.argpartition(-np.abs(flat), SAMPLE_LARGEST)[
            :SAMPLE_LARGEST]
        others = np.random.default_rng(fnv1a(name)).choice(
            flat.size, SAMPLE_RANDOM, replace=False)
        index = np.unique(np.concatenate([largest, others]))
    return {"shape": list(np.shape(array)),
            "norm": float(np.linalg.norm(flat)),
            "sum": float(flat.sum()),
            "max_abs": float(np.max(np.abs(flat))) if flat.size else 0.0,
            "sha256": sha256(array),
            "index": [int(i) for i in index],
            "value": [float(flat[i]) for i in index]}


def blob_id(path):
    """The git blob id of a file's content, computed without git."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def clean(value):
    """`value` as standard JSON: numpy scalars as Python numbers, floats
    that are not finite as strings."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def read_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, value, indent=1):
    with open(path, "w") as f:
        json.dump(clean(value), f, indent=indent,
                  separators=None if indent else (",", ":"))
        f.write("\n")


def command_output(command, timeout=30):
    """The stdout of `command`, or None when it cannot be run or fails."""
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


# --- machine: what this machine has ------------------------------------------

def find_tool(name, cuda_root):
    """A CUDA tool on PATH or in the toolkit (compute-sanitizer has its
    own directory there)."""
    found = shutil.which(name)
    if found or not cuda_root:
        return found
    for candidate in (os.path.join(cuda_root, "bin", name),
                      os.path.join(cuda_root, name, name)):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def machine_info(cuda_root, python):
    """The facts gpu-check.json records, each None where missing."""
    info = {"cuda_root": cuda_root, "cpus": os.cpu_count(),
            "memory_gib": round(os.sysconf("SC_PAGE_SIZE")
                                * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)}
    smi = command_output(["nvidia-smi", "--query-gpu=name,driver_version,"
                          "memory.total,compute_cap",
                          "--format=csv,noheader"])
    gpus = [line.split(", ") for line in (smi or "").strip().splitlines()]
    info["gpus"] = [dict(zip(("name", "driver", "memory", "compute_cap"), g))
                    for g in gpus]
    found = re.search(r"CUDA Version:\s*([\d.]+)",
                      command_output(["nvidia-smi"]) or "")
    info["driver_cuda"] = found.group(1) if found else None
    nvcc = find_tool("nvcc", cuda_root)
    found = nvcc and re.search(r"release [\d.]+, V([\d.]+)",
                               command_output([nvcc, "--version"]) or "")
    info["nvcc"] = {"path": nvcc, "version": found.group(1) if found else None}
    sanitizer = find_tool("compute-sanitizer", cuda_root)
    found = sanitizer and re.search(r"Version ([\d.]+)", command_output(
        [sanitizer, "--version"]) or "")
    info["compute_sanitizer"] = {"path": sanitizer,
                                 "version": found.group(1) if found else None}
    for tool, command in (("cmake", ["cmake", "--version"]),
                          ("ninja", ["ninja", "--version"]),
                          ("cxx", ["c++", "--version"])):
        out = command_output(command)
        info[tool] = out.splitlines()[0].strip() if out else None
    info["python"] = {"path": python, "version": sys.version.split()[0]}
    # A broken installation raises more than ImportError; the report says
    # what and goes on.
    try:
        import numpy
        info["numpy"] = numpy.__version__
    except Exception as error:  # noqa: BLE001
        info["numpy"] = None
        info["numpy_error"] = f"{type(error).__name__}: {error}"
    try:
        import torch
        info["torch"] = {"version": torch.__version__,
                         "cuda": torch.version.cuda,
                         "gpu": (torch.cuda.get_device_name(0)
                                 if torch.cuda.is_available() else None)}
    except Exception as error:  # noqa: BLE001
        info["torch"] = None
        info["torch_error"] = f"{type(error).__name__}: {error}"
    return info


def print_machine(info):
    def line(label, text):
        print(f"  {label:<18} {text}")
    missing = "MISSING"
    if info["gpus"]:
        for gpu in info["gpus"]:
            line("GPU", f"{gpu.get('name')}, {gpu.get('memory')}, compute "
                        f"{gpu.get('compute_cap')}, driver {gpu.get('driver')}"
                        f" (CUDA {info['driver_cuda']})")
    else:
        line("GPU", f"{missing}: nvidia-smi finds none")
    nvcc = info["nvcc"]
    line("nvcc", f"{nvcc['version']} ({nvcc['path']})" if nvcc["path"]
         else missing)
    line("cmake", info["cmake"] or missing)
    line("ninja", info["ninja"] or "none (Makefiles instead)")
    line("c++", info["cxx"] or missing)
    python = info["python"]
    line("python", f"{python['version']} ({python['path']}), numpy "
                   f"{info['numpy'] or missing}")
    torch = info["torch"]
    line("torch", f"{torch['version']}, CUDA {torch['cuda']}, GPU "
                  f"{torch['gpu'] or 'not available'}" if torch else
         f"{missing}: {info.get('torch_error')}")
    sanitizer = info["compute_sanitizer"]
    line("compute-sanitizer", f"{sanitizer['version']} ({sanitizer['path']})"
         if sanitizer["path"] else missing)
    line("CPUs", f"{info['cpus']}, {info['memory_gib']} GiB")


def machine_command(args):
    info = machine_info(args.cuda_root, sys.executable)
    print_machine(info)
    if args.out:
        write_json(args.out, info)
    return 0


# --- prepared: what build-gpu-check/ holds -----------------------------------

def verify_prepared(prepared):
    """The verdict on build-gpu-check/: "fail" when it is incomplete,
    corrupt or made for another commit, "warn" when the files here differ
    from those it was made from, else "ok"; with a message saying why."""
    index_path = os.path.join(prepared, "index.json")
    if not os.path.isfile(index_path):
        return {"status": "fail", "message": f"{index_path} is missing: run "
                "`make gpu-check-prep` where MLIR is, and carry "
                "build-gpu-check/"}
    index = read_json(index_path)
    verdict = {"commit": index.get("commit"), "date": index.get("date"),
               "models": sorted(index.get("models", {}))}
    if index.get("schema") != SCHEMA:
        return dict(verdict, status="fail", message=f"index.json is of "
                    f"schema {index.get('schema')}, this script reads "
                    f"{SCHEMA}: prepare again")
    for path, digest in index["files"].items():
        full = os.path.join(prepared, path)
        if not os.path.isfile(full):
            return dict(verdict, status="fail",
                        message=f"{full} is missing: carry all of "
                                f"build-gpu-check/")
        with open(full, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != digest["sha256"]:
                return dict(verdict, status="fail",
                            message=f"{full} is not the file prepared")
    checkout = None
    if os.path.isdir(os.path.join(ROOT, ".git")):
        out = command_output(["git", "-C", ROOT, "rev-parse", "HEAD"])
        checkout = out.strip() if out else None
    verdict["checkout_commit"] = checkout
    # The files the preparation saw against those here: they decide, since
    # a copy's .git may lag behind its files (a GPU machine's copy of the
    # working tree can carry the .git of an earlier commit).
    differ = []
    for path, blob in sorted(index["tree"].items()):
        full = os.path.join(ROOT, path)
        here = blob_id(full) if os.path.isfile(full) else None
        if here != blob:
            differ.append(path)
    verdict["tree_differs"] = differ
    other_commit = checkout and checkout != index["commit"]
    shown = ", ".join(differ[:6]) + (", ..." if len(differ) > 6 else "")
    if other_commit and differ:
        return dict(verdict, status="fail", message=(
            f"prepared for commit {index['commit'][:12]}, this checkout is "
            f"{checkout[:12]} and {len(differ)} file(s) differ ({shown}): "
            f"run `make gpu-check-prep` again"))
    if differ:
        return dict(verdict, status="warn", message=(
            f"{len(differ)} file(s) here differ from those prepared from: "
            f"{shown}"))
    if other_commit:
        note = (f" (git says {checkout[:12]}, but every file is as at "
                f"{index['commit'][:12]})")
    elif not checkout:
        note = " (no .git here: the commit is known from the files only)"
    else:
        note = ""
    return dict(verdict, status="ok",
                message="the files here are those prepared from" + note)


def prepared_command(args):
    verdict = verify_prepared(args.prepared)
    index_path = os.path.join(args.prepared, "index.json")
    if os.path.isfile(index_path):
        index = read_json(index_path)
        dirty = index.get("uncommitted", [])
        models = ", ".join(
            f"{m} ({', '.join(f'{k}={v}' for k, v in d['dims'].items())})"
            for m, d in index.get("models", {}).items())
        print(f"  prepared           commit {str(index.get('commit'))[:12]}"
              + (f" with {len(dirty)} uncommitted change(s)" if dirty else "")
              + f", {index.get('date')}, {index.get('size_mib')} MiB: "
              + models)
    label = {"ok": "OK", "warn": "WARNING",
             "fail": "FAILED"}[verdict["status"]]
    print(f"  checkout           {label}: {verdict['message']}")
    if args.out:
        write_json(args.out, verdict)
    return 1 if verdict["status"] == "fail" else 0


# --- worker: one model's checks ----------------------------------------------

class NoDevice(Exception):
    """--no-gpu: the session could not be created, as expected."""


class Events:
    """The worker's results, one JSON line each, flushed as written so that
    the parent reads everything up to a hang or a crash."""

    def __init__(self, path):
        self.file = open(path, "w")

    def write(self, **event):
        self.file.write(json.dumps(clean(event)) + "\n")
        self.file.flush()


def recorder_class():
    import training_parity

    class Recorder(training_parity.Checks):
        """training_parity's Checks (which print the lines of the log) that
        also keep every line as an item of the check under way."""

        def __init__(self, model):
            super().__init__(model)
            self.items = []

        def record(self, what, error, bound, detail=""):
            super().record(what, error, bound, detail)
            self.items.append({"what": what, "error": float(error),
                               "bound": float(bound),
                               "ok": bool(error <= bound),
                               "detail": detail.strip(" ()")})

        def fail(self, what, message):
            super().fail(what, message)
            self.items.append({"what": what, "error": None, "bound": None,
                               "ok": False, "detail": message})

        def item(self, what, error, bound, ok, rel=None, detail=""):
            """A line of a check that is no plain error-under-bound one."""
            verdict = "OK" if ok else "MISMATCH"
            print(f"{verdict} {self.model} {what}: max err {error:.3g} "
                  f"bound {bound:.3g}" + (f" rel {rel:.3g}" if rel is not None
                                          else "") +
                  (f" ({detail})" if detail else ""), flush=True)
            if not ok:
                self.failures.append(what)
            self.items.append({"what": what, "error": float(error),
                               "bound": float(bound), "ok": bool(ok),
                               "rel": rel, "detail": detail})

    return Recorder


def split_batches(arrays, order):
    """{part: {name: array}} of the prepared batches, each part's names in
    the order the manifest gives them (check_signatures compares it)."""
    import numpy as np
    return {part: {name: np.array(arrays[f"{part}.{name}"]) for name in names}
            for part, names in order.items()}


class ModelRun:
    """One model on the device: its artifact, session, twins, the prepared
    batches and references, and what each check leaves for the next."""

    def __init__(self, args, index):
        import numpy as np
        import torch
        import forward_parity
        import runtime_api
        import safetensors_io
        import training_parity as tp
        self.np, self.torch, self.tp = np, torch, tp
        self.runtime_api = runtime_api
        self.forward_parity = forward_parity
        self.model = args.model
        entry = index["models"][self.model]
        self.dims = entry["dims"]
        prepared = lambda name: os.path.join(args.prepared, entry["dir"], name)

        options = index["options"]
        with open(model_spec(self.model)) as f:
            copy, self.settings, self.schedule, training = tp.spec_copy(
                f.read(), options["optimizer"], options["schedule"],
                options["adam_eps"], options["clip"])
        with open(prepared("spec.pbtxt")) as f:
            if f.read() != copy:
                raise RuntimeError(
                    f"models/{self.model}.pbtxt changed since the preparation:"
                    f" its spec copy differs from the prepared one")
        self.clip = options["clip"]
        self.seed = index["init_seed"]

        # PyTorch built without CUDA still makes an oracle, on the CPU.
        self.device = torch.device(
            "cuda" if not args.cpu_stand_in and torch.cuda.is_available()
            else "cpu")
        if self.device.type == "cuda":
            tp.exact_float32()
            self.twins_on = f"{torch.cuda.get_device_name(0)} (PyTorch " \
                            f"{torch.__version__}, no TF32)"
        else:
            self.twins_on = f"the CPU (PyTorch {torch.__version__}" + \
                ("" if args.cpu_stand_in else ", which has no CUDA here") + ")"
        lib = runtime_api.load(args.runtime)
        if args.cpu_stand_in:
            # The CPU references were made with one thread.
            torch.set_num_threads(1)
            lib.tf_set_num_threads(1)
            path = os.path.join(ROOT, entry["cpu_artifact"])
        else:
            path = prepared(entry["cuda_artifact"])
        self.artifact = runtime_api.Artifact(lib, path)
        self.dp_artifact = runtime_api.Artifact(
            lib, prepared(entry["cuda_dp_artifact"])) \
            if "cuda_dp_artifact" in entry and not args.cpu_stand_in else None
        self.no_dp_artifact = (
            "the CPU stand-in runs no data-parallel artifact"
            if args.cpu_stand_in else
            "no data-parallel artifact for this model (only "
            f"{', '.join(DATA_PARALLEL_MODELS)} have one)")
        target = self.artifact.target()
        expected = "cpu" if args.cpu_stand_in else "cuda"
        if target != expected:
            raise RuntimeError(f"{path} is for target {target}, not "
                               f"{expected}")
        self.params = [name for name, *_ in self.artifact.parameters()]
        self.state_names = [name for name, *_ in self.artifact.state()]
        limits = {name: limit for name, _, _, limit in
                  self.artifact.inputs("train_step")}
        self.task = tp.Task(self.model, self.dims, tp.spec_loss(training),
                            limits, self.device)
        arrays, _ = safetensors_io.load(prepared("batches.safetensors"))
        self.batches = split_batches(arrays, entry["batches"])
        self.reference = read_json(prepared("reference.json"))
        self.reference_outputs, _ = safetensors_io.load(
            prepared("reference.safetensors"))

        if args.no_gpu:
            try:
                session = runtime_api.Session(self.artifact)
            except runtime_api.TransfuseError as error:
                raise NoDevice(str(error))
            session.destroy()
            raise NoDevice("--no-gpu: a session could be created, but the "
                           "checks are skipped")
        self.session = runtime_api.Session(self.artifact)
        self.session.init_parameters(self.seed)
        self.init_values = {n: self.session.parameter(n) for n in self.params}
        torch.manual_seed(0)
        twin32 = tp.build_twin(self.model).train().to(self.device)
        twin64 = tp.build_twin(self.model).train().double().to(self.device)
        for twin in (twin32, twin64):
            tp.load_twin(twin, self.init_values)
        self.twins = (twin32, twin64)
        # What the checks leave for cpu and determinism.
        self.results = {}
        self.extra_seconds = 0.0

    def twice(self, entry, inputs):
        """Runs `entry` twice: the first outputs, and the second's kept for
        the determinism check (its time counted there)."""
        first = self.session.run(entry, inputs)
        start = time.monotonic()
        self.results[entry + " again"] = self.session.run(entry, inputs)
        self.extra_seconds += time.monotonic() - start
        return first

    # a. Against PyTorch.

    def check_forward(self, checks):
        inputs = self.batches["forward"]
        outputs = self.twice("forward", inputs)
        self.results["forward"] = outputs
        expected = [self.forward_parity.torch_forward(
            twin, self.model, inputs, self.device) for twin in self.twins]
        if len(outputs) != 1:
            return checks.fail("forward outputs", f"{sorted(outputs)}, "
                                                  f"expected one")
        name, ours = next(iter(outputs.items()))
        error, bound = self.tp.deviation(
            ours, expected[0].double().cpu().numpy(),
            expected[1].cpu().numpy())
        self.results["forward bounds"] = {name: bound}
        checks.record(f"forward {name}", error, bound)

    def check_decoding(self, checks):
        """Incremental decoding on the device against the device's own
        forward on the forward batch: encode (an encoder-decoder), prefill
        on prompts of different lengths, then decode_step position by
        position, rows at different positions, and a step after
        reorder_cache has permuted the sequences. Positions from a row's
        first pad id (0) on are not compared: a step does not mask target
        padding (docs/generation.md). Each side is within the forward
        bound of float64, so they are held to twice it."""
        np = self.np
        entries = set(self.artifact.entry_points())
        if not {"prefill", "decode_step", "reorder_cache"} <= entries:
            return checks.item("no decoding entry points (the model does "
                               "not decode incrementally)", 0.0, 0.0, True)
        if "forward bounds" not in self.results:
            return self.missing(checks, "decoding", "forward")
        (name, full), = self.results["forward"].items()
        bound = 2 * self.results["forward bounds"][name]
        # The parameters forward ran with (train_step has moved them).
        self.session.init_parameters(self.seed)
        inputs = self.batches["forward"]
        sources = ([n for n, *_ in self.artifact.inputs("encode")]
                   if "encode" in entries else [])
        target, = [n for n in inputs if n not in sources]
        tokens = np.asarray(inputs[target])
        batch, length = tokens.shape
        pads = tokens == 0
        valid = np.where(pads.any(axis=1), pads.argmax(axis=1), length)
        # Prompts of different lengths, each leaving a position to step
        # through before the row's padding where it can.
        prompt = np.clip(np.linspace(1, length, batch).astype(int), 1,
                         np.maximum(valid - 1, 1))
        source = {n: np.asarray(inputs[n]) for n in sources}

        def run(entry, **named):
            return self.session.run(entry, {**source, **named})

        def compare(what, ours, reference):
            error = float(np.max(np.abs(np.asarray(ours, np.float64)
                                        - reference), initial=0.0))
            checks.item(what, error, bound, error <= bound)

        if sources:
            run("encode")
        padded = np.where(np.arange(length) < prompt[:, None], tokens, 0)
        prefilled = run("prefill", **{target: padded})[name]
        for row in range(batch):
            upto = min(prompt[row], valid[row])
            if upto:
                compare(f"prefill row {row}, {upto} positions",
                        prefilled[row, :upto], full[row, :upto])
        position, steps, compared = prompt.copy(), 0, 0
        while (position < length).any():
            at = np.minimum(position, length - 1)
            step = run("decode_step", **{
                target: tokens[np.arange(batch), at].reshape(batch, 1),
                "positions": at.astype(np.int64)})[name]
            rows = np.nonzero(position < valid)[0]
            if len(rows):
                compare(f"decode_step {steps}, {len(rows)} rows",
                        step[rows, 0], full[rows, position[rows]])
                compared += len(rows)
            position += 1
            steps += 1
        if not compared:
            checks.fail("decode_step", "no position to compare")
        # The sequences rolled by one after a prefill of the whole batch.
        last = int(valid.min()) - 1
        if last < 0:
            return checks.fail("reorder_cache", "a row starts with padding")
        beams = np.roll(np.arange(batch), 1).astype(np.int64)
        run("prefill", **{target: tokens})
        self.session.run("reorder_cache", {"beams": beams})
        source = {n: value[beams] for n, value in source.items()}
        step = run("decode_step", **{
            target: tokens[beams, last].reshape(batch, 1),
            "positions": np.full(batch, last, np.int64)})[name]
        compare(f"reorder_cache then decode_step at {last}", step[:, 0],
                full[beams, last])

    def check_loss(self, checks):
        batch = self.batches["batch"]
        ours = self.session.run("loss", batch)["loss"]
        with self.torch.no_grad():
            loss32, loss64 = (float(self.task.loss(twin, batch))
                              for twin in self.twins)
        self.results["loss"] = ours
        error, bound = self.tp.deviation(ours, loss32, self.np.float64(loss64))
        self.results["loss bound"] = bound
        checks.record("loss entry point", error, bound)

    def check_loss_and_grads(self, checks):
        batch = self.batches["batch"]
        self.tp.check_signatures(checks, self.artifact, list(batch))
        outputs, loss, grads = self.tp.check_gradients(
            checks, self.session, self.task, self.twins, batch, self.params,
            False)
        start = time.monotonic()
        self.results["loss_and_grads again"] = self.session.run(
            "loss_and_grads", batch)
        self.extra_seconds += time.monotonic() - start
        self.results["loss_and_grads"] = outputs
        self.results["loss_and_grads bounds"] = (loss, grads)

    def check_train_step(self, checks):
        # From the same start as the CPU reference: initialised, no state,
        # step 0.
        self.session.init_parameters(self.seed)
        steps = [self.batches[f"step{k}"] for k in range(1, STEPS + 1)]
        records = self.tp.check_training(
            checks, self.session, self.twins, self.task, steps, self.settings,
            self.schedule, self.clip, self.params, self.state_names, False)
        self.results["steps"] = records
        self.results["final parameters"] = {
            n: self.session.parameter(n) for n in self.params}
        self.results["final state"] = {
            n: self.session.state(n) for n in self.state_names}

    # b. Against the CPU artifact.

    def compare_set(self, checks, what, ours, references, bounds):
        """Tensors against the CPU reference's fingerprints, each under its
        bound. A fingerprint's error is the largest of its sampled
        elements' differences, |difference of L2 norms| / sqrt(n) and
        |difference of sums| / n: each at most max|ours - cpu|, so it is a
        lower bound of the elementwise error the bound is for."""
        np = self.np
        if set(ours) != set(references):
            differ = sorted(set(ours) ^ set(references))[:3]
            return checks.fail(what, f"tensors differ: {differ}")
        worst, failing, rel, norm_rel = None, [], 0.0, 0.0
        for name, reference in references.items():
            array = np.asarray(ours[name], np.float64)
            if list(array.shape) != reference["shape"]:
                return checks.fail(what, f"{name} has shape {array.shape}, "
                                         f"the CPU's {reference['shape']}")
            flat = array.ravel()
            size = max(flat.size, 1)
            sampled = np.abs(flat[reference["index"]]
                             - np.asarray(reference["value"]))
            norm = float(np.linalg.norm(flat))
            error = max(float(sampled.max()) if sampled.size else 0.0,
                        abs(norm - reference["norm"]) / math.sqrt(size),
                        abs(float(flat.sum()) - reference["sum"]) / size)
            if not math.isfinite(error):
                error = math.inf
            bound = bounds[name]
            rel = max(rel, error / max(reference["max_abs"], 1e-30))
            norm_rel = max(norm_rel, abs(norm - reference["norm"])
                           / max(reference["norm"], 1e-30))
            if error > bound:
                failing.append(name)
            if worst is None or error / bound > worst[0] / worst[1]:
                worst = (error, bound, name)
        error, bound, name = worst
        checks.item(f"{what} ({len(references)} tensors)", error, bound,
                    not failing, rel,
                    f"closest to its bound: {name}; L2 norms within "
                    f"{norm_rel:.3g} relative" +
                    (f"; out of bound: {', '.join(failing[:5])}"
                     if failing else ""))

    def compare_scalar(self, checks, what, ours, reference, bound):
        error = abs(float(ours) - float(reference))
        if not math.isfinite(error):
            error = math.inf
        checks.item(what, error, bound, error <= bound,
                    error / max(abs(float(reference)), 1e-30))

    def missing(self, checks, what, check):
        checks.fail(what, f"not compared: the {check} check did not finish")

    def check_cpu(self, checks):
        """The results above against the CPU artifact's. Where both ran on
        the same inputs, each is within its own bound of float64 (ours
        measured here, the CPU's by the preparation against PyTorch on the
        CPU), so they are held to the sum."""
        np, reference = self.np, self.reference
        cpu_bounds = reference["bounds"]
        # The initialisation is the runtime's on both sides: bit for bit.
        differ = [n for n in self.params if sha256(self.init_values[n])
                  != reference["init"][n]["sha256"]]
        largest = 0.0
        for name in differ:
            flat = np.asarray(self.init_values[name], np.float64).ravel()
            fp = reference["init"][name]
            largest = max(largest, float(np.max(np.abs(
                flat[fp["index"]] - np.asarray(fp["value"])), initial=0.0)))
        shown = f"differ: {', '.join(differ[:5])}" if differ else ""
        checks.item(f"initial parameters bit-identical ({len(self.params)} "
                    f"tensors)", largest, 0.0, not differ, detail=shown)

        if "forward bounds" in self.results:
            for name, ours in self.results["forward"].items():
                cpu = np.asarray(self.reference_outputs[f"forward.{name}"],
                                 np.float64)
                error = float(np.max(np.abs(ours - cpu))) if cpu.size else 0.0
                bound = (self.results["forward bounds"][name]
                         + cpu_bounds["forward"][name])
                checks.item(f"forward {name}", error, bound, error <= bound,
                            error / max(float(np.max(np.abs(cpu))), 1e-30))
        else:
            self.missing(checks, "forward", "forward")

        if "loss bound" in self.results:
            self.compare_scalar(checks, "loss entry point",
                                self.results["loss"], reference["loss"],
                                self.results["loss bound"] + cpu_bounds["loss"])
        else:
            self.missing(checks, "loss entry point", "loss")

        loss, grads = self.results.get("loss_and_grads bounds", (None, None))
        if loss and grads:
            outputs = self.results["loss_and_grads"]
            cpu = cpu_bounds["loss_and_grads"]
            self.compare_scalar(checks, "loss_and_grads loss", outputs["loss"],
                                reference["loss_and_grads"]["loss"],
                                loss[1] + cpu["loss"])
            self.compare_set(
                checks, "loss_and_grads grads",
                {n: outputs[f"grad.{n}"] for n in self.params},
                reference["loss_and_grads"]["grads"],
                {n: bound + cpu["grads"][n]
                 for n, (_, bound) in grads.items()})
        else:
            self.missing(checks, "loss_and_grads", "loss_and_grads")

        steps = self.results.get("steps", [])
        if len(steps) == STEPS and all(s["parameters"] for s in steps):
            for record, cpu in zip(steps, reference["steps"]):
                step = record["result"]["step"]
                self.compare_scalar(checks, f"train_step {step} lr",
                                    record["result"]["lr"], cpu["lr"],
                                    record["lr"][1])
                for key in ("loss", "grad_norm"):
                    what = f"train_step {step} {key}"
                    if step == 1:
                        self.compare_scalar(
                            checks, what, record["result"][key], cpu[key],
                            record[key][1] + cpu_bounds["step1"][key])
                        continue
                    # From step 2 on, the two sides' parameters differ by
                    # the rounding of the steps before, and a loss or a
                    # gradient norm can swing far more than that (char_lm's
                    # norm moves by 1% when its parameters move by 1e-5).
                    # train_step checks every step from one state; the
                    # trajectories are held to the parameters below.
                    error = abs(float(record["result"][key]) - float(cpu[key]))
                    checks.item(what, error, math.inf, True,
                                error / max(abs(float(cpu[key])), 1e-30),
                                "not judged: the parameters differ by now")
            # The trajectories run apart by up to each step's bound: the
            # parameters after the last step are held to their sum, the
            # optimizer state (checked after the last step only) to the
            # last step's bound times the steps.
            bounds = {n: sum(s["parameters"][n][1] for s in steps)
                      for n in self.params}
            self.compare_set(checks, f"train_step {STEPS} parameters",
                             self.results["final parameters"],
                             reference["final_parameters"], bounds)
            if self.state_names and steps[-1].get("state"):
                bounds = {n: STEPS * steps[-1]["state"][n][1]
                          for n in self.state_names}
                self.compare_set(checks, f"train_step {STEPS} optimizer state",
                                 self.results["final state"],
                                 reference["final_state"], bounds)
        else:
            self.missing(checks, "train_step", "train_step")

    # c. Run to run.

    def check_determinism(self, checks):
        for entry in ("forward", "loss_and_grads"):
            if entry + " again" not in self.results:
                self.missing(checks, entry, entry)
                continue
            self.compare_bitwise(checks, f"{entry} twice",
                                 self.results[entry],
                                 self.results[entry + " again"])

    def compare_bitwise(self, checks, what, first, second):
        """One item: the tensors {name: array} of `first` and `second` are
        the same bytes."""
        np = self.np
        differ = [n for n in first if first[n].tobytes() != second[n].tobytes()]
        largest = max((float(np.nan_to_num(np.max(np.abs(
            first[n].astype(np.float64) - second[n])), nan=math.inf))
            for n in differ), default=0.0)
        checks.item(f"{what}: {len(first)} outputs bit-identical",
                    largest, 0.0, not differ,
                    detail=f"differ: {', '.join(differ[:5])}"
                    if differ else "")

    # d. CUDA graphs against kernel-by-kernel launches.

    def check_graphs(self, checks):
        """The same calls in a fresh session that replays each entry point
        as a CUDA graph (the runtime's default) and in one that launches
        kernel by kernel (TRANSFUSE_CUDA_GRAPHS=0), both from the seeded
        initialisation, bit for bit: forward three times (uncaptured,
        captured, replayed), the five train steps, loss_and_grads three
        times, then every parameter and optimizer state tensor."""
        calls = {}
        for graphs in ("1", "0"):
            os.environ["TRANSFUSE_CUDA_GRAPHS"] = graphs
            try:
                session = self.runtime_api.Session(self.artifact)
            finally:
                del os.environ["TRANSFUSE_CUDA_GRAPHS"]
            try:
                calls[graphs] = self.graph_calls(session)
            finally:
                session.destroy()
        replayed, launched = calls["1"], calls["0"]
        for what in launched:
            self.compare_bitwise(checks, f"{what}, graph against launches",
                                 replayed[what], launched[what])

    # e. The data-parallel artifact in one process, and NCCL on one rank.

    def check_nccl(self, checks):
        """The data-parallel artifact (--data-parallel) in one process: its
        all-reduces return at once, so check_graphs' calls give the plain
        artifact's results bit for bit. With TRANSFUSE_NCCL=1 the same
        calls all-reduce every bucket over a single-rank NCCL communicator
        (the weight is 1), which must not change a bit either."""
        if self.dp_artifact is None:
            checks.item(self.no_dp_artifact, 0.0, 0.0, True)
            return
        calls = {}
        for name, artifact, live in (("plain", self.artifact, None),
                                     ("one process", self.dp_artifact, None),
                                     ("NCCL", self.dp_artifact, "1")):
            if live:
                os.environ["TRANSFUSE_NCCL"] = live
            try:
                session = self.runtime_api.Session(artifact)
            finally:
                os.environ.pop("TRANSFUSE_NCCL", None)
            try:
                calls[name] = self.graph_calls(session)
            finally:
                session.destroy()
        for what in calls["plain"]:
            self.compare_bitwise(
                checks, f"{what}, data-parallel in one process against plain",
                calls["one process"][what], calls["plain"][what])
            self.compare_bitwise(
                checks, f"{what}, single-rank NCCL against none",
                calls["NCCL"][what], calls["one process"][what])

    def graph_calls(self, session):
        """{call: {name: array}} of check_graphs' calls in `session`."""
        np = self.np
        session.init_parameters(self.seed)
        results = {}
        for k in range(1, 4):
            results[f"forward {k}"] = session.run("forward",
                                                  self.batches["forward"])
        for k in range(1, STEPS + 1):
            reported = session.train_step(self.batches[f"step{k}"])
            results[f"train_step {k}"] = {
                n: np.asarray(v, np.float64) for n, v in reported.items()}
        for k in range(1, 4):
            results[f"loss_and_grads {k}"] = session.run(
                "loss_and_grads", self.batches["batch"])
        results["parameters"] = {n: session.parameter(n) for n in self.params}
        results["optimizer state"] = {n: session.state(n)
                                      for n in self.state_names}
        return results


def worker_command(args):
    """One model's checks; each check's result is an event of the results
    file, each check is stopped by faulthandler (which exits the process)
    when it runs past its time limit."""
    import faulthandler
    index = read_json(os.path.join(args.prepared, "index.json"))
    events = Events(args.results)
    timeouts = dict(TIMEOUTS.get(args.model, TIMEOUTS["small"]))
    if args.check_timeout:
        timeouts = {name: args.check_timeout for name in timeouts}

    def limit(check):
        events.write(event="begin", check=check, timeout=timeouts[check])
        faulthandler.dump_traceback_later(timeouts[check], exit=True)
        if args.simulate_hang == check:
            time.sleep(10 * timeouts[check])

    start = time.monotonic()
    limit("setup")
    try:
        run = ModelRun(args, index)
        status, message = "OK", f"twins on {run.twins_on}"
    except NoDevice as error:
        status, message = "SKIPPED", str(error)
    except Exception as error:  # noqa: BLE001 - reported, not hidden
        traceback.print_exc()
        status, message = "ERROR", f"{type(error).__name__}: {error}"
    faulthandler.cancel_dump_traceback_later()
    events.write(event="setup", status=status, message=message,
                 seconds=time.monotonic() - start)
    if status != "OK":
        return 0 if status == "SKIPPED" else 1

    checks = recorder_class()(args.model)
    bodies = {"forward": run.check_forward, "decoding": run.check_decoding,
              "loss": run.check_loss,
              "loss_and_grads": run.check_loss_and_grads,
              "train_step": run.check_train_step, "cpu": run.check_cpu,
              "determinism": run.check_determinism,
              "graphs": run.check_graphs, "nccl": run.check_nccl}
    for check in CHECKS:
        checks.items = []
        limit(check)
        start = time.monotonic()
        try:
            bodies[check](checks)
            message = ""
            status = "PASS" if all(i["ok"] for i in checks.items) else "FAIL"
            if not checks.items:
                status, message = "ERROR", "the check compared nothing"
        except Exception as error:  # noqa: BLE001 - reported, not hidden
            traceback.print_exc()
            status, message = "ERROR", f"{type(error).__name__}: {error}"
        faulthandler.cancel_dump_traceback_later()
        seconds = time.monotonic() - start
        if check == "determinism":
            seconds += run.extra_seconds
        events.write(event="end", check=check, status=status,
                     message=message, seconds=seconds, items=checks.items)
    return 0


# --- run: every check, the table, the JSON -----------------------------------

class Runner:
    """Runs the units in ORDER within the budget and collects their rows."""

    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        self.logs = os.path.join(self.out, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.started = time.time()
        self.deadline = args.deadline or self.started + args.budget
        self.rows = []
        # Per model: its worker's setup event (where the twins ran, how
        # long opening everything took) and exit status.
        self.workers = {}
        self.index = read_json(os.path.join(args.prepared, "index.json"))

    def remaining(self):
        return self.deadline - RESERVE - time.time()

    def elapsed(self):
        return time.time() - self.started

    def relative(self, path):
        return os.path.relpath(path, self.out)

    def row(self, model, check, status, seconds=0.0, message="", items=(),
            log=None):
        row = {"model": model, "check": check, "status": status,
               "seconds": round(seconds, 2), "message": message,
               "items": list(items), "log": log}
        row.update(summarise(row["items"]))
        self.rows.append(row)
        return row

    def progress(self, label, rows, seconds):
        if len(rows) > 1 and rows[0]["message"] and \
                len({(r["status"], r["message"]) for r in rows}) == 1:
            states = f"all {len(rows)} checks {rows[0]['status']}: " \
                     f"{rows[0]['message'][:200]}"
        else:
            states = ", ".join(f"{r['check']} {r['status']}" for r in rows)
        print(f"[{self.elapsed():5.0f}s] {label}: {states} ({seconds:.1f} s)",
              flush=True)

    # A model's worker.

    def model(self, model):
        log = os.path.join(self.logs, f"{model}.log")
        results = os.path.join(self.logs, f"{model}.events.jsonl")
        timeouts = TIMEOUTS.get(model, TIMEOUTS["small"])
        timeout = min(sum(timeouts.values()) + 30, self.remaining())
        if model not in self.index["models"]:
            return self.progress(model, [self.row(
                model, c, "NOT_RUN", message="not prepared") for c in CHECKS],
                0.0)
        if timeout < MIN_UNIT:
            return self.progress(model, [self.row(
                model, c, "NOT_RUN", message="out of time") for c in CHECKS],
                0.0)
        command = [sys.executable, os.path.abspath(__file__), "worker",
                   "--prepared", self.args.prepared,
                   "--runtime", self.args.runtime, "--model", model,
                   "--results", results]
        for flag in ("no_gpu", "cpu_stand_in"):
            if getattr(self.args, flag):
                command.append("--" + flag.replace("_", "-"))
        if self.args.check_timeout:
            command += ["--check-timeout", str(self.args.check_timeout)]
        if self.args.simulate_hang and self.args.simulate_hang[0] == model:
            command += ["--simulate-hang", self.args.simulate_hang[1]]
        start = time.monotonic()
        killed = False
        with open(log, "w") as out:
            try:
                status = subprocess.run(command, stdout=out,
                                        stderr=subprocess.STDOUT,
                                        timeout=timeout).returncode
            except subprocess.TimeoutExpired:
                killed, status = True, None
        seconds = time.monotonic() - start
        events = []
        if os.path.isfile(results):
            with open(results) as f:
                events = [json.loads(line) for line in f if line.strip()]
        with open(log, errors="replace") as f:
            text = f.read()
        timed_out = killed or "Timeout (" in text
        tail = " | ".join(text.strip().splitlines()[-3:])
        rows = self.model_rows(model, events, status, killed, timed_out, tail,
                               self.relative(log))
        setup = next((e for e in events if e["event"] == "setup"), {})
        self.workers[model] = {"exit_status": status, "killed": killed,
                               "seconds": round(seconds, 2),
                               "setup": setup, "log": self.relative(log)}
        label = model
        if setup.get("status") == "OK":
            label += f" ({setup['message']})"
        self.progress(label, rows, seconds)

    def model_rows(self, model, events, status, killed, timed_out, tail, log):
        setup = next((e for e in events if e["event"] == "setup"), None)
        if setup is None:
            if timed_out:
                why = ("out of time" if killed else "setup ran past its "
                       "limit") + " (opening the GPU, PyTorch, the artifact)"
                state = "TIMEOUT"
            else:
                why = f"the worker exited with status {status} in setup: " \
                      f"{tail}"
                state = "ERROR"
            return [self.row(model, c, state, message=why, log=log)
                    for c in CHECKS]
        if setup["status"] != "OK":
            return [self.row(model, c, setup["status"],
                             message=setup["message"], log=log)
                    for c in CHECKS]
        ended = {e["check"]: e for e in events if e["event"] == "end"}
        begun = {e["check"]: e["timeout"] for e in events
                 if e["event"] == "begin"}
        rows, stopped = [], None
        for check in CHECKS:
            if check in ended:
                e = ended[check]
                rows.append(self.row(model, check, e["status"], e["seconds"],
                                     e["message"], e["items"], log))
            elif check in begun and stopped is None:
                stopped = check
                if timed_out:
                    rows.append(self.row(
                        model, check, "TIMEOUT", 0.0 if killed else
                        begun[check], "stopped: out of time" if killed else
                        f"ran past its limit of {begun[check]:g} s", log=log))
                else:
                    rows.append(self.row(model, check, "ERROR", message=(
                        f"the worker died (status {status}): {tail}"),
                        log=log))
            else:
                rows.append(self.row(model, check, "NOT_RUN", message=(
                    f"the worker stopped in {stopped}" if stopped
                    else f"the worker exited with status {status}"), log=log))
        return rows

    # A sanitizer run.

    def sanitizer(self, number):
        tool, model = SANITIZERS[number]
        label = f"{tool} {model}"
        log = os.path.join(self.logs, f"{tool}-{model}.log")
        entry = self.index["models"].get(model)
        data = self.index.get("sanitizer_data", {}).get(model)
        if not entry or not data:
            return self.progress(label, [self.row(
                model, tool, "NOT_RUN", message="not prepared")], 0.0)
        train = os.path.join(self.args.bin_dir, "transfuse-train")
        command = [os.path.join(self.args.prepared, entry["dir"],
                                entry["cuda_artifact"]),
                   "--data", os.path.join(self.args.prepared, data),
                   "--steps", str(SANITIZER_STEPS[tool]), "--quiet"]
        if self.args.no_gpu or self.args.cpu_stand_in:
            with open(log, "w") as f:
                f.write(" ".join([train] + command) + "\n")
            return self.progress(label, [self.row(
                model, tool, "SKIPPED", message="not run with " + (
                    "--no-gpu" if self.args.no_gpu else "--cpu-stand-in") +
                ": its command is in the log", log=self.relative(log))], 0.0)
        sanitizer = find_tool("compute-sanitizer", self.args.cuda_root)
        if not sanitizer:
            return self.progress(label, [self.row(
                model, tool, "ERROR", message="compute-sanitizer is not "
                "installed here")], 0.0)
        timeout = min(SANITIZER_TIMEOUT[tool], self.remaining())
        if timeout < MIN_UNIT:
            return self.progress(label, [self.row(
                model, tool, "NOT_RUN", message="out of time")], 0.0)
        full = [sanitizer, *SANITIZER_OPTIONS[tool], "--error-exitcode",
                str(SANITIZER_EXIT), "--print-limit", "20", train, *command]
        start = time.monotonic()
        with open(log, "w") as out:
            out.write(" ".join(full) + "\n")
            out.flush()
            try:
                status = subprocess.run(full, stdout=out,
                                        stderr=subprocess.STDOUT,
                                        timeout=timeout).returncode
            except subprocess.TimeoutExpired:
                status = None
        seconds = time.monotonic() - start
        with open(log, errors="replace") as f:
            text = f.read()
        state, message, items = sanitizer_verdict(tool, status, text)
        row = self.row(model, tool, state, seconds, message, items,
                       self.relative(log))
        self.progress(label, [row], seconds)

    def run(self):
        for kind, what in ORDER:
            if kind == "model":
                if self.args.models and what not in self.args.models:
                    continue
                self.model(what)
            else:
                if self.args.models and SANITIZERS[what][1] not in \
                        self.args.models:
                    continue
                self.sanitizer(what)


def sanitizer_verdict(tool, status, text):
    """(status, message, items) of a compute-sanitizer run from its exit
    status (None: stopped at its time limit) and output."""
    if status is None:
        return "TIMEOUT", "ran past its limit", []
    summary = re.search(r"ERROR SUMMARY: (\d+) error", text)
    races = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed "
                      r"\((\d+) errors?, (\d+) warnings?\)", text)
    if tool == "racecheck" and races:
        hazards, errors, warnings = (int(races.group(i)) for i in (1, 2, 3))
        items = [{"what": f"racecheck hazards ({errors} errors, {warnings} "
                          f"warnings)", "error": hazards, "bound": 0,
                  "ok": hazards == 0, "detail": ""}]
    elif summary:
        errors = int(summary.group(1))
        items = [{"what": f"{tool} errors", "error": errors, "bound": 0,
                  "ok": errors == 0, "detail": ""}]
    else:
        lines = " | ".join(text.strip().splitlines()[-3:])
        return "ERROR", f"exit status {status}, no summary: {lines}", []
    findings = [line.strip("= ").strip() for line in text.splitlines()
                if line.startswith("========= ") and
                re.search(r"(Invalid|Race|Hazard|error|Error|Leak|leak)",
                          line) and "SUMMARY" not in line][:3]
    if not all(item["ok"] for item in items) or status == SANITIZER_EXIT:
        return "FAIL", " | ".join(findings), items
    if status != 0:
        lines = " | ".join(text.strip().splitlines()[-3:])
        return "ERROR", f"transfuse-train exited with status {status}: " \
                        f"{lines}", items
    return "PASS", "", items


def as_float(value):
    """A number of an item, which JSON may have made a string ("nan")."""
    value = float(value)
    return math.inf if math.isnan(value) else value


def summarise(items):
    """A row's max error, bound and max relative difference: those of its
    item closest to (or furthest beyond) its bound; NaN counts as
    infinitely far."""
    worst, ratio, rel = None, -1.0, None
    for item in items:
        if item.get("error") is None:
            continue
        error, bound = as_float(item["error"]), as_float(item["bound"])
        here = (error / bound if bound else
                (math.inf if error else 0.0))
        if math.isnan(here):  # inf / inf: a bound that is not finite either
            here = math.inf
        if worst is None or here > ratio:
            worst, ratio = item, here
        if item.get("rel") is not None:
            rel = max(rel or 0.0, as_float(item["rel"]))
    if worst is None:
        return {"max_error": None, "bound": None, "worst": None,
                "max_rel": rel}
    return {"max_error": worst["error"], "bound": worst["bound"],
            "worst": worst["what"], "max_rel": rel}


def number(value, spec=".2e"):
    if value is None:
        return "-"
    if isinstance(value, (int, str)):
        return str(value)
    return format(value, spec)


def print_table(rows):
    header = (f"{'model':<21} {'check':<15} {'status':<8} {'max error':>10} "
              f"{'bound':>10} {'max rel':>10} {'time':>8}")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['model']:<21} {r['check']:<15} {r['status']:<8} "
              f"{number(r['max_error']):>10} {number(r['bound']):>10} "
              f"{number(r['max_rel']):>10} {r['seconds']:>7.1f}s")


def print_problems(rows, limit=25, width=200):
    """The failing rows' reasons and items out of bound, a few lines each;
    a model's rows that failed alike (no items, the same reason) share a
    line."""
    lines, shared = [], {}
    for r in rows:
        if r["status"] not in FAILING:
            continue
        if not r["items"]:
            key = (r["model"], r["status"], r["message"], r.get("log"))
            shared.setdefault(key, []).append(r["check"])
            continue
        head = f"{r['model']} {r['check']} {r['status']}"
        if r["message"]:
            lines.append(f"{head}: {r['message']}")
        for item in r["items"]:
            if not item["ok"]:
                lines.append(f"{head}: {item['what']}: error "
                             f"{number(item['error'], '.3g')} bound "
                             f"{number(item['bound'], '.3g')} "
                             f"{item.get('detail', '')}")
        if r.get("log"):
            lines.append(f"{head}: log {r['log']}")
    for (model, status, message, log), checks in shared.items():
        lines.append(f"{model} {', '.join(checks)} {status}: {message}"
                     + (f" (log {log})" if log else ""))
    if lines:
        print("\nProblems:")
        # The console's tail is what a lent machine sends back: short
        # lines, the rest in gpu-check.json and logs/.
        for line in lines[:limit]:
            print("  " + line[:width])
        if len(lines) > limit:
            print(f"  ... {len(lines) - limit} more in gpu-check.json")


def run_command(args):
    runner = Runner(args)
    machine = read_json(args.machine) if args.machine and \
        os.path.isfile(args.machine) else machine_info(args.cuda_root,
                                                       sys.executable)
    prepared = verify_prepared(args.prepared)
    build = read_json(args.build) if args.build and \
        os.path.isfile(args.build) else {"status": "PASS", "seconds": 0.0}
    if prepared["status"] == "warn":
        print(f"warning: {prepared['message']}")
    if prepared["status"] == "fail":
        print(f"error: {prepared['message']}")
    elif build["status"] != "PASS":
        print("The build failed: no check can run.")
    else:
        runner.run()
    rows = runner.rows
    mode = ("cpu-stand-in" if args.cpu_stand_in else
            "no-gpu" if args.no_gpu else "gpu")
    statuses = [r["status"] for r in rows]
    passed = (prepared["status"] != "fail" and build["status"] == "PASS"
              and bool(rows) and not any(s in FAILING for s in statuses))
    report = {
        "schema": SCHEMA, "passed": passed, "mode": mode,
        "started": datetime.datetime.fromtimestamp(
            runner.started, datetime.timezone.utc).isoformat(),
        "seconds": round(runner.elapsed(), 1),
        "budget_s": round(runner.deadline - runner.started, 1),
        "machine": machine, "prepared": prepared,
        "index": {k: runner.index.get(k) for k in
                  ("commit", "uncommitted", "date", "options", "init_seed",
                   "steps", "compiler", "archs")},
        "build": build, "workers": runner.workers, "checks": rows,
        "summary": {s: statuses.count(s) for s in sorted(set(statuses))},
    }
    if rows:
        print()
        print_table(rows)
        print_problems(rows)
    path = os.path.join(runner.out, "gpu-check.json")
    write_json(path, report)
    counts = ", ".join(f"{n} {s}" for s, n in report["summary"].items())
    verdict = ("FAILED" if not passed else "PASSED" if "PASS" in statuses
               else "NOTHING FAILED")
    print(f"\n{verdict}: {counts or 'nothing run'} in "
          f"{runner.elapsed():.0f} s ({mode}); {path}")
    return 0 if passed else 1


# --- Command line ------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    machine = sub.add_parser("machine", help="print what this machine has")
    machine.add_argument("--cuda-root")
    machine.add_argument("--out", help="write it as JSON here too")

    prepared = sub.add_parser("prepared",
                              help="check build-gpu-check/ against the files "
                                   "here")
    prepared.add_argument("--prepared", required=True)
    prepared.add_argument("--out", help="write the verdict as JSON here too")

    def common(p):
        p.add_argument("--prepared", required=True,
                       help="the directory gpu_check_prep.py wrote")
        p.add_argument("--runtime", required=True,
                       help="libtransfuse_runtime.so built here")
        p.add_argument("--no-gpu", action="store_true",
                       help="stop each model at its session (which fails "
                            "without a GPU) and skip the sanitizers")
        p.add_argument("--cpu-stand-in", action="store_true",
                       help="run every check but the sanitizers on the CPU "
                            "artifacts the preparation kept (not carried) "
                            "and PyTorch on the CPU: the driver's own test")
        p.add_argument("--check-timeout", type=float,
                       help="every check's time limit, in seconds, instead "
                            "of TIMEOUTS")

    run = sub.add_parser("run", help="run every check")
    common(run)
    run.add_argument("--bin-dir", required=True,
                     help="where transfuse-train was built")
    run.add_argument("--out", required=True,
                     help="where gpu-check.json and logs/ go")
    run.add_argument("--cuda-root")
    run.add_argument("--machine", help="the JSON of `machine`")
    run.add_argument("--build", help="the JSON tools/gpu-check.sh wrote of "
                                     "the build")
    run.add_argument("--deadline", type=float,
                     help="when everything must be done (Unix time)")
    run.add_argument("--budget", type=float, default=530,
                     help="seconds from now, without --deadline")
    run.add_argument("--models", nargs="+", choices=sorted(MODELS),
                     help="only these models (and their sanitizer runs)")
    run.add_argument("--simulate-hang", nargs=2, metavar=("MODEL", "CHECK"),
                     help="make that check of that model hang, to see the "
                          "time limits work")

    worker = sub.add_parser("worker", help="one model's checks (run's)")
    common(worker)
    worker.add_argument("--model", required=True, choices=sorted(MODELS))
    worker.add_argument("--results", required=True,
                        help="the JSON-lines file of its events")
    worker.add_argument("--simulate-hang", choices=["setup"] + CHECKS)
    return parser.parse_args()


def main():
    args = parse_args()
    commands = {"machine": machine_command, "prepared": prepared_command,
                "run": run_command, "worker": worker_command}
    sys.exit(commands[args.command](args))


if __name__ == "__main__":
    main()
