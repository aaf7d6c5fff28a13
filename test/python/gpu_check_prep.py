#!/usr/bin/env python3
"""Prepares build-gpu-check/, what the GPU check (gpu_check.py,
tools/gpu-check.sh) needs on a machine without MLIR: run where the compiler
is, by `make gpu-check-prep`. docs/gpu-check.md describes the layout.

For each seed model, at the sizes of the CPU parity tests (gpu_check.MODELS),
the spec copy training_parity.py makes (dropout 0, its training overrides)
is compiled for CUDA, to be carried, and for the CPU, to stay here. The CPU
artifact then runs on the runtime's seeded initialisation, which is the
same on every machine, so no weights travel, and on batches that do: its
forward outputs and losses are kept whole; of the initial parameters, the
gradients, and the parameters and optimizer state after the train steps,
fingerprints (gpu_check.fingerprint) stand for tensors too large to carry.
Beside them: the data of the sanitizer runs, a copy of nlohmann/json's
headers, and index.json, which says what was prepared, from which commit
and files, with the SHA-256 of every file.
"""
import argparse
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np

import gpu_check
import forward_parity
import runtime_api
import safetensors_io
import training_parity as tp

ROOT = gpu_check.ROOT
# The carry limit is 64 MiB for everything, the working tree included
# (4 MiB of tracked files in November 2026); the preparation leaves room
# for it to grow. With --bench, the benchmark's artifacts take 19 MiB of
# it, gpt2_small_lm's (bench/gpu.py) most of that.
SIZE_LIMIT_MIB = 52

# The language model's sanitizer corpus: enough bytes for a few batches
# and a held-out one at seq 8 (docs/data.md), no more.
CORPUS = (
    "A thin runtime loads the artifact, checks its target and version, "
    "allocates the planned arena, binds parameters and inputs, and runs "
    "its entry points: forward, loss_and_grads and train_step. On the GPU "
    "every kernel goes to one stream, and nothing is allocated inside a "
    "step. The check runs one step of training under the sanitizer.\n")


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True,
                          text=True, check=True).stdout


def tree_state():
    """(HEAD's commit, the paths with uncommitted changes, {path: blob id}
    of every file a copy of the working tree holds: tracked, and untracked
    but not ignored)."""
    commit = git("rev-parse", "HEAD").strip()
    uncommitted = [line[3:] for line in git("status", "--porcelain")
                   .splitlines() if line.strip()]
    tree = {}
    for path in git("ls-files", "-z", "-c", "-o", "--exclude-standard") \
            .split("\0"):
        full = os.path.join(ROOT, path)
        if path and os.path.isfile(full) and not os.path.islink(full):
            tree[path] = gpu_check.blob_id(full)
    return commit, uncommitted, tree


def shown(path):
    """`path` relative to the repository when it lies inside it."""
    if os.path.isabs(path) and path.startswith(ROOT + os.sep):
        return os.path.relpath(path, ROOT)
    return path


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def compile_cached(compiler, compiler_sha, spec, dims, target, output,
                   flags=()):
    """Compiles spec file `spec` for `target` (with the compiler's `flags`)
    into `output`, unless the artifact there was compiled from the same
    text, sizes and flags by the same compiler (its .key file says)."""
    with open(spec) as f:
        text = f.read()
    key = hashlib.sha256(json.dumps(
        [compiler_sha, text, dims, target, list(flags)]).encode()).hexdigest()
    key_path = output + ".key"
    if os.path.isfile(output) and os.path.isfile(key_path):
        with open(key_path) as f:
            if f.read() == key:
                print(f"  {shown(output)}: up to date", flush=True)
                return
    command = [compiler, spec, *[f"-D{k}={v}" for k, v in dims.items()],
               f"--target={target}", *flags, "-o", output]
    print("  " + " ".join(shown(part) for part in command), flush=True)
    subprocess.run(command, check=True)
    with open(key_path, "w") as f:
        f.write(key)


def make_batches(model, dims, training, artifact):
    """{part: {name: int64 array}}: the forward inputs, loss_and_grads'
    batch, and one batch per train step, as the parity scripts make
    them."""
    limits = {name: limit for name, _, _, limit in
              artifact.inputs("train_step")}
    task = tp.Task(model, dims, tp.spec_loss(training), limits)
    batches = {"forward": forward_parity.make_inputs(
        model, dims, np.random.default_rng(gpu_check.FORWARD_SEED))}
    rng = np.random.default_rng(gpu_check.BATCH_SEED)
    batches["batch"] = task.batch(rng)
    for step in range(1, gpu_check.STEPS + 1):
        batches[f"step{step}"] = task.batch(rng)
    for part, entry in (("forward", "forward"), ("batch", "loss_and_grads")):
        names = [name for name, *_ in artifact.inputs(entry)]
        if list(batches[part]) != names:
            sys.exit(f"error: {model}: {entry} takes {names}, the batch "
                     f"has {list(batches[part])}")
    return {part: {name: np.asarray(value, np.int64)
                   for name, value in batch.items()}
            for part, batch in batches.items()}


def cpu_reference(lib, path, batches, seed):
    """The CPU artifact's results from the runtime's initialisation:
    (reference.json's content, the forward outputs)."""
    fingerprint = gpu_check.fingerprint
    artifact = runtime_api.Artifact(lib, path)
    params = [name for name, *_ in artifact.parameters()]
    state = [name for name, *_ in artifact.state()]
    session = runtime_api.Session(artifact)
    session.init_parameters(seed)
    reference = {"init": {n: fingerprint(n, session.parameter(n))
                          for n in params}}
    outputs = session.run("forward", batches["forward"])
    reference["loss"] = float(session.run("loss", batches["batch"])["loss"])
    grads = session.run("loss_and_grads", batches["batch"])
    reference["loss_and_grads"] = {
        "loss": float(grads["loss"]),
        "grads": {n: fingerprint(n, grads[f"grad.{n}"]) for n in params}}
    # train_step from the same start the GPU check takes.
    session.init_parameters(seed)
    reference["steps"] = [
        session.train_step(batches[f"step{step}"])
        for step in range(1, gpu_check.STEPS + 1)]
    reference["final_parameters"] = {
        n: fingerprint(n, session.parameter(n)) for n in params}
    reference["final_state"] = {n: fingerprint(n, session.state(n))
                                for n in state}
    session.destroy()
    return reference, outputs


def cpu_bounds(model, lib, path, batches, seed, training):
    """The CPU artifact's own bound (DESIGN.md's, from PyTorch on the CPU in
    float32 and float64) for every result the GPU check compares at the
    same inputs: the forward, the loss, loss_and_grads and the first
    train_step. The GPU check holds a CUDA result to the sum of that bound
    and its own: each is within its bound of float64, so they are within
    the sum of each other. Stops when the CPU artifact is out of its bound:
    it would be no reference."""
    (_, settings, schedule, spec_training), clip = training
    artifact = runtime_api.Artifact(lib, path)
    params = [name for name, *_ in artifact.parameters()]
    state = [name for name, *_ in artifact.state()]
    limits = {name: limit for name, _, _, limit in
              artifact.inputs("train_step")}
    task = tp.Task(model, gpu_check.MODELS[model], tp.spec_loss(spec_training),
                   limits)
    session = runtime_api.Session(artifact)
    session.init_parameters(seed)
    tp.torch.manual_seed(0)
    twins = (tp.build_twin(model).train(),
             tp.build_twin(model).train().double())
    for twin in twins:
        tp.load_twin(twin, {n: session.parameter(n) for n in params})
    checks = tp.Checks(model)

    inputs = batches["forward"]
    (name, ours), = session.run("forward", inputs).items()
    expected = [forward_parity.torch_forward(twin, model, inputs)
                for twin in twins]
    forward = tp.deviation(ours, expected[0].double().numpy(),
                           expected[1].numpy())
    checks.record(f"forward {name}", *forward)
    batch = batches["batch"]
    with tp.torch.no_grad():
        loss32, loss64 = (float(task.loss(twin, batch)) for twin in twins)
    loss = tp.deviation(session.run("loss", batch)["loss"], loss32,
                        np.float64(loss64))
    checks.record("loss entry point", *loss)
    _, grads_loss, grads = tp.check_gradients(checks, session, task, twins,
                                              batch, params, False)
    session.init_parameters(seed)
    step1, = tp.check_training(checks, session, twins, task,
                               [batches["step1"]], settings, schedule, clip,
                               params, state, False)
    session.destroy()
    if checks.failures:
        sys.exit(f"error: {model}: the CPU artifact is out of its bound on "
                 f"{', '.join(checks.failures)}: no reference to compare with")
    return {"forward": {name: forward[1]}, "loss": loss[1],
            "loss_and_grads": {"loss": grads_loss[1],
                               "grads": {n: b for n, (_, b) in grads.items()}},
            "step1": {key: step1[key][1] for key in ("loss", "grad_norm")}}


def sanitizer_data(args, out, work, artifacts):
    """The sanitizer runs' data files, each tried here first with the CPU
    artifact and the command the GPU check uses (one step)."""
    data = {}
    os.makedirs(os.path.join(out, "sanitize"), exist_ok=True)
    for model in sorted({model for _, model in gpu_check.SANITIZERS}):
        if model not in artifacts:
            continue
        if model == "char_lm":
            name = "sanitize/char_lm.txt"
            with open(os.path.join(out, name), "w") as f:
                f.write(CORPUS)
        else:
            # Copy-task pairs short enough for transformer_small's source
            # and decoder lengths.
            name = f"sanitize/{model}.ids"
            subprocess.run([os.path.join(args.build, "bin", "transfuse-data"),
                            "generate", "copy", "--count", "40",
                            "--max-length", "4", "--vocab-size", "16",
                            "--out", os.path.join(out, name)], check=True,
                           stdout=subprocess.DEVNULL)
        subprocess.run([os.path.join(args.build, "bin", "transfuse-train"),
                        artifacts[model], "--data", os.path.join(out, name),
                        "--steps", "1", "--threads", "1", "--quiet"],
                       check=True, cwd=work)
        data[model] = name
    return data


def copy_nccl_header(build, out):
    """NCCL's header, which the runtime's CUDA part compiles against, for a
    device whose toolkit lacks it (tools/gpu-check.sh passes it then)."""
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("TRANSFUSE_NCCL_INCLUDE:"):
                include = line.split("=", 1)[1].strip()
                break
        else:
            sys.exit("error: the build found no nccl.h (TRANSFUSE_NCCL_INCLUDE "
                     "is not in its CMakeCache.txt): configure with CUDA")
    os.makedirs(os.path.join(out, "nccl"))
    shutil.copyfile(os.path.join(include, "nccl.h"),
                    os.path.join(out, "nccl", "nccl.h"))
    return "nccl"


def copy_nlohmann(source, out):
    """nlohmann/json's headers, for a runtime build where the package is
    not installed (cmake/TransfuseRuntimeDeps.cmake)."""
    for root in (source, "/usr/include", "/usr/local/include"):
        if root and os.path.isfile(os.path.join(root, "nlohmann", "json.hpp")):
            shutil.copytree(os.path.join(root, "nlohmann"),
                            os.path.join(out, "nlohmann", "nlohmann"))
            return "nlohmann"
    sys.exit("error: nlohmann/json.hpp not found (give --nlohmann-include)")


def bench_artifacts(args, out, work):
    """bench/gpu.py's CUDA artifacts, for `tools/gpu-check.sh --bench`:
    compiled into WORK/bench (kept from one preparation to the next, and
    recompiled only when the spec or the compiler is newer), then copied
    to OUT/bench."""
    cache = os.path.join(work, "bench")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gpu.py"),
                    "prepare", "--build", args.build, "--artifacts", cache],
                   check=True)
    shutil.copytree(cache, os.path.join(out, "bench"))
    return "bench"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="the build with transfuse-compile and the "
                             "runtime")
    parser.add_argument("--out", default=os.path.join(ROOT, "build-gpu-check"))
    parser.add_argument("--work", help="where the CPU artifacts stay "
                                       "(default: BUILD/gpu-check-work)")
    parser.add_argument("--models", nargs="+", default=list(gpu_check.MODELS),
                        choices=list(gpu_check.MODELS))
    parser.add_argument("--bench", action="store_true",
                        help="also bench/gpu.py's artifacts, in OUT/bench")
    parser.add_argument("--nlohmann-include",
                        help="the directory holding nlohmann/json.hpp")
    return parser.parse_args()


def main():
    args = parse_args()
    args.build = os.path.abspath(args.build)
    out = os.path.abspath(args.out)
    work = os.path.abspath(args.work or os.path.join(args.build,
                                                     "gpu-check-work"))
    compiler = os.path.join(args.build, "bin", "transfuse-compile")
    runtime = os.path.join(args.build, "lib", "libtransfuse_runtime.so")
    for needed in (compiler, runtime):
        if not os.path.isfile(needed):
            sys.exit(f"error: {needed} is missing: build first (make build)")
    if os.path.isdir(out) and os.listdir(out) and \
            not os.path.isfile(os.path.join(out, "index.json")):
        sys.exit(f"error: {out} is not empty and holds no index.json: not "
                 f"removing it")
    # Everything in it is remade: what is carried is exactly this.
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    commit, uncommitted, tree = tree_state()
    compiler_sha = file_sha256(compiler)
    lib = runtime_api.load(runtime)
    # The CPU's results depend (in the last bits) on the thread count.
    lib.tf_set_num_threads(1)

    index = {
        "schema": gpu_check.SCHEMA, "commit": commit,
        "uncommitted": uncommitted,
        "date": datetime.datetime.now(datetime.timezone.utc)
        .isoformat(timespec="seconds"),
        "compiler": {"sha256": compiler_sha},
        "options": gpu_check.SPEC_OPTIONS, "init_seed": gpu_check.INIT_SEED,
        "steps": gpu_check.STEPS, "cpu_threads": 1,
        "seeds": {"forward": gpu_check.FORWARD_SEED,
                  "batches": gpu_check.BATCH_SEED},
        "host": {"python": sys.version.split()[0], "numpy": np.__version__,
                 "torch": tp.torch.__version__},
        "models": {},
    }
    options = gpu_check.SPEC_OPTIONS
    cpu_artifacts = {}
    for model in args.models:
        dims = gpu_check.MODELS[model]
        print(f"{model} ({', '.join(f'{k}={v}' for k, v in dims.items())})",
              flush=True)
        model_dir = os.path.join(out, "models", model)
        model_work = os.path.join(work, model)
        os.makedirs(model_dir)
        os.makedirs(model_work, exist_ok=True)
        with open(gpu_check.model_spec(model)) as f:
            copy = tp.spec_copy(f.read(), options["optimizer"],
                                options["schedule"], options["adam_eps"],
                                options["clip"])
        spec, _, _, training = copy
        for directory in (model_dir, model_work):
            with open(os.path.join(directory, "spec.pbtxt"), "w") as f:
                f.write(spec)
        spec_path = os.path.join(model_work, "spec.pbtxt")
        cpu_path = os.path.join(model_work, "model.cpu.tfm")
        cuda_path = os.path.join(model_work, "model.cuda.tfm")
        compile_cached(compiler, compiler_sha, spec_path, dims, "cpu",
                       cpu_path)
        compile_cached(compiler, compiler_sha, spec_path, dims, "cuda",
                       cuda_path)
        shutil.copyfile(cuda_path, os.path.join(model_dir, "model.cuda.tfm"))
        cpu_artifacts[model] = cpu_path
        data_parallel = model in gpu_check.DATA_PARALLEL_MODELS
        if data_parallel:
            dp_path = os.path.join(model_work, "model.cuda-dp.tfm")
            compile_cached(compiler, compiler_sha, spec_path, dims, "cuda",
                           dp_path, flags=("--data-parallel",))
            shutil.copyfile(dp_path,
                            os.path.join(model_dir, "model.cuda-dp.tfm"))

        artifact = runtime_api.Artifact(lib, cpu_path)
        batches = make_batches(model, dims, training, artifact)
        safetensors_io.save(
            os.path.join(model_dir, "batches.safetensors"),
            {f"{part}.{name}": value for part, batch in batches.items()
             for name, value in batch.items()})
        print("  the CPU artifact's results on the runtime's initialisation",
              flush=True)
        reference, outputs = cpu_reference(lib, cpu_path, batches,
                                           gpu_check.INIT_SEED)
        print("  its bounds, against PyTorch on the CPU", flush=True)
        reference["bounds"] = cpu_bounds(
            model, lib, cpu_path, batches, gpu_check.INIT_SEED,
            (copy, options["clip"]))
        gpu_check.write_json(os.path.join(model_dir, "reference.json"),
                             reference, indent=None)
        safetensors_io.save(os.path.join(model_dir, "reference.safetensors"),
                            {f"forward.{name}": value
                             for name, value in outputs.items()})
        cuda = runtime_api.Artifact(lib, os.path.join(model_dir,
                                                      "model.cuda.tfm"))
        manifest = json.loads(cuda.manifest_json())
        index["archs"] = manifest["cuda"]["archs"]
        index["compiler"]["producer"] = manifest["producer"]
        index["models"][model] = {
            "dir": f"models/{model}", "dims": dims,
            "cuda_artifact": "model.cuda.tfm",
            **({"cuda_dp_artifact": "model.cuda-dp.tfm"}
               if data_parallel else {}),
            "cpu_artifact": shown(cpu_path),
            "batches": {part: list(batch) for part, batch in batches.items()},
            "parameters": len(artifact.parameters()),
            "state": len(artifact.state()),
        }

    print("sanitizer data", flush=True)
    index["sanitizer_data"] = sanitizer_data(args, out, work, cpu_artifacts)
    index["nlohmann_include"] = copy_nlohmann(args.nlohmann_include, out)
    index["nccl_include"] = copy_nccl_header(args.build, out)
    if args.bench:
        print("benchmark artifacts (bench/gpu.py prepare)", flush=True)
        index["bench"] = bench_artifacts(args, out, work)
    index["files"] = {}
    for directory, _, names in os.walk(out):
        for name in names:
            full = os.path.join(directory, name)
            index["files"][os.path.relpath(full, out)] = {
                "sha256": file_sha256(full), "bytes": os.path.getsize(full)}
    total = sum(f["bytes"] for f in index["files"].values())
    index["size_mib"] = round(total / 2**20, 2)
    index["tree"] = tree
    gpu_check.write_json(os.path.join(out, "index.json"), index)
    print(f"{out}: {index['size_mib']} MiB, commit {commit[:12]}"
          + (f" with {len(uncommitted)} uncommitted change(s)"
             if uncommitted else ""))
    if index["size_mib"] > SIZE_LIMIT_MIB:
        sys.exit(f"error: {index['size_mib']} MiB is more than the "
                 f"{SIZE_LIMIT_MIB} MiB the carry leaves for it")


if __name__ == "__main__":
    main()
