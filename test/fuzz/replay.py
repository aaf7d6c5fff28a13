#!/usr/bin/env python3
"""Runs the tools over the fuzz targets' regression inputs.

  replay.py --bin BUILD/bin --work DIR [--inputs DIR]

Every file of test/fuzz/regressions/TARGET/ (or DIR/TARGET/, such as a fuzz
run's findings, build-fuzz/fuzz-findings) goes to the tools the way the
fuzz target TARGET reads it (docs/fuzzing.md): a spec to transfuse-compile,
a safetensors file, an artifact or a checkpoint to transfuse-run and
transfuse-train, a data file to transfuse-train, read every way the data
target reads it. Each run must end as the error policy says: exit 0, or
exit 1 with an `error:` message, and never a signal, an assertion, an
uncaught exception or a sanitizer report. One line per run, then
`N passed, M failed`; exit 1 if any failed.
"""
import argparse
import os
import struct
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGRESSIONS = os.path.join(SRC, "test", "fuzz", "regressions")
CRASH_MARKS = ("Assertion", "Stack dump", "terminate called", "Sanitizer",
               "runtime error:", "Segmentation fault")

# The ways the data target reads a file, as transfuse-train options: the
# fake model whose task and vocabulary fit, the format and the tokenizer.
DATA_READINGS = [
    ("lm", "text", None), ("lm", "tsv", None), ("lm", "ids", None),
    ("classifier", "tsv", "bytes"), ("classifier", "tsv", "words"),
    ("classifier", "ids", None), ("seq2seq", "tsv", "words"),
    ("seq2seq", "ids", None),
]


def fnv1a64(data):
    value = 0xcbf29ce484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return value


def container(data):
    """The .tfm the artifact target makes of an input (artifact.cpp)."""
    if not data.startswith(b"TRANSFUS"):
        code = b"not an ELF shared object"
        data = (b"TRANSFUS" + struct.pack("<IIQQ", 1, 0, len(data), len(code))
                + data + code + bytes(8))
    if len(data) >= 40:
        data = data[:-8] + struct.pack("<Q", fnv1a64(data[:-8]))
    return data


class Replay:
    def __init__(self, bin_dir, work):
        self.bin = bin_dir
        self.work = work
        self.passed = self.failed = 0
        for model in ("fake", "classifier", "lm", "seq2seq"):
            self.tool("make-test-tfm", "--model", model, "-o", self.path(model + ".tfm"))
        with open(self.path("labelled.tsv"), "w") as f:
            f.write("0\tgood\n1\tbad\n2\tso so\n0\tfine\n")
        subprocess.run(["protoc", "--proto_path", os.path.join(SRC, "models"),
                        "--python_out", work, "model.proto"], check=True)
        sys.path.insert(0, work)

    def path(self, name):
        return os.path.join(self.work, name)

    def tool(self, name, *args):
        subprocess.run([os.path.join(self.bin, name), *args], check=True)

    def check(self, label, name, *args):
        run = subprocess.run([os.path.join(self.bin, name), *args],
                             capture_output=True, text=True, errors="replace")
        problem = None
        if run.returncode not in (0, 1):
            problem = f"exit {run.returncode}"
        elif any(mark in run.stderr for mark in CRASH_MARKS):
            problem = "a crash report"
        elif run.returncode == 1 and "error:" not in run.stderr:
            problem = "exit 1 without an error message"
        if problem:
            self.failed += 1
            print(f"FAIL {label}: {name} {' '.join(args)}: {problem}")
            print(run.stderr[-2000:])
        else:
            self.passed += 1
            print(f"OK {label}: {name}: exit {run.returncode}")

    def spec_text(self, label, data, path):
        self.check(label, "transfuse-compile", path, "--compile-to=import",
                   "-o", os.devnull)

    def spec_binary(self, label, data, path):
        from google.protobuf import message, text_format
        import model_pb2
        spec = model_pb2.Model()
        try:
            spec.ParseFromString(data)
        except message.DecodeError:
            print(f"OK {label}: not the wire format of a spec, skipped")
            return
        spec.DiscardUnknownFields()
        text = self.path("spec.pbtxt")
        with open(text, "w") as f:
            f.write(text_format.MessageToString(spec))
        self.spec_text(label, data, text)

    def safetensors(self, label, data, path):
        fake, out = self.path("fake.tfm"), self.path("out.safetensors")
        self.check(label, "transfuse-run", fake, "--weights", path, "--outputs", out)
        self.check(label, "transfuse-run", fake, "--inputs", path, "--outputs", out)

    def artifact(self, label, data, path):
        tfm = self.path("artifact.tfm")
        with open(tfm, "wb") as f:
            f.write(container(data))
        self.check(label, "transfuse-run", tfm, "--outputs", self.path("out.safetensors"))

    def checkpoint(self, label, data, path):
        self.check(label, "transfuse-train", self.path("classifier.tfm"),
                   "--data", self.path("labelled.tsv"), "--resume", path,
                   "--steps", "1", "--quiet")

    def data(self, label, data, path):
        for model, form, tokenizer in DATA_READINGS:
            args = ["--data", path, "--format", form, "--steps", "1", "--quiet"]
            if tokenizer:
                args += ["--tokenizer", tokenizer]
            self.check(label, "transfuse-train", self.path(model + ".tfm"), *args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="the tools' directory")
    parser.add_argument("--work", required=True, help="a scratch directory")
    parser.add_argument("--inputs", default=REGRESSIONS,
                        help="TARGET/ directories of inputs")
    args = parser.parse_args()
    replay = Replay(args.bin, args.work)
    for target in sorted(os.listdir(args.inputs)):
        run = getattr(replay, target, None)
        if run is None:
            sys.exit(f"replay.py: no fuzz target '{target}' ({args.inputs}/{target})")
        for name in sorted(os.listdir(os.path.join(args.inputs, target))):
            path = os.path.join(args.inputs, target, name)
            with open(path, "rb") as f:
                run(f"{target}/{name}", f.read(), path)
    print(f"{replay.passed} passed, {replay.failed} failed")
    return 1 if replay.failed else 0


if __name__ == "__main__":
    sys.exit(main())
