#!/usr/bin/python3
"""Training-step time of the seed models: Transfuse (CPU) against PyTorch
eager and, when bench/.venv has them, XLA (jax.jit) and torch.compile, side
by side, on the same weights, batch and thread count.

    /usr/bin/python3 bench/train.py [--models NAME ...] [--threads 2] [--repeats N]

For each model it compiles the spec with its training section (cached in
bench/.cache/train), writes the PyTorch reference model's weights and one
random batch (inputs and labels), then runs each side in its own process:
warm-up steps, then timed steps. Ours calls `train_step` through the
runtime's C API (tf_session_train_step); the peer does what train_step
computes (docs/autodiff.md): forward, the spec's loss, backward, the global
gradient norm (clip_grad_norm_ when the spec clips), and the spec's
optimizer and schedule, built from the artifact's training section. It
prints the median step time of each side, ours on one thread too, the
speed-up against the issue's target, and each process's peak resident
memory. bench/README.md explains every column.

Both sides run with OMP_WAIT_POLICY=passive unless --omp-wait-policy says
otherwise (see bench/README.md: libgomp's spinning threads take the CPU
from the working ones on a machine with fewer cores than it believes).
"""
import argparse
import datetime
import gc
import math
import os
import platform
import re
import resource
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
CACHE_DIR = os.path.join(BENCH_DIR, ".cache", "train")
PYTHON_TESTS = os.path.join(ROOT, "test", "python")
sys.path.insert(0, BENCH_DIR)
import forward as fwd  # noqa: E402  (helpers shared with the forward benchmark)

MODELS = fwd.MODELS
# The targets: train step speed-up over PyTorch eager.
TARGETS = {"char_lm": 1.3, "sentiment_classifier": 2.0,
           "transformer_small": 2.0, "transformer_base": 1.3}
# The spec copy whose optimizer is plain SGD (no momentum): the difference
# with Adam is the cost of Adam's moments over every parameter.
SGD_VARIANT = "sentiment_classifier"


# --- Worker: Transfuse through the runtime's C API (ctypes) -------------------

def load_runtime(path):
    import ctypes as C

    class TrainResult(C.Structure):
        _fields_ = [("step", C.c_int64), ("loss", C.c_float),
                    ("grad_norm", C.c_float), ("lr", C.c_float)]

    class TensorInfo(C.Structure):
        _fields_ = [("name", C.c_char_p), ("dtype", C.c_int),
                    ("rank", C.c_int32), ("shape", C.c_int64 * 8),
                    ("max_value", C.c_int64), ("init", C.c_int),
                    ("init_a", C.c_double), ("init_b", C.c_double),
                    ("has_ignore_value", C.c_int32),
                    ("ignore_value", C.c_int64)]

    lib = fwd.load_runtime(path)
    P, VP = C.POINTER, C.c_void_p
    for name, (args, result) in {
            "tf_entry_point_num_inputs": ([VP, C.c_int32], C.c_int32),
            "tf_entry_point_input": ([VP, C.c_int32, C.c_int32,
                                      P(TensorInfo)], C.c_int),
            "tf_session_init_parameters": ([VP, C.c_uint64], C.c_int),
            "tf_session_train_step": ([VP, P(lib.NamedTensor), C.c_int32,
                                       P(TrainResult)], C.c_int),
            "tf_session_step": ([VP], C.c_int64)}.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, result
    lib.TrainResult, lib.TensorInfo = TrainResult, TensorInfo
    return lib


def peak_rss_kib():
    """The whole process's peak resident memory (ru_maxrss, KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def worker_ours(args):
    import ctypes as C
    rss_import = fwd.read_status("VmRSS")
    lib = load_runtime(args.runtime)
    check = fwd.check
    check(lib, lib.tf_set_num_threads(args.threads), "tf_set_num_threads")
    artifact, session = fwd.open_session(lib, args.tfm, args.weights)
    batch_file, batch = fwd.read_tensors(lib, args.inputs)
    count = len(batch)
    result = lib.TrainResult()
    first = []
    if args.grads_only:
        # loss_and_grads: train_step without the norm, clipping and update.
        entry = C.c_int32()
        check(lib, lib.tf_artifact_find_entry_point(
            artifact, b"loss_and_grads", C.byref(entry)), "loss_and_grads")
        num_outputs = lib.tf_entry_point_num_outputs(artifact, entry)
        outputs = (lib.NamedTensor * num_outputs)()
        seed = C.c_int64(1)
        extra = lib.NamedTensor(b"dropout_seed", (2, 0, (C.c_int64 * 8)(),
                                                  C.cast(C.byref(seed),
                                                         C.c_void_p)))
        names = set()
        for i in range(lib.tf_entry_point_num_inputs(artifact, entry)):
            info = lib.TensorInfo()
            check(lib, lib.tf_entry_point_input(artifact, entry, i,
                                                C.byref(info)), "input")
            names.add(info.name.decode())
        grads_inputs = (lib.NamedTensor * (count + 1))(*batch, extra)
        grads_count = count + (1 if "dropout_seed" in names else 0)

        def step():
            check(lib, lib.tf_session_run(session, b"loss_and_grads",
                                          grads_inputs, grads_count, outputs,
                                          num_outputs), "loss_and_grads")
            if not first:
                loss = C.cast(outputs[0].tensor.data,
                              C.POINTER(C.c_float))[0]
                first.append({"loss": loss, "grad_norm": float("nan"),
                              "lr": float("nan")})
    else:
        def step():
            check(lib, lib.tf_session_train_step(session, batch, count,
                                                 C.byref(result)), "train_step")
            if not first:
                first.append({"loss": result.loss,
                              "grad_norm": result.grad_norm, "lr": result.lr})

    hwm_setup = fwd.read_status("VmHWM")
    peak_reset = fwd.reset_peak_rss()

    times = fwd.time_calls(step, args.warmup, args.repeats, args.min_repeats,
                           args.max_seconds)
    fwd.emit({"times": times, "first": first[0],
              "last_loss": result.loss, "steps": lib.tf_session_step(session),
              "rss_import_kib": rss_import, "hwm_setup_kib": hwm_setup,
              "hwm_train_kib": fwd.read_status("VmHWM"),
              "maxrss_kib": peak_rss_kib(), "peak_reset": peak_reset,
              "threads": lib.tf_get_num_threads(),
              "core": fwd.openblas_core()})
    lib.tf_tensor_file_close(batch_file)
    lib.tf_session_destroy(session)
    lib.tf_artifact_close(artifact)


# --- Worker: PyTorch eager (the peer) -----------------------------------------

def schedule_factor(schedule, base_lr):
    """f(t) of docs/autodiff.md for the 1-based step t."""
    kind = schedule.get("kind", "constant")
    warmup = float(schedule.get("warmup_steps", 0))
    if kind == "constant":
        return lambda t: 1.0
    if kind == "linear_warmup":
        return lambda t: min(1.0, t / warmup) if warmup > 0 else 1.0
    if kind == "inverse_sqrt":
        return lambda t: min(t ** -0.5, t * warmup ** -1.5) * warmup ** 0.5
    if kind == "cosine":
        total = float(schedule["total_steps"])
        floor = float(schedule.get("min_lr", 0.0)) / base_lr

        def cosine(t):
            if t <= warmup:
                return t / warmup
            progress = min(1.0, (t - warmup) / (total - warmup))
            return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))
        return cosine
    raise RuntimeError("schedule %r: not known to the benchmark" % kind)


def make_optimizer(torch, params, optimizer):
    kind = optimizer["kind"]
    lr = float(optimizer["lr"])
    decay = float(optimizer.get("weight_decay", 0.0))
    if kind == "sgd":
        return torch.optim.SGD(params, lr=lr,
                               momentum=float(optimizer.get("momentum", 0.0)),
                               nesterov=bool(optimizer.get("nesterov", False)),
                               weight_decay=decay)
    cls = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[kind]
    return cls(params, lr=lr, betas=(float(optimizer.get("beta1", 0.9)),
                                     float(optimizer.get("beta2", 0.999))),
               eps=float(optimizer.get("eps", 1e-8)), weight_decay=decay)


def optimizer_and_schedule(torch, params, training):
    """The artifact's optimizer over `params` and its schedule, as a
    LambdaLR stepped after each update (docs/autodiff.md: lambda(k) is
    f(k + 1))."""
    optimizer = make_optimizer(torch, params, training["optimizer"])
    factor = schedule_factor(training.get("schedule", {"kind": "constant"}),
                             float(training["optimizer"]["lr"]))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer,
                                                  lambda k: factor(k + 1))
    return optimizer, scheduler


def worker_torch(args):
    import numpy as np
    import torch
    import torch.nn.functional as F
    rss_import = fwd.read_status("VmRSS")
    torch.set_num_threads(args.threads)
    sys.path.insert(0, PYTHON_TESTS)
    import reference_models
    import safetensors_io

    manifest = fwd.read_manifest(args.tfm)
    training = manifest["training"]
    smoothing = float(args.label_smoothing)
    module = reference_models.build(args.model).train()
    fwd.load_weights(module, args.weights)
    if args.torch_compile:
        # PyTorch 2's compiler (TorchInductor, C++/OpenMP on the CPU) on
        # the module, forward and backward; loss and optimizer as above.
        module = torch.compile(module)
    batch, _ = safetensors_io.load(args.inputs)
    inputs = [torch.from_numpy(np.array(batch[n])) for n in training["inputs"]]
    labels = torch.from_numpy(np.array(batch[training["labels"][0]]))
    del batch
    params = [p for p in module.parameters() if p.requires_grad]
    optimizer, scheduler = optimizer_and_schedule(torch, params, training)
    clip = float(training.get("clip_grad_norm", 0.0))
    ignore = int(training.get("ignore_index", -100))
    loss_kind = training["loss"]
    gc.collect()
    hwm_setup = fwd.read_status("VmHWM")
    peak_reset = fwd.reset_peak_rss()
    first, last = [], [None]

    def step():
        optimizer.zero_grad(set_to_none=True)
        out = module(*inputs)
        if loss_kind == "nll_loss":
            loss = F.nll_loss(out.reshape(-1, out.shape[-1]),
                              labels.reshape(-1), ignore_index=ignore)
        elif loss_kind == "cross_entropy":
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]),
                                   labels.reshape(-1), ignore_index=ignore,
                                   label_smoothing=smoothing)
        else:
            raise SystemExit("error: loss %r: not known to the benchmark"
                             % loss_kind)
        loss.backward()
        if args.grads_only:  # as loss_and_grads: no norm, clipping or update
            last[0] = loss.item()
            if not first:
                first.append({"loss": last[0], "grad_norm": float("nan"),
                              "lr": float("nan")})
            return
        if clip > 0:
            norm = torch.nn.utils.clip_grad_norm_(params, clip)
        else:  # train_step still returns the norm: the same reduction, no scaling
            norm = torch.norm(torch.stack([torch.norm(p.grad.detach(), 2.0)
                                           for p in params if p.grad is not None]),
                              2.0)
        lr = optimizer.param_groups[0]["lr"]
        optimizer.step()
        scheduler.step()
        last[0] = loss.item()
        if not first:
            first.append({"loss": last[0], "grad_norm": float(norm), "lr": lr})

    start = time.perf_counter()
    step()  # with --torch-compile, compiles; the first step either way
    first_step_s = time.perf_counter() - start
    times = fwd.time_calls(step, args.warmup, args.repeats, args.min_repeats,
                           args.max_seconds)
    fwd.emit({"times": times, "first": first[0], "last_loss": last[0],
              "first_step_s": first_step_s,
              "rss_import_kib": rss_import, "hwm_setup_kib": hwm_setup,
              "hwm_train_kib": fwd.read_status("VmHWM"),
              "maxrss_kib": peak_rss_kib(), "peak_reset": peak_reset,
              "threads": torch.get_num_threads(), "torch": torch.__version__,
              "core": fwd.openblas_core(),
              "optimizer": type(optimizer).__name__})


# --- Worker: JAX/XLA (bench/.venv) ---------------------------------------------

def worker_jax(args):
    """The same step under jax.jit: bench/jax_models.py's twin of the
    reference model (dropout where it has it, JAX's random bits), the
    spec's loss, the global norm and clipping, Adam or AdamW as
    torch.optim's, the schedule's learning rate passed in per step; the
    parameters and moments donated, so the update is in place."""
    import numpy as np
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.threads])
    import jax
    import jax.numpy as jnp
    import jax_models
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io
    rss_import = fwd.read_status("VmRSS")
    manifest = fwd.read_manifest(args.tfm)
    training = manifest["training"]
    optimizer = training["optimizer"]
    if optimizer["kind"] not in ("adam", "adamw"):
        raise SystemExit("error: optimizer %r: not known to the JAX side"
                         % optimizer["kind"])
    weights, _ = safetensors_io.load(args.weights)
    params = {k: jnp.asarray(v) for k, v in weights.items()}
    batch, _ = safetensors_io.load(args.inputs)
    inputs = [jnp.asarray(batch[n]) for n in training["inputs"]]
    labels = jnp.asarray(batch[training["labels"][0]]).reshape(-1)
    del weights, batch
    forward = jax_models.FORWARDS[args.model]
    heads, rate = int(args.heads), jax_models.DROPOUT[args.model]
    smoothing = float(args.label_smoothing)
    ignore = int(training.get("ignore_index", -100))
    clip = float(training.get("clip_grad_norm", 0.0))
    beta1, beta2 = float(optimizer["beta1"]), float(optimizer["beta2"])
    eps, decay = float(optimizer["eps"]), float(optimizer["weight_decay"])
    decoupled = optimizer["kind"] == "adamw"

    def loss_of(params, key):
        out = forward(params, heads, *inputs,
                      drop=jax_models.Dropout(key, rate))
        logp = out.reshape(-1, out.shape[-1])
        if training["loss"] == "cross_entropy":
            logp = jax.nn.log_softmax(logp, axis=-1)
        valid = labels != ignore
        picked = jnp.take_along_axis(logp, jnp.where(valid, labels, 0)[:, None],
                                     axis=1)[:, 0]
        # F.cross_entropy's label smoothing: (1 - ε)·nll + ε·mean(-log p).
        per_row = -(1.0 - smoothing) * picked - smoothing * logp.mean(-1)
        return jnp.sum(jnp.where(valid, per_row, 0.0)) / jnp.sum(valid)

    def step(params, moments, t, lr, key):
        loss, grads = jax.value_and_grad(loss_of)(params, key)
        norm = jnp.sqrt(sum(jnp.sum(g * g) for g in grads.values()))
        if clip > 0:  # clip_grad_norm_: scale by clip / (norm + 1e-6) if < 1
            grads = jax.tree_util.tree_map(
                lambda g: g * jnp.minimum(1.0, clip / (norm + 1e-6)), grads)
        first, second = moments
        new_params, new_first, new_second = {}, {}, {}
        for name, p in params.items():
            g = grads[name]
            if decay and not decoupled:
                g = g + decay * p
            if decay and decoupled:
                p = p * (1.0 - lr * decay)
            m = beta1 * first[name] + (1.0 - beta1) * g
            v = beta2 * second[name] + (1.0 - beta2) * g * g
            denominator = jnp.sqrt(v / (1.0 - beta2 ** t)) + eps
            new_params[name] = p - lr / (1.0 - beta1 ** t) * m / denominator
            new_first[name], new_second[name] = m, v
        return new_params, (new_first, new_second), loss, norm

    compiled = jax.jit(step, donate_argnums=(0, 1))
    moments = tuple({k: jnp.zeros_like(v) for k, v in params.items()}
                    for _ in range(2))
    state = {"params": params, "moments": moments, "t": 0}
    factor = schedule_factor(training.get("schedule", {"kind": "constant"}),
                             float(optimizer["lr"]))
    base_key = jax.random.PRNGKey(int(training.get("seed", 1)))
    first, last = [], [None]

    def train_step():
        state["t"] += 1
        t = state["t"]
        lr = float(optimizer["lr"]) * factor(t)
        state["params"], state["moments"], loss, norm = compiled(
            state["params"], state["moments"], jnp.float32(t),
            jnp.float32(lr), jax.random.fold_in(base_key, t))
        last[0] = float(loss)  # waits for the step, as loss.item() does
        if not first:
            first.append({"loss": last[0], "grad_norm": float(norm),
                          "lr": lr})

    gc.collect()
    hwm_setup = fwd.read_status("VmHWM")
    peak_reset = fwd.reset_peak_rss()
    start = time.perf_counter()
    train_step()  # compiles
    first_step_s = time.perf_counter() - start
    times = fwd.time_calls(train_step, args.warmup, args.repeats,
                           args.min_repeats, args.max_seconds)
    fwd.emit({"times": times, "first": first[0], "last_loss": last[0],
              "first_step_s": first_step_s, "rss_import_kib": rss_import,
              "hwm_setup_kib": hwm_setup,
              "hwm_train_kib": fwd.read_status("VmHWM"),
              "maxrss_kib": peak_rss_kib(), "peak_reset": peak_reset,
              "version": "JAX %s, XLA on %s, %d CPUs pinned" % (
                  jax.__version__, jax.devices()[0].platform,
                  len(os.sched_getaffinity(0))),
              "threads": args.threads, "numpy": np.__version__})


# --- The driver ----------------------------------------------------------------

def run_worker(kind, args, extra, threads, peer, python=sys.executable):
    return fwd.spawn_worker(__file__, kind, args, threads, peer, [
        "--repeats", str(args.repeats), "--warmup", str(args.warmup),
        "--min-repeats", str(args.min_repeats),
        "--max-seconds", str(args.max_seconds),
        "--runtime", args.runtime] + extra, python=python)


def pypi_sides(args):
    """The sides bench/.venv (bench/setup.sh) can run: (name, worker kind,
    worker flags, what it is), XLA (JAX) and torch.compile (PyTorch 2)
    where they import; --no-pypi-sides runs none."""
    if not args.pypi_sides or not os.path.exists(fwd.PEER_PYTHON):
        return []
    proc = subprocess.run(
        [fwd.PEER_PYTHON, "-c", "import importlib.metadata as m\n"
         "for p in ('jax', 'torch'):\n"
         "    try: print(p, m.version(p))\n"
         "    except m.PackageNotFoundError: pass"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    versions = dict(line.split() for line in proc.stdout.splitlines())
    sides = []
    if "jax" in versions:
        sides.append(("XLA", "jax", [], "JAX %s, jax.jit of bench/jax_models."
                      "py's twin and the update" % versions["jax"]))
    if versions.get("torch", "0")[:1] >= "2":
        sides.append(("torch.compile", "torch", ["--torch-compile"],
                      "PyTorch %s, TorchInductor on the module"
                      % versions["torch"]))
    return sides


def compile_spec(args, spec, tfm):
    """fwd.compile_model with the error kept whole (the compiler's first
    lines name the problem)."""
    try:
        return fwd.compile_model(args, spec, tfm, inference_only=False)
    except RuntimeError as error:
        raise RuntimeError(str(error)[:2000])


def sgd_spec(spec, target):
    """A copy of `spec` whose optimizer is SGD at the same lr, no momentum."""
    with open(spec) as f:
        text = f.read()
    match = re.search(r"optimizer\s*\{\s*(adam|adamw)\s*\{[^}]*?\blr:\s*([^\s}]+)"
                      r"[^}]*\}\s*\}", text)
    if not match:
        raise RuntimeError("%s: no adam optimizer to replace" % spec)
    text = text[:match.start()] + "optimizer { sgd { lr: %s } }" % \
        match.group(2) + text[match.end():]
    if not (os.path.exists(target) and open(target).read() == text):
        with open(target, "w") as f:
            f.write(text)
    return target


def label_smoothing(spec):
    with open(spec) as f:
        match = re.search(r"label_smoothing:\s*([0-9.eE+-]+)", f.read())
    return float(match.group(1)) if match else 0.0


def make_batch(manifest, seed):
    """Random inputs and labels for train_step. Inputs as forward.py makes
    them (ids in [0, max_value]; `src`/`tgt` in [1, max_value], padded with
    0 from a random point). Labels are ids of the model's output classes
    (the last dimension of forward's output), in [0, classes), or in [1,
    classes) when the ignore index is 0; a label whose input position is
    padding is the ignore index."""
    import numpy as np
    rng = np.random.default_rng(seed)
    training = manifest["training"]
    entries = {e["name"]: e for e in manifest["entry_points"]}
    step = entries["train_step"]
    classes = entries["forward"]["outputs"][0]["shape"][-1]
    ignore = int(training.get("ignore_index", -100))
    batch = {}
    for spec in step["inputs"]:
        name = spec["name"]
        if name not in training["inputs"]:
            continue
        if spec["dtype"] != "i64" or "max_value" not in spec:
            raise RuntimeError("input %s: only i64 ids with a max_value are "
                               "supported" % name)
        rows, length = spec["shape"]
        padded = name in ("src", "tgt")
        ids = rng.integers(1 if padded else 0, spec["max_value"] + 1,
                           size=(rows, length))
        if padded:
            for row in range(rows):
                ids[row, rng.integers((length + 1) // 2, length + 1):] = 0
        batch[name] = ids.astype(np.int64)
    for spec in step["inputs"]:
        name = spec["name"]
        if name not in training["labels"]:
            continue
        high = spec.get("max_value", classes - 1)
        low = 1 if ignore == 0 else 0
        labels = rng.integers(low, high + 1, size=spec["shape"]).astype(np.int64)
        # A label shaped like the last input (the decoder's) is ignored where
        # that input is padding.
        last = batch[training["inputs"][-1]]
        if labels.shape == last.shape and training["inputs"][-1] == "tgt":
            labels[last == 0] = ignore
        batch[name] = labels
    return batch


def count_parameters(manifest):
    return sum(math.prod(p["shape"]) for p in manifest["parameters"])


def driver(args):
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io

    fwd.require_tools(args)
    os.makedirs(CACHE_DIR, exist_ok=True)
    cpu, isa, cpus, usable = fwd.machine_description()
    load = os.getloadavg()
    print("Transfuse training-step benchmark, %s" %
          datetime.date.today().isoformat())
    print("machine: %s, %s, %d CPUs (%d usable), %s" % (
        cpu, isa, cpus, usable, platform.platform()))
    print("threads: %d on both sides (ours on 1 too%s); %d warm-up steps, then "
          "up to %d timed (at least %d, at most ~%gs of timing per side)" % (
              args.threads, ", and the peer" if args.peer_one_thread else "",
              args.warmup, args.repeats, args.min_repeats, args.max_seconds))
    print("OMP_WAIT_POLICY: %s on both sides; OPENBLAS_CORETYPE: %s" % (
        args.omp_wait_policy if args.omp_wait_policy != "default" else "unset",
        args.openblas_core or "unset (ours picks AVX-512 kernels itself)"))
    print("load average: %.2f %.2f %.2f%s" % (
        load + (("  <-- the machine is busy: timings will be noisy"
                 if load[0] > 1.5 else ""),)))
    extra_sides = pypi_sides(args)
    print("sides from bench/.venv: %s" % (
        "; ".join("%s (%s)" % (name, about) for name, _, _, about in
                  extra_sides) or
        "none (bash bench/setup.sh installs JAX and PyTorch 2 there)"))
    print()

    rows, details, variants = [], [], []
    cores = set()
    for model in args.models:
        spec, work, tfm, weights = fwd.model_files(CACHE_DIR, model)
        batch_path = os.path.join(work, "batch.safetensors")
        try:
            compile_s = compile_spec(args, spec, tfm)
            manifest = fwd.read_manifest(tfm)
            if "training" not in manifest or not any(
                    e["name"] == "train_step" for e in manifest["entry_points"]):
                raise RuntimeError("%s has no train_step" % tfm)
            if not fwd.newer(weights, os.path.join(PYTHON_TESTS,
                                                   "reference_models.py")):
                run_worker("weights", args, ["--model", model, "--weights",
                                             weights], 1, peer=True)
            safetensors_io.save(batch_path, make_batch(manifest, args.seed))
            fwd.wait_until_quiet(args.wait_quiet)
            common = ["--model", model, "--tfm", tfm, "--weights", weights,
                      "--inputs", batch_path]
            ours = run_worker("ours", args, common, args.threads, peer=False)
            ours1 = run_worker("ours", args, common, 1, peer=False) \
                if args.threads != 1 else ours
            peer = run_worker("torch", args, common + [
                "--label-smoothing", str(label_smoothing(spec))],
                args.threads, peer=True)
            peer1 = run_worker("torch", args, common + [
                "--label-smoothing", str(label_smoothing(spec))], 1,
                peer=True) if args.peer_one_thread and args.threads != 1 \
                else None
            extras = []
            for name, kind, flags, _ in extra_sides:
                try:
                    extras.append(run_worker(kind, args, common + [
                        "--label-smoothing", str(label_smoothing(spec)),
                        "--heads", str(fwd.spec_heads(spec))] + flags,
                        args.threads, peer=True, python=fwd.PEER_PYTHON))
                except RuntimeError as error:
                    print("%s: %s: error: %s" % (model, name, error),
                          flush=True)
                    extras.append(None)
            variant = None
            if model == SGD_VARIANT and args.optimizer_split:
                vwork = os.path.join(CACHE_DIR, model + "_sgd")
                os.makedirs(vwork, exist_ok=True)
                vspec = sgd_spec(spec, os.path.join(vwork, model + ".pbtxt"))
                vtfm = os.path.join(vwork, "model.tfm")
                compile_spec(args, vspec, vtfm)
                vcommon = ["--model", model, "--tfm", vtfm, "--weights",
                           weights, "--inputs", batch_path]
                variant = (run_worker("ours", args, vcommon, args.threads,
                                      peer=False),
                           run_worker("torch", args, vcommon, args.threads,
                                      peer=True),
                           run_worker("ours", args, common + ["--grads-only"],
                                      args.threads, peer=False),
                           run_worker("torch", args, common + ["--grads-only"],
                                      args.threads, peer=True),
                           count_parameters(manifest), manifest)
        except RuntimeError as error:
            print("%s: error: %s" % (model, error), flush=True)
            rows.append([model] + ["error"] * 10)
            continue

        o, o1, t = (fwd.summarise(r["times"]) for r in (ours, ours1, peer))
        busy = max(r["others_busy"] for r in (ours, ours1, peer))
        noisy = busy > fwd.QUIET_BUSY
        cores.update((ours["core"], peer["core"]))
        speedup = t["median"] / o["median"]
        target = TARGETS[model]
        rows.append([
            model + (" *" if noisy else ""),
            "%.1f" % o["median"], "%.1f" % o["min"], "%.0f%%" % o["spread"],
            "%.1f" % o1["median"],
            "%.1f" % t["median"], "%.1f" % t["min"], "%.0f%%" % t["spread"],
            "%.2fx" % speedup,
            "%.1fx %s" % (target, "met" if speedup >= target else "not met"),
            "%.0f / %.0f" % (fwd.mib(ours["maxrss_kib"]),
                             fwd.mib(peer["maxrss_kib"])),
        ])
        if peer1:
            t1 = fwd.summarise(peer1["times"])
            rows[-1].insert(9, "%.1f" % t1["median"])
            rows[-1].insert(10, "%.2fx" % (t1["median"] / o1["median"]))
        for extra in extras:
            if extra is None:
                rows[-1] += ["error"] * 6
                continue
            c = fwd.summarise(extra["times"])
            rows[-1] += ["%.1f" % c["median"], "%.0f%%" % c["spread"],
                         "%.2fx" % (c["median"] / o["median"]),
                         "%.0f s" % extra["first_step_s"],
                         "%.4f" % extra["first"]["loss"],
                         "%.0f" % fwd.mib(extra["hwm_train_kib"])]
        details.append([
            model, "%d / %d / %d" % (o["n"], o1["n"], t["n"]),
            "%.0f / %.0f" % (fwd.mib(ours["rss_import_kib"]),
                             fwd.mib(peer["rss_import_kib"])),
            "%.0f / %.0f" % (fwd.mib(ours["hwm_setup_kib"]),
                             fwd.mib(peer["hwm_setup_kib"])),
            "%.0f / %.0f" % (fwd.mib(ours["hwm_train_kib"]),
                             fwd.mib(peer["hwm_train_kib"])),
            "%.4f / %.4f" % (ours["first"]["loss"], peer["first"]["loss"]),
            "%.4f / %.4f" % (ours["first"]["grad_norm"],
                             peer["first"]["grad_norm"]),
            "%.3g / %.3g" % (ours["first"]["lr"], peer["first"]["lr"]),
            "%.1f s" % compile_s if compile_s is not None else "cached",
        ])
        if variant:
            vo, vt, go, gt, nparams, vmanifest = variant
            so, st, lo, lt = (fwd.summarise(r["times"])["median"]
                              for r in (vo, vt, go, gt))
            emb = sum(math.prod(p["shape"]) for p in vmanifest["parameters"]
                      if p["name"] == "token_embedding.weight")
            share = lambda part, whole: "%.1f (%.0f%%)" % (
                part, 100 * part / whole)
            variants.append([
                model, "%.2fM (embedding %.2fM)" % (nparams / 1e6, emb / 1e6),
                "%.1f / %.1f" % (o["median"], t["median"]),
                "%.1f / %.1f" % (so, st), "%.1f / %.1f" % (lo, lt),
                "%s / %s" % (share(o["median"] - lo, o["median"]),
                             share(t["median"] - lt, t["median"])),
                "%s / %s" % (share(o["median"] - so, o["median"]),
                             share(t["median"] - st, t["median"])),
            ])
        print("%s: ours %.1f ms (1 thread %.1f ms), torch %.1f ms, %.2fx; step-1 "
              "loss %.4f / %.4f (other work meanwhile: %.0f%% / %.0f%% / %.0f%% "
              "of the CPUs)" % (
                  model, o["median"], o1["median"], t["median"], speedup,
                  ours["first"]["loss"], peer["first"]["loss"],
                  100 * ours["others_busy"], 100 * ours1["others_busy"],
                  100 * peer["others_busy"]), flush=True)
        if noisy:
            print("  note: %s was timed while other work used %.0f%% of the "
                  "CPUs (marked *)" % (model, 100 * busy))

    print()
    if len(cores - {None}) > 1:
        print("note: the two sides ran different OpenBLAS kernels (%s); "
              "--openblas-core SkylakeX puts both on AVX-512" %
              ", ".join(sorted(c for c in cores if c)))
    header = ["model", "ours ms", "min", "IQR", "ours 1-thread ms", "torch ms",
              "min", "IQR", "torch/ours", "target", "RSS MiB ours / torch"]
    if args.peer_one_thread:
        header[9:9] = ["torch 1-thread ms", "torch/ours 1-thread"]
    for name, _, _, _ in extra_sides:
        header += ["%s ms" % name, "IQR", "%s/ours" % name,
                   "first step (compile)", "step-1 loss",
                   "peak RSS steps MiB"]
    fwd.print_table(header, [r if len(r) == len(header) else
                             r + [""] * (len(header) - len(r)) for r in rows])
    if details:
        print()
        fwd.print_table(["model", "steps ours / ours 1t / torch",
                         "RSS after imports", "peak RSS setup",
                         "peak RSS steps", "step-1 loss ours / torch",
                         "step-1 grad_norm ours / torch", "step-1 lr",
                         "compile"], details)
    if variants:
        print()
        print("Where the step goes, ours / torch: the step with the spec's "
              "Adam, with plain SGD (a copy of the spec with `optimizer { sgd "
              "{ lr } }`), and forward + backward alone (loss_and_grads; the "
              "peer without norm, clipping and optimizer):")
        fwd.print_table(["model", "parameters", "Adam step ms", "SGD step ms",
                         "loss_and_grads ms",
                         "norm + clip + Adam ms (share)",
                         "Adam - SGD ms (share)"], variants)
    print()
    print("load average at the end: %.2f %.2f %.2f" % os.getloadavg())


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    fwd.add_common_options(parser, "steps", repeats=5, min_repeats=2,
                           max_seconds=8.0, wait_quiet=30,
                           threads_help="threads on both sides; ours also "
                                        "runs on 1")
    fwd.add_omp_wait_policy(parser)
    parser.add_argument("--peer-one-thread", action="store_true",
                        help="time the peer on 1 thread too")
    parser.add_argument("--no-pypi-sides", dest="pypi_sides",
                        action="store_false",
                        help="skip the XLA and torch.compile sides (JAX and "
                             "PyTorch 2 from bench/.venv)")
    parser.add_argument("--torch-compile", action="store_true",
                        help=argparse.SUPPRESS)
    parser.add_argument("--no-optimizer-split", dest="optimizer_split",
                        action="store_false",
                        help="skip the SGD copy of %s" % SGD_VARIANT)
    fwd.add_build_options(parser)
    parser.add_argument("--grads-only", action="store_true",
                        help=argparse.SUPPRESS)
    parser.add_argument("--label-smoothing", default="0",
                        help=argparse.SUPPRESS)
    for name in ("--model", "--tfm", "--weights", "--inputs", "--heads"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = fwd.parse_arguments(parser)
    if args.worker:
        {"ours": worker_ours, "torch": worker_torch, "jax": worker_jax,
         "weights": fwd.worker_weights}[args.worker](args)
    else:
        driver(args)


if __name__ == "__main__":
    main()
