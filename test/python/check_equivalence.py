"""Checks that a transformation of an nn module preserves what it computes.

    check_equivalence.py --opt transfuse-opt --passes="--nn-fuse-attention" \
        [--function NAME]... [--tolerance 1e-5] [--seed 0] FILE.mlir

Prints FILE before (`transfuse-opt --mlir-print-op-generic FILE`) and after
(`transfuse-opt PASSES --mlir-print-op-generic FILE`) the passes, and runs
every function of both -- or those named by --function -- through the
reference evaluator nn_eval.py on the same inputs and parameters:

  * float arguments ~ N(0, 1); integer arguments uniform in [0, R), R the
    rows of the embedding table they index (the classes of the loss they
    label), else [0, 4) so that comparisons with a pad id 0 hit; i1
    arguments fair coin flips. Drawn from a generator seeded with --seed and
    the function's name.
  * parameters ~ N(0, 0.5), seeded with --seed and the parameter's name.

Every result must agree: the same shape and element kind, NaN and infinities
at the same places, and max |before - after| <= tol * max(1, max |before|)
over the finite elements (integers and bools exactly). The passes may add
views of parameters (concat, slice) but not parameters: the set of
nn.parameter symbols, by name and type, must be unchanged.

Prints `OK @f: max abs diff 3.1e-08` per function, or `MISMATCH @f: ...`
saying which result differs, where and by how much, and exits 1 on any
mismatch and on any failure to run, parse or evaluate either side.

--compare-with FILE2 (for the harness's own tests) compares FILE with FILE2
instead of running passes. -v adds each function's op count changes;
--int-cap N draws integers below N at most; --seed picks other inputs.
"""
import argparse
import collections
import math
import os
import shlex
import sys
import zlib

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import nn_eval  # noqa: E402

DEFAULT_INT_BOUND = 4

# Ops whose result holds only values of their (first) operand(s).
_VALUE_PRESERVING = {"nn.reshape", "nn.transpose", "nn.slice", "nn.concat",
                     "nn.cast"}


def _seed(*parts):
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def integer_bounds(module):
    """{function: {argument index: R}} for integer arguments that index an
    embedding table of R rows, label a loss over R classes or start a cache
    update with R possible first rows, followed through shape ops and calls;
    the smallest R when several apply."""
    bounds = {name: {} for name in module.functions}
    changed = True
    while changed:
        changed = False
        for name, fn in module.functions.items():
            if fn.is_declaration:
                continue
            arg_index = {a: k for k, (a, _) in enumerate(fn.block.args)}
            sources = {a: {k} for a, k in arg_index.items()}
            for op in fn.block.ops:
                srcs = set()
                if op.name in _VALUE_PRESERVING:
                    for v in op.operands:
                        srcs |= sources.get(v, set())
                for r in op.results:
                    sources[r] = srcs
                sinks = []
                if op.name == "nn.embedding" and len(op.operands) == 2:
                    table = op.operand_types[0]
                    if table.shape:
                        sinks.append((op.operands[1], table.shape[0]))
                elif op.name == "nn.cache_update" and len(op.operands) == 3:
                    # The first row written: the rows must fit.
                    cache, rows = op.operand_types[0], op.operand_types[1]
                    sinks.append((op.operands[2],
                                  cache.shape[2] - rows.shape[2] + 1))
                elif op.name in ("nn.cross_entropy", "nn.nll_loss") and len(op.operands) == 2:
                    logits = op.operand_types[0]
                    if logits.shape:
                        sinks.append((op.operands[1], logits.shape[-1]))
                elif op.name == "func.call":
                    callee = nn_eval._symbol(op.attr("callee", "@?"))
                    for k, v in enumerate(op.operands):
                        r = bounds.get(callee, {}).get(k)
                        if r is not None:
                            sinks.append((v, r))
                for value, r in sinks:
                    for k in sources.get(value, ()):
                        old = bounds[name].get(k)
                        if old is None or r < old:
                            bounds[name][k] = r
                            changed = True
    return bounds


def draw_inputs(fn, bounds, seed, int_cap=None):
    gen = torch.Generator().manual_seed(_seed(seed, "input", fn.name))
    inputs = []
    for k, ty in enumerate(fn.arg_types):
        if ty.is_float:
            inputs.append(torch.randn(ty.shape, generator=gen, dtype=torch.float64))
        elif ty.is_bool:
            inputs.append(torch.rand(ty.shape, generator=gen, dtype=torch.float64) < 0.5)
        elif ty.is_int:
            r = bounds.get(k, DEFAULT_INT_BOUND)
            if int_cap is not None:
                r = min(r, int_cap)
            inputs.append(torch.randint(0, max(r, 1), ty.shape, generator=gen,
                                        dtype=torch.int64))
        else:
            raise nn_eval.EvalError(f"@{fn.name}: cannot draw an argument of type {ty.text}")
    return inputs


def draw_params(module, seed):
    params = {}
    for name, p in module.parameters.items():
        gen = torch.Generator().manual_seed(_seed(seed, "param", name))
        params[name] = 0.5 * torch.randn(p.type.shape, generator=gen, dtype=torch.float64)
    return params


def _fmt(x):
    return "%.6g" % x if isinstance(x, float) else str(x)


def compare_tensors(before, after, tol):
    """(max abs diff, None) when they agree, else (diff or None, reason)."""
    if tuple(before.shape) != tuple(after.shape):
        return None, f"shape {list(before.shape)} became {list(after.shape)}"
    if before.dtype != after.dtype:
        return None, f"element kind {before.dtype} became {after.dtype}"
    if before.dtype != torch.float64:
        differ = before != after
        n = int(differ.sum())
        if n:
            idx = tuple(int(i) for i in differ.nonzero()[0])
            return None, (f"{n} of {before.numel()} elements differ, first at "
                          f"{list(idx)}: before {_fmt(before[idx].item())}, "
                          f"after {_fmt(after[idx].item())}")
        return 0.0, None
    for what, fb, fa in (("NaN", torch.isnan(before), torch.isnan(after)),
                         ("+inf", before == math.inf, after == math.inf),
                         ("-inf", before == -math.inf, after == -math.inf)):
        differ = fb != fa
        if differ.any():
            idx = tuple(int(i) for i in differ.nonzero()[0])
            return None, (f"{int(differ.sum())} elements are {what} on one side "
                          f"only, first at {list(idx)}: before "
                          f"{_fmt(before[idx].item())}, after {_fmt(after[idx].item())}")
    finite = torch.isfinite(before)
    if not finite.any():
        return 0.0, None
    diff = torch.where(finite, (before - after).abs(), torch.zeros_like(before))
    max_diff = float(diff.max())
    scale = max(1.0, float(before[finite].abs().max()))
    if max_diff > tol * scale:
        idx = tuple(int(i) for i in (diff == diff.max()).nonzero()[0])
        return max_diff, (f"max abs diff {max_diff:.1e} exceeds {tol:.1e} * "
                          f"{scale:.3g} at {list(idx)}: before "
                          f"{_fmt(before[idx].item())}, after {_fmt(after[idx].item())}")
    return max_diff, None


def op_changes(fn_before, fn_after):
    cb = collections.Counter(op.name for op in fn_before.block.ops)
    ca = collections.Counter(op.name for op in fn_after.block.ops)
    out = []
    for name in sorted(set(cb) | set(ca)):
        d = ca[name] - cb[name]
        if d:
            out.append(f"{name} {d:+d}")
    return ", ".join(out) if out else "no op changed"


def check_parameters(before, after):
    problems = []
    only_b = sorted(set(before.parameters) - set(after.parameters))
    only_a = sorted(set(after.parameters) - set(before.parameters))
    if only_b:
        problems.append("parameters removed: " + ", ".join(only_b))
    if only_a:
        problems.append("parameters added: " + ", ".join(only_a))
    for name in sorted(set(before.parameters) & set(after.parameters)):
        tb, ta = before.parameters[name].type, after.parameters[name].type
        if tb != ta:
            problems.append(f"parameter {name} changed type {tb.text} -> {ta.text}")
    return problems


def check(before_text, after_text, functions=None, tol=1e-5, seed=0,
          verbose=False, out=sys.stdout, int_cap=None):
    """Compares two generic-form modules; returns the number of failures."""
    failures = 0
    try:
        before = nn_eval.Module(before_text)
    except nn_eval.ParseError as e:
        print(f"ERROR: cannot parse the module before: {e}", file=out)
        return 1
    try:
        after = nn_eval.Module(after_text)
    except nn_eval.ParseError as e:
        print(f"ERROR: cannot parse the module after: {e}", file=out)
        return 1
    for problem in check_parameters(before, after):
        print(f"MISMATCH: {problem}", file=out)
        failures += 1
    if functions:
        names = functions
    else:
        names = [n for n, f in before.functions.items() if not f.is_declaration]
        if not names:
            print("ERROR: no function to check", file=out)
            return failures + 1
    params = draw_params(before, seed)
    bounds = integer_bounds(before)
    for name in names:
        fb, fa = before.functions.get(name), after.functions.get(name)
        if fb is None or fb.is_declaration:
            print(f"ERROR @{name}: no such function with a body before", file=out)
            failures += 1
            continue
        if fa is None or fa.is_declaration:
            print(f"MISMATCH @{name}: no such function with a body after", file=out)
            failures += 1
            continue
        if fb.signature() != fa.signature():
            print(f"MISMATCH @{name}: signature {fb.signature()} became "
                  f"{fa.signature()}", file=out)
            failures += 1
            continue
        try:
            inputs = draw_inputs(fb, bounds.get(name, {}), seed, int_cap)
        except nn_eval.EvalError as e:
            print(f"ERROR @{name}: {e}", file=out)
            failures += 1
            continue
        results = {}
        for side, mod in (("before", before), ("after", after)):
            try:
                results[side] = mod.evaluate(name, inputs, params)
            except nn_eval.EvalError as e:
                print(f"ERROR @{name}: evaluating the module {side}: {e}", file=out)
                failures += 1
                break
        else:
            worst, bad = 0.0, []
            for k, (rb, ra, ty) in enumerate(zip(results["before"], results["after"],
                                                 fb.result_types)):
                diff, reason = compare_tensors(rb, ra, tol)
                if reason:
                    bad.append(f"result #{k} {ty.text}: {reason}")
                else:
                    worst = max(worst, diff)
            suffix = f" [{op_changes(fb, fa)}]" if verbose else ""
            if bad:
                failures += 1
                print(f"MISMATCH @{name}: " + "; ".join(bad) + suffix, file=out)
            else:
                print(f"OK @{name}: max abs diff {worst:.1e}{suffix}", file=out)
    return failures


def _join_passes_argv(argv):
    """Lets `--passes --nn-fuse-attention` (a value that looks like an
    option) mean `--passes=--nn-fuse-attention`."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--passes" and i + 1 < len(argv):
            out.append("--passes=" + argv[i + 1])
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv=None):
    argv = _join_passes_argv(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(
        description="Checks that passes preserve what an nn module computes.")
    ap.add_argument("file")
    ap.add_argument("--opt", required=True, help="the transfuse-opt binary")
    ap.add_argument("--passes", default="",
                    help="transfuse-opt options that run the passes, e.g. "
                         "\"--nn-fuse-attention --canonicalize\"")
    ap.add_argument("--function", action="append",
                    help="check only this function (repeatable); default all")
    ap.add_argument("--tolerance", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--int-cap", type=int, metavar="N",
                    help="draw integers below N at most (e.g. 2 makes half "
                         "of the token ids the pad id 0)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show the op count changes of each function")
    ap.add_argument("--compare-with", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.compare_with is None and not args.passes.strip():
        ap.error("--passes is required (or --compare-with)")
    try:
        before_text = nn_eval.generic_text(args.file, args.opt)
        if args.compare_with is not None:
            after_text = nn_eval.generic_text(args.compare_with, args.opt)
        else:
            after_text = nn_eval.generic_text(args.file, args.opt,
                                              shlex.split(args.passes))
    except (nn_eval.ParseError, OSError) as e:
        print(f"ERROR: {e}")
        return 1
    failures = check(before_text, after_text, args.function, args.tolerance,
                     args.seed, args.verbose, int_cap=args.int_cap)
    if failures:
        print(f"FAILED: {failures} problem(s) in {args.file}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
