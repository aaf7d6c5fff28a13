#!/usr/bin/python3
"""Beam-search translation throughput of transformer_small: Transfuse's
encode, prefill, decode_step and reorder_cache (transfuse-run --generate
--beam) against PyTorch eager with its own key/value caches and the same
beam search, on the same weights, sources and thread counts.

    /usr/bin/python3 bench/translate.py [--threads 1 2] [--sources 64]
        [--beam 4] [--json PATH]

It compiles models/transformer_small.pbtxt for inference (its batch of 64
rows, sources of 30 ids, targets of 20 positions; cached in
bench/.cache/translate), writes the PyTorch reference model's weights
(xavier-initialised, untrained), draws the sources (ids 4 and up, 15 to 30
of them each, seed --seed) and translates every source from BOS (2) with
beam width W, GNMT length penalty --length-penalty and EOS (3) as the stop
token, up to the 19 target positions after BOS; W rows per source, 64 / W
sources at a time. Each side runs in its own process:

- ours: transfuse-run --generate --beam W --token-ids --scores on the
  sources' file; a run's time is its wall time less that of the same
  command with --max-new-tokens 0 (loading the artifact and the weights,
  reading the sources), the median of --repeats after --warmup;
- the peer: the reference module's layers with a preallocated key/value
  cache per decoder self-attention layer, the memory's keys and values
  projected once per cross-attention layer, the caches reordered with
  index_select, and the beam search of docs/generation.md written in
  Python over float64 log-softmaxes, under torch.inference_mode().

It prints how many sources get the same best hypothesis on both sides,
then a markdown table: sources and target tokens (of the best hypotheses)
per second, the seconds per run, and the ratio ours/torch, for every
thread count. bench/README.md explains the columns.
"""
import argparse
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
CACHE_DIR = os.path.join(BENCH_DIR, ".cache", "translate")
PYTHON_TESTS = os.path.join(ROOT, "test", "python")
sys.path.insert(0, BENCH_DIR)
import forward as fwd  # noqa: E402  (helpers shared with the forward benchmark)

MODEL = "transformer_small"
BOS, EOS = 2, 3


def gnmt_score(total, length, alpha):
    return total / ((5.0 + length) / 6.0) ** alpha


def best_hypothesis(finished, alpha):
    """(tokens, score) of the highest score, the first finished on ties."""
    scores = [gnmt_score(total, len(tokens), alpha)
              for tokens, total in finished]
    index = max(range(len(finished)), key=lambda i: (scores[i], -i))
    return finished[index][0], scores[index]


# --- Ours ----------------------------------------------------------------------

def worker_ours(args):
    command = [os.path.join(args.build, "bin", "transfuse-run"), args.tfm,
               "--weights", args.weights, "--generate", "--beam",
               str(args.beam), "--length-penalty", str(args.length_penalty),
               "--token-ids", "--scores", "--prompts", args.sources_file,
               "--threads", str(args.threads)]

    def timed(extra):
        start = time.perf_counter()
        proc = subprocess.run(command + extra, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit("error: %s: %s" % (" ".join(command + extra),
                                                proc.stderr.strip()[:2000]))
        return elapsed, proc.stdout

    for _ in range(args.warmup):
        timed([])
    runs, startups, output = [], [], None
    for _ in range(args.repeats):
        elapsed, output = timed([])
        runs.append(elapsed)
        startups.append(timed(["--max-new-tokens", "0"])[0])
    hypotheses, scores = [], []
    for line in output.splitlines():
        score, _, ids = line.partition("\t")
        scores.append(float(score))
        hypotheses.append([int(i) for i in ids.split()])
    fwd.emit({"totals_s": [r - s for r, s in zip(runs, startups)],
              "runs_s": runs, "startups_s": startups,
              "hypotheses": hypotheses, "scores": scores,
              "blas": [], "core": fwd.openblas_core()})


# --- The peer --------------------------------------------------------------------

class CachedTranslator:
    """The reference EncoderDecoder's layers over key/value caches, as a
    PyTorch user would write it: encode projects each cross-attention
    layer's keys and values of the memory once; a step runs the decoder on
    one position of every row, writing its self-attention keys and values
    into preallocated [rows, heads, tgt_len, d_k] tensors; reorder gathers
    every cache by row."""

    def __init__(self, module, rows, tgt_len):
        import torch
        self.torch, self.m = torch, module
        attn = module.decoder.layers[0].self_attn
        self.h, self.d_k, self.rows = attn.h, attn.d_k, rows
        self.scale = math.sqrt(module.tgt_embed.d_model)
        self.pe = module.tgt_embed.position.pe[0]
        shape = (rows, self.h, tgt_len, self.d_k)
        layers = module.decoder.layers
        self.keys = [torch.zeros(shape) for _ in layers]
        self.values = [torch.zeros(shape) for _ in layers]

    def heads(self, x):
        return x.view(self.rows, -1, self.h, self.d_k).transpose(1, 2)

    def encode(self, src):
        src_mask = (src != 0).unsqueeze(-2)
        memory = self.m.encode(src, src_mask)
        self.mask = src_mask.unsqueeze(1)
        self.cross = [(self.heads(layer.src_attn.w_k(memory)),
                       self.heads(layer.src_attn.w_v(memory)))
                      for layer in self.m.decoder.layers]

    def step(self, tokens, position):
        """The logits [rows, vocab] of `tokens` [rows] at `position`."""
        import reference_models as ref
        torch, m = self.torch, self.m
        x = (torch.nn.functional.embedding(tokens[:, None],
                                           m.tgt_embed.weight) * self.scale
             + self.pe[position:position + 1])
        end = position + 1
        for layer, k_cache, v_cache, (k_mem, v_mem) in zip(
                m.decoder.layers, self.keys, self.values, self.cross):
            sa, ca = layer.self_attn, layer.src_attn
            q, k, v = [self.heads(lin(x)) for lin in (sa.w_q, sa.w_k, sa.w_v)]
            k_cache[:, :, position] = k[:, :, 0]
            v_cache[:, :, position] = v[:, :, 0]
            a, _ = ref.attention(q, k_cache[:, :, :end], v_cache[:, :, :end])
            x = layer.norm1(x + sa.w_o(a.transpose(1, 2).reshape(
                self.rows, 1, self.h * self.d_k)))
            a, _ = ref.attention(self.heads(ca.w_q(x)), k_mem, v_mem,
                                 mask=self.mask)
            x = layer.norm2(x + ca.w_o(a.transpose(1, 2).reshape(
                self.rows, 1, self.h * self.d_k)))
            x = layer.norm3(x + layer.feed_forward(x))
        return m.generator(x)[:, 0]

    def reorder(self, rows):
        index = self.torch.as_tensor(rows)
        self.keys = [k.index_select(0, index) for k in self.keys]
        self.values = [v.index_select(0, index) for v in self.values]
        self.cross = [(k.index_select(0, index), v.index_select(0, index))
                      for k, v in self.cross]
        self.mask = self.mask.index_select(0, index)


def search_chunk(translator, sources, width, alpha, limit, src_len):
    """Beam search of docs/generation.md for len(sources) <= rows / width
    sources at once, source k in rows k*width ..; (tokens, score) each."""
    torch = translator.torch
    rows = translator.rows
    src = torch.zeros(rows, src_len, dtype=torch.int64)
    for row in range(rows):
        source = sources[min(row // width, len(sources) - 1)]
        src[row, :len(source)] = torch.tensor(source)
    translator.encode(src)
    # Per source: live hypotheses (tokens, sum, parent row within the
    # source's rows), finished ones (tokens, sum), whether it is done.
    live = [[([], 0.0, 0)] for _ in sources]
    finished = [[] for _ in sources]
    done = [False] * len(sources)
    tokens = torch.full((rows,), BOS, dtype=torch.int64)
    keep = width + 1
    for position in range(limit):
        if position > 0:
            order, tokens = list(range(rows)), torch.zeros(rows,
                                                           dtype=torch.int64)
            for k, hyps in enumerate(live):
                if done[k]:
                    continue
                for j, (toks, _, parent) in enumerate(hyps):
                    order[k * width + j] = k * width + parent
                    tokens[k * width + j] = toks[-1]
            if order != list(range(rows)):
                translator.reorder(order)
        logits = translator.step(tokens, position)
        logp = torch.log_softmax(logits.double(), dim=-1)
        for k, hyps in enumerate(live):
            if done[k]:
                continue
            candidates = []
            for j, (toks, total, _) in enumerate(hyps):
                row = k * width + j
                values, ids = torch.topk(logp[row], keep)
                for value, token in zip(values.tolist(), ids.tolist()):
                    candidates.append((total + value, j,
                                       float(logits[row, token]), token))
            candidates.sort(key=lambda c: (-c[0], c[1], -c[2], c[3]))
            chosen = []
            for total, j, _, token in candidates:
                if len(chosen) == width:
                    break
                if token == EOS:
                    finished[k].append((hyps[j][0], total))
                else:
                    # After BOS every row holds the same cache: no move.
                    chosen.append((hyps[j][0] + [token], total,
                                   len(chosen) if position == 0 else j))
            if len(finished[k]) >= width or not chosen:
                done[k] = True
            elif len(chosen[0][0]) == limit:
                finished[k] += [(toks, total) for toks, total, _ in chosen]
                done[k] = True
            else:
                live[k] = chosen
        if all(done):
            break
    return [best_hypothesis(f, alpha) for f in finished]


def worker_torch(args):
    import torch
    sys.path.insert(0, PYTHON_TESTS)
    import reference_models

    torch.set_num_threads(args.threads)
    module = reference_models.build(MODEL).eval()
    fwd.load_weights(module, args.weights)
    with open(args.worker_sources) as f:
        sources = json.load(f)
    per_chunk = args.batch // args.beam
    with torch.inference_mode():
        translator = CachedTranslator(module, args.batch, args.tgt_len)

    def translate_all():
        results = []
        with torch.inference_mode():
            for first in range(0, len(sources), per_chunk):
                results += search_chunk(
                    translator, sources[first:first + per_chunk], args.beam,
                    args.length_penalty, args.tgt_len - 1, args.src_len)
        return results

    for _ in range(args.warmup):
        translate_all()
    totals, results = [], None
    for _ in range(args.repeats):
        start = time.perf_counter()
        results = translate_all()
        totals.append(time.perf_counter() - start)
    fwd.emit({"totals_s": totals, "torch": torch.__version__,
              "hypotheses": [tokens for tokens, _ in results],
              "scores": [score for _, score in results],
              "blas": fwd.mapped_libraries(r"openblas|blas"),
              "core": fwd.openblas_core()})


# --- The driver ----------------------------------------------------------------

def run_worker(kind, args, extra, threads, peer):
    return fwd.spawn_worker(__file__, kind, args, threads, peer, [
        "--repeats", str(args.repeats), "--warmup", str(args.warmup),
        "--beam", str(args.beam), "--length-penalty",
        str(args.length_penalty), "--batch", str(args.batch),
        "--src-len", str(args.src_len), "--tgt-len", str(args.tgt_len),
        "--build", args.build, "--runtime", args.runtime] + extra)


def compile_model(args, tfm):
    """transfuse-compile models/transformer_small.pbtxt with the benchmark's
    sizes, inference only; cached until the spec or the compiler is newer.
    Returns the compile time, or None when cached."""
    spec = os.path.join(ROOT, "models", MODEL + ".pbtxt")
    if fwd.newer(tfm, spec, args.compiler):
        return None
    command = [args.compiler, spec, "--target=cpu", "--inference-only",
               "-D", "batch=%d" % args.batch, "-D", "src_len=%d" % args.src_len,
               "-D", "tgt_len=%d" % args.tgt_len, "-o", tfm]
    start = time.perf_counter()
    proc = subprocess.run(command, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit("error: %s: %s" % (" ".join(command),
                                            proc.stderr.strip()[:2000]))
    return time.perf_counter() - start


def make_sources(args):
    """--sources lists of ids in [4, 10000), each of half the source length
    to all of it (seed --seed)."""
    import numpy as np
    rng = np.random.default_rng(args.seed)
    lengths = rng.integers(args.src_len // 2, args.src_len + 1, args.sources)
    return [rng.integers(4, 10000, size=n).tolist() for n in lengths]


def summarise_side(result, target_tokens, sources):
    total = statistics.median(result["totals_s"])
    return {"total_s": total, "totals_s": result["totals_s"],
            "sources_per_s": sources / total,
            "tokens_per_s": target_tokens / total,
            "others_busy": result["others_busy"]}


def driver(args):
    fwd.require_tools(args)
    if not 1 <= args.beam <= args.batch:
        sys.exit("error: --beam must be in [1, --batch]")
    work = os.path.join(CACHE_DIR, "%s-b%d-s%d-t%d" % (
        MODEL, args.batch, args.src_len, args.tgt_len))
    os.makedirs(work, exist_ok=True)
    tfm = os.path.join(work, "model.tfm")
    weights = os.path.join(CACHE_DIR, "weights.safetensors")
    sources_json = os.path.join(work, "sources.json")
    sources_file = os.path.join(work, "sources.txt")

    cpu, isa, cpus, usable = fwd.machine_description()
    load = os.getloadavg()
    print("Transfuse translation benchmark (%s, beam %d, length penalty %g), "
          "%s" % (MODEL, args.beam, args.length_penalty,
                  datetime.date.today().isoformat()))
    print("machine: %s, %s, %d CPUs (%d usable), %s" % (
        cpu, isa, cpus, usable, platform.platform()))
    print("load average: %.2f %.2f %.2f%s" % (
        load + (("  <-- the machine is busy: timings will be noisy"
                 if load[0] > 1.5 else ""),)))

    compile_s = compile_model(args, tfm)
    if not fwd.newer(weights, os.path.join(PYTHON_TESTS, "reference_models.py")):
        run_worker("weights", args, ["--model", MODEL, "--weights", weights],
                   1, peer=True)
    sources = make_sources(args)
    with open(sources_json, "w") as f:
        json.dump(sources, f)
    with open(sources_file, "w") as f:
        f.writelines(" ".join(map(str, s)) + "\n" for s in sources)
    print("artifact: %s (batch %d, src_len %d, tgt_len %d; %s)" % (
        os.path.relpath(tfm, ROOT), args.batch, args.src_len, args.tgt_len,
        "compiled in %.1f s" % compile_s if compile_s is not None
        else "cached"))
    print("sources: %d of %d to %d random ids (seed %d); %d per chunk of "
          "%d rows" % (args.sources, args.src_len // 2, args.src_len,
                       args.seed, args.batch // args.beam, args.batch))
    print("timing: %d warm-up + %d timed runs per side, medians" % (
        args.warmup, args.repeats))
    print()

    results = []
    for threads in args.threads:
        fwd.wait_until_quiet(args.wait_quiet)
        ours = run_worker("ours", args, [
            "--weights", weights, "--tfm", tfm,
            "--sources-file", sources_file], threads, peer=False)
        peer = run_worker("torch", args, [
            "--weights", weights, "--worker-sources", sources_json],
            threads, peer=True)
        results.append((threads, ours, peer))
        print("%d thread%s: ours %.2f s, torch %.2f s per run" % (
            threads, "s" if threads > 1 else "",
            statistics.median(ours["totals_s"]),
            statistics.median(peer["totals_s"])), flush=True)

    _, ours, peer = results[0]
    same = sum(a == b for a, b in zip(ours["hypotheses"], peer["hypotheses"]))
    score_diff = max(abs(a - b) for a, b, x, y in zip(
        ours["scores"], peer["scores"], ours["hypotheses"],
        peer["hypotheses"]) if x == y) if same else float("nan")
    target_tokens = sum(len(h) for h in ours["hypotheses"])
    print("\ncheck: %d of %d sources get the same best hypothesis on both "
          "sides (their scores within %.2g); %d target tokens" % (
              same, args.sources, score_diff, target_tokens))

    header = ["threads", "side", "sources/s", "target tok/s", "run s",
              "ours/torch"]
    rows, summary = [], []
    for threads, ours, peer in results:
        o = summarise_side(ours, target_tokens, args.sources)
        t = summarise_side(peer, target_tokens, args.sources)
        ratio = o["sources_per_s"] / t["sources_per_s"]
        for name, s, r in (("Transfuse", o, "%.2fx" % ratio),
                           ("PyTorch", t, "")):
            noisy = s["others_busy"] > fwd.QUIET_BUSY
            rows.append([str(threads), name + (" *" if noisy else ""),
                         "%.1f" % s["sources_per_s"],
                         "%.0f" % s["tokens_per_s"], "%.2f" % s["total_s"],
                         r])
        summary.append({"threads": threads, "ours": o, "torch": t,
                        "ours_over_torch": ratio,
                        "ours_startup_s": ours["startups_s"]})
    print()
    fwd.print_table(header, rows)
    if any(r[1].endswith("*") for r in rows):
        print("\n* other work took more than %.0f%% of the CPUs while this "
              "side ran" % (100 * fwd.QUIET_BUSY))
    print("\nload average at the end: %.2f %.2f %.2f" % os.getloadavg())
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": datetime.date.today().isoformat(), "cpu": cpu,
                       "isa": isa, "cpus": cpus,
                       "platform": platform.platform(), "model": MODEL,
                       "beam": args.beam,
                       "length_penalty": args.length_penalty,
                       "sources": args.sources, "same_best": same,
                       "target_tokens": target_tokens,
                       "torch": peer["torch"], "compile_s": compile_s,
                       "header": header, "rows": rows, "results": summary},
                      f, indent=1)
        print("wrote %s" % args.json)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                        help="thread counts, each on both sides (default 1 2)")
    parser.add_argument("--sources", type=int, default=64,
                        help="sources translated (default 64)")
    parser.add_argument("--beam", type=int, default=4,
                        help="beam width (default 4)")
    parser.add_argument("--length-penalty", type=float, default=0.6,
                        help="GNMT's alpha (default 0.6)")
    parser.add_argument("--batch", type=int, default=64,
                        help="rows compiled (-D batch; default 64, the "
                             "spec's)")
    parser.add_argument("--src-len", type=int, default=30,
                        help="-D src_len (default 30, the spec's)")
    parser.add_argument("--tgt-len", type=int, default=20,
                        help="-D tgt_len (default 20, the spec's)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the sources (default 1)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed runs per side (default 3)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed runs first (default 1)")
    fwd.add_side_by_side_options(parser)
    for name in ("--model", "--tfm", "--weights", "--sources-file",
                 "--worker-sources"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.worker and (min(args.threads) < 1 or args.repeats < 1
                            or args.sources < 1):
        parser.error("--threads, --repeats and --sources must be positive")
    fwd.run_side_by_side(args, {"ours": worker_ours, "torch": worker_torch},
                         driver)


if __name__ == "__main__":
    main()
