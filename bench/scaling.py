#!/usr/bin/python3
"""Data-parallel weak scaling of the training step: N ranks against 1, for
Transfuse (an artifact compiled with --data-parallel, ranks under Open MPI's
mpirun) and for PyTorch DistributedDataParallel (gloo), on the same machine,
weights and per-rank batch, in the same run.

    /usr/bin/python3 bench/scaling.py [--models NAME ...] [--ranks 2] [--repeats N]

For each model it compiles the spec with `--data-parallel` (cached in
bench/.cache/scaling), writes the PyTorch reference model's weights and one
random batch of the spec's size B per rank (seed --seed + rank), then times
six sides, one after the other, each in its own process or processes:

- ours, 1 rank: the data-parallel artifact in a single process (no mpirun:
  its all-reduces are no-ops), `tf_session_train_step` on rank 0's batch;
- ours, N ranks: the same artifact under `mpirun -np N`, each rank on its
  own batch, the loss and gradients averaged over the ranks inside
  train_step; once with the all-reduces overlapping the rest of backward
  (the default) and once with TRANSFUSE_ALL_REDUCE_OVERLAP=0 (each
  all-reduce blocking where it starts);
- ours, N independent processes (no mpirun, no all-reduce, each on its own
  rank's batch, started together): the most N copies of the step can get
  from this machine, the ceiling of the N-rank run (--no-ceiling skips it);
- the peer, 1 process: PyTorch eager doing what train_step does (as
  bench/train.py's peer: the spec's loss, backward, clipping or the global
  norm, optimizer and schedule);
- the peer, N processes: the same, the module wrapped in
  DistributedDataParallel (gloo over 127.0.0.1, default buckets), N Python
  processes started here.

Every process runs --threads (1) threads. After the warm-up steps the ranks
agree on how many steps to time (the most that fit in --max-seconds, at
least --min-repeats, at most --repeats), meet at a barrier and time each
step. A side's N-rank step time is the largest of its ranks' medians; ours
also reports the share of rank 0's timed wall time spent blocked waiting
for all-reduces (tf_world_get_stats). It prints a table of the throughput
ratio N·B/t_N over B/t_1 against the issue's 1.8x target, and ours' N-rank
rows per second against DDP's. Before each side it waits up to
--wait-quiet seconds for other work on the machine to stop; a row timed
while other work took more than 15% of the CPUs is marked *. A run with
the defaults takes about 1.5 minutes on a quiet machine of 2 vCPUs (plus
the compiles, about 15 s a model, the first time). bench/README.md
explains every column.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import signal
import socket
import statistics
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
CACHE_DIR = os.path.join(BENCH_DIR, ".cache", "scaling")
PYTHON_TESTS = os.path.join(ROOT, "test", "python")
sys.path.insert(0, BENCH_DIR)
import forward as fwd  # noqa: E402  (helpers shared with the forward benchmark)
import train  # noqa: E402  (the training step's batch, optimizer and schedule)

DEFAULT_MODELS = ["char_lm", "transformer_small"]
# The issue's target: N ranks' throughput over 1 rank's.
TARGET = 1.8
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to",
          "none"]
# The sides in the order of the second table, and their short names.
SIDES = ("ours1", "oursN", "oursN-blocking", "oursN-alone", "torch1",
         "torchN")
SIDE_NAMES = "ours 1 / N / N no overlap / N independent / torch 1 / DDP"
# Stripped from every worker's environment besides what
# fwd.clean_environment strips: anything that would make a single process
# think mpirun started it.
STRIPPED = ("TRANSFUSE_ALL_REDUCE_OVERLAP", "MASTER_ADDR", "MASTER_PORT",
            "RANK", "WORLD_SIZE", "LOCAL_RANK")
STRIPPED_PREFIXES = ("OMPI_", "PMIX_", "PMI_")


# --- Shared by the workers -----------------------------------------------------

def agreed_steps(args, warm_times, mean_over_ranks):
    """How many steps every rank times: as many as fit in --max-seconds at
    the ranks' mean last warm-up step, within [--min-repeats, --repeats].
    `mean_over_ranks(x)` averages x over the ranks (and is a barrier), so
    every rank gets the same count."""
    estimate = mean_over_ranks(warm_times[-1] if warm_times else 0.0)
    if estimate <= 0:
        return args.repeats
    fit = int(args.max_seconds / estimate)
    return max(args.min_repeats, min(args.repeats, fit))


def file_barrier(directory, rank, count, timeout):
    """Waits until `count` independent processes have reached this point
    (each leaves a file in `directory`), so that their steps overlap."""
    open(os.path.join(directory, "ready-%d" % rank), "w").close()
    deadline = time.time() + timeout
    while len(os.listdir(directory)) < count:
        if time.time() > deadline:
            raise SystemExit("error: the other processes did not start")
        time.sleep(0.005)


def rank_record(times, wall, first_loss, last_loss, threads, stats=None):
    """One rank's results, as the driver reads them."""
    record = {"times": times, "wall_s": wall, "first_loss": first_loss,
              "last_loss": last_loss, "threads": threads}
    if stats:
        record.update(stats)
    return record


# --- Worker: Transfuse through the runtime's C API (ctypes) -------------------

def load_runtime(path):
    """train.load_runtime's library with the data-parallel calls added."""
    import ctypes as C

    class WorldStats(C.Structure):
        _fields_ = [("all_reduces", C.c_int64), ("bytes", C.c_int64),
                    ("wait_seconds", C.c_double)]

    lib = train.load_runtime(path)
    P, I32 = C.POINTER, C.c_int32
    for name, (args, result) in {
            "tf_world": ([P(I32), P(I32)], C.c_int),
            "tf_world_sum": ([P(C.c_double), I32], C.c_int),
            "tf_world_get_stats": ([P(WorldStats)], C.c_int),
            "tf_world_abort": ([I32], None)}.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, result
    lib.WorldStats = WorldStats
    return lib


def worker_ours(args):
    """One rank (or the single process) of ours. Every rank takes part in
    the collectives; rank 0 emits every rank's record. An error on one rank
    ends the whole run at once (tf_world_abort), so the others do not wait
    for it until the collective timeout."""
    import ctypes as C
    lib = load_runtime(args.runtime)
    rank, size = C.c_int32(0), C.c_int32(1)
    fwd.check(lib, lib.tf_world(C.byref(rank), C.byref(size)), "tf_world")
    rank, size = rank.value, size.value
    try:
        train_ours(lib, args, rank, size)
    except BaseException as error:  # SystemExit from fwd.check, or a bug
        if size > 1:
            sys.stderr.write("error: rank %d of %d: %s\n" % (rank, size, error))
            sys.stderr.flush()
            lib.tf_world_abort(1)
        raise


def train_ours(lib, args, rank, size):
    import ctypes as C
    check = fwd.check
    check(lib, lib.tf_set_num_threads(args.threads), "tf_set_num_threads")
    artifact, session = fwd.open_session(lib, args.tfm, args.weights)
    # A single process stands for rank --rank of independent processes.
    batch_file, batch = fwd.read_tensors(lib, args.inputs.format(
        rank=rank if size > 1 else args.rank))
    count = len(batch)
    result = lib.TrainResult()
    first = []

    def step():
        check(lib, lib.tf_session_train_step(session, batch, count,
                                             C.byref(result)), "train_step")
        if not first:
            first.append(result.loss)

    def world_sum(values):
        array = (C.c_double * len(values))(*values)
        check(lib, lib.tf_world_sum(array, len(values)), "tf_world_sum")
        return list(array)

    def stats():
        out = lib.WorldStats()
        check(lib, lib.tf_world_get_stats(C.byref(out)), "tf_world_get_stats")
        return out.all_reduces, out.bytes, out.wait_seconds

    if args.barrier:
        file_barrier(args.barrier, args.rank, args.world, args.timeout)
    warm = fwd.time_calls(step, 0, args.warmup, args.warmup, math.inf)
    steps = args.steps or agreed_steps(
        args, warm, lambda x: world_sum([x])[0] / size)
    reduces0, bytes0, wait0 = stats()
    start = time.perf_counter()
    times = fwd.time_calls(step, 0, steps, steps, math.inf)
    wall = time.perf_counter() - start
    reduces1, bytes1, wait1 = stats()

    # Every rank's record through the sum: each fills its own slot of a
    # zeroed vector (x + 0 is exact), so every rank gets all of them.
    fields = [wall, wait1 - wait0, reduces1 - reduces0, bytes1 - bytes0,
              first[0], result.loss, lib.tf_get_num_threads()]
    width = len(fields) + steps
    slots = [0.0] * (width * size)
    slots[rank * width:(rank + 1) * width] = fields + times
    slots = world_sum(slots)
    if rank == 0:
        records = []
        for r in range(size):
            f = slots[r * width:(r + 1) * width]
            records.append(rank_record(
                f[len(fields):], f[0], f[4], f[5], int(f[6]),
                {"wait_s": f[1], "all_reduces": int(f[2]),
                 "bytes": int(f[3])}))
        fwd.emit({"ranks": records, "size": size,
                  "steps_run": lib.tf_session_step(session),
                  "core": fwd.openblas_core()})
    lib.tf_tensor_file_close(batch_file)
    lib.tf_session_destroy(session)
    lib.tf_artifact_close(artifact)


# --- Worker: PyTorch eager, one process or one DDP rank (the peer) ------------

def worker_torch(args):
    """One process of the peer: plain eager when --world is 1, else rank
    --rank of a gloo process group with the module in
    DistributedDataParallel. Rank 0 emits every rank's record."""
    import numpy as np
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F
    torch.set_num_threads(args.threads)
    sys.path.insert(0, PYTHON_TESTS)
    import reference_models
    import safetensors_io

    rank, world = args.rank, args.world
    if world > 1:
        dist.init_process_group("gloo", init_method="env://", rank=rank,
                                world_size=world,
                                timeout=datetime.timedelta(seconds=120))
    manifest = fwd.read_manifest(args.tfm)
    training = manifest["training"]
    smoothing = float(args.label_smoothing)
    module = reference_models.build(args.model).train()
    fwd.load_weights(module, args.weights)
    params = [p for p in module.parameters() if p.requires_grad]
    model = module
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(module)
    batch, _ = safetensors_io.load(args.inputs.format(rank=rank))
    inputs = [torch.from_numpy(np.array(batch[n])) for n in training["inputs"]]
    labels = torch.from_numpy(np.array(batch[training["labels"][0]]))
    del batch
    optimizer, scheduler = train.optimizer_and_schedule(torch, params,
                                                        training)
    clip = float(training.get("clip_grad_norm", 0.0))
    ignore = int(training.get("ignore_index", -100))
    loss_kind = training["loss"]
    if loss_kind not in ("nll_loss", "cross_entropy"):
        raise SystemExit("error: loss %r: not known to the benchmark"
                         % loss_kind)
    first, last = [], [None]

    def step():  # train.worker_torch's step; DDP averages the gradients
        optimizer.zero_grad(set_to_none=True)
        out = model(*inputs)
        if loss_kind == "nll_loss":
            loss = F.nll_loss(out.reshape(-1, out.shape[-1]),
                              labels.reshape(-1), ignore_index=ignore)
        else:
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]),
                                   labels.reshape(-1), ignore_index=ignore,
                                   label_smoothing=smoothing)
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(params, clip)
        else:  # train_step still returns the norm: the same reduction
            torch.norm(torch.stack([torch.norm(p.grad.detach(), 2.0)
                                    for p in params if p.grad is not None]),
                       2.0)
        optimizer.step()
        scheduler.step()
        last[0] = loss.item()
        if not first:
            first.append(last[0])

    def mean_over_ranks(x):
        if world == 1:
            return x
        value = torch.tensor([x], dtype=torch.float64)
        dist.all_reduce(value)  # a barrier too
        return float(value[0]) / world

    warm = fwd.time_calls(step, 0, args.warmup, args.warmup, math.inf)
    steps = agreed_steps(args, warm, mean_over_ranks)
    start = time.perf_counter()
    times = fwd.time_calls(step, 0, steps, steps, math.inf)
    wall = time.perf_counter() - start
    record = rank_record(times, wall, first[0], last[0],
                         torch.get_num_threads())
    records = [record]
    if world > 1:
        records = [None] * world
        dist.all_gather_object(records, record)
        dist.barrier()
    if rank == 0:
        fwd.emit({"ranks": records, "size": world, "torch": torch.__version__,
                  "core": fwd.openblas_core(),
                  "ddp": "DistributedDataParallel(gloo)" if world > 1
                  else "none"})
    if world > 1:
        # Leave without the destructors: with PyTorch 1.13, a rank whose
        # peer has already exited can hang for good in the destructor of
        # the gloo process group that DDP holds, spinning in the kernel
        # (2 runs in 15 here, even after destroy_process_group()).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def worker_group(args):
    """Starts --ranks processes of one side and merges their results.
    --side ddp: worker_torch as one gloo group on a free port of 127.0.0.1
    (rank 0 emits every rank's record). --side ours: worker_ours as
    independent single processes (no mpirun, no all-reduce), each on its
    own rank's batch, meeting at a file barrier before their warm-up, then
    timing --steps steps: the ceiling of the machine for N copies of the
    step. Waits for them (--timeout); any process failing fails the run."""
    import shutil
    import tempfile
    barrier = tempfile.mkdtemp(prefix="scaling-barrier-")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    procs = []
    for rank in range(args.ranks):
        command = [sys.executable, os.path.abspath(__file__), "--rank",
                   str(rank), "--world", str(args.ranks)]
        env = dict(os.environ)
        if args.side == "ddp":
            command += ["--worker", "torch"]
            env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                       RANK=str(rank), WORLD_SIZE=str(args.ranks),
                       LOCAL_RANK=str(rank), GLOO_SOCKET_IFNAME="lo")
        else:
            command += ["--worker", "ours", "--barrier", barrier]
        procs.append(subprocess.Popen(
            command + args.passthrough, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True))
    deadline = time.time() + args.timeout - 10
    outputs = [None] * len(procs)
    failed, notes = None, []
    for rank, proc in enumerate(procs):
        # DDP's rank 0 has every rank's record once it is done: the others
        # then only have to exit.
        done = args.side == "ddp" and rank > 0
        limit = max(1, deadline - time.time())
        try:
            out, err = proc.communicate(timeout=min(limit, 30) if done
                                        else limit)
        except subprocess.TimeoutExpired:
            if done:
                notes.append("DDP rank %d did not exit after rank 0's "
                             "result; ended" % rank)
                continue
            failed = "rank %d timed out" % rank
            break
        outputs[rank] = out
        if proc.returncode != 0:
            failed = "rank %d failed (exit %d): %s" % (
                rank, proc.returncode, last_error(err))
            break
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    shutil.rmtree(barrier, ignore_errors=True)
    if failed:
        raise SystemExit("error: %s: %s" % (args.side, failed))
    results = []
    for out in outputs[:1] if args.side == "ddp" else outputs:
        lines = [l for l in out.splitlines() if l.startswith("BENCH-RESULT ")]
        if not lines:
            raise SystemExit("error: %s: a process gave no result" % args.side)
        results.append(json.loads(lines[-1][len("BENCH-RESULT "):]))
    merged = results[0]
    merged["notes"] = notes
    if args.side != "ddp":
        merged["ranks"] = [r["ranks"][0] for r in results]
        merged["size"] = len(results)
        merged["independent"] = True
    fwd.emit(merged)


# --- The driver ----------------------------------------------------------------

def last_error(stderr):
    """The most telling line of a failed worker's stderr: the last that
    starts with "error:" or an exception's name, else the last."""
    lines = [l.strip() for l in stderr.strip().splitlines() if l.strip()]
    errors = [l for l in lines
              if re.match(r"(error:|\w*(Error|Exception)\b)", l)]
    return (errors or lines or ["no output"])[-1][:600]


def worker_env(args, peer):
    """A clean environment for a worker (see STRIPPED): OMP_WAIT_POLICY as
    --omp-wait-policy, OMP_NUM_THREADS=--threads, the peer on OpenBLAS."""
    env = fwd.clean_environment(STRIPPED, STRIPPED_PREFIXES)
    if args.openblas_core:
        env["OPENBLAS_CORETYPE"] = args.openblas_core
    if args.omp_wait_policy != "default":
        env["OMP_WAIT_POLICY"] = args.omp_wait_policy
    env["OMP_NUM_THREADS"] = str(args.threads)
    if peer:
        env["LD_LIBRARY_PATH"] = fwd.PEER_BLAS_DIR
    return env


def run_measured(kind, command, env, timeout):
    """fwd.run_measured with a time limit: the worker's BENCH-RESULT with
    `others_busy` (the share of the CPUs other processes used meanwhile;
    the processes mpirun or the DDP launcher start count as ours) and
    `wall_s`. A worker past `timeout` is ended with its process group."""
    cpu0, ours0, wall0 = fwd.cpu_seconds(), fwd.children_seconds(), time.time()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        raise RuntimeError("%s timed out after %ds (--timeout)" % (kind,
                                                                  timeout))
    others = ((fwd.cpu_seconds() - cpu0) - (fwd.children_seconds() - ours0)) \
        / max(1e-3, (time.time() - wall0) * len(os.sched_getaffinity(0)))
    for line in out.splitlines():
        if line.startswith("BENCH-RESULT ") and proc.returncode == 0:
            result = json.loads(line[len("BENCH-RESULT "):])
            result["others_busy"] = max(0.0, others)
            result["wall_s"] = time.time() - wall0
            return result
    raise RuntimeError("%s failed (exit %d): %s" % (kind, proc.returncode,
                                                    last_error(err)))


def worker_flags(args, common):
    return ["--threads", str(args.threads), "--warmup", str(args.warmup),
            "--repeats", str(args.repeats), "--min-repeats",
            str(args.min_repeats), "--max-seconds", str(args.max_seconds),
            "--runtime", args.runtime] + common


def run_ours(args, common, ranks, overlap=True):
    flags = worker_flags(args, common)
    command = [sys.executable, os.path.abspath(__file__), "--worker", "ours"
               ] + flags
    env = worker_env(args, peer=False)
    if ranks > 1:
        # Local ranks inherit mpirun's environment; -x says so explicitly.
        forwarded = ["OMP_NUM_THREADS"] + (
            ["OMP_WAIT_POLICY"] if "OMP_WAIT_POLICY" in env else []) + (
            [] if overlap else ["TRANSFUSE_ALL_REDUCE_OVERLAP=0"])
        command = MPIRUN + ["-np", str(ranks)] + [
            item for name in forwarded for item in ("-x", name)] + command
    kind = "ours, %d rank%s%s" % (ranks, "s" if ranks > 1 else "",
                                  "" if overlap else ", no overlap")
    result = run_measured(kind, command, env, args.timeout)
    return check_result(kind, result, ranks, args.threads)


def run_independent(args, common, ranks, steps):
    """Ours as `ranks` independent single processes at once, `steps` timed
    steps each: what the machine gives N copies of the step with no
    communication at all."""
    command = [sys.executable, os.path.abspath(__file__), "--worker",
               "group", "--side", "ours", "--ranks", str(ranks),
               "--timeout", str(args.timeout), "--"] + worker_flags(
                   args, common + ["--steps", str(steps)])
    kind = "ours, %d independent processes" % ranks
    result = run_measured(kind, command, worker_env(args, peer=False),
                          args.timeout)
    return check_result(kind, result, ranks, args.threads)


def run_torch(args, common, ranks):
    flags = worker_flags(args, common)
    if ranks > 1:
        command = [sys.executable, os.path.abspath(__file__), "--worker",
                   "group", "--side", "ddp", "--ranks", str(ranks),
                   "--timeout", str(args.timeout), "--"] + flags
        kind = "torch DDP, %d processes" % ranks
    else:
        command = [sys.executable, os.path.abspath(__file__), "--worker",
                   "torch"] + flags
        kind = "torch, 1 process"
    result = run_measured(kind, command, worker_env(args, peer=True),
                          args.timeout)
    return check_result(kind, result, ranks, args.threads)


def check_result(kind, result, ranks, threads):
    """Holds a side's result to what was asked: the number of ranks and
    threads, finite losses, all-reduces on every step of ours. Prints the
    launcher's notes."""
    for note in result.get("notes", []):
        print("  note: %s: %s" % (kind, note), flush=True)
    if result["size"] != ranks or len(result["ranks"]) != ranks:
        raise RuntimeError("%s ran as %d ranks" % (kind, result["size"]))
    for r, record in enumerate(result["ranks"]):
        if record["threads"] != threads:
            raise RuntimeError("%s: rank %d ran on %d threads, not %d" % (
                kind, r, record["threads"], threads))
        if not (math.isfinite(record["first_loss"]) and
                math.isfinite(record["last_loss"])):
            raise RuntimeError("%s: rank %d's loss is not finite (first %r, "
                               "last %r)" % (kind, r, record["first_loss"],
                                             record["last_loss"]))
        if ranks > 1 and "all_reduces" in record and \
                not result.get("independent") and \
                record["all_reduces"] < len(record["times"]):
            raise RuntimeError("%s: rank %d ran %d all-reduces in %d steps: "
                               "is the artifact data-parallel?" % (
                                   kind, r, record["all_reduces"],
                                   len(record["times"])))
    return result


def step_ms(result):
    """A side's step time: the largest of its ranks' median ms."""
    return max(statistics.median(r["times"]) * 1e3 for r in result["ranks"])


def wait_share(result):
    """Rank 0's time blocked in all-reduces over its timed wall time."""
    r = result["ranks"][0]
    return r["wait_s"] / r["wall_s"]


def compile_data_parallel(args, spec, tfm):
    """Compiles `spec` with its training section and --data-parallel (and
    --bucket-mib, -D batch= when given) unless the cached artifact is newer
    than the spec and the compiler and was built with the same flags;
    returns the compile time, or None when cached."""
    flags = ["--target=cpu", "--data-parallel"]
    if args.bucket_mib is not None:
        flags.append("--bucket-mib=%g" % args.bucket_mib)
    if args.batch:
        flags += ["-D", "batch=%d" % args.batch]
    stamp = tfm + ".flags"
    if fwd.newer(tfm, spec, args.compiler) and os.path.exists(stamp):
        with open(stamp) as f:
            if f.read() == " ".join(flags):
                return None
    start = time.perf_counter()
    proc = subprocess.run([args.compiler, spec] + flags + ["-o", tfm],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError("transfuse-compile %s: %s" % (
            os.path.basename(spec), proc.stderr.strip()[:2000]))
    with open(stamp, "w") as f:
        f.write(" ".join(flags))
    return time.perf_counter() - start


def versions(args):
    """Open MPI's and the tree's versions, for the header."""
    def first_line(command):
        try:
            out = subprocess.run(command, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True,
                                 cwd=ROOT, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return (out.strip().splitlines() or [""])[0]
    mpi = first_line(["mpirun", "--version"]) or "mpirun not found"
    head = first_line(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    if first_line(["git", "status", "--porcelain", "--untracked-files=no"]):
        head += " + uncommitted changes"
    return mpi, head


def report_model(model, sides, failed, n, rows_per_rank, rows, details,
                 compare):
    """Adds `model`'s rows to the main table, its line comparing ours with
    DDP and its row of the second table; a side in `failed` shows "error",
    one that did not run "–"."""
    ms = {k: step_ms(v) for k, v in sides.items()}
    busy = {k: v["others_busy"] for k, v in sides.items()}
    rate = lambda key, ranks: ranks * rows_per_rank / (ms[key] * 1e-3)
    shown = lambda key, text: text() if key in sides else (
        "error" if key in failed else "–")

    for label, one, many in (
            ("Transfuse", "ours1", "oursN"),
            ("Transfuse, no overlap", "ours1", "oursN-blocking"),
            ("Transfuse, %d independent processes" % n, "ours1",
             "oursN-alone"),
            ("PyTorch DDP (gloo)", "torch1", "torchN")):
        if many not in sides and many not in failed:
            continue  # not run (--no-ceiling)
        noisy = max([busy[k] for k in (one, many) if k in busy] or [0])
        row = [model + (" *" if noisy > fwd.QUIET_BUSY else ""), label,
               shown(one, lambda: "%.1f" % ms[one]),
               shown(many, lambda: "%.1f" % ms[many]),
               shown(many, lambda: "%.0f" % rate(many, n))]
        if one in sides and many in sides:
            ratio = n * ms[one] / ms[many]
            row.append("%.2fx" % ratio)
        else:
            ratio = None
            row.append("")
        row.append(shown(many, lambda: "%.1f%%" % (100 * wait_share(
            sides[many]))) if many in ("oursN", "oursN-blocking") else "–")
        row.append("" if many not in ("oursN", "oursN-blocking") or
                   ratio is None else "%.1fx %s" % (
                       TARGET, "met" if ratio >= TARGET else "not met"))
        rows.append(row)

    if "oursN" in sides and "torchN" in sides:
        ours_rate, ddp_rate = rate("oursN", n), rate("torchN", n)
        compare.append("%s: %d ranks, ours %.0f rows/s against DDP's %.0f "
                       "rows/s: %.2fx (%s)%s" % (
                           model, n, ours_rate, ddp_rate,
                           ours_rate / ddp_rate,
                           "ahead" if ours_rate > ddp_rate else "behind",
                           "; 1 rank: ours %.0f, torch %.0f rows/s" % (
                               rate("ours1", 1), rate("torch1", 1))
                           if "ours1" in sides and "torch1" in sides
                           else ""))

    def per_rank(key):
        return shown(key, lambda: " / ".join(
            "%.1f" % (statistics.median(r["times"]) * 1e3)
            for r in sides[key]["ranks"]))

    def max_wait(key):
        return shown(key, lambda: "%.0f%%" % (100 * max(
            r["wait_s"] / r["wall_s"] for r in sides[key]["ranks"])))

    def first_loss(key, mean=False):
        return shown(key, lambda: "%.4f" % statistics.mean(
            r["first_loss"] for r in sides[key]["ranks"][:None if mean
                                                         else 1]))

    o = sides.get("oursN", {"ranks": [{}]})["ranks"][0]
    details.append([
        model,
        " / ".join(shown(k, lambda: "%d" % len(sides[k]["ranks"][0]["times"]))
                   for k in SIDES),
        per_rank("oursN"), per_rank("torchN"),
        "%s / %s" % (max_wait("oursN"), max_wait("oursN-blocking")),
        shown("oursN", lambda: "%d, %.2f MiB" % (
            o["all_reduces"] // len(o["times"]),
            o["bytes"] / len(o["times"]) / 2 ** 20)),
        "%s / %s" % (first_loss("ours1"), first_loss("torch1")),
        "%s / %s" % (first_loss("oursN"), first_loss("torchN", mean=True)),
        " / ".join(shown(k, lambda: "%.0f%%" % (100 * busy[k]))
                   for k in SIDES),
    ])
    names = ("ours 1 rank", "ours %d ranks" % n, "without overlap",
             "as %d independent processes" % n, "torch 1 process",
             "DDP %d processes" % n)
    print("%s: %s" % (model, ", ".join(
        "%s %.1f ms" % (name, ms[key]) for key, name in zip(SIDES, names)
        if key in ms)), flush=True)
    if busy and max(busy.values()) > fwd.QUIET_BUSY:
        print("  note: %s was timed while other work used up to %.0f%% of "
              "the CPUs (marked *)" % (model, 100 * max(busy.values())))


def driver(args):
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io

    fwd.require_tools(args)
    mpi, head = versions(args)
    if not mpi.startswith("mpirun"):
        sys.exit("error: %s: apt-get install openmpi-bin libopenmpi-dev "
                 "(and rebuild, for the runtime's MPI transport)" % mpi)
    os.makedirs(CACHE_DIR, exist_ok=True)
    cpu, isa, cpus, usable = fwd.machine_description()
    load = os.getloadavg()
    n = args.ranks
    print("Transfuse data-parallel weak scaling, %s" %
          datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    print("machine: %s, %s, %d CPUs (%d usable), %s" % (
        cpu, isa, cpus, usable, platform.platform()))
    print("tree: %s; %s; Python %s" % (head, mpi, platform.python_version()))
    print("%d ranks against 1, %d thread%s per rank, the spec's batch per "
          "rank; %d warm-up steps, then up to %d timed (at least %d, about "
          "%gs of timing per side)" % (
              n, args.threads, "s" if args.threads > 1 else "", args.warmup,
              args.repeats, args.min_repeats, args.max_seconds))
    print("OMP_WAIT_POLICY: %s on both sides; OPENBLAS_CORETYPE: %s" % (
        args.omp_wait_policy if args.omp_wait_policy != "default" else "unset",
        args.openblas_core or "unset"))
    if n * args.threads > usable:
        print("note: %d ranks x %d threads is more than the %d usable CPUs"
              % (n, args.threads, usable))
    print("load average: %.2f %.2f %.2f%s" % (
        load + (("  <-- the machine is busy: timings will be noisy"
                 if load[0] > 1.5 else ""),)))
    print(flush=True)

    rows, details, compare, records = [], [], [], {}
    torch_version = None
    for model in args.models:
        spec, work, tfm, weights = fwd.model_files(CACHE_DIR, model)
        batch_path = os.path.join(work, "batch-{rank}.safetensors")
        try:
            compile_s = compile_data_parallel(args, spec, tfm)
            if compile_s is not None:
                print("%s: compiled with --data-parallel in %.0f s" % (
                    model, compile_s), flush=True)
            manifest = fwd.read_manifest(tfm)
            if "training" not in manifest:
                raise RuntimeError("%s has no training section" % tfm)
            if not fwd.newer(weights, os.path.join(PYTHON_TESTS,
                                                   "reference_models.py")):
                run_measured("weights", [
                    sys.executable, os.path.abspath(__file__), "--worker",
                    "weights", "--model", model, "--weights", weights],
                    worker_env(args, peer=True), args.timeout)
            for rank in range(n):
                batch = train.make_batch(manifest, args.seed + rank)
                safetensors_io.save(batch_path.format(rank=rank), batch)
            rows_per_rank = len(batch[manifest["training"]["inputs"][0]])
            common = ["--model", model, "--tfm", tfm, "--weights", weights,
                      "--inputs", batch_path, "--label-smoothing",
                      str(train.label_smoothing(spec))]
        except RuntimeError as error:
            print("%s: error: %s" % (model, error), flush=True)
            rows.append([model, "error"] + [""] * 7)
            continue
        sides, failed = {}, set()
        # Each side waits for the machine to be quiet first: on 2 CPUs any
        # other work takes a rank's core. A side that fails is reported and
        # the others still run.
        for key, run in (
                ("ours1", lambda: run_ours(args, common, 1)),
                ("oursN", lambda: run_ours(args, common, n)),
                ("oursN-blocking",
                 lambda: run_ours(args, common, n, overlap=False)),
                ("oursN-alone", lambda: run_independent(
                    args, common, n,
                    len(sides["oursN"]["ranks"][0]["times"])
                    if "oursN" in sides else args.repeats)),
                ("torch1", lambda: run_torch(args, common, 1)),
                ("torchN", lambda: run_torch(args, common, n))):
            if key == "oursN-alone" and args.no_ceiling:
                continue
            fwd.wait_until_quiet(args.wait_quiet)
            try:
                sides[key] = run()
            except RuntimeError as error:
                print("%s: error: %s" % (model, error), flush=True)
                failed.add(key)
        records[model] = sides
        if "torch1" in sides:
            torch_version = sides["torch1"]["torch"]
        report_model(model, sides, failed, n, rows_per_rank, rows, details,
                     compare)

    print()
    if torch_version:
        print("peer: PyTorch %s eager; %d processes in "
              "DistributedDataParallel, gloo over 127.0.0.1, default buckets"
              % (torch_version, n))
    fwd.print_table(["model", "side", "1 rank ms/step",
                     "%d ranks ms/step" % n, "%d-rank rows/s" % n,
                     "throughput ratio", "all-reduce wait share (rank 0)",
                     "target"], rows)
    print()
    for line in compare:
        print(line)
    if details:
        print()
        fwd.print_table([
            "model", "steps timed (%s)" % SIDE_NAMES,
            "ours per-rank median ms", "DDP per-rank median ms",
            "max wait share over ranks, overlap / not",
            "ours all-reduces per step, payload",
            "step-1 loss 1 rank ours / torch",
            "step-1 loss N ranks ours / DDP mean",
            "other work on the CPUs (same order)"], details)
    print()
    print("load average at the end: %.2f %.2f %.2f" % os.getloadavg())
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ranks": n, "threads": args.threads,
                       "models": records}, f, indent=1)
        print("wrote %s" % args.json)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS,
                        choices=fwd.MODELS, metavar="NAME",
                        help="seed models to run (default: %s)" %
                        " ".join(DEFAULT_MODELS))
    parser.add_argument("--ranks", type=int, default=2,
                        help="ranks (processes) of the parallel runs "
                             "(default 2)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per rank, both sides (default 1)")
    parser.add_argument("--batch", type=int,
                        help="rows per rank (-D batch=N; default the spec's)")
    parser.add_argument("--bucket-mib", type=float,
                        help="transfuse-compile --bucket-mib (default the "
                             "compiler's)")
    parser.add_argument("--no-ceiling", action="store_true",
                        help="skip the run of ours as N independent "
                             "processes (no all-reduce)")
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed steps first (default 3)")
    parser.add_argument("--repeats", type=int, default=20,
                        help="timed steps at most (default 20)")
    parser.add_argument("--min-repeats", type=int, default=5,
                        help="timed steps even past --max-seconds (default 5)")
    parser.add_argument("--max-seconds", type=float, default=10.0,
                        help="time about this long per side, within the "
                             "step counts above (default 10)")
    fwd.add_wait_quiet(parser, 120, "each side")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of rank 0's random batch; rank r's is "
                             "seed + r (default 1)")
    fwd.add_openblas_core(parser)
    fwd.add_omp_wait_policy(parser)
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds before a side's processes are ended "
                             "(default 600)")
    parser.add_argument("--json", metavar="PATH",
                        help="also write every rank's timings as JSON")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="the build directory (default build/)")
    parser.add_argument("--compiler", help=argparse.SUPPRESS)
    parser.add_argument("--runtime", help=argparse.SUPPRESS)
    parser.add_argument("--worker", choices=["ours", "torch", "group",
                                             "weights"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--side", choices=["ours", "ddp"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--barrier", help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--world", type=int, default=1,
                        help=argparse.SUPPRESS)
    parser.add_argument("--label-smoothing", default="0",
                        help=argparse.SUPPRESS)
    for name in ("--model", "--tfm", "--weights", "--inputs"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    parser.add_argument("passthrough", nargs=argparse.REMAINDER,
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.passthrough and args.passthrough[0] == "--":
        args.passthrough = args.passthrough[1:]
    if args.passthrough and args.worker != "group":
        parser.error("unexpected arguments: %s" % " ".join(args.passthrough))
    if min(args.ranks, args.threads, args.repeats, args.min_repeats) < 1 or \
            args.warmup < 0 or args.min_repeats > args.repeats:
        parser.error("--ranks, --threads, --repeats and --min-repeats must "
                     "be positive, --min-repeats at most --repeats")
    args.compiler = args.compiler or os.path.join(args.build, "bin",
                                                  "transfuse-compile")
    args.runtime = os.path.abspath(args.runtime or os.path.join(
        args.build, "lib", "libtransfuse_runtime.so"))
    if args.worker:
        {"ours": worker_ours, "torch": worker_torch, "group": worker_group,
         "weights": fwd.worker_weights}[args.worker](args)
    else:
        driver(args)


if __name__ == "__main__":
    main()
