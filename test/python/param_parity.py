"""Checks that a spec's parameters match its PyTorch twin's state_dict.

Weights move between Transfuse and PyTorch by name with no conversion, so the
importer must produce exactly the state_dict's names with the same shapes.
This runs `transfuse-compile SPEC --compile-to=import --emit=summary`, reads
its parameter table, and compares it with reference_models.build(MODEL):
same names, same shape per name, and the same total, which must also equal
--expect-count (a pin against both sides drifting together).

Prints `OK <model>: N tensors, M values` and exits 0, or lists every
difference and exits 1. With --torch-only, prints the torch side alone.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reference_models  # noqa: E402

HEADER = re.compile(r"^parameters:\s*([\d,]+) tensors?,\s*([\d,]+) values?")
ROW = re.compile(r"^  (\S+) \[([^\]]*)\]")


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def parse_summary(text):
    """{name: shape} from the `parameters:` table, plus the header's counts.

    The table is the lines indented by two spaces after the header, up to the
    first line that is not."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = HEADER.match(line)
        if m:
            break
    else:
        raise ValueError("no 'parameters:' line in the summary")
    header = (int(m.group(1).replace(",", "")),
              int(m.group(2).replace(",", "")))
    params = {}
    for line in lines[i + 1:]:
        if not line.startswith("  ") or line.startswith("   "):
            break
        row = ROW.match(line)
        if not row:
            raise ValueError(f"unreadable parameter line: {line!r}")
        dims = row.group(2).strip()
        shape = [int(d) for d in dims.split(",")] if dims else []
        if row.group(1) in params:
            raise ValueError(f"parameter listed twice: {row.group(1)}")
        params[row.group(1)] = shape
    return params, header


def torch_params(model_name):
    module = reference_models.build(model_name)
    return {k: list(v.shape) for k, v in module.state_dict().items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compile", default="transfuse-compile",
                    help="the transfuse-compile binary")
    ap.add_argument("--spec", help="the model spec (.pbtxt)")
    ap.add_argument("--model", required=True,
                    choices=sorted(reference_models.CONFIGS))
    ap.add_argument("--expect-count", type=int,
                    help="the expected number of parameter values")
    ap.add_argument("--torch-only", action="store_true",
                    help="print the torch state_dict, do not compile")
    args = ap.parse_args()

    expected = torch_params(args.model)
    t_count = sum(numel(s) for s in expected.values())

    if args.torch_only:
        for name, shape in expected.items():
            print(f"  {name} {shape}")
        print(f"torch {args.model}: {len(expected)} tensors, {t_count:,} values")
        ok = args.expect_count is None or t_count == args.expect_count
        if not ok:
            print(f"count {t_count:,} != --expect-count "
                  f"{args.expect_count:,}")
        return 0 if ok else 1

    if not args.spec:
        ap.error("--spec is required unless --torch-only")
    cmd = [args.compile, args.spec, "--compile-to=import", "--emit=summary"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        print(f"FAIL: cannot run {args.compile}: {e}")
        return 1
    if proc.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited {proc.returncode}\n"
              f"{proc.stdout}{proc.stderr}")
        return 1
    try:
        got, (h_tensors, h_values) = parse_summary(proc.stdout)
    except ValueError as e:
        print(f"FAIL: {e}\n{proc.stdout}")
        return 1
    g_count = sum(numel(s) for s in got.values())

    errors = []
    for name in sorted(expected.keys() - got.keys()):
        errors.append(f"missing in spec: {name} {expected[name]}")
    for name in sorted(got.keys() - expected.keys()):
        errors.append(f"not in torch:    {name} {got[name]}")
    for name in sorted(expected.keys() & got.keys()):
        if expected[name] != got[name]:
            errors.append(f"shape differs:   {name} spec {got[name]} "
                          f"torch {expected[name]}")
    # The header must agree with its own table.
    if (h_tensors, h_values) != (len(got), g_count):
        errors.append(f"summary header says {h_tensors} tensors, "
                      f"{h_values:,} values; its table has {len(got)}, "
                      f"{g_count:,}")
    if g_count != t_count:
        errors.append(f"count: spec {g_count:,}, torch {t_count:,}")
    if args.expect_count is not None and t_count != args.expect_count:
        errors.append(f"count: torch {t_count:,}, expected "
                      f"{args.expect_count:,}")
    if args.expect_count is not None and g_count != args.expect_count:
        errors.append(f"count: spec {g_count:,}, expected "
                      f"{args.expect_count:,}")

    if errors:
        print(f"FAIL {args.model}: {len(errors)} difference(s)")
        for e in errors:
            print("  " + e)
        return 1
    print(f"OK {args.model}: {len(got)} tensors, {g_count} values")
    return 0


if __name__ == "__main__":
    sys.exit(main())
