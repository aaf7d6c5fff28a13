#!/usr/bin/env python3
"""The GPU check's own logic, without a GPU (test/Tools/gpu-check/logic.test).

CI has no GPU, so tools/gpu-check.sh never runs there; this tests the parts
of gpu_check.py that decide its verdicts on fabricated inputs: the
sanitizers' output, the table, the problems and the JSON, the check of a
prepared folder, fingerprints, the runner's budget and order, and the time
limit bench/gpu.py's sides get under `tools/gpu-check.sh --bench`. No worker,
sanitizer or git is run: subprocess.run is replaced by fakes that write
what a worker or compute-sanitizer would, and the repository root by a
temporary one. Neither PyTorch nor the runtime is imported.
"""
import contextlib
import hashlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import types
import unittest
from unittest import mock

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check  # noqa: E402

# Every unit of a full run: each model's checks and the sanitizer runs.
ALL_UNITS = len(gpu_check.MODELS) * len(gpu_check.CHECKS) + \
    len(gpu_check.SANITIZERS)

MEMCHECK_CLEAN = """\
========= COMPUTE-SANITIZER
step 1/1: loss 4.1589
========= LEAK SUMMARY: 0 bytes leaked in 0 allocations
========= ERROR SUMMARY: 0 errors
"""
MEMCHECK_ERRORS = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at 0x90 in softmax_kernel(float *, int)
=========     by thread (3,0,0) in block (0,0,0)
========= Invalid __global__ write of size 4 bytes
=========     at 0xb0 in softmax_kernel(float *, int)
========= Leaked 1024 bytes at 0x7f0000000000
========= LEAK SUMMARY: 1024 bytes leaked in 1 allocations
========= ERROR SUMMARY: 3 errors
"""
RACECHECK_CLEAN = """\
========= COMPUTE-SANITIZER
========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)
"""
RACECHECK_HAZARDS = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at 0x40 in reduce
=========     and Read access at 0x80 in reduce [16 hazards]
========= Warning: Race reported between Read access at 0x10 in scan
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
"""


def sha(data):
    return hashlib.sha256(data).hexdigest()


def capture(function, *args, **kwargs):
    """(what `function` returned, what it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value = function(*args, **kwargs)
    return value, out.getvalue()


def row(model, check, status, message="", items=(), log=None, seconds=0.0):
    """A row as Runner.row makes it."""
    result = {"model": model, "check": check, "status": status,
              "seconds": seconds, "message": message, "items": list(items),
              "log": log}
    result.update(gpu_check.summarise(result["items"]))
    return result


def item(what, error, bound, ok=None, detail="", rel=None):
    result = {"what": what, "error": error, "bound": bound,
              "ok": (error <= bound) if ok is None else ok,
              "detail": detail}
    if rel is not None:
        result["rel"] = rel
    return result


class SanitizerVerdict(unittest.TestCase):
    """sanitizer_verdict: (status, message, items) of a compute-sanitizer
    run from its exit status and output."""

    def test_clean_memcheck_passes(self):
        status, message, items = gpu_check.sanitizer_verdict(
            "memcheck", 0, MEMCHECK_CLEAN)
        self.assertEqual(status, "PASS")
        self.assertEqual(message, "")
        self.assertEqual(items, [{"what": "memcheck errors", "error": 0,
                                  "bound": 0, "ok": True, "detail": ""}])

    def test_clean_racecheck_passes(self):
        status, _, items = gpu_check.sanitizer_verdict(
            "racecheck", 0, RACECHECK_CLEAN)
        self.assertEqual(status, "PASS")
        self.assertEqual(len(items), 1)
        self.assertEqual(items[0]["error"], 0)
        self.assertTrue(items[0]["ok"])
        self.assertEqual(items[0]["what"],
                         "racecheck hazards (0 errors, 0 warnings)")

    def test_memcheck_errors_fail_with_their_count(self):
        status, message, items = gpu_check.sanitizer_verdict(
            "memcheck", gpu_check.SANITIZER_EXIT, MEMCHECK_ERRORS)
        self.assertEqual(status, "FAIL")
        self.assertEqual(items[0]["error"], 3)
        self.assertEqual(items[0]["bound"], 0)
        self.assertFalse(items[0]["ok"])
        # The first three findings, without the summaries or "at" lines.
        self.assertEqual(message, "Invalid __global__ read of size 4 bytes | "
                                  "Invalid __global__ write of size 4 bytes | "
                                  "Leaked 1024 bytes at 0x7f0000000000")

    def test_errors_fail_whatever_the_exit_status(self):
        # Errors in the summary fail even if the exit status says nothing.
        status, _, items = gpu_check.sanitizer_verdict(
            "memcheck", 0, MEMCHECK_ERRORS)
        self.assertEqual(status, "FAIL")
        self.assertEqual(items[0]["error"], 3)

    def test_racecheck_hazards_fail_with_their_count(self):
        status, message, items = gpu_check.sanitizer_verdict(
            "racecheck", gpu_check.SANITIZER_EXIT, RACECHECK_HAZARDS)
        self.assertEqual(status, "FAIL")
        self.assertEqual(items[0]["error"], 2)
        self.assertFalse(items[0]["ok"])
        self.assertEqual(items[0]["what"],
                         "racecheck hazards (1 errors, 1 warnings)")
        self.assertIn("Error: Race reported between Write access", message)
        self.assertIn("Warning: Race reported", message)

    def test_racecheck_warnings_alone_fail(self):
        # racecheck exits 0 on warnings; a hazard is still a finding.
        text = ("========= RACECHECK SUMMARY: 1 hazard displayed "
                "(0 errors, 1 warning)\n")
        status, _, items = gpu_check.sanitizer_verdict("racecheck", 0, text)
        self.assertEqual(status, "FAIL")
        self.assertEqual(items[0]["error"], 1)

    def test_special_exit_status_fails_without_a_count(self):
        # The sanitizer's own exit status is a finding even where the
        # summary's count says none.
        status, _, items = gpu_check.sanitizer_verdict(
            "memcheck", gpu_check.SANITIZER_EXIT, MEMCHECK_CLEAN)
        self.assertEqual(gpu_check.SANITIZER_EXIT, 86)
        self.assertEqual(status, "FAIL")
        self.assertTrue(items[0]["ok"])

    def test_program_failure_is_an_error(self):
        text = MEMCHECK_CLEAN.replace("step 1/1: loss 4.1589",
                                      "error: cannot open the artifact")
        status, message, items = gpu_check.sanitizer_verdict(
            "memcheck", 1, text)
        self.assertEqual(status, "ERROR")
        self.assertTrue(message.startswith(
            "transfuse-train exited with status 1: "
            "error: cannot open the artifact | "), message)
        self.assertEqual(items[0]["error"], 0)

    def test_missing_summary_is_an_error(self):
        text = "one\ntwo\nthree\nSegmentation fault\n"
        for exit_status in (0, 1, -11):
            status, message, items = gpu_check.sanitizer_verdict(
                "memcheck", exit_status, text)
            self.assertEqual(status, "ERROR")
            self.assertEqual(message, f"exit status {exit_status}, no "
                                      f"summary: two | three | "
                                      f"Segmentation fault")
            self.assertEqual(items, [])
        # racecheck's summary is its own, but memcheck's will do.
        status, _, _ = gpu_check.sanitizer_verdict("racecheck", 0, "")
        self.assertEqual(status, "ERROR")
        status, _, items = gpu_check.sanitizer_verdict(
            "racecheck", 0, "========= ERROR SUMMARY: 0 errors\n")
        self.assertEqual((status, items[0]["error"]), ("PASS", 0))

    def test_time_limit_is_a_timeout(self):
        self.assertEqual(gpu_check.sanitizer_verdict(
            "racecheck", None, MEMCHECK_ERRORS),
            ("TIMEOUT", "ran past its limit", []))


class Summarise(unittest.TestCase):
    """summarise: a row's item closest to or furthest past its bound."""

    def test_worst_by_ratio_to_the_bound(self):
        items = [item("small", 1e-6, 1e-4), item("close", 9e-5, 1e-4),
                 item("large but loose", 1e-3, 1.0)]
        self.assertEqual(gpu_check.summarise(items), {
            "max_error": 9e-5, "bound": 1e-4, "worst": "close",
            "max_rel": None})

    def test_past_the_bound_and_largest_rel(self):
        items = [item("a", 1e-5, 1e-4, rel=0.25),
                 item("b", 3e-4, 1e-4, rel=0.5), item("c", 2e-4, 1e-4)]
        summary = gpu_check.summarise(items)
        self.assertEqual(summary["worst"], "b")
        self.assertEqual(summary["max_error"], 3e-4)
        self.assertEqual(summary["max_rel"], 0.5)

    def test_zero_bound(self):
        # Bit-identical checks: bound 0; any error is infinitely far.
        items = [item("same", 0.0, 0.0), item("differs", 1e-7, 0.0),
                 item("also same", 0.0, 0.0)]
        self.assertEqual(gpu_check.summarise(items)["worst"], "differs")
        self.assertEqual(gpu_check.summarise(items[::2])["worst"], "same")

    def test_nan_is_infinitely_far(self):
        # As JSON gives them back: "nan" strings.
        for items in ([item("fine", 0.5, 1.0), item("nan", "nan", 1.0, False)],
                      [item("nan", "nan", 1.0, False), item("fine", 0.5, 1.0)],
                      [item("fine", 0.5, 1.0), item("over", 5.0, 1.0),
                       item("nan", "nan", "nan", False)],
                      [item("nan", "nan", "inf", False),
                       item("over", 5.0, 1.0)]):
            with self.subTest(items=[i["what"] for i in items]):
                summary = gpu_check.summarise(items)
                self.assertEqual(summary["worst"], "nan")
        self.assertTrue(math.isnan(gpu_check.summarise(
            [item("x", math.nan, 1.0, False)])["max_error"]))

    def test_items_without_error(self):
        # A check's fail() items have no numbers.
        self.assertEqual(gpu_check.summarise(
            [item("missing", None, None, False)]),
            {"max_error": None, "bound": None, "worst": None,
             "max_rel": None})
        self.assertEqual(gpu_check.summarise([]), {
            "max_error": None, "bound": None, "worst": None, "max_rel": None})


class Clean(unittest.TestCase):

    def test_non_finite_numbers_are_strings(self):
        value = {"a": math.nan, "b": [math.inf, -math.inf, 1.5],
                 "c": np.float64("nan"), "d": np.float32(0.25),
                 "e": np.int64(7), "f": np.bool_(True), 3: (1, "x"),
                 "g": None}
        cleaned = gpu_check.clean(value)
        self.assertEqual(cleaned, {"a": "nan", "b": ["inf", "-inf", 1.5],
                                   "c": "nan", "d": 0.25, "e": 7, "f": True,
                                   "3": [1, "x"], "g": None})
        self.assertIs(type(cleaned["e"]), int)
        self.assertIs(type(cleaned["f"]), bool)

    def test_write_json_is_standard_json(self):
        def refuse(name):
            raise ValueError(f"{name} in the JSON")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.json")
            gpu_check.write_json(path, {"error": math.nan,
                                        "bound": np.float64(math.inf),
                                        "items": [{"rel": -math.inf}]})
            with open(path) as f:
                value = json.loads(f.read(), parse_constant=refuse)
        self.assertEqual(value, {"error": "nan", "bound": "inf",
                                 "items": [{"rel": "-inf"}]})


class Table(unittest.TestCase):

    def rows(self):
        return [
            row("char_lm", "forward", "PASS",
                items=[item("forward logits", 1.2834e-6, 1.0312e-4)],
                seconds=0.123),
            row("char_lm", "train_step", "FAIL", log="logs/char_lm.log",
                items=[item("train_step 1 loss", 1e-6, 1e-4),
                       item("train_step 5 grad_norm", 2.14e-4, 1.37e-4,
                            detail="norm 13.45, clip 0.5")],
                seconds=2.0),
            row("char_lm", "cpu", "PASS",
                items=[item("loss", 0.0, 0.0, rel=0.0)]),
            row("char_lm", "memcheck", "FAIL",
                message="Invalid __global__ read of size 4 bytes",
                items=[item("memcheck errors", 3, 0)],
                log="logs/memcheck-char_lm.log", seconds=41.26),
            row("char_lm", "loss", "FAIL",
                items=[item("loss entry point", "nan", 1e-4, False)]),
        ] + [row("transformer_base", check, "NOT_RUN",
                 message="out of time") for check in gpu_check.CHECKS]

    def test_table(self):
        _, out = capture(gpu_check.print_table, self.rows())
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), [
            "model", "check", "status", "max", "error", "bound", "max",
            "rel", "time"])
        self.assertEqual(lines[1], "-" * len(lines[0]))
        self.assertEqual(len(lines), 2 + 5 + len(gpu_check.CHECKS))
        self.assertEqual(lines[2], (
            "char_lm               forward         PASS       1.28e-06   "
            "1.03e-04          -     0.1s"))
        self.assertEqual(lines[3].split(), [
            "char_lm", "train_step", "FAIL", "2.14e-04", "1.37e-04", "-",
            "2.0s"])
        self.assertEqual(lines[4].split(), [
            "char_lm", "cpu", "PASS", "0.00e+00", "0.00e+00", "0.00e+00",
            "0.0s"])
        # The sanitizers' counts are integers: shown as such.
        self.assertEqual(lines[5].split(), [
            "char_lm", "memcheck", "FAIL", "3", "0", "-", "41.3s"])
        self.assertEqual(lines[6].split(), [
            "char_lm", "loss", "FAIL", "nan", "1.00e-04", "-", "0.0s"])
        self.assertEqual(lines[7].split(), [
            "transformer_base", "forward", "NOT_RUN", "-", "-", "-", "0.0s"])

    def test_problems(self):
        _, out = capture(gpu_check.print_problems, self.rows())
        self.assertEqual(out.splitlines(), [
            "",
            "Problems:",
            "  char_lm train_step FAIL: train_step 5 grad_norm: error "
            "0.000214 bound 0.000137 norm 13.45, clip 0.5",
            "  char_lm train_step FAIL: log logs/char_lm.log",
            "  char_lm memcheck FAIL: Invalid __global__ read of size 4 bytes",
            "  char_lm memcheck FAIL: memcheck errors: error 3 bound 0 ",
            "  char_lm memcheck FAIL: log logs/memcheck-char_lm.log",
            "  char_lm loss FAIL: loss entry point: error nan bound 0.0001 ",
            "  transformer_base forward, loss, loss_and_grads, train_step, "
            "cpu, determinism, decoding, graphs, nccl NOT_RUN: out of time",
        ])

    def test_problems_share_lines_only_alike(self):
        rows = [row("m", "forward", "ERROR", message="boom", log="l"),
                row("m", "loss", "ERROR", message="boom", log="l"),
                row("m", "cpu", "ERROR", message="other", log="l"),
                row("n", "loss", "ERROR", message="boom", log="l"),
                row("m", "determinism", "TIMEOUT", message="boom", log="l")]
        _, out = capture(gpu_check.print_problems, rows)
        self.assertEqual(out.splitlines()[2:], [
            "  m forward, loss ERROR: boom (log l)",
            "  m cpu ERROR: other (log l)",
            "  n loss ERROR: boom (log l)",
            "  m determinism TIMEOUT: boom (log l)"])

    def test_nothing_failing_prints_nothing(self):
        rows = [row("m", "forward", "PASS", items=[item("x", 1.0, 2.0)]),
                row("m", "memcheck", "SKIPPED", message="--no-gpu")]
        _, out = capture(gpu_check.print_problems, rows)
        self.assertEqual(out, "")

    def test_limit_and_width(self):
        rows = [row(f"m{i}", "cpu", "ERROR", message="x" * 300)
                for i in range(30)]
        _, out = capture(gpu_check.print_problems, rows, limit=25, width=50)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2 + 25 + 1)
        self.assertEqual(lines[2], "  " + ("m0 cpu ERROR: " + "x" * 300)[:50])
        self.assertEqual(lines[-1], "  ... 5 more in gpu-check.json")


class Fingerprint(unittest.TestCase):

    def test_blob_id_is_gits(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f")
            open(path, "wb").close()
            self.assertEqual(gpu_check.blob_id(path),
                             "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
            with open(path, "wb") as f:
                f.write(b"hello\n")
            self.assertEqual(gpu_check.blob_id(path),
                             "ce013625030ba8dba906f756967f9e9ca394464a")

    def test_fnv1a(self):
        # FNV-1a 64's published values: the seed of the sample must not
        # depend on Python's hash randomisation.
        self.assertEqual(gpu_check.fnv1a(""), 0xcbf29ce484222325)
        self.assertEqual(gpu_check.fnv1a("a"), 0xaf63dc4c8601ec8c)

    def test_small_tensor_kept_whole(self):
        size = gpu_check.SAMPLE_LARGEST + gpu_check.SAMPLE_RANDOM
        self.assertEqual(size, 64)
        array = (np.arange(size, dtype=np.float32) - 20.0).reshape(4, 16)
        fp = gpu_check.fingerprint("w", array)
        self.assertEqual(fp["shape"], [4, 16])
        self.assertEqual(fp["index"], list(range(size)))
        self.assertEqual(fp["value"], [float(i - 20) for i in range(size)])
        self.assertEqual(fp["sum"], float(sum(i - 20 for i in range(size))))
        self.assertEqual(fp["max_abs"], 43.0)
        self.assertAlmostEqual(fp["norm"], math.sqrt(sum(
            (i - 20.0) ** 2 for i in range(size))), places=9)
        self.assertEqual(fp["sha256"], sha(array.tobytes()))

    def test_scalar_and_empty(self):
        fp = gpu_check.fingerprint("s", np.float32(-2.5))
        self.assertEqual((fp["shape"], fp["index"], fp["value"],
                          fp["max_abs"]), ([], [0], [-2.5], 2.5))
        fp = gpu_check.fingerprint("e", np.zeros((0, 3), np.float32))
        self.assertEqual((fp["shape"], fp["index"], fp["max_abs"],
                          fp["norm"]), ([0, 3], [], 0.0, 0.0))

    def test_large_tensor_sampled(self):
        rng = np.random.default_rng(5)
        array = rng.uniform(-1, 1, (50, 40)).astype(np.float32)
        flat = array.ravel()
        planted = rng.choice(flat.size, gpu_check.SAMPLE_LARGEST,
                             replace=False)
        flat[planted] = 10.0 + np.arange(gpu_check.SAMPLE_LARGEST)
        flat[planted[::2]] *= -1
        fp = gpu_check.fingerprint("decoder.w", array)
        self.assertEqual(fp["shape"], [50, 40])
        self.assertTrue(set(planted.tolist()) <= set(fp["index"]))
        self.assertEqual(fp["index"], sorted(set(fp["index"])))
        self.assertGreaterEqual(len(fp["index"]), gpu_check.SAMPLE_RANDOM)
        self.assertLessEqual(len(fp["index"]), 64)
        self.assertTrue(all(0 <= i < flat.size for i in fp["index"]))
        self.assertEqual(fp["value"], [float(flat[i]) for i in fp["index"]])
        self.assertEqual(fp["max_abs"], 25.0)
        self.assertAlmostEqual(fp["sum"], float(flat.astype(np.float64)
                                                .sum()), places=9)
        self.assertEqual(fp["sha256"], sha(array.tobytes()))
        # Deterministic for a name; another name samples elsewhere.
        self.assertEqual(gpu_check.fingerprint("decoder.w", array.copy()), fp)
        other = gpu_check.fingerprint("encoder.w", array)
        self.assertNotEqual(other["index"], fp["index"])
        self.assertTrue(set(planted.tolist()) <= set(other["index"]))

    def test_sparse_gradient_sampled_where_not_zero(self):
        grad = np.zeros((1000, 8), np.float32)
        rows = [3, 77, 512, 999]
        grad[rows] = 0.5
        grad[77, 2] = -3.0
        fp = gpu_check.fingerprint("grad.embedding", grad)
        nonzero = set(np.flatnonzero(grad).tolist())
        self.assertEqual(len(nonzero), 32)
        # The 16 largest magnitudes include the -3 and 15 of the 0.5s.
        sampled = [i for i, v in zip(fp["index"], fp["value"]) if v]
        self.assertGreaterEqual(len(sampled), gpu_check.SAMPLE_LARGEST)
        self.assertTrue(set(sampled) <= nonzero)
        self.assertIn(77 * 8 + 2, fp["index"])
        self.assertEqual(fp["max_abs"], 3.0)

    def test_one_past_the_threshold_is_sampled(self):
        array = np.arange(65, dtype=np.float64)
        fp = gpu_check.fingerprint("x", array)
        self.assertTrue(set(range(49, 65)) <= set(fp["index"]))
        self.assertEqual(fp["value"], [float(i) for i in fp["index"]])


class CpuComparison(unittest.TestCase):
    """ModelRun.check_cpu on fabricated results and a fabricated CPU
    reference: which bounds it applies, and what it leaves unjudged."""

    class Items:
        """The part of the recorder check_cpu uses."""

        def __init__(self):
            self.items = {}

        def item(self, what, error, bound, ok, rel=None, detail=""):
            self.items[what] = (error, bound, ok, detail)

        def fail(self, what, message):
            self.items[what] = (math.inf, 0.0, False, message)

    def compare(self, step1_norm=10.0, step3_norm=10.0, step3_lr=3e-4):
        w = np.array([1.0, 2.0], np.float32)
        fp = gpu_check.fingerprint
        cpu_steps = [{"step": k, "loss": 4.0, "grad_norm": 10.0,
                      "lr": 1e-4 * k} for k in range(1, gpu_check.STEPS + 1)]
        run = object.__new__(gpu_check.ModelRun)
        run.np, run.params, run.state_names = np, ["w"], []
        run.init_values = {"w": w}
        run.reference_outputs = {"forward.logits": np.ones(3)}
        run.reference = {
            "init": {"w": fp("w", w)}, "loss": 4.0,
            "loss_and_grads": {"loss": 4.0, "grads": {"w": fp("w", w)}},
            "steps": cpu_steps, "final_parameters": {"w": fp("w", w)},
            "bounds": {"forward": {"logits": 1e-4}, "loss": 1e-4,
                       "loss_and_grads": {"loss": 1e-4,
                                          "grads": {"w": 1e-4}},
                       "step1": {"loss": 1e-4, "grad_norm": 1e-4}}}
        steps = []
        for cpu in cpu_steps:
            result = dict(cpu)
            result["grad_norm"] = {1: step1_norm, 3: step3_norm}.get(
                cpu["step"], cpu["grad_norm"])
            if cpu["step"] == 3:
                result["lr"] = step3_lr
            steps.append({"result": result, "loss": (0.0, 1e-4),
                          "grad_norm": (0.0, 1e-4), "lr": (0.0, 1e-9),
                          "parameters": {"w": (0.0, 1e-4)}})
        run.results = {
            "forward": {"logits": np.ones(3) + 1.5e-4},
            "forward bounds": {"logits": 1e-4},
            "loss": 4.0, "loss bound": 1e-4,
            "loss_and_grads": {"loss": 4.0, "grad.w": w + 1.5e-4},
            "loss_and_grads bounds": ((0.0, 1e-4), {"w": (0.0, 1e-4)}),
            "steps": steps, "final parameters": {"w": w}}
        items = self.Items()
        run.check_cpu(items)
        return items.items

    def test_same_inputs_are_held_to_the_sum_of_both_bounds(self):
        items = self.compare(step1_norm=10.00015)
        for what in ("forward logits", "loss_and_grads grads (1 tensors)",
                     "train_step 1 grad_norm"):
            error, bound, ok, _ = items[what]
            self.assertAlmostEqual(bound, 2e-4)
            self.assertGreater(error, 1e-4)
            self.assertTrue(ok, what)
        self.assertFalse(self.compare(step1_norm=10.0003)[
            "train_step 1 grad_norm"][2])

    def test_later_steps_judge_the_learning_rate_only(self):
        items = self.compare(step3_norm=10.5)
        error, bound, ok, detail = items["train_step 3 grad_norm"]
        self.assertEqual((error, bound, ok), (0.5, math.inf, True))
        self.assertIn("not judged", detail)
        self.assertTrue(items["train_step 3 lr"][2])
        self.assertFalse(self.compare(step3_lr=3.1e-4)["train_step 3 lr"][2])
        self.assertTrue(all(ok for *_, ok, _ in items.values()))


class Prepared(unittest.TestCase):
    """verify_prepared on a fabricated build-gpu-check/ and checkout."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = os.path.join(self.tmp.name, "checkout")
        self.prepared = os.path.join(self.root, "build-gpu-check")
        tree = {"README.md": b"# Transfuse\n",
                "runtime/lib/Session.cpp": b"int main() {}\n",
                "test/python/gpu_check.py": b"print()\n"}
        self.tree = {}
        for path, data in tree.items():
            self.write(os.path.join(self.root, path), data)
            self.tree[path] = gpu_check.blob_id(os.path.join(self.root, path))
        files = {"models/char_lm/model.cuda.tfm": b"\x7fTFM" + bytes(100),
                 "models/char_lm/reference.json": b'{"loss": 4.1}\n',
                 "sanitize/char_lm.txt": b"some bytes\n"}
        for path, data in files.items():
            self.write(os.path.join(self.prepared, path), data)
        self.index = {
            "schema": gpu_check.SCHEMA, "commit": "a" * 40,
            "date": "2026-01-01T00:00:00+00:00",
            "models": {"char_lm": {"dir": "models/char_lm",
                                   "dims": {"batch": 2, "seq": 8}}},
            "files": {path: {"sha256": sha(data), "bytes": len(data)}
                      for path, data in files.items()},
            "tree": self.tree}
        self.write_index()
        patch = mock.patch.object(gpu_check, "ROOT", self.root)
        patch.start()
        self.addCleanup(patch.stop)
        # No git is run: a test that wants one gives its answer.
        patch = mock.patch.object(gpu_check, "command_output",
                                  side_effect=AssertionError("git run"))
        patch.start()
        self.addCleanup(patch.stop)

    def write(self, path, data):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def write_index(self):
        gpu_check.write_json(os.path.join(self.prepared, "index.json"),
                             self.index)

    def verify(self):
        return gpu_check.verify_prepared(self.prepared)

    def test_consistent_is_ok(self):
        verdict = self.verify()
        self.assertEqual(verdict["status"], "ok", verdict["message"])
        self.assertEqual(verdict["tree_differs"], [])
        self.assertIsNone(verdict["checkout_commit"])
        self.assertEqual(verdict["commit"], "a" * 40)
        self.assertEqual(verdict["models"], ["char_lm"])
        self.assertIn("no .git here", verdict["message"])

    def test_missing_index(self):
        os.remove(os.path.join(self.prepared, "index.json"))
        verdict = self.verify()
        self.assertEqual(verdict["status"], "fail")
        self.assertIn("index.json is missing", verdict["message"])

    def test_wrong_schema(self):
        self.index["schema"] = "transfuse-gpu-check/0"
        self.write_index()
        verdict = self.verify()
        self.assertEqual(verdict["status"], "fail")
        self.assertIn("schema transfuse-gpu-check/0", verdict["message"])
        del self.index["schema"]
        self.write_index()
        self.assertEqual(self.verify()["status"], "fail")

    def test_changed_file(self):
        self.write(os.path.join(self.prepared, "sanitize/char_lm.txt"),
                   b"some bytez\n")
        verdict = self.verify()
        self.assertEqual(verdict["status"], "fail")
        self.assertEqual(verdict["message"], os.path.join(
            self.prepared, "sanitize/char_lm.txt") + " is not the file "
            "prepared")

    def test_missing_file(self):
        os.remove(os.path.join(self.prepared,
                               "models/char_lm/model.cuda.tfm"))
        verdict = self.verify()
        self.assertEqual(verdict["status"], "fail")
        self.assertIn("model.cuda.tfm is missing", verdict["message"])

    def test_tree_difference_is_a_warning(self):
        self.write(os.path.join(self.root, "runtime/lib/Session.cpp"),
                   b"int main() { return 1; }\n")
        os.remove(os.path.join(self.root, "README.md"))
        verdict = self.verify()
        self.assertEqual(verdict["status"], "warn")
        self.assertEqual(verdict["tree_differs"],
                         ["README.md", "runtime/lib/Session.cpp"])
        self.assertEqual(verdict["message"], "2 file(s) here differ from "
                         "those prepared from: README.md, "
                         "runtime/lib/Session.cpp")

    def test_many_differences_are_shortened(self):
        for k in range(8):
            self.index["tree"][f"gone/{k}.txt"] = "0" * 40
        self.write_index()
        verdict = self.verify()
        self.assertEqual(verdict["status"], "warn")
        self.assertEqual(len(verdict["tree_differs"]), 8)
        self.assertTrue(verdict["message"].startswith(
            "8 file(s) here differ from those prepared from: gone/0.txt, "))
        self.assertTrue(verdict["message"].endswith("gone/5.txt, ..."))

    def test_checkout_commit(self):
        os.makedirs(os.path.join(self.root, ".git"))
        with mock.patch.object(gpu_check, "command_output",
                               return_value="a" * 40 + "\n") as git:
            verdict = self.verify()
        self.assertEqual(git.call_args[0][0],
                         ["git", "-C", self.root, "rev-parse", "HEAD"])
        self.assertEqual(verdict["status"], "ok")
        self.assertEqual(verdict["checkout_commit"], "a" * 40)
        self.assertNotIn("no .git", verdict["message"])
        # Another commit with the files prepared from (a copy's .git that
        # lags behind its files): the files decide.
        with mock.patch.object(gpu_check, "command_output",
                               return_value="b" * 40 + "\n"):
            verdict = self.verify()
        self.assertEqual(verdict["status"], "ok")
        self.assertIn("git says bbbbbbbbbbbb, but every file is as at "
                      "aaaaaaaaaaaa", verdict["message"])
        # Another commit and other files: prepared for something else.
        self.index["tree"]["gone.txt"] = "0" * 40
        self.write_index()
        with mock.patch.object(gpu_check, "command_output",
                               return_value="b" * 40 + "\n"):
            verdict = self.verify()
        self.assertEqual(verdict["status"], "fail")
        self.assertIn("prepared for commit aaaaaaaaaaaa, this checkout is "
                      "bbbbbbbbbbbb and 1 file(s) differ (gone.txt)",
                      verdict["message"])

    def test_prepared_command(self):
        out = os.path.join(self.tmp.name, "prepared.json")
        args = types.SimpleNamespace(prepared=self.prepared, out=out)
        status, printed = capture(gpu_check.prepared_command, args)
        self.assertEqual(status, 0)
        self.assertIn("checkout           OK:", printed)
        self.assertEqual(gpu_check.read_json(out)["status"], "ok")
        self.index["files"]["sanitize/char_lm.txt"]["sha256"] = "0" * 64
        self.write_index()
        status, printed = capture(gpu_check.prepared_command, args)
        self.assertEqual(status, 1)
        self.assertIn("checkout           FAILED:", printed)


class RunnerFixture(unittest.TestCase):
    """A prepared index and the fakes: subprocess.run replaced (no worker
    and no sanitizer runs), compute-sanitizer "found"."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.prepared = os.path.join(self.tmp.name, "prepared")
        os.makedirs(self.prepared)
        self.out = os.path.join(self.tmp.name, "out")
        models = {m: {"dir": f"models/{m}", "cuda_artifact": "model.cuda.tfm",
                      "dims": dims} for m, dims in gpu_check.MODELS.items()}
        self.index = {"schema": gpu_check.SCHEMA, "commit": "c" * 40,
                      "models": models, "files": {}, "tree": {},
                      "sanitizer_data": {"char_lm": "sanitize/char_lm.txt",
                                         "transformer_small":
                                         "sanitize/transformer_small.ids"}}
        gpu_check.write_json(os.path.join(self.prepared, "index.json"),
                             self.index)
        patches = [
            mock.patch.object(gpu_check, "ROOT", self.tmp.name),
            mock.patch.object(gpu_check, "find_tool",
                              return_value="/fake/compute-sanitizer"),
            mock.patch.object(gpu_check.subprocess, "run",
                              side_effect=AssertionError("a process ran")),
        ]
        for patch in patches:
            patch.start()
            self.addCleanup(patch.stop)

    def args(self, deadline, **extra):
        values = dict(prepared=self.prepared, runtime="/fake/lib.so",
                      no_gpu=False, cpu_stand_in=False, check_timeout=None,
                      bin_dir="/fake/bin", out=self.out, cuda_root=None,
                      machine=None, build=None, deadline=deadline,
                      budget=530, models=None, simulate_hang=None)
        values.update(extra)
        return types.SimpleNamespace(**values)

    def runner(self, deadline, **extra):
        return gpu_check.Runner(self.args(deadline, **extra))

    def order(self):
        rows = []
        for kind, what in gpu_check.ORDER:
            if kind == "model":
                rows += [(what, check) for check in gpu_check.CHECKS]
            else:
                tool, model = gpu_check.SANITIZERS[what]
                rows.append((model, tool))
        return rows

    def fake_worker(self, events, output="", status=0, kill=False,
                    after=None):
        """A subprocess.run that writes a worker's events and output."""
        calls = []

        def run(command, stdout=None, stderr=None, timeout=None):
            calls.append((command, timeout))
            results = command[command.index("--results") + 1]
            with open(results, "w") as f:
                for event in events:
                    f.write(json.dumps(gpu_check.clean(event)) + "\n")
            stdout.write(output)
            if after:
                after()
            if kill:
                raise subprocess.TimeoutExpired(command, timeout)
            return subprocess.CompletedProcess(command, status)
        return run, calls

    def setup_event(self):
        return {"event": "setup", "status": "OK", "seconds": 3.0,
                "message": "twins on the CPU"}

    def ended(self, check, status="PASS", items=None):
        return [{"event": "begin", "check": check, "timeout": 60},
                {"event": "end", "check": check, "status": status,
                 "message": "", "seconds": 0.5,
                 "items": items or [item(f"{check} x", 1e-6, 1e-4)]}]


class Budget(RunnerFixture):
    """The runner's order, budget and verdicts."""

    def test_past_deadline_nothing_runs(self):
        runner = self.runner(time.time() - 1)
        _, printed = capture(runner.run)
        self.assertEqual([(r["model"], r["check"]) for r in runner.rows],
                         self.order())
        self.assertEqual(len(runner.rows), ALL_UNITS)
        self.assertEqual({(r["status"], r["message"]) for r in runner.rows},
                         {("NOT_RUN", "out of time")})
        self.assertEqual(len(printed.splitlines()), len(gpu_check.ORDER))
        # The documented order.
        self.assertEqual([r["check"] for r in runner.rows
                          if r["check"] not in gpu_check.CHECKS],
                         ["memcheck", "racecheck", "memcheck", "racecheck"])
        self.assertEqual(runner.rows[4 * len(gpu_check.CHECKS)]["model"],
                         "char_lm")
        self.assertEqual(runner.rows[4 * len(gpu_check.CHECKS) + 2]["model"],
                         "transformer_base")

    def test_less_than_a_unit_left(self):
        # RESERVE is kept, and no unit starts with less than MIN_UNIT.
        left = gpu_check.RESERVE + gpu_check.MIN_UNIT - 3
        runner = self.runner(time.time() + left)
        capture(runner.run)
        self.assertEqual({r["status"] for r in runner.rows}, {"NOT_RUN"})

    def test_models_filter(self):
        runner = self.runner(time.time() - 1, models=["transformer_small"])
        capture(runner.run)
        self.assertEqual([(r["model"], r["check"]) for r in runner.rows],
                         [("transformer_small", c) for c in gpu_check.CHECKS]
                         + [("transformer_small", "memcheck"),
                            ("transformer_small", "racecheck")])

    def test_not_prepared(self):
        del self.index["models"]["sentiment_classifier"]
        del self.index["sanitizer_data"]["transformer_small"]
        gpu_check.write_json(os.path.join(self.prepared, "index.json"),
                             self.index)
        runner = self.runner(time.time() + 1000)
        capture(runner.model, "sentiment_classifier")
        capture(runner.sanitizer, 2)
        self.assertEqual({(r["status"], r["message"]) for r in runner.rows},
                         {("NOT_RUN", "not prepared")})
        self.assertEqual(len(runner.rows), len(gpu_check.CHECKS) + 1)

    def test_sanitizer_skipped_or_missing(self):
        runner = self.runner(time.time() + 1000, no_gpu=True)
        capture(runner.sanitizer, 0)
        self.assertEqual(runner.rows[-1]["status"], "SKIPPED")
        with open(os.path.join(self.out, "logs",
                               "memcheck-char_lm.log")) as f:
            self.assertIn("--data " + os.path.join(
                self.prepared, "sanitize/char_lm.txt"), f.read())
        runner = self.runner(time.time() + 1000)
        with mock.patch.object(gpu_check, "find_tool", return_value=None):
            capture(runner.sanitizer, 1)
        self.assertEqual(runner.rows[-1]["status"], "ERROR")
        self.assertIn("not installed", runner.rows[-1]["message"])

    def test_sanitizer_run(self):
        calls = []

        def fake(command, stdout=None, stderr=None, timeout=None):
            calls.append((command, timeout))
            stdout.write(RACECHECK_HAZARDS)
            return subprocess.CompletedProcess(command,
                                               gpu_check.SANITIZER_EXIT)

        runner = self.runner(time.time() + 100)
        with mock.patch.object(gpu_check.subprocess, "run", fake):
            capture(runner.sanitizer, 1)
        command, timeout = calls[0]
        self.assertEqual(command[:3], ["/fake/compute-sanitizer", "--tool",
                                       "racecheck"])
        self.assertEqual(command[command.index("--error-exitcode") + 1], "86")
        self.assertIn("/fake/bin/transfuse-train", command)
        # The budget caps the sanitizer's own limit.
        self.assertLessEqual(timeout, 100 - gpu_check.RESERVE)
        self.assertGreater(timeout, 100 - gpu_check.RESERVE - 5)
        r = runner.rows[-1]
        self.assertEqual((r["model"], r["check"], r["status"],
                          r["max_error"], r["bound"], r["log"]),
                         ("char_lm", "racecheck", "FAIL", 2, 0,
                          "logs/racecheck-char_lm.log"))

    def test_worker_past_its_check_limit(self):
        events = [{"event": "begin", "check": "setup", "timeout": 120},
                  self.setup_event(), *self.ended("forward"),
                  *self.ended("loss"),
                  {"event": "begin", "check": "loss_and_grads",
                   "timeout": 90}]
        run, calls = self.fake_worker(
            events, "Timeout (0:01:30)!\nThread 0x1 (most recent call "
            "first):\n", status=1)
        runner = self.runner(time.time() + 200)
        with mock.patch.object(gpu_check.subprocess, "run", run):
            capture(runner.model, "char_lm")
        command, timeout = calls[0]
        self.assertEqual(command[2:4], ["worker", "--prepared"])
        self.assertLessEqual(timeout, 200 - gpu_check.RESERVE)
        self.assertEqual([(r["check"], r["status"]) for r in runner.rows], [
            ("forward", "PASS"), ("loss", "PASS"),
            ("loss_and_grads", "TIMEOUT"), ("train_step", "NOT_RUN"),
            ("cpu", "NOT_RUN"), ("determinism", "NOT_RUN"),
            ("decoding", "NOT_RUN"), ("graphs", "NOT_RUN"),
            ("nccl", "NOT_RUN")])
        self.assertEqual(runner.rows[0]["max_error"], 1e-6)
        self.assertEqual(runner.rows[2]["seconds"], 90)
        self.assertEqual(runner.rows[2]["message"],
                         "ran past its limit of 90 s")
        self.assertEqual(runner.rows[3]["message"],
                         "the worker stopped in loss_and_grads")
        self.assertEqual(runner.workers["char_lm"]["exit_status"], 1)
        self.assertFalse(runner.workers["char_lm"]["killed"])

    def test_worker_killed_at_the_budget(self):
        events = [self.setup_event(), *self.ended("forward"),
                  {"event": "begin", "check": "loss", "timeout": 60}]
        run, _ = self.fake_worker(events, kill=True)
        runner = self.runner(time.time() + 200)
        with mock.patch.object(gpu_check.subprocess, "run", run):
            capture(runner.model, "sentiment_classifier")
        self.assertEqual([r["status"] for r in runner.rows],
                         ["PASS", "TIMEOUT"] + ["NOT_RUN"] * 7)
        self.assertEqual(runner.rows[1]["message"], "stopped: out of time")
        self.assertEqual(runner.rows[1]["seconds"], 0.0)
        self.assertTrue(runner.workers["sentiment_classifier"]["killed"])

    def test_worker_died(self):
        events = [self.setup_event(),
                  {"event": "begin", "check": "forward", "timeout": 60}]
        run, _ = self.fake_worker(events, "a\nb\nSegmentation fault\n",
                                  status=-11)
        runner = self.runner(time.time() + 200)
        with mock.patch.object(gpu_check.subprocess, "run", run):
            capture(runner.model, "char_lm")
        self.assertEqual(runner.rows[0]["status"], "ERROR")
        self.assertEqual(runner.rows[0]["message"], "the worker died (status "
                         "-11): a | b | Segmentation fault")
        self.assertEqual({r["status"] for r in runner.rows[1:]}, {"NOT_RUN"})

    def test_setup_outcomes(self):
        cases = [
            # (events, output, status, kill): every check's status, message
            ([{"event": "begin", "check": "setup", "timeout": 120}],
             "Timeout (0:02:00)!\n", 1, False, "TIMEOUT",
             "setup ran past its limit (opening the GPU, PyTorch, the "
             "artifact)"),
            ([], "", None, True, "TIMEOUT",
             "out of time (opening the GPU, PyTorch, the artifact)"),
            ([], "Traceback\nImportError: numpy\n", 1, False, "ERROR",
             "the worker exited with status 1 in setup: Traceback | "
             "ImportError: numpy"),
            ([{"event": "setup", "status": "SKIPPED", "seconds": 1.0,
               "message": "no CUDA driver"}], "", 0, False, "SKIPPED",
             "no CUDA driver"),
            ([{"event": "setup", "status": "ERROR", "seconds": 1.0,
               "message": "RuntimeError: spec changed"}], "", 1, False,
             "ERROR", "RuntimeError: spec changed"),
            ([self.setup_event()], "", 1, False, "NOT_RUN",
             "the worker exited with status 1"),
        ]
        for events, output, status, kill, state, message in cases:
            with self.subTest(state=state, message=message):
                run, _ = self.fake_worker(events, output, status, kill)
                runner = self.runner(time.time() + 1000)
                with mock.patch.object(gpu_check.subprocess, "run", run):
                    capture(runner.model, "transformer_base")
                self.assertEqual(len(runner.rows), len(gpu_check.CHECKS))
                self.assertEqual({(r["status"], r["message"])
                                  for r in runner.rows}, {(state, message)})

    def test_budget_spent_midway(self):
        # The first model takes what is left of the budget: every later
        # unit is not run.
        runner = self.runner(time.time() + 1000)
        events = [self.setup_event()]
        for check in gpu_check.CHECKS:
            events += self.ended(check)

        def spend():
            runner.deadline = time.time()
        run, calls = self.fake_worker(events, after=spend)
        with mock.patch.object(gpu_check.subprocess, "run", run):
            capture(runner.run)
        self.assertEqual(len(calls), 1)
        statuses = [r["status"] for r in runner.rows]
        checks = len(gpu_check.CHECKS)
        self.assertEqual(statuses[:checks], ["PASS"] * checks)
        self.assertEqual(set(statuses[checks:]), {"NOT_RUN"})
        self.assertEqual(len(statuses), ALL_UNITS)


class RunCommand(RunnerFixture):
    """run_command's exit status, table and gpu-check.json, on the fakes."""

    def run_command(self, args):
        machine = os.path.join(self.tmp.name, "machine.json")
        gpu_check.write_json(machine, {"gpus": []})
        args.machine = machine
        status, printed = capture(gpu_check.run_command, args)
        report = gpu_check.read_json(os.path.join(self.out, "gpu-check.json"))
        return status, printed, report

    def test_out_of_time_fails(self):
        status, printed, report = self.run_command(
            self.args(time.time() - 1))
        self.assertEqual(status, 1)
        self.assertFalse(report["passed"])
        self.assertEqual(report["schema"], gpu_check.SCHEMA)
        self.assertEqual(report["summary"], {"NOT_RUN": ALL_UNITS})
        self.assertEqual(len(report["checks"]), ALL_UNITS)
        self.assertEqual(report["prepared"]["status"], "ok")
        self.assertEqual(report["mode"], "gpu")
        self.assertIn(f"FAILED: {ALL_UNITS} NOT_RUN in", printed)

    def test_everything_passes(self):
        events = [self.setup_event()]
        for check in gpu_check.CHECKS:
            events += self.ended(check)
        model_run, _ = self.fake_worker(events)

        def run(command, stdout=None, stderr=None, timeout=None):
            if "worker" in command:
                return model_run(command, stdout, stderr, timeout)
            stdout.write(RACECHECK_CLEAN if "racecheck" in command
                         else MEMCHECK_CLEAN)
            return subprocess.CompletedProcess(command, 0)

        with mock.patch.object(gpu_check.subprocess, "run", run):
            status, printed, report = self.run_command(
                self.args(time.time() + 1000))
        self.assertEqual(status, 0, printed)
        self.assertTrue(report["passed"])
        self.assertEqual(report["summary"], {"PASS": ALL_UNITS})
        self.assertIn(f"PASSED: {ALL_UNITS} PASS in", printed)
        self.assertNotIn("Problems:", printed)

    def test_one_nan_fails_and_is_a_string(self):
        events = [self.setup_event()]
        for check in gpu_check.CHECKS:
            events += self.ended(check, *(
                ("FAIL", [item("forward logits", math.nan, 1e-4, False)])
                if check == "forward" else ()))
        run, _ = self.fake_worker(events)
        with mock.patch.object(gpu_check.subprocess, "run", run):
            status, printed, report = self.run_command(self.args(
                time.time() + 1000, models=["char_lm"], no_gpu=True))
        self.assertEqual(status, 1)
        self.assertFalse(report["passed"])
        self.assertEqual(report["mode"], "no-gpu")
        self.assertEqual(report["summary"],
                         {"FAIL": 1, "PASS": 8, "SKIPPED": 2})
        forward = report["checks"][0]
        self.assertEqual((forward["max_error"], forward["items"][0]["error"]),
                         ("nan", "nan"))
        self.assertIn("char_lm forward FAIL: forward logits: error nan bound "
                      "0.0001", printed)
        with open(os.path.join(self.out, "gpu-check.json")) as f:
            self.assertNotIn("NaN", f.read())

    def test_failed_preparation_runs_nothing(self):
        self.index["schema"] = "other"
        gpu_check.write_json(os.path.join(self.prepared, "index.json"),
                             self.index)
        status, printed, report = self.run_command(
            self.args(time.time() + 1000))
        self.assertEqual(status, 1)
        self.assertFalse(report["passed"])
        self.assertEqual(report["checks"], [])
        self.assertEqual(report["prepared"]["status"], "fail")
        self.assertIn("error: index.json is of schema other", printed)
        self.assertIn("FAILED: nothing run", printed)


class BenchTimeLimit(unittest.TestCase):
    """bench/gpu.py's run under `tools/gpu-check.sh --bench`: each side
    gets what is left of --time-limit, and none starts past it."""

    @classmethod
    def setUpClass(cls):
        bench = os.path.join(gpu_check.ROOT, "bench")
        sys.path.insert(0, bench)
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "bench_gpu", os.path.join(bench, "gpu.py"))
        cls.gpu = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.gpu)

    def args(self, time_limit, spent):
        return types.SimpleNamespace(
            runtime="/lib/rt.so", artifacts="/prep/bench", warmup=3,
            repeats=30, max_seconds=5.0, side_timeout=240.0,
            time_limit=time_limit, started=time.monotonic() - spent)

    def test_a_side_gets_what_is_left(self):
        done = subprocess.CompletedProcess(
            [], 0, stdout='GPU-BENCH {"train": [0.1]}\n', stderr="")
        with mock.patch.object(self.gpu.subprocess, "run",
                               return_value=done) as run:
            result = self.gpu.side(self.args(100.0, 40.0), "char_lm", "f32",
                                   "ours")
        self.assertEqual(result, {"train": [0.1]})
        command = run.call_args[0][0]
        self.assertEqual(command[command.index("--artifacts") + 1],
                         "/prep/bench")
        self.assertLessEqual(run.call_args[1]["timeout"], 60.0)
        self.assertGreater(run.call_args[1]["timeout"], 59.0)

    def test_no_side_starts_past_the_limit(self):
        with mock.patch.object(self.gpu.subprocess, "run") as run:
            with self.assertRaisesRegex(RuntimeError,
                                        "not run: past the run's 100 s"):
                self.gpu.side(self.args(100.0, 101.0), "char_lm", "f32",
                              "torch")
        run.assert_not_called()


if __name__ == "__main__":
    unittest.main()
