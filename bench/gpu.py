#!/usr/bin/env python3
"""Training-step and forward time of the seed models on one NVIDIA GPU:
Transfuse's CUDA artifacts against PyTorch eager (and, with --compile,
torch.compile), on the same GPU in the same run, from the same initial
weights and batch.

The GPU machine has no compiler, so the work is split in two:

    /usr/bin/python3 bench/gpu.py prepare [--models M ...]    # here
    python3 bench/gpu.py run --runtime LIB [--out DIR] [--compile]   # there

`prepare` compiles each seed spec at its own sizes (dropout as written)
with --target=cuda, once per --precision (f32 and tf32 by default), into
--artifacts (default bench/.cache/gpu)/<model>/model.<precision>.tfm;
carry that directory along (`make gpu-check-prep` puts them in
build-gpu-check/bench, which `tools/gpu-check.sh --bench` runs). `run` builds nothing: it needs the runtime built
for CUDA (tools/gpu-check.sh builds it), PyTorch with CUDA and numpy. Per
model, each side runs in its own process: ours opens the artifact,
initialises the parameters with the runtime's seed-1 initialisation and
times tf_session_train_step, then `forward`; the peer builds
test/python/reference_models.py's model, takes those same parameters,
and times what train_step computes (forward, the spec's loss, backward,
clip_grad_norm_, the spec's optimizer and schedule; bench/train.py's
worker), then the forward under no_grad. float32 everywhere; at precision
f32 TF32 is off on both sides, at tf32 it is on for both (ours in the
GEMMs, PyTorch's in matmuls: allow_tf32). A step's time includes copying
the batch in and reading the loss back, on both sides. Device memory is
what the process took from the GPU beyond its context (the drop in free
memory from before the model to after the timing): ours is fixed at
session creation, PyTorch's includes its caching allocator's reserve.
Ours runs twice, each in its own process: as users get it, each entry
point replayed as a CUDA graph ("train ours ms", the speed-ups), and with
TRANSFUSE_CUDA_GRAPHS=0, every kernel launched one by one by the host
("train ours launches ms"), which shows what the graphs save.
Prints a table and writes DIR/gpu-bench.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
CACHE_DIR = os.path.join(BENCH_DIR, ".cache", "gpu")
PYTHON_TESTS = os.path.join(ROOT, "test", "python")
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, PYTHON_TESTS)
import forward as fwd  # noqa: E402
import train  # noqa: E402

# The seed models, then a GPT-2-small-sized LM (models/gpt2_small_lm.pbtxt,
# 162M parameters, context 1024, batch 8).
MODELS = fwd.MODELS + ["gpt2_small_lm"]
INIT_SEED = 1
BATCH_SEED = 1


PRECISIONS = ["f32", "tf32"]
# What a model is limited to. gpt2_small_lm's artifact is 20 MB even for one
# architecture (its positional table is 3 MB of constants, 15 MB as PTX
# text), and what `make gpu-check-prep` carries to the GPU machine must stay
# under 64 MiB: it is compiled for the GPUs the checks run on (sm_90) and
# run in TF32, as a model of its size is trained in float32.
LIMITS = {"gpt2_small_lm": {"precisions": ["tf32"], "cuda_arch": "sm_90"}}


def runs(model, precisions):
    """The precisions of `precisions` that `model` is prepared and run in."""
    allowed = LIMITS.get(model, {}).get("precisions", PRECISIONS)
    return [p for p in precisions if p in allowed]


def artifact_path(args, model, precision):
    return os.path.join(args.artifacts, model, f"model.{precision}.tfm")


# --- prepare (where the compiler is) -------------------------------------------

def prepare(args):
    compiler = os.path.join(args.build, "bin", "transfuse-compile")
    if not os.path.isfile(compiler):
        sys.exit(f"error: {compiler} is missing: build first (make build)")
    env = dict(os.environ)
    if "CUDA_HOME" not in env:
        env["CUDA_HOME"] = subprocess.run(
            [os.path.join(ROOT, "tools", "install-cuda-toolkit.sh")],
            check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    for model in args.models:
        spec = os.path.join(ROOT, "models", model + ".pbtxt")
        arch = LIMITS.get(model, {}).get("cuda_arch")
        for precision in runs(model, args.precision):
            out = artifact_path(args, model, precision)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            if fwd.newer(out, spec, compiler):
                print(f"{model}: {os.path.relpath(out, ROOT)} up to date")
                continue
            start = time.monotonic()
            subprocess.run([compiler, spec, "--target=cuda",
                            f"--precision={precision}", "-o", out] +
                           ([f"--cuda-arch={arch}"] if arch else []),
                           check=True, env=env)
            print(f"{model} ({precision}): compiled in "
                  f"{time.monotonic() - start:.0f} s, "
                  f"{os.path.getsize(out) / 2**20:.1f} MiB")


# --- the workers (on the GPU machine, one process each) --------------------------

def device_taken(torch, free_before):
    torch.cuda.synchronize()
    return free_before - torch.cuda.mem_get_info()[0]


def time_steps(step, warmup, repeats, max_seconds):
    for _ in range(warmup):
        step()
    times, spent = [], 0.0
    while len(times) < repeats and (len(times) < 3 or spent < max_seconds):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
        spent += times[-1]
    return times


def worker_ours(args, torch, manifest, batch, forward_inputs):
    import runtime_api
    lib = runtime_api.load(args.runtime)
    artifact = runtime_api.Artifact(lib, artifact_path(args, args.model, args.precision))
    free = torch.cuda.mem_get_info()[0]
    session = runtime_api.Session(artifact)
    session.init_parameters(INIT_SEED)
    first = session.train_step(batch)
    train = time_steps(lambda: session.train_step(batch), args.warmup,
                       args.repeats, args.max_seconds)
    forward = time_steps(lambda: session.run("forward", forward_inputs),
                         args.warmup, args.repeats, args.max_seconds)
    return {"train": train, "forward": forward, "first": first,
            "memory": device_taken(torch, free)}


def worker_torch(args, torch, manifest, batch, forward_inputs):
    import numpy as np
    import runtime_api
    import reference_models
    import torch.nn.functional as F
    # The runtime's initialisation, read from a CPU-free session of the
    # CUDA artifact, so that both sides start from the same weights.
    lib = runtime_api.load(args.runtime)
    session = runtime_api.Session(runtime_api.Artifact(
        lib, artifact_path(args, args.model, args.precision)))
    session.init_parameters(INIT_SEED)
    names = [p["name"] for p in manifest["parameters"]]
    values = {n: session.parameter(n) for n in names}
    session.destroy()
    torch.cuda.empty_cache()

    device = torch.device("cuda")
    free = torch.cuda.mem_get_info()[0]
    module = reference_models.build(args.model).train().to(device)
    with torch.no_grad():
        for name, p in module.named_parameters():
            p.copy_(torch.from_numpy(values[name]))
    del values
    training = manifest["training"]
    params = [p for p in module.parameters() if p.requires_grad]
    optimizer, scheduler = train.optimizer_and_schedule(torch, params,
                                                        training)
    clip = float(training.get("clip_grad_norm", 0.0))
    ignore = int(training.get("ignore_index", -100))
    smoothing = train.label_smoothing(
        os.path.join(ROOT, "models", args.model + ".pbtxt"))
    run = torch.compile(module) if args.compile else module

    def to_device(arrays):
        return [torch.from_numpy(np.ascontiguousarray(a)).to(device)
                for a in arrays]

    def step():
        inputs = to_device(batch[n] for n in training["inputs"])
        labels, = to_device([batch[training["labels"][0]]])
        optimizer.zero_grad(set_to_none=True)
        out = run(*inputs)
        flat = out.reshape(-1, out.shape[-1])
        if training["loss"] == "nll_loss":
            loss = F.nll_loss(flat, labels.reshape(-1), ignore_index=ignore)
        else:
            loss = F.cross_entropy(flat, labels.reshape(-1),
                                   ignore_index=ignore,
                                   label_smoothing=smoothing)
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(params, clip)
        optimizer.step()
        scheduler.step()
        return loss.item()

    def forward():
        with torch.no_grad():
            out = run(*to_device(forward_inputs.values()))
            return out.cpu()

    start = time.monotonic()
    first = step()
    first_seconds = time.monotonic() - start
    train_times = time_steps(step, args.warmup, args.repeats,
                             args.max_seconds)
    forward_times = time_steps(forward, args.warmup, args.repeats,
                               args.max_seconds)
    return {"train": train_times, "forward": forward_times,
            "first": {"loss": first}, "first_seconds": first_seconds,
            "memory": device_taken(torch, free)}


def worker(args):
    import numpy as np
    import torch
    tf32 = args.precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.set_float32_matmul_precision("high" if tf32 else "highest")
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context, before any measurement
    manifest = fwd.read_manifest(artifact_path(args, args.model, args.precision))
    batch = train.make_batch(manifest, BATCH_SEED)
    forward_inputs = {name: batch[name]
                      for name in manifest["training"]["inputs"]}
    run = worker_ours if args.worker == "ours" else worker_torch
    result = run(args, torch, manifest, batch, forward_inputs)
    result["tokens"] = int(sum(np.asarray(forward_inputs[n]).size
                               for n in forward_inputs))
    print("GPU-BENCH " + json.dumps(result), flush=True)


# --- run (on the GPU machine) ----------------------------------------------------

def side(args, model, precision, kind, compile_peer=False, graphs=True):
    command = [sys.executable, os.path.abspath(__file__), "worker", kind,
               "--model", model, "--precision", precision,
               "--runtime", args.runtime, "--artifacts", args.artifacts,
               "--warmup", str(args.warmup), "--repeats", str(args.repeats),
               "--max-seconds", str(args.max_seconds)]
    if compile_peer:
        command.append("--compile")
    left = args.time_limit - (time.monotonic() - args.started)
    if left <= 0:
        raise RuntimeError(f"not run: past the run's {args.time_limit:.0f} s")
    env = dict(os.environ, TRANSFUSE_CUDA_GRAPHS="1" if graphs else "0")
    proc = subprocess.run(command, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env,
                          timeout=min(args.side_timeout, left))
    for line in proc.stdout.splitlines():
        if line.startswith("GPU-BENCH ") and proc.returncode == 0:
            return json.loads(line[len("GPU-BENCH "):])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    raise RuntimeError(f"{kind} worker failed (exit {proc.returncode}): "
                       f"{tail}")


def median_ms(times):
    return statistics.median(times) * 1e3


def run(args):
    import torch
    args.started = time.monotonic()
    gpu = torch.cuda.get_device_name(0)
    print(f"Transfuse GPU benchmark: {gpu}, PyTorch {torch.__version__} "
          f"(CUDA {torch.version.cuda}), float32 (TF32 where the precision "
          f"says so); median of up to {args.repeats} steps after "
          f"{args.warmup} warm-up")
    peers = [("eager", False)] + ([("compile", True)] if args.compile else [])
    results, rows = {}, []
    for model, precision in ((m, p) for m in args.models
                             for p in runs(m, args.precision)):
        entry = results.setdefault(model, {})[precision] = {}
        try:
            entry["ours"] = side(args, model, precision, "ours")
            entry["ours_launches"] = side(args, model, precision, "ours",
                                          graphs=False)
            for name, compiled in peers:
                entry[name] = side(args, model, precision, "torch", compiled)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            entry["error"] = str(error)
            print(f"{model} ({precision}): error: {error}", flush=True)
            continue
        ours, launches = entry["ours"], entry["ours_launches"]
        for name, _ in peers:
            peer = entry[name]
            rows.append([
                model, precision, name,
                f"{median_ms(launches['train']):.2f}",
                f"{median_ms(ours['train']):.2f}",
                f"{median_ms(peer['train']):.2f}",
                f"{median_ms(peer['train']) / median_ms(ours['train']):.2f}",
                f"{ours['tokens'] / statistics.median(ours['train']):,.0f}",
                f"{median_ms(ours['forward']):.2f}",
                f"{median_ms(peer['forward']):.2f}",
                f"{median_ms(peer['forward']) / median_ms(ours['forward']):.2f}",
                f"{ours['memory'] / 2**20:.0f}",
                f"{peer['memory'] / 2**20:.0f}"])
    header = ["model", "precision", "peer", "train ours launches ms",
              "train ours ms", "train peer ms", "speed-up",
              "ours tokens/s", "fwd ours ms", "fwd peer ms", "speed-up",
              "ours MiB", "peer MiB"]
    widths = [max(len(str(r[i])) for r in rows + [header])
              for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))
    out = os.path.join(args.out, "gpu-bench.json")
    os.makedirs(args.out, exist_ok=True)
    with open(out, "w") as f:
        json.dump({"gpu": gpu, "torch": torch.__version__,
                   "date": time.strftime("%Y-%m-%d"), "results": results}, f)
    print(f"wrote {out}")
    return 1 if any("error" in r for by_precision in results.values()
                    for r in by_precision.values()) else 0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("prepare", help="compile the CUDA artifacts")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--artifacts", default=CACHE_DIR,
                   help="where the artifacts go (default %(default)s)")
    p.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    p.add_argument("--precision", nargs="+", default=PRECISIONS,
                   choices=PRECISIONS)
    timing = argparse.ArgumentParser(add_help=False)
    timing.add_argument("--runtime", required=True,
                        help="libtransfuse_runtime.so built for CUDA")
    timing.add_argument("--artifacts", default=CACHE_DIR,
                        help="what `prepare` compiled (default %(default)s)")
    timing.add_argument("--warmup", type=int, default=3)
    timing.add_argument("--repeats", type=int, default=30)
    timing.add_argument("--max-seconds", type=float, default=5.0,
                        help="stop a side's timing after this, once it "
                             "has 3 steps")
    timing.add_argument("--compile", action="store_true",
                        help="also torch.compile (its compile time not "
                             "counted)")
    r = commands.add_parser("run", parents=[timing], help="time both sides")
    r.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    r.add_argument("--precision", nargs="+", default=PRECISIONS,
                   choices=PRECISIONS)
    r.add_argument("--out", default=os.environ.get("OUT", CACHE_DIR))
    r.add_argument("--side-timeout", type=float, default=240)
    r.add_argument("--time-limit", type=float, default=float("inf"),
                   help="seconds for the whole run: a side that would "
                        "start or run past it is not timed (an error)")
    w = commands.add_parser("worker", parents=[timing])
    w.add_argument("worker", choices=["ours", "torch"])
    w.add_argument("--model", required=True, choices=MODELS)
    w.add_argument("--precision", required=True, choices=PRECISIONS)
    return parser.parse_args()


def main():
    args = parse_args()
    if args.command == "prepare":
        return prepare(args)
    if args.command == "run":
        return run(args)
    return worker(args)


if __name__ == "__main__":
    sys.exit(main())
