"""`transfuse-run --generate --beam W --scores` (prefill, then decode_step
and reorder_cache on the KV cache) against a reference beam search that
recomputes `forward` on every hypothesis, with no cache.

    beam_search_check.py --run transfuse-run --runtime libtransfuse_runtime.so \
        --tfm M.tfm --seed N --prompts P.txt --beam W [--length-penalty A] \
        [--eos ID] --max-new-tokens N

M.tfm is a byte-level causal LM whose forward takes tokens [B, S], or a
byte-level encoder-decoder (an artifact with `encode`) whose forward takes
a source [B, L] and a target [B, S]. The check runs transfuse-run on the
prompts of P.txt (one a line) with the parameters of --seed N, then
searches each prompt itself through the C API (runtime_api.py) on the same
artifact and parameters: each step packs the live hypotheses (prompt and
continuation) into rows of forward's input, right-padded with 0 (the model
is causal: padding after a position does not change its logits), and takes
each row's logits at its last token. For an encoder-decoder each line is a
source, right-padded with 0 in every row of its hypotheses, the prompt is
BOS (2) and the stop token EOS (3) unless --eos names another. The
search is the one docs/generation.md defines; the best continuation of
each prompt, escaped as --generate escapes it, must be the line's text,
byte for byte, and its length-penalised score the line's score within 1e-4.

Prints one line per prompt, `OK prompt i: ...` with the length and end of
the best hypothesis and how many hypotheses finished at the stop token, or
`MISMATCH prompt i: ...`; then `STOPPED k`, the prompts whose best
hypothesis ended at the stop token. Exits 1 on any mismatch.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtime_api  # noqa: E402
from generate_cli_check import escape, lines, split_lines  # noqa: E402

TOLERANCE = 1e-4


BOS, EOS = 2, 3


class Forward:
    """forward's next-token logits for token sequences, batch at a time."""

    def __init__(self, session, artifact):
        self.session = session
        sources = [name for name, _, _, _ in artifact.inputs("encode")] \
            if "encode" in artifact.entry_points() else []
        self.source = None
        for name, _, shape, _ in artifact.inputs("forward"):
            if name in sources:
                self.source, self.source_shape = name, shape
            else:
                self.target, (self.batch, self.context) = name, shape

    def next_logits(self, sequences, source=()):
        assert len(sequences) <= self.batch
        inputs = {}
        if self.source:
            inputs[self.source] = np.zeros(self.source_shape, dtype=np.int64)
            inputs[self.source][:, : len(source)] = source
        tokens = np.zeros((self.batch, self.context), dtype=np.int64)
        for row, sequence in enumerate(sequences):
            tokens[row, : len(sequence)] = sequence
        inputs[self.target] = tokens
        logits = self.session.run("forward", inputs)["logits"]
        return [logits[row, len(sequence) - 1]
                for row, sequence in enumerate(sequences)]


def log_softmax(logits):
    x = logits.astype(np.float64)
    top = x.max()
    return x - (top + np.log(np.exp(x - top).sum()))


def score(total, length, alpha):
    """GNMT's length penalty: the sum over ((5 + length) / 6)^alpha."""
    return total / ((5.0 + length) / 6.0) ** alpha


def search(forward, prompt, source, width, alpha, eos, max_new, context):
    """Every finished hypothesis of `prompt` (continuing `source`'s target
    for an encoder-decoder) as (tokens, sum, end), in the order they
    finished."""
    limit = min(max_new, context - len(prompt))
    if limit == 0:
        return [([], 0.0, "length" if max_new == 0 else "context")]
    live = [([], 0.0)]  # (continuation, sum of log-probabilities)
    finished = []
    while True:
        rows = forward.next_logits([prompt + tokens for tokens, _ in live],
                                   source)
        candidates = []
        for beam, ((tokens, total), logits) in enumerate(zip(live, rows)):
            for token, logp in enumerate(log_softmax(logits)):
                candidates.append(
                    (total + logp, beam, float(logits[token]), token))
        # The larger sum, then the lower beam, the larger logit, the lower
        # token.
        candidates.sort(key=lambda c: (-c[0], c[1], -c[2], c[3]))
        chosen = []
        for total, beam, _, token in candidates:
            if len(chosen) == width:
                break
            if token == eos:
                finished.append((live[beam][0], total, "eos"))
            else:
                chosen.append((live[beam][0] + [token], total))
        if len(finished) >= width or not chosen:
            return finished
        if len(chosen[0][0]) == limit:
            end = "length" if limit == max_new else "context"
            return finished + [(tokens, total, end)
                               for tokens, total in chosen]
        live = chosen


def best(finished, alpha):
    """The hypothesis of the highest score, the first finished on ties."""
    scores = [score(total, len(tokens), alpha)
              for tokens, total, _ in finished]
    index = max(range(len(finished)), key=lambda i: (scores[i], -i))
    return finished[index], scores[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", required=True)
    parser.add_argument("--runtime", required=True)
    parser.add_argument("--tfm", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--prompts", required=True)
    parser.add_argument("--beam", type=int, required=True)
    parser.add_argument("--length-penalty", type=float, default=0.0)
    parser.add_argument("--eos", type=int)
    parser.add_argument("--max-new-tokens", type=int, required=True)
    args = parser.parse_args()

    command = [args.run, args.tfm, "--seed", str(args.seed), "--generate",
               "--prompts", args.prompts, "--beam", str(args.beam),
               "--length-penalty", str(args.length_penalty), "--scores",
               "--max-new-tokens", str(args.max_new_tokens)]
    if args.eos is not None:
        command += ["--eos", str(args.eos)]
    result = subprocess.run(command, capture_output=True)
    if result.returncode != 0:
        print(f"MISMATCH transfuse-run failed: {result.stderr.decode()}")
        return 1
    printed = split_lines(result.stdout)
    prompts = lines(args.prompts)
    if printed is None or len(printed) != len(prompts):
        print(f"MISMATCH {len(prompts)} prompts but transfuse-run printed "
              f"{'an unterminated line' if printed is None else len(printed)}")
        return 1

    lib = runtime_api.load(args.runtime)
    artifact = runtime_api.Artifact(lib, args.tfm)
    session = runtime_api.Session(artifact)
    session.init_parameters(args.seed)
    forward = Forward(session, artifact)
    eos = args.eos
    if forward.source and eos is None:
        eos = EOS

    ok = True
    stopped = 0
    for i, (prompt, line) in enumerate(zip(prompts, printed), 1):
        if forward.source:
            prompt, source = [BOS], list(prompt)
        else:
            prompt, source = list(prompt), []
        finished = search(forward, prompt, source, args.beam,
                          args.length_penalty, eos, args.max_new_tokens,
                          forward.context)
        (tokens, _, end), expected = best(finished, args.length_penalty)
        at_stop = sum(e == "eos" for _, _, e in finished)
        stopped += end == "eos"
        text = escape(bytes(tokens))
        printed_score, _, printed_text = line.partition(b"\t")
        try:
            got = float(printed_score)
        except ValueError:
            got = None
        if (printed_text == text and got is not None
                and abs(got - expected) <= TOLERANCE):
            print(f"OK prompt {i}: {len(tokens)} new, ends at {end}; "
                  f"{len(finished)} finished, {at_stop} at the stop token")
        else:
            ok = False
            print(f"MISMATCH prompt {i} {prompt!r}: transfuse-run {line!r}, "
                  f"reference {expected:.6f} {text!r} ({end})")
    print(f"STOPPED {stopped}")
    session.destroy()
    artifact.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
