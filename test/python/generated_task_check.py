"""Checks the files `transfuse-data generate` writes (docs/data.md).

Subcommands:
  copy FILE --count N --min-length A --max-length B --vocab-size V
  reverse FILE ...same options
      every line is `source ids<TAB>target ids`, the target the source
      copied or reversed, A to B ids each in [4, V); prints "OK copy: ..."
  sentiment TRAIN HELD_OUT
      labels are balanced, and a small transformer classifier (former's, as
      the seed model sentiment_classifier) trained on TRAIN for at most
      three epochs reaches 90% accuracy on HELD_OUT; prints "OK sentiment"
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_models  # noqa: E402


def fields(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f]


def check_sequences(args):
    rows = fields(args.file)
    assert len(rows) == args.count, f"{len(rows)} lines"
    for number, row in enumerate(rows, 1):
        assert len(row) == 2, f"line {number}: {len(row) - 1} tabs"
        source, target = ([int(i) for i in f.split()] for f in row)
        expected = source[::-1] if args.task == "reverse" else source
        assert target == expected, f"line {number}: {row}"
        assert args.min_length <= len(source) <= args.max_length, number
        assert all(4 <= i < args.vocab_size for i in source), number
    print(f"OK {args.task}: {len(rows)} examples")


def check_sentiment(args):
    train, held_out = fields(args.train), fields(args.held_out)
    labels = [label for label, _ in train]
    assert labels.count("0") == labels.count("1"), "unbalanced"

    torch.manual_seed(0)
    torch.set_num_threads(1)
    words = sorted({w for _, text in train for w in text.split()})
    ids = {w: i + 4 for i, w in enumerate(words)}  # <unk> is 1
    length = 32

    def tensors(rows):
        x = torch.zeros(len(rows), length, dtype=torch.long)
        for i, (_, text) in enumerate(rows):
            row = [ids.get(w, 1) for w in text.split()][:length]
            x[i, :len(row)] = torch.tensor(row)
        return x, torch.tensor([int(label) for label, _ in rows])

    x, y = tensors(train)
    x_held, y_held = tensors(held_out)
    model = reference_models.CTransformer(
        emb=64, heads=4, depth=2, seq_length=length,
        num_tokens=len(words) + 4, num_classes=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(3):
        for batch in torch.randperm(len(x)).split(32):
            optimizer.zero_grad()
            F.nll_loss(model(x[batch]), y[batch]).backward()
            optimizer.step()
        with torch.no_grad():
            accuracy = (model(x_held).argmax(1) == y_held).float().mean()
        if accuracy >= 0.9:
            print("OK sentiment")
            return
    sys.exit(f"held-out accuracy {float(accuracy):.3f} < 0.9")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="task", required=True)
    for name in ("copy", "reverse"):
        p = sub.add_parser(name)
        p.add_argument("file")
        for option in ("--count", "--min-length", "--max-length",
                       "--vocab-size"):
            p.add_argument(option, type=int, required=True)
    p = sub.add_parser("sentiment")
    p.add_argument("train")
    p.add_argument("held_out")
    args = parser.parse_args()
    if args.task == "sentiment":
        check_sentiment(args)
    else:
        check_sequences(args)


if __name__ == "__main__":
    main()
