#!/usr/bin/python3
"""Greedy generation throughput of char_lm: Transfuse's key/value-cache entry
points (prefill + decode_step) against PyTorch eager with a hand-written
key/value cache, on the same weights, prompts and thread counts.

    /usr/bin/python3 bench/generate.py [--threads 1 2] [--seq 272] [--json PATH]

It compiles models/char_lm.pbtxt with `-D seq=SEQ` (cached in
bench/.cache/generate), writes the PyTorch reference model's weights, takes
one prompt per sequence of the batch (the first PROMPT_LEN bytes of lines of
a licence text, or random bytes) and continues every prompt greedily by
SEQ - PROMPT_LEN tokens, on each side in its own process:

- ours: the prompts through `decode_step` one position at a time (through
  `prefill` on the padded prompts where they fill more than a quarter of
  the context), as the runtime's Generator runs them, then `decode_step`
  once per new token, through the runtime's C API in-process
  (test/python/runtime_api.py), argmax in numpy;
- the peer: the reference module's own layers run with a preallocated
  key/value cache per layer (prefill over the prompt, then one position per
  step), under torch.inference_mode(), argmax in torch.

Both sides also time the path without a cache: a forward pass over the whole
sequence for every new token (a few calls, extrapolated). It prints how many
greedy tokens the two sides agree on, then a markdown table: tokens per
second, the median step, the step in the first and last quarter of
positions, the recomputing path and the ratio ours/torch, for every thread
count. bench/README.md explains the columns.
"""
import argparse
import ctypes
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
CACHE_DIR = os.path.join(BENCH_DIR, ".cache", "generate")
PYTHON_TESTS = os.path.join(ROOT, "test", "python")
sys.path.insert(0, BENCH_DIR)
import forward as fwd  # noqa: E402  (helpers shared with the forward benchmark)

MODEL = "char_lm"
LICENCE = "/usr/share/common-licenses/GPL-3"


# --- Shared by both workers ---------------------------------------------------

def load_prompts(path):
    with open(path) as f:
        prompts = json.load(f)
    return prompts  # [[byte, ...], ...], all of the same length


def quarter_medians(step_ms):
    """Median step time (ms) over the first and the last quarter of the
    steps, in position order."""
    n = max(1, len(step_ms) // 4)
    return statistics.median(step_ms[:n]), statistics.median(step_ms[-n:])


def timed_generations(generate, args, same, side):
    """--warmup untimed and --repeats timed calls of generate(record), which
    returns (prefill seconds, per-step seconds, tokens) and fills `record`
    with logits on the first timed call; the tokens must be the same every
    time. Returns the prefill times, the step times, the tokens, the record."""
    record = {}
    for _ in range(args.warmup):
        generate(None)
    prefills, runs, tokens = [], [], None
    for r in range(args.repeats):
        prefill_s, times, generated = generate(record if r == 0 else None)
        prefills.append(prefill_s)
        runs.append(times)
        tokens = generated if tokens is None else tokens
        if not same(generated, tokens):
            raise SystemExit("error: two greedy runs of %s differ" % side)
    return prefills, runs, tokens, record


def step_profile(runs):
    """Per-step median over the timed runs: one time (ms) per position."""
    return [statistics.median(r[i] for r in runs) * 1e3
            for i in range(len(runs[0]))]


# --- Worker: Transfuse through the runtime's C API (ctypes) -------------------

def worker_ours(args):
    import numpy as np
    sys.path.insert(0, PYTHON_TESTS)
    import runtime_api as rt

    lib = rt.load(args.runtime)
    fwd.check(lib, lib.tf_set_num_threads(args.threads), "tf_set_num_threads")
    artifact = rt.Artifact(lib, args.tfm)
    session = rt.Session(artifact)
    session.load_parameters(args.weights)
    prompts = np.array(load_prompts(args.prompts), np.int64)
    batch, prompt_len = prompts.shape
    (_, _, (tf_batch, seq), _), = artifact.inputs("prefill")
    vocab = artifact.outputs("prefill")[0][2][-1]
    if tf_batch != batch:
        raise SystemExit("error: %d prompts for an artifact of batch %d"
                         % (batch, tf_batch))
    new_tokens = args.new_tokens

    # Inputs bound once and updated in place; the output viewed, not copied.
    prefill_tokens = np.zeros((batch, seq), np.int64)
    prefill_tokens[:, :prompt_len] = prompts
    step_tokens = np.zeros((batch, 1), np.int64)
    positions = np.zeros(batch, np.int64)
    prefill_in, keep1 = rt._bind({"tokens": prefill_tokens})
    step_in, keep2 = rt._bind({"tokens": step_tokens, "positions": positions})
    forward_in, keep3 = rt._bind({"tokens": prefill_tokens})
    out = (rt.NamedTensor * 1)()
    sequence_logits = ctypes.c_float * (batch * seq * vocab)
    step_logits = ctypes.c_float * (batch * vocab)

    def run(entry, named, count, floats):
        fwd.check(lib, lib.tf_session_run(session.handle, entry, named, count,
                                          out, 1), entry.decode())
        # A view of the session's output buffer (valid until the next run).
        return np.ctypeslib.as_array(floats.from_address(out[0].tensor.data))

    # As the runtime's Generator (runPrompts in
    # runtime/lib/DecodingEntryPoints.cpp): prompts that fill at most a
    # quarter of the context run through decode_step one position at a
    # time, longer ones through prefill over the whole context.
    def run_prompts():
        if 4 * prompt_len > seq:
            logits = run(b"prefill", prefill_in, 1, sequence_logits)
            return logits.reshape(batch, seq, vocab)[:, prompt_len - 1]
        for i in range(prompt_len):
            step_tokens[:, 0] = prompts[:, i]
            positions[:] = i
            logits = run(b"decode_step", step_in, 2, step_logits)
        return logits.reshape(batch, vocab)

    def generate(record):
        generated = np.empty((batch, new_tokens), np.int64)
        start = time.perf_counter_ns()
        logits = run_prompts()
        if record is not None:
            record["prefill_logits"] = logits.copy()
        generated[:, 0] = step_tokens[:, 0] = logits.argmax(-1)
        times = []
        prefill_s = (time.perf_counter_ns() - start) * 1e-9
        for i in range(1, new_tokens):
            t0 = time.perf_counter_ns()
            positions[:] = prompt_len + i - 1
            logits = run(b"decode_step", step_in, 2, step_logits)
            logits = logits.reshape(batch, vocab)
            generated[:, i] = step_tokens[:, 0] = logits.argmax(-1)
            times.append((time.perf_counter_ns() - t0) * 1e-9)
            if record is not None and i in (1, new_tokens - 1):
                record["step%d_logits" % i] = logits.copy()
        return prefill_s, times, generated

    prefills, runs, tokens, record = timed_generations(
        generate, args, np.array_equal, "ours")

    # The path without a cache: `forward` over the whole fixed-shape sequence
    # for every new token (what `transfuse-run --text` does).
    recompute = fwd.time_calls(
        lambda: run(b"forward", forward_in, 1, sequence_logits), 1,
        args.recompute_repeats, args.recompute_repeats, 1e9)
    fwd.emit({
        "threads": args.threads, "batch": batch, "seq": seq,
        "prompt_len": prompt_len, "new_tokens": new_tokens,
        "prefill_s": prefills, "step_s": runs,
        "totals_s": [p + sum(r) for p, r in zip(prefills, runs)],
        "recompute_token_s": statistics.median(recompute),
        "recompute_s": recompute,
        "tokens": tokens.tolist(),
        "logits": {k: v.tolist() for k, v in record.items()},
        "blas": fwd.mapped_libraries(r"openblas|blas"),
        "core": fwd.openblas_core()})
    del keep1, keep2, keep3
    session.destroy()
    artifact.close()


# --- Worker: PyTorch eager with a key/value cache -----------------------------

class CachedCharLM:
    """The reference CharLM's layers run one step at a time over a key/value
    cache, as a PyTorch user would write it: per layer, project q, k and v
    of the new positions, write k and v into preallocated [batch, heads,
    capacity, d_k] tensors, attend over the rows written so far, and the
    same post-LayerNorm block as reference_models.EncoderLayer."""

    def __init__(self, module, batch, capacity):
        import torch
        self.m = module
        self.torch = torch
        layer0 = module.layers[0].self_attn
        self.h, self.d_k = layer0.h, layer0.d_k
        self.scale = math.sqrt(module.embedding.d_model)
        self.pe = module.embedding.position.pe[0]  # [max_len, d_model]
        shape = (batch, self.h, capacity, self.d_k)
        self.keys = [torch.zeros(shape) for _ in module.layers]
        self.values = [torch.zeros(shape) for _ in module.layers]

    def __call__(self, tokens, start):
        """Logits [batch, T, vocab] of `tokens` [batch, T] at positions
        start..start+T-1, all sequences at the same position; appends their
        keys and values to the cache."""
        import reference_models as ref
        torch, m = self.torch, self.m
        b, t = tokens.shape
        end = start + t
        # Embeddings: token * sqrt(d_model) + the sinusoid of the position.
        x = torch.nn.functional.embedding(tokens, m.embedding.weight) \
            * self.scale + self.pe[start:end]
        # Causal within the new positions; every cached row is visible.
        mask = None
        if t > 1:
            mask = torch.ones(t, end, dtype=torch.bool).tril(start)[None, None]
        for layer, k_cache, v_cache in zip(m.layers, self.keys, self.values):
            attn = layer.self_attn
            q, k, v = [lin(x).view(b, t, self.h, self.d_k).transpose(1, 2)
                       for lin in (attn.w_q, attn.w_k, attn.w_v)]
            k_cache[:, :, start:end] = k
            v_cache[:, :, start:end] = v
            a, _ = ref.attention(q, k_cache[:, :, :end], v_cache[:, :, :end],
                                 mask=mask)
            a = attn.w_o(a.transpose(1, 2).reshape(b, t, self.h * self.d_k))
            x = layer.norm1(x + a)
            x = layer.norm2(x + layer.feed_forward(x))
        return m.output(x)


def worker_torch(args):
    import torch
    sys.path.insert(0, PYTHON_TESTS)
    import reference_models

    torch.set_num_threads(args.threads)
    module = reference_models.build(MODEL).eval()
    fwd.load_weights(module, args.weights)
    prompts = torch.tensor(load_prompts(args.prompts), dtype=torch.int64)
    batch, prompt_len = prompts.shape
    new_tokens = args.new_tokens
    capacity = args.seq

    with torch.inference_mode():
        # The cache, allocated once (as the runtime's session holds ours);
        # each generation overwrites it from position 0.
        model = CachedCharLM(module, batch, capacity)

    def generate(record):
        generated = torch.empty(batch, new_tokens, dtype=torch.int64)
        with torch.inference_mode():
            start = time.perf_counter_ns()
            logits = model(prompts, 0)[:, -1]
            if record is not None:
                record["prefill_logits"] = logits.clone()
            token = logits.argmax(-1)
            generated[:, 0] = token
            prefill_s = (time.perf_counter_ns() - start) * 1e-9
            times = []
            for i in range(1, new_tokens):
                t0 = time.perf_counter_ns()
                logits = model(token[:, None], prompt_len + i - 1)[:, 0]
                token = logits.argmax(-1)
                generated[:, i] = token
                times.append((time.perf_counter_ns() - t0) * 1e-9)
                if record is not None and i in (1, new_tokens - 1):
                    record["step%d_logits" % i] = logits.clone()
        return prefill_s, times, generated

    prefills, runs, tokens, record = timed_generations(
        generate, args, torch.equal, "the peer")

    full = torch.cat([prompts, tokens], 1)  # prompt + continuation
    with torch.inference_mode():
        # The cache against the module's own forward over the whole sequence.
        reference = module(full[:, :-1])
        self_diff = max(
            float((reference[:, prompt_len - 1] -
                   record["prefill_logits"]).abs().max()),
            float((reference[:, -1] -
                   record["step%d_logits" % (new_tokens - 1)]).abs().max()))

        # The path without a cache: the module's forward over the prefix for
        # every new token. Timed at the first, middle and last length and
        # integrated with the trapezoid rule.
        lengths = [prompt_len, prompt_len + (new_tokens - 1) // 2,
                   prompt_len + new_tokens - 1]
        at = []
        for length in lengths:
            prefix = full[:, :length]
            at.append(statistics.median(fwd.time_calls(
                lambda: module(prefix), 1, args.recompute_repeats,
                args.recompute_repeats, 1e9)))
    recompute_token_s = (at[0] + 2 * at[1] + at[2]) / 4

    fwd.emit({
        "threads": torch.get_num_threads(), "batch": batch, "seq": capacity,
        "prompt_len": prompt_len, "new_tokens": new_tokens,
        "prefill_s": prefills, "step_s": runs,
        "totals_s": [p + sum(r) for p, r in zip(prefills, runs)],
        "recompute_token_s": recompute_token_s,
        "recompute_lengths": lengths, "recompute_at_s": at,
        "self_diff": self_diff, "torch": torch.__version__,
        "tokens": tokens.tolist(),
        "logits": {k: v.tolist() for k, v in record.items()},
        "blas": fwd.mapped_libraries(r"openblas|blas"),
        "core": fwd.openblas_core()})


# --- The driver ----------------------------------------------------------------

def run_worker(kind, args, extra, threads, peer):
    return fwd.spawn_worker(__file__, kind, args, threads, peer, [
        "--repeats", str(args.repeats), "--warmup", str(args.warmup),
        "--recompute-repeats", str(args.recompute_repeats),
        "--seq", str(args.seq), "--new-tokens", str(args.new_tokens),
        "--runtime", args.runtime] + extra)


def compile_char_lm(args, tfm):
    """transfuse-compile models/char_lm.pbtxt -D seq=SEQ (and -D batch when
    the prompts are not 16), inference only; cached until the spec or the
    compiler is newer. Returns the compile time, or None when cached."""
    spec = os.path.join(ROOT, "models", MODEL + ".pbtxt")
    if fwd.newer(tfm, spec, args.compiler):
        return None
    command = [args.compiler, spec, "--target=cpu", "--inference-only",
               "-D", "seq=%d" % args.seq, "-D", "batch=%d" % args.batch,
               "-o", tfm]
    start = time.perf_counter()
    proc = subprocess.run(command, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit("error: %s: %s" % (" ".join(command),
                                            proc.stderr.strip()[:2000]))
    return time.perf_counter() - start


def make_prompts(args):
    """`batch` prompts of `prompt_len` byte ids: the first bytes of the
    licence's lines at least that long (leading blanks dropped), or random
    bytes (seed --seed)."""
    if args.prompts == "licence" and os.path.exists(LICENCE):
        with open(LICENCE, "rb") as f:
            lines = [line.strip() for line in f.read().splitlines()]
        lines = [line[:args.prompt_len] for line in lines
                 if len(line) >= args.prompt_len]
        if len(lines) >= args.batch:
            return [list(line) for line in lines[:args.batch]], \
                "the first %d bytes of the first %d lines of %s" % (
                    args.prompt_len, args.batch, LICENCE)
    import numpy as np
    rng = np.random.default_rng(args.seed)
    return rng.integers(0, 256, size=(args.batch, args.prompt_len)).tolist(), \
        "%d random bytes each (seed %d)" % (args.prompt_len, args.seed)


def agreement(ours, peer):
    """Leading greedy tokens the two sides agree on, per prompt."""
    counts = []
    for a, b in zip(ours, peer):
        n = 0
        while n < len(a) and a[n] == b[n]:
            n += 1
        counts.append(n)
    return counts


def max_diff(a, b):
    import numpy as np
    return float(np.max(np.abs(np.asarray(a, np.float64) -
                               np.asarray(b, np.float64))))


def summarise_side(result):
    """The numbers of one side at one thread count (times in ms)."""
    totals = result["totals_s"]
    total = statistics.median(totals)
    profile = step_profile(result["step_s"])
    first, last = quarter_medians(profile)
    generated = result["batch"] * result["new_tokens"]
    recompute_total = result["recompute_token_s"] * result["new_tokens"]
    steps = [sum(r) for r in result["step_s"]]
    return {
        "tokens_per_s": generated / total,
        "step_tokens_per_s": result["batch"] * len(profile) /
        statistics.median(steps),
        "total_s": total, "totals_s": totals,
        "prefill_ms": statistics.median(result["prefill_s"]) * 1e3,
        "step_ms": statistics.median(profile),
        "step_min_ms": min(profile),
        "first_quarter_step_ms": first, "last_quarter_step_ms": last,
        "recompute_ms_per_token": result["recompute_token_s"] * 1e3,
        "recompute_tokens_per_s": generated / recompute_total,
        "cache_speedup": recompute_total / total,
        "others_busy": result["others_busy"], "step_profile_ms": profile,
    }


def driver(args):
    sys.path.insert(0, PYTHON_TESTS)
    fwd.require_tools(args)
    if args.prompt_len < 1 or args.prompt_len >= args.seq:
        sys.exit("error: --prompt-len must be in [1, --seq)")
    args.new_tokens = args.new_tokens or args.seq - args.prompt_len
    if args.prompt_len + args.new_tokens > args.seq:
        sys.exit("error: %d + %d tokens do not fit a context of %d"
                 % (args.prompt_len, args.new_tokens, args.seq))
    work = os.path.join(CACHE_DIR, "%s-b%d-s%d" % (MODEL, args.batch,
                                                   args.seq))
    os.makedirs(work, exist_ok=True)
    tfm = os.path.join(work, "model.tfm")
    weights = os.path.join(CACHE_DIR, "weights.safetensors")
    prompts_path = os.path.join(work, "prompts.json")

    cpu, isa, cpus, usable = fwd.machine_description()
    load = os.getloadavg()
    print("Transfuse generation benchmark (%s, greedy), %s" % (
        MODEL, datetime.date.today().isoformat()))
    print("machine: %s, %s, %d CPUs (%d usable), %s" % (
        cpu, isa, cpus, usable, platform.platform()))
    print("load average: %.2f %.2f %.2f%s" % (
        load + (("  <-- the machine is busy: timings will be noisy"
                 if load[0] > 1.5 else ""),)))

    compile_s = compile_char_lm(args, tfm)
    if not fwd.newer(weights, os.path.join(PYTHON_TESTS, "reference_models.py")):
        run_worker("weights", args, ["--model", MODEL, "--weights", weights],
                   1, peer=True)
    prompts, where = make_prompts(args)
    with open(prompts_path, "w") as f:
        json.dump(prompts, f)
    print("artifact: %s (batch %d, seq %d; %s)" % (
        os.path.relpath(tfm, ROOT), args.batch, args.seq,
        "compiled in %.1f s" % compile_s if compile_s is not None
        else "cached"))
    print("prompts: %d, %s; %d new tokens each, greedy" % (
        args.batch, where, args.new_tokens))
    print("timing: %d warm-up + %d timed generations per side, medians; "
          "recompute path: %d calls per length" % (
              args.warmup, args.repeats, args.recompute_repeats))
    print("OMP_WAIT_POLICY: %s on both sides; OPENBLAS_CORETYPE: %s" % (
        args.omp_wait_policy if args.omp_wait_policy != "default" else "unset",
        args.openblas_core or "unset (OpenBLAS's choice; ours names SkylakeX "
        "itself on an AVX-512 CPU)"))
    print()

    common = ["--weights", weights, "--worker-prompts", prompts_path]
    results = []
    for threads in args.threads:
        fwd.wait_until_quiet(args.wait_quiet)
        ours = run_worker("ours", args, common + ["--tfm", tfm], threads,
                          peer=False)
        peer = run_worker("torch", args, common, threads, peer=True)
        results.append((threads, ours, peer))
        print("%d thread%s: ours %.2f s, torch %.2f s per generation (other "
              "work on the machine meanwhile: %.0f%% / %.0f%% of the CPUs)" % (
                  threads, "s" if threads > 1 else "",
                  statistics.median(ours["totals_s"]),
                  statistics.median(peer["totals_s"]),
                  100 * ours["others_busy"], 100 * peer["others_busy"]),
              flush=True)

    # Correctness: the same greedy tokens on both sides.
    _, ours, peer = results[0]
    agree = agreement(ours["tokens"], peer["tokens"])
    new = args.new_tokens
    all_rows = min(agree)
    checks = {
        "agreeing_tokens_per_prompt": agree,
        "agreeing_tokens": sum(agree), "generated_tokens": new * args.batch,
        "all_prompts_agree_for": all_rows,
        "prompts_fully_agreeing": sum(a == new for a in agree),
        "prefill_logits_max_diff": max_diff(ours["logits"]["prefill_logits"],
                                            peer["logits"]["prefill_logits"]),
        "step1_logits_max_diff": max_diff(ours["logits"]["step1_logits"],
                                          peer["logits"]["step1_logits"]),
        "peer_cache_vs_forward_max_diff": peer["self_diff"],
        "same_tokens_across_thread_counts": all(
            o["tokens"] == ours["tokens"] and p["tokens"] == peer["tokens"]
            for _, o, p in results),
    }
    if agree and all_rows == new:
        print("\ncheck: all %d prompts' %d greedy tokens are identical on both "
              "sides" % (args.batch, new))
    else:
        print("\ncheck: greedy tokens agree for the first %d of %d steps in "
              "every prompt; %d of %d prompts agree to the end; %d of %d "
              "tokens come before their prompt's first difference "
              "(per prompt: %s)" % (
                  all_rows, new, checks["prompts_fully_agreeing"], args.batch,
                  sum(agree), new * args.batch,
                  " ".join(str(a) for a in agree)))
    print("       logits max|ours - torch|: %.2g after prefill, %.2g at the "
          "first decode step; the peer's cache against its own forward: %.2g"
          % (checks["prefill_logits_max_diff"],
             checks["step1_logits_max_diff"],
             checks["peer_cache_vs_forward_max_diff"]))
    if not checks["same_tokens_across_thread_counts"]:
        print("       note: a side's tokens differ between thread counts")
    print("BLAS: ours %s (kernels %s); peer %s (kernels %s), PyTorch %s" % (
        ", ".join(ours["blas"]) or "none mapped", ours["core"],
        ", ".join(peer["blas"]) or "none mapped", peer["core"], peer["torch"]))
    if ours["core"] and peer["core"] and ours["core"] != peer["core"]:
        print("  note: the two sides run different OpenBLAS kernels; "
              "--openblas-core %s puts both on the same" % ours["core"])

    quarter = max(1, (new - 1) // 4)
    first_pos = "%d-%d" % (args.prompt_len, args.prompt_len + quarter - 1)
    last_pos = "%d-%d" % (args.prompt_len + new - 1 - quarter,
                          args.prompt_len + new - 2)
    header = ["threads", "side", "tok/s", "steps' tok/s", "gen s",
              "prefill ms",
              "step ms", "step ms pos %s" % first_pos,
              "step ms pos %s" % last_pos, "recompute ms/token",
              "recompute tok/s", "cache speed-up",
              "ours/torch tok/s (steps')"]
    rows, summary = [], []
    for threads, ours, peer in results:
        o, t = summarise_side(ours), summarise_side(peer)
        ratio = o["tokens_per_s"] / t["tokens_per_s"]
        step_ratio = o["step_tokens_per_s"] / t["step_tokens_per_s"]
        for name, s, r in (("Transfuse", o, "%.2fx (%.2fx)" % (ratio,
                                                              step_ratio)),
                           ("PyTorch", t, "")):
            noisy = s["others_busy"] > fwd.QUIET_BUSY
            rows.append([
                str(threads), name + (" *" if noisy else ""),
                "%.0f" % s["tokens_per_s"], "%.0f" % s["step_tokens_per_s"],
                "%.2f" % s["total_s"],
                "%.1f" % s["prefill_ms"], "%.2f" % s["step_ms"],
                "%.2f" % s["first_quarter_step_ms"],
                "%.2f" % s["last_quarter_step_ms"],
                "%.1f" % s["recompute_ms_per_token"],
                "%.0f" % s["recompute_tokens_per_s"],
                "%.1fx" % s["cache_speedup"], r])
        summary.append({"threads": threads, "ours": o, "torch": t,
                        "ours_over_torch_tokens_per_s": ratio,
                        "ours_over_torch_step_tokens_per_s": step_ratio,
                        "ours_recompute_s": ours["recompute_s"],
                        "torch_recompute_lengths": peer["recompute_lengths"],
                        "torch_recompute_at_s": peer["recompute_at_s"]})
    print()
    fwd.print_table(header, rows)
    if any(r[1].endswith("*") for r in rows):
        print("\n* other work took more than %.0f%% of the CPUs while this "
              "side ran" % (100 * fwd.QUIET_BUSY))
    print("\nload average at the end: %.2f %.2f %.2f" % os.getloadavg())

    if args.json:
        with open(args.json, "w") as f:
            json.dump({
                "date": datetime.date.today().isoformat(), "cpu": cpu,
                "isa": isa, "cpus": cpus, "platform": platform.platform(),
                "model": MODEL, "batch": args.batch, "seq": args.seq,
                "prompt_len": args.prompt_len, "new_tokens": new,
                "prompts": where, "warmup": args.warmup,
                "repeats": args.repeats,
                "omp_wait_policy": args.omp_wait_policy,
                "openblas_core": args.openblas_core,
                "torch": peer["torch"], "compile_s": compile_s,
                "check": checks, "header": header, "rows": rows,
                "results": summary}, f, indent=1)
        print("wrote %s" % args.json)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="thread counts, each on both sides (default 1 2)")
    parser.add_argument("--seq", type=int, default=272,
                        help="context compiled (-D seq=SEQ; default 272, the "
                             "spec's is 128)")
    parser.add_argument("--batch", type=int, default=16,
                        help="prompts, one per sequence (-D batch; default "
                             "16, the spec's)")
    parser.add_argument("--prompt-len", type=int, default=16,
                        help="bytes per prompt (default 16)")
    parser.add_argument("--new-tokens", type=int, default=0,
                        help="tokens generated per prompt (default: as many "
                             "as the context allows, SEQ - PROMPT_LEN)")
    parser.add_argument("--prompts", choices=["licence", "random"],
                        default="licence",
                        help="prompt text: lines of %s (default) or random "
                             "bytes" % LICENCE)
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the random prompts (default 1)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed generations per side (default 3)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed generations first (default 1)")
    parser.add_argument("--recompute-repeats", type=int, default=3,
                        help="timed calls of the recomputing forward per "
                             "length (default 3)")
    fwd.add_side_by_side_options(parser)
    for name in ("--model", "--tfm", "--weights"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    parser.add_argument("--worker-prompts", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.prompts = args.worker_prompts
    elif min(args.threads) < 1 or args.repeats < 1 or args.recompute_repeats < 1:
        parser.error("--threads, --repeats and --recompute-repeats must be "
                     "positive")
    fwd.run_side_by_side(args, {"ours": worker_ours, "torch": worker_torch},
                         driver)


if __name__ == "__main__":
    main()
