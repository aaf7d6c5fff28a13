"""Reads the JSON-lines metrics of a transfuse-train run and checks that
its last held-out evaluation reached a target.

  convergence_check.py METRICS.jsonl --metric accuracy --at-least 0.9
  convergence_check.py METRICS.jsonl --metric eval_loss --below 2.0

Prints the curve (every evaluation, and the first and last training loss)
and "OK <metric> <value>" or "FAILED <metric> <value>"; exits non-zero
when the target is missed or the log has no evaluation.
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--metric", required=True)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--at-least", type=float)
    target.add_argument("--below", type=float)
    args = parser.parse_args()

    with open(args.log) as f:
        records = [json.loads(line) for line in f]
    steps = [r for r in records if "loss" in r]
    evals = [r for r in records if "eval_loss" in r]
    if not steps or not evals:
        print(f"FAILED {args.log}: no training steps or no evaluation")
        return 1
    print(f"train loss {steps[0]['loss']:.4f} at step {steps[0]['step']}, "
          f"{steps[-1]['loss']:.4f} at step {steps[-1]['step']}")
    for r in evals:
        print(f"eval at step {r['step']}: {args.metric} {r[args.metric]:.4f}")

    value = evals[-1][args.metric]
    if args.at_least is not None:
        passed = value >= args.at_least
        bound = f">= {args.at_least}"
    else:
        passed = value < args.below
        bound = f"< {args.below}"
    verdict = "OK" if passed else "FAILED"
    print(f"{verdict} {args.metric} {value:.4f} (target {bound}) "
          f"at step {evals[-1]['step']}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
