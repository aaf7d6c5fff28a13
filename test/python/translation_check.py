"""How many sources a model translated exactly.

    translation_check.py --data D.tsv --translations T.txt --at-least F

D.tsv holds `source<TAB>target` lines in the ids format (transfuse-data
generate); T.txt one line per source, what `transfuse-run --generate
--token-ids` wrote for it. A translation is exact when its ids are the
target's. Prints `exact k/n`, then `OK` when k/n reaches F, else `FAILED`
(exit 1).
"""
import argparse
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--translations", required=True)
    parser.add_argument("--at-least", type=float, required=True)
    args = parser.parse_args()

    with open(args.data) as f:
        targets = [line.rstrip("\n").split("\t")[1].split()
                   for line in f if line.strip()]
    with open(args.translations) as f:
        translations = [line.split() for line in f]
    if len(translations) != len(targets):
        print(f"FAILED {len(targets)} sources but {len(translations)} "
              "translations")
        return 1
    exact = sum(t == g for t, g in zip(translations, targets))
    print(f"exact {exact}/{len(targets)}")
    if exact < args.at_least * len(targets):
        print(f"FAILED below {args.at_least:g}")
        for t, g in zip(translations, targets):
            if t != g:
                print(f"  {' '.join(t)!r} for {' '.join(g)!r}")
        return 1
    print(f"OK at least {args.at_least:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
