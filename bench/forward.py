#!/usr/bin/python3
"""Forward-pass latency of the seed models: Transfuse (CPU) against PyTorch
eager, side by side, on the same weights, inputs and thread count.

    /usr/bin/python3 bench/forward.py [--models NAME ...] [--threads 2] [--repeats N]

For each model it compiles the spec (cached in bench/.cache), writes the
PyTorch reference model's weights and one batch of random inputs, then runs
each side in its own process: warm-up, then `forward` repeatedly. It prints
median / min / spread of the latency, tokens per second, peak resident memory
and the share of the machine's measured fp32 GEMM rate each side reaches.
bench/README.md explains every column.

The PyTorch peer runs on OpenBLAS (LD_LIBRARY_PATH=PEER_BLAS_DIR, as
DESIGN.md requires) and its own 1024^3 GEMM rate is printed, so a peer on
the reference BLAS is seen at once. Where `bash bench/setup.sh` has made
bench/.venv, two more peers run on the same weights and inputs with the
same thread count: ONNX Runtime (CPU execution provider) on the reference
model exported to ONNX by PyTorch, and JAX's XLA on bench/jax_models.py's
twins of it under jax.jit.
"""
import argparse
import datetime
import gc
import json
import os
import platform
import re
import statistics
import struct
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
CACHE_DIR = os.path.join(BENCH_DIR, ".cache")
PYTHON_TESTS = os.path.join(ROOT, "test", "python")
PEER_BLAS_DIR = "/usr/lib/x86_64-linux-gnu/openblas-openmp"
MODELS = ["char_lm", "sentiment_classifier", "transformer_small",
          "transformer_base"]
# Parameters that are looked up, not multiplied (no FLOPs).
EMBEDDINGS = {"embedding.weight", "token_embedding.weight",
              "pos_embedding.weight", "src_embed.weight", "tgt_embed.weight"}
# Below this, the peer's 1024^3 GEMM is not running on a real BLAS.
PEER_GEMM_FLOOR_GFLOPS = 100.0
GEMM_SIZE = 1024
# Other work above this share of the CPUs makes a timing suspect.
QUIET_BUSY = 0.15
# OpenBLAS's kernel set for an instruction set (OPENBLAS_CORETYPE).
BEST_CORE = {"AVX-512": "SkylakeX", "AVX2": "Haswell"}
# The virtualenv of the peers from PyPI (bench/setup.sh) and the ONNX opset
# the reference models are exported at.
PEER_PYTHON = os.path.join(BENCH_DIR, ".venv", "bin", "python")
ONNX_OPSET = 17


# --- Small helpers shared by the driver and the workers -----------------------

def read_status(field):
    """A VmRSS/VmHWM-style field of /proc/self/status, in KiB."""
    with open("/proc/self/status") as f:
        match = re.search(r"^%s:\s+(\d+) kB" % field, f.read(), re.M)
    return int(match.group(1)) if match else -1


def reset_peak_rss():
    """Resets VmHWM to the current RSS (Linux >= 4.0); False if it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def mapped_libraries(pattern):
    """Paths of the shared objects this process has mapped that match."""
    found = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if re.search(pattern, os.path.basename(path)):
                found.add(os.path.realpath(path))
    return sorted(found)


def openblas_core():
    """The kernel set ("Haswell", "SkylakeX", "Prescott", ...) that the
    OpenBLAS mapped into this process chose for this CPU, or None."""
    import ctypes
    for path in mapped_libraries(r"^libopenblas"):
        try:
            fn = ctypes.CDLL(path).openblas_get_corename
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_char_p
        return fn().decode()
    return None


def time_calls(fn, warmup, repeats, min_repeats, max_seconds):
    """Per-call wall times in seconds: `warmup` untimed calls, then up to
    `repeats` timed ones, stopping early (after at least `min_repeats`) once
    `max_seconds` have been spent timing."""
    for _ in range(warmup):
        fn()
    times = []
    deadline = time.perf_counter() + max_seconds
    while len(times) < repeats:
        start = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - start) * 1e-9)
        if len(times) >= min_repeats and time.perf_counter() > deadline:
            break
    return times


def emit(result):
    """A worker's result: one JSON line on stdout."""
    sys.stdout.write("BENCH-RESULT " + json.dumps(result) + "\n")
    sys.stdout.flush()


# --- Worker: Transfuse through the runtime's C API (ctypes) -------------------

def load_runtime(path):
    import ctypes as C

    class Tensor(C.Structure):
        _fields_ = [("dtype", C.c_int), ("rank", C.c_int32),
                    ("shape", C.c_int64 * 8), ("data", C.c_void_p)]

    class NamedTensor(C.Structure):
        _fields_ = [("name", C.c_char_p), ("tensor", Tensor)]

    lib = C.CDLL(path, mode=C.RTLD_LOCAL)
    P, I32, VP = C.POINTER, C.c_int32, C.c_void_p
    signatures = {
        "tf_last_error": ([], C.c_char_p),
        "tf_set_num_threads": ([I32], C.c_int),
        "tf_get_num_threads": ([], I32),
        "tf_artifact_open": ([C.c_char_p, P(VP)], C.c_int),
        "tf_artifact_close": ([VP], None),
        "tf_artifact_find_entry_point": ([VP, C.c_char_p, P(I32)], C.c_int),
        "tf_entry_point_num_outputs": ([VP, I32], I32),
        "tf_session_create": ([VP, P(VP)], C.c_int),
        "tf_session_destroy": ([VP], None),
        "tf_session_load_parameters": ([VP, C.c_char_p], C.c_int),
        "tf_session_run": ([VP, C.c_char_p, P(NamedTensor), I32,
                            P(NamedTensor), I32], C.c_int),
        "tf_tensor_file_read": ([C.c_char_p, P(VP)], C.c_int),
        "tf_tensor_file_close": ([VP], None),
        "tf_tensor_file_count": ([VP], I32),
        "tf_tensor_file_get": ([VP, I32, P(NamedTensor)], C.c_int),
        "tf_tensor_file_write": ([C.c_char_p, P(NamedTensor), I32], C.c_int),
        "tfrt_matmul_f32": ([C.c_int64] * 4 + [VP, C.c_int64, VP, C.c_int64,
                                               I32, I32, VP, I32, VP,
                                               C.c_int64],
                            None),
    }
    for name, (args, result) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, result
    lib.NamedTensor = NamedTensor
    return lib


def check(lib, status, what):
    if status != 0:
        raise SystemExit("error: %s: %s" % (what, lib.tf_last_error().decode()))


def open_session(lib, tfm, weights):
    """Opens the artifact and a session on it, with the parameters from the
    safetensors file `weights`, or initialised by the manifest's rules."""
    import ctypes as C
    artifact, session = C.c_void_p(), C.c_void_p()
    check(lib, lib.tf_artifact_open(tfm.encode(), C.byref(artifact)),
          "open " + tfm)
    check(lib, lib.tf_session_create(artifact, C.byref(session)),
          "tf_session_create")
    if weights:
        check(lib, lib.tf_session_load_parameters(session, weights.encode()),
              "load " + weights)
    else:
        check(lib, lib.tf_session_init_parameters(session, 1),
              "tf_session_init_parameters")
    return artifact, session


def read_tensors(lib, path):
    """The tensor file at `path` (kept open: the tensors point into it) and
    its tensors as an array of NamedTensor."""
    import ctypes as C
    tensor_file = C.c_void_p()
    check(lib, lib.tf_tensor_file_read(path.encode(), C.byref(tensor_file)),
          "read " + path)
    tensors = (lib.NamedTensor * lib.tf_tensor_file_count(tensor_file))()
    for i in range(len(tensors)):
        check(lib, lib.tf_tensor_file_get(tensor_file, i, C.byref(tensors[i])),
              "%s: tensor %d" % (path, i))
    return tensor_file, tensors


def worker_ours(args):
    import ctypes as C
    rss_import = read_status("VmRSS")
    lib = load_runtime(args.runtime)
    check(lib, lib.tf_set_num_threads(args.threads), "tf_set_num_threads")

    if args.gemm:
        n = GEMM_SIZE
        pattern = struct.pack("<4f", 0.5, -0.25, 0.125, 1.0) * (n * n // 4)
        a, b = C.create_string_buffer(pattern), C.create_string_buffer(pattern)
        c = C.create_string_buffer(4 * n * n)
        times = time_calls(
            lambda: lib.tfrt_matmul_f32(1, n, n, n, a, 0, b, 0, 0, 0, None, 0, c, 0),
            3, args.repeats, 5, args.max_seconds)
        emit({"times": times, "blas": mapped_libraries(r"openblas|blas"),
              "core": openblas_core()})
        return

    artifact, session = open_session(lib, args.tfm, args.weights)
    inputs_file, inputs = read_tensors(lib, args.inputs)
    count = len(inputs)
    entry = C.c_int32()
    check(lib, lib.tf_artifact_find_entry_point(artifact, b"forward",
                                                C.byref(entry)), "forward")
    num_outputs = lib.tf_entry_point_num_outputs(artifact, entry)
    outputs = (lib.NamedTensor * num_outputs)()
    hwm_setup = read_status("VmHWM")
    peak_reset = reset_peak_rss()

    def forward():
        check(lib, lib.tf_session_run(session, b"forward", inputs, count,
                                      outputs, num_outputs), "forward")

    for _ in range(args.warmup):
        forward()
    if args.gemm_stats:  # bench/gemm_interpose.c is preloaded
        interposer = C.CDLL(None)
        interposer.tf_bench_gemm_reset()
    times = time_calls(forward, 0, args.repeats, args.min_repeats,
                       args.max_seconds)
    hwm_forward = read_status("VmHWM")
    gemm = None
    if args.gemm_stats:
        seconds, flops, calls = C.c_double(), C.c_double(), C.c_int64()
        interposer.tf_bench_gemm_stats(C.byref(seconds), C.byref(flops),
                                       C.byref(calls))
        gemm = {"seconds": seconds.value, "flops": flops.value,
                "calls": calls.value}
    check(lib, lib.tf_tensor_file_write(args.outputs.encode(), outputs,
                                         num_outputs), "write outputs")
    emit({"times": times, "rss_import_kib": rss_import,
          "hwm_setup_kib": hwm_setup, "hwm_forward_kib": hwm_forward,
          "peak_reset": peak_reset, "threads": lib.tf_get_num_threads(),
          "blas": mapped_libraries(r"openblas|blas"), "gemm": gemm})
    lib.tf_tensor_file_close(inputs_file)
    lib.tf_session_destroy(session)
    lib.tf_artifact_close(artifact)


# --- Worker: PyTorch eager (the peer) -----------------------------------------

def load_weights(module, path):
    """Loads the safetensors file at `path` into the PyTorch `module`, every
    tensor by name."""
    import numpy as np
    import torch
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io
    weights, _ = safetensors_io.load(path)
    module.load_state_dict(
        {k: torch.from_numpy(np.array(v)) for k, v in weights.items()},
        strict=True)


def worker_torch(args):
    import torch
    rss_import = read_status("VmRSS")
    torch.set_num_threads(args.threads)

    if args.gemm:
        n = GEMM_SIZE
        a, b = torch.randn(n, n), torch.randn(n, n)
        c = torch.empty(n, n)
        times = time_calls(lambda: torch.mm(a, b, out=c), 3, args.repeats, 5,
                           args.max_seconds)
        emit({"times": times, "torch": torch.__version__,
              "threads": torch.get_num_threads(),
              "blas": mapped_libraries(r"openblas|blas"),
              "core": openblas_core()})
        return

    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io
    module, _, tensors = reference_module(args)
    gc.collect()
    hwm_setup = read_status("VmHWM")
    peak_reset = reset_peak_rss()
    result = []

    def forward():
        result.clear()  # as a loop over batches would, drop the last output
        with torch.no_grad():
            result.append(module(*tensors))

    times = time_calls(forward, args.warmup, args.repeats, args.min_repeats,
                       args.max_seconds)
    hwm_forward = read_status("VmHWM")
    safetensors_io.save(args.outputs, {"output": result[0].numpy()})
    emit({"times": times, "rss_import_kib": rss_import,
          "hwm_setup_kib": hwm_setup, "hwm_forward_kib": hwm_forward,
          "peak_reset": peak_reset, "threads": torch.get_num_threads(),
          "blas": mapped_libraries(r"openblas|blas")})


# --- Workers: the peers from PyPI (bench/.venv) -------------------------------

def reference_module(args):
    """The PyTorch reference model with the benchmark's weights, and its
    inputs from --inputs (names and tensors, in forward()'s order)."""
    import numpy as np
    import torch
    sys.path.insert(0, PYTHON_TESTS)
    import reference_models
    import safetensors_io
    module = reference_models.build(args.model).eval()
    load_weights(module, args.weights)
    inputs, _ = safetensors_io.load(args.inputs)
    names = ["tokens"] if "tokens" in inputs else ["src", "tgt"]
    return module, names, [torch.from_numpy(np.array(inputs[name]))
                           for name in names]


def worker_onnx(args):
    """Exports the reference model to --onnx with PyTorch's exporter."""
    import torch
    module, names, tensors = reference_module(args)
    torch.onnx.export(module, tuple(tensors), args.onnx, input_names=names,
                      output_names=["output"], opset_version=ONNX_OPSET)
    emit({"torch": torch.__version__, "opset": ONNX_OPSET})


def time_peer_forward(args, forward, rss_import, about):
    """Times `forward` (returning the output as a numpy array), writes its
    last output to --outputs and emits the timings, memory and `about`."""
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io
    gc.collect()
    hwm_setup = read_status("VmHWM")
    peak_reset = reset_peak_rss()
    result = []

    def timed():
        result.clear()
        result.append(forward())

    times = time_calls(timed, args.warmup, args.repeats, args.min_repeats,
                       args.max_seconds)
    hwm_forward = read_status("VmHWM")
    safetensors_io.save(args.outputs, {"output": result[0]})
    emit(dict(about, times=times, rss_import_kib=rss_import,
              hwm_setup_kib=hwm_setup, hwm_forward_kib=hwm_forward,
              peak_reset=peak_reset, threads=args.threads))


def worker_ort(args):
    """Times ONNX Runtime's CPU execution provider on --onnx (run by
    bench/.venv's Python)."""
    import numpy as np
    import onnxruntime as ort
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io
    rss_import = read_status("VmRSS")
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    session = ort.InferenceSession(args.onnx, options,
                                   providers=["CPUExecutionProvider"])
    inputs, _ = safetensors_io.load(args.inputs)
    feeds = {i.name: np.asarray(inputs[i.name]) for i in session.get_inputs()}
    del inputs
    time_peer_forward(
        args, lambda: session.run(None, feeds)[0], rss_import,
        {"version": "ONNX Runtime %s (%s)" % (
            ort.__version__, "/".join(session.get_providers()))})


def twin_arguments(args):
    """The weights (a dict, as bench/jax_models.py takes them) and inputs
    (a list) of the JAX twin, as numpy arrays, with the process pinned to
    --threads CPUs first."""
    import numpy as np
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.threads])
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io
    weights, _ = safetensors_io.load(args.weights)
    inputs, _ = safetensors_io.load(args.inputs)
    names = ["tokens"] if "tokens" in inputs else ["src", "tgt"]
    return ({k: np.asarray(v) for k, v in weights.items()},
            [np.asarray(inputs[name]) for name in names])


def worker_jax(args):
    """Times jax.jit of bench/jax_models.py's twin of the model on XLA's
    CPU backend, pinned to --threads CPUs (run by bench/.venv's Python)."""
    import numpy as np
    rss_import = read_status("VmRSS")
    weights, inputs = twin_arguments(args)
    import jax
    import jax_models
    params = {k: jax.device_put(v) for k, v in weights.items()}
    tensors = [jax.device_put(v) for v in inputs]
    del weights, inputs
    forward = jax_models.compiled_forward(args.model, int(args.heads))
    forward(params, *tensors).block_until_ready()  # compiles
    time_peer_forward(
        args, lambda: np.asarray(forward(params, *tensors).block_until_ready()),
        rss_import, {"version": "JAX %s, XLA on %s, %d CPUs pinned" % (
            jax.__version__, jax.devices()[0].platform,
            len(os.sched_getaffinity(0)))})


def worker_iree(args):
    """Times IREE's llvm-cpu backend (its local-task driver, --threads
    workers on as many pinned CPUs) on the same JAX twin, lowered by
    jax.jit to StableHLO and compiled for this CPU; the compilation is
    timed apart (run by bench/.venv's Python)."""
    import numpy as np
    rss_import = read_status("VmRSS")
    weights, inputs = twin_arguments(args)
    import jax
    import jax_models
    import importlib.metadata
    import iree.compiler
    import iree.runtime
    # JAX computes in 32-bit integers unless x64 is enabled, and IREE checks
    # the element type of every argument.
    inputs = [v.astype(np.int32) if v.dtype == np.int64 else v
              for v in inputs]
    start = time.perf_counter()
    stablehlo = jax_models.compiled_forward(args.model, int(args.heads)).lower(
        weights, *inputs).as_text()
    binary = iree.compiler.compile_str(
        stablehlo, target_backends=["llvm-cpu"], input_type="stablehlo",
        extra_args=["--iree-llvmcpu-target-cpu=host"])
    compile_s = time.perf_counter() - start
    iree.runtime.flags.parse_flags(
        "--task_topology_max_group_count=%d" % args.threads)
    config = iree.runtime.Config("local-task")
    context = iree.runtime.SystemContext(config=config)
    module = iree.runtime.VmModule.copy_buffer(context.instance, binary)
    context.add_vm_module(module)
    main = context.modules[module.name]["main"]
    # The lowered function takes the weights flattened in JAX's order.
    arguments = [iree.runtime.asdevicearray(config.device, v) for v in
                 jax.tree_util.tree_leaves(weights) + inputs]
    del weights, inputs
    time_peer_forward(
        args, lambda: main(*arguments).to_host(), rss_import,
        {"version": "IREE %s llvm-cpu (local-task, %d workers, %d CPUs "
                    "pinned)" % (
                        importlib.metadata.version("iree-base-compiler"),
                        args.threads, len(os.sched_getaffinity(0))),
         "note": "lowered and compiled in %.1f s" % compile_s})


def worker_compile(args):
    """Times torch.compile (TorchInductor's default mode) of the reference
    module without gradients (run by bench/.venv's Python, PyTorch 2); the
    first call, which compiles, is timed apart."""
    import torch
    rss_import = read_status("VmRSS")
    torch.set_num_threads(args.threads)
    module, _, tensors = reference_module(args)
    compiled = torch.compile(module)

    def forward():
        with torch.no_grad():
            return compiled(*tensors).numpy()

    start = time.perf_counter()
    forward()
    first_call_s = time.perf_counter() - start
    time_peer_forward(args, forward, rss_import, {
        "version": "torch.compile of PyTorch %s (Inductor)" % torch.__version__,
        "note": "first call (compiling) %.1f s" % first_call_s})


# --- Worker: the reference model's weights ------------------------------------

def worker_weights(args):
    import torch
    sys.path.insert(0, PYTHON_TESTS)
    import reference_models
    import safetensors_io
    torch.manual_seed(0)
    module = reference_models.build(args.model)
    safetensors_io.save(
        args.weights, {k: v.detach().numpy() for k, v in
                       module.state_dict().items()},
        metadata={"format": "pt", "model": args.model})
    emit({})


# --- The driver ----------------------------------------------------------------

# Stripped from every worker's environment: the shell's OpenBLAS settings
# (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE, which changes OpenBLAS's blocking,
# ...), thread counts, wait policy, library paths and preloads; each side
# gets its own.
STRIPPED = ("LD_LIBRARY_PATH", "LD_PRELOAD", "OMP_NUM_THREADS",
            "OMP_WAIT_POLICY", "MKL_NUM_THREADS")
STRIPPED_PREFIXES = ("OPENBLAS_",)


def clean_environment(stripped=(), prefixes=()):
    """os.environ without STRIPPED and STRIPPED_PREFIXES, nor `stripped`
    and `prefixes`."""
    names = STRIPPED + tuple(stripped)
    starts = STRIPPED_PREFIXES + tuple(prefixes)
    return {k: v for k, v in os.environ.items()
            if k not in names and not k.startswith(starts)}


def spawn_worker(script, kind, args, threads, peer, flags,
                 python=sys.executable):
    """Runs `script --worker KIND --threads N FLAGS` in a clean environment
    (clean_environment; bench/train.py, generate.py, translate.py): the
    peer on its own BLAS with
    OMP_NUM_THREADS, both with --openblas-core and --omp-wait-policy.
    Returns the worker's BENCH-RESULT with `others_busy`, the share of the
    CPUs other processes used meanwhile, and `wall_s`."""
    env = clean_environment()
    if args.openblas_core:
        env["OPENBLAS_CORETYPE"] = args.openblas_core
    if args.omp_wait_policy != "default":
        env["OMP_WAIT_POLICY"] = args.omp_wait_policy
    if peer:
        env["LD_LIBRARY_PATH"] = PEER_BLAS_DIR
        env["OMP_NUM_THREADS"] = str(threads)
    command = [python, os.path.abspath(script), "--worker", kind,
               "--threads", str(threads)] + flags
    return run_measured(kind, command, env)


def run_measured(kind, command, env):
    """Runs a worker's command: its BENCH-RESULT with `others_busy`, the
    share of the CPUs other processes used meanwhile, and `wall_s`."""
    cpu0, ours0, wall0 = cpu_seconds(), children_seconds(), time.time()
    proc = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    others = ((cpu_seconds() - cpu0) - (children_seconds() - ours0)) / max(
        1e-3, (time.time() - wall0) * len(os.sched_getaffinity(0)))
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH-RESULT ") and proc.returncode == 0:
            result = json.loads(line[len("BENCH-RESULT "):])
            result["others_busy"] = max(0.0, others)
            result["wall_s"] = time.time() - wall0
            return result
    raise RuntimeError("%s worker failed (exit %d): %s" % (
        kind, proc.returncode,
        (proc.stderr.strip().splitlines() or ["no output"])[-1]))


def run_worker(kind, args, extra, peer, core=None, preload=None,
               python=sys.executable):
    env = clean_environment()
    core = core or args.openblas_core
    if core:
        env["OPENBLAS_CORETYPE"] = core
    if preload:
        env["LD_PRELOAD"] = preload
        env["TF_BENCH_RUNTIME"] = args.runtime
        extra = extra + ["--gemm-stats"]
    if peer:
        env["LD_LIBRARY_PATH"] = PEER_BLAS_DIR
        env["OMP_NUM_THREADS"] = str(args.threads)
    command = [python, os.path.abspath(__file__), "--worker", kind,
               "--threads", str(args.threads), "--repeats", str(args.repeats),
               "--max-seconds", str(args.max_seconds),
               "--runtime", args.runtime] + extra
    return run_measured(kind, command, env)


def time_ours_from_onnx(args, work, onnx_path, common):
    """Our forward compiled from the ONNX file ONNX Runtime runs, on the
    weights the compiler writes from its initializers: the median ms."""
    tfm = os.path.join(work, "from-onnx.tfm")
    weights = os.path.join(work, "from-onnx.safetensors")
    if not newer(tfm, onnx_path, args.compiler):
        proc = subprocess.run([args.compiler, onnx_path, "--target=cpu",
                               "--inference-only", "-o", tfm],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        if proc.returncode != 0:
            raise RuntimeError("transfuse-compile model.onnx: " +
                               proc.stderr.strip())
    flags = list(common)
    flags[flags.index("--weights") + 1] = weights
    result = run_worker("ours", args, flags + [
        "--tfm", tfm, "--outputs", os.path.join(work, "from-onnx.safetensors.out")],
        peer=False)
    return summarise(result["times"])["median"]


PYPI_PEERS = (("ort", "ONNX Runtime"), ("jax", "XLA"), ("iree", "IREE"),
              ("compile", "torch.compile"))


def run_pypi_peers(args, model, work, tfm, weights, spec, common, ours_ms,
                   ours_out, versions):
    """The rows of `model` in the table of the peers from bench/.venv, one
    per peer: ONNX Runtime on the reference model exported to ONNX (again
    when the weights or the artifact are newer than the export), then JAX's
    twin of the model under XLA and under IREE, then torch.compile of the
    reference model. Fills `versions` with what each peer ran."""
    import numpy as np
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io
    onnx_path = os.path.join(work, "model.onnx")
    rows = []
    for kind, name in PYPI_PEERS:
        extra = {"ort": ["--onnx", onnx_path],
                 "jax": ["--heads", str(spec_heads(spec))],
                 "iree": ["--heads", str(spec_heads(spec))]}.get(kind, [])
        outputs = os.path.join(work, kind + ".safetensors")
        try:
            if kind == "ort" and not newer(onnx_path, weights, tfm):
                export = run_worker("onnx", args, common + extra, peer=True)
                with open(onnx_path + ".exporter", "w") as f:
                    f.write("PyTorch %s, opset %d" % (export["torch"],
                                                      export["opset"]))
            result = run_worker(kind, args, common + extra + [
                "--outputs", outputs], peer=True, python=PEER_PYTHON)
        except RuntimeError as error:
            print("%s: %s: error: %s" % (model, kind, error))
            rows.append([model, name] + ["error"] * 6 + [""])
            continue
        versions[kind] = result["version"]
        note = result.get("note", "")
        if kind == "ort":
            with open(onnx_path + ".exporter") as f:
                versions[kind] += ", exported by " + f.read()
            from_onnx = time_ours_from_onnx(args, work, onnx_path, common)
            note = "ours compiled from its ONNX file: %.1f ms (%.2fx)" % (
                from_onnx, summarise(result["times"])["median"] / from_onnx)
        out = safetensors_io.load(outputs)[0]["output"]
        r = summarise(result["times"])
        rows.append([
            model, name, "%.1f" % r["median"], "%.1f" % r["min"],
            "%.0f%%" % r["spread"], "%.2fx" % (r["median"] / ours_ms),
            "%.0f" % mib(result["hwm_forward_kib"]),
            "%.2g" % float(np.max(np.abs(np.asarray(ours_out, np.float64) -
                                         np.asarray(out, np.float64)))),
            note])
        print("%s: %s %.1f ms" % (model, kind, r["median"]), flush=True)
    return rows


def build_interposer():
    """Builds bench/gemm_interpose.c into the cache; None (and a note) when
    there is no C compiler."""
    source = os.path.join(BENCH_DIR, "gemm_interpose.c")
    target = os.path.join(CACHE_DIR, "gemm_interpose.so")
    if newer(target, source):
        return target
    compiler = os.environ.get("CC", "cc")
    try:
        subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", target,
                        source, "-ldl"], check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        print("note: no GEMM split (%s cannot build %s: %s)" % (
            compiler, os.path.relpath(source, ROOT), error))
        return None
    return target


def read_manifest(tfm):
    with open(tfm, "rb") as f:
        header = f.read(32)
        if header[:8] != b"TRANSFUS":
            raise RuntimeError(tfm + ": not a .tfm")
        (size,) = struct.unpack("<Q", header[16:24])
        return json.loads(f.read(size))


def newer(target, *sources):
    """True if `target` exists and is newer than every source."""
    if not os.path.exists(target):
        return False
    mtime = os.path.getmtime(target)
    return all(os.path.getmtime(s) < mtime for s in sources if os.path.exists(s))


def model_files(cache_dir, model):
    """The seed spec of `model`, its work directory under `cache_dir`
    (created), and the artifact and weights paths in it."""
    spec = os.path.join(ROOT, "models", model + ".pbtxt")
    work = os.path.join(cache_dir, model)
    os.makedirs(work, exist_ok=True)
    return (spec, work, os.path.join(work, "model.tfm"),
            os.path.join(work, "weights.safetensors"))


def compile_model(args, spec, tfm, inference_only=True):
    """Compiles `spec` to `tfm` unless the cached one is newer than the spec
    and the compiler; returns the compile time, or None when cached. The
    forward benchmark times inference, so by default the artifact has no
    training entry points."""
    if newer(tfm, spec, args.compiler):
        return None
    start = time.perf_counter()
    flags = ["--inference-only"] if inference_only else []
    proc = subprocess.run([args.compiler, spec, "--target=cpu", *flags,
                           "-o", tfm],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError("transfuse-compile %s: %s" % (
            os.path.basename(spec), proc.stderr.strip()))
    return time.perf_counter() - start


def make_inputs(manifest, seed):
    """Random token ids in range for every input of `forward`. Inputs of
    encoder-decoder models (`src`, `tgt`) get rows padded with id 0 to a
    random length between half and all of the sequence, as a batch of
    sentences of different lengths is."""
    import numpy as np
    rng = np.random.default_rng(seed)
    forward = next(e for e in manifest["entry_points"] if e["name"] == "forward")
    inputs = {}
    for spec in forward["inputs"]:
        if spec["dtype"] != "i64":
            raise RuntimeError("input %s: only i64 token inputs are supported"
                               % spec["name"])
        if "max_value" not in spec:
            raise RuntimeError("input %s: the manifest gives no max_value"
                               % spec["name"])
        batch, length = spec["shape"]
        high = spec["max_value"]
        padded = spec["name"] in ("src", "tgt")
        ids = rng.integers(1 if padded else 0, high + 1, size=(batch, length))
        if padded:
            for row in range(batch):
                ids[row, rng.integers((length + 1) // 2, length + 1):] = 0
        inputs[spec["name"]] = ids.astype(np.int64)
    return inputs


def count_tokens(manifest):
    """Token positions in one batch: the elements of every input."""
    forward = next(e for e in manifest["entry_points"] if e["name"] == "forward")
    total = 0
    for spec in forward["inputs"]:
        n = 1
        for d in spec["shape"]:
            n *= d
        total += n
    return total


def forward_flops(model, manifest, heads):
    """FLOPs of one forward pass: 2*m*n*k for every matmul (README.md). Every
    Linear's n and k are read from its weight's shape in the manifest, and
    every 2-D non-embedding parameter must be used exactly once."""
    shapes = {p["name"]: p["shape"] for p in manifest["parameters"]}
    forward = next(e for e in manifest["entry_points"] if e["name"] == "forward")
    dims = {i["name"]: i["shape"] for i in forward["inputs"]}
    used = []
    total = 0

    def linear(name, rows):
        nonlocal total
        out_features, in_features = shapes[name + ".weight"]
        used.append(name + ".weight")
        total += 2 * rows * out_features * in_features

    def attention(batch, q_len, k_len, d_model):
        # Q Kᵀ and P V, each batch*heads matmuls of q_len x k_len x d_head.
        nonlocal total
        total += 2 * (2 * batch * heads * q_len * k_len * (d_model // heads))

    def layers(prefix):
        found = {int(m.group(1)) for m in
                 (re.match(re.escape(prefix) + r"(\d+)\.", n) for n in shapes)
                 if m}
        return [prefix + "%d." % i for i in sorted(found)]

    if model in ("char_lm", "sentiment_classifier"):
        batch, seq = dims["tokens"]
        rows = batch * seq
        if model == "char_lm":
            names, ff = ("w_q", "w_k", "w_v", "w_o"), ("w_1", "w_2")
            attn, ffn, blocks = "self_attn.", "feed_forward.", layers("layers.")
        else:
            names = ("toqueries", "tokeys", "tovalues", "unifyheads")
            ff, attn, ffn = ("0", "2"), "attention.", "ff."
            blocks = layers("tblocks.")
        for block in blocks:
            for name in names:
                linear(block + attn + name, rows)
            d_model = shapes[block + attn + names[0] + ".weight"][0]
            attention(batch, seq, seq, d_model)
            for name in ff:
                linear(block + ffn + name, rows)
        if model == "char_lm":
            linear("output", rows)
        else:
            linear("toprobs", batch)  # after max-pooling over time
    elif model.startswith("transformer_"):
        batch, src_len = dims["src"]
        tgt_len = dims["tgt"][1]
        src_rows, tgt_rows = batch * src_len, batch * tgt_len
        for block in layers("encoder.layers."):
            for name in ("w_q", "w_k", "w_v", "w_o"):
                linear(block + "self_attn." + name, src_rows)
            attention(batch, src_len, src_len,
                      shapes[block + "self_attn.w_q.weight"][0])
            for name in ("w_1", "w_2"):
                linear(block + "feed_forward." + name, src_rows)
        for block in layers("decoder.layers."):
            for name in ("w_q", "w_k", "w_v", "w_o"):
                linear(block + "self_attn." + name, tgt_rows)
            attention(batch, tgt_len, tgt_len,
                      shapes[block + "self_attn.w_q.weight"][0])
            linear(block + "src_attn.w_q", tgt_rows)
            linear(block + "src_attn.w_k", src_rows)  # keys from memory
            linear(block + "src_attn.w_v", src_rows)
            linear(block + "src_attn.w_o", tgt_rows)
            attention(batch, tgt_len, src_len,
                      shapes[block + "src_attn.w_q.weight"][0])
            for name in ("w_1", "w_2"):
                linear(block + "feed_forward." + name, tgt_rows)
        linear("generator", tgt_rows)
    else:
        raise RuntimeError("no FLOP model for '%s'" % model)

    matrices = {n for n, s in shapes.items() if len(s) == 2} - EMBEDDINGS
    if sorted(used) != sorted(matrices):
        raise RuntimeError("%s: the FLOP model does not cover the Linear "
                           "weights exactly: missing %s, unexpected %s" % (
                               model, sorted(matrices - set(used)),
                               sorted(set(used) - matrices)))
    return total


def spec_heads(spec):
    with open(spec) as f:
        heads = {int(h) for h in re.findall(r"^\s*(?:attention \{ )?heads:\s*(\d+)",
                                            f.read(), re.M)}
    if len(heads) != 1:
        raise RuntimeError("%s: expected one head count, found %s" % (
            spec, sorted(heads) or "none"))
    return heads.pop()


def cpu_seconds():
    """Non-idle CPU time of the whole machine since boot, in seconds."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:8]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def children_seconds():
    import resource
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def busy_fraction(seconds=1.0):
    """The share of the machine's CPU time spent on anything but idle over
    the next `seconds` (the benchmark itself runs nothing meanwhile)."""
    def sample():
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
        return values[3] + values[4], sum(values)  # idle + iowait, total
    idle0, total0 = sample()
    time.sleep(seconds)
    idle1, total1 = sample()
    return 1.0 - (idle1 - idle0) / max(1, total1 - total0)


def wait_until_quiet(limit):
    """Waits up to `limit` seconds for other work on the machine to stop;
    returns the last busy share measured."""
    busy = busy_fraction()
    deadline = time.time() + limit
    announced = False
    while busy > QUIET_BUSY and time.time() < deadline:
        if not announced:
            print("  (the machine is %.0f%% busy with other work: waiting up "
                  "to %ds for it to be quiet)" % (100 * busy, limit),
                  flush=True)
            announced = True
        time.sleep(10)
        busy = busy_fraction()
    return busy


def machine_description():
    cpu = "unknown CPU"
    flags = ""
    with open("/proc/cpuinfo") as f:
        text = f.read()
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    if match:
        cpu = match.group(1).strip()
    family = re.search(r"^cpu family\s*:\s*(\d+)", text, re.M)
    model = re.search(r"^model\s*:\s*(\d+)", text, re.M)
    if family and model:
        cpu += " (family %s, model %s)" % (family.group(1), model.group(1))
    match = re.search(r"^flags\s*:\s*(.+)$", text, re.M)
    if match:
        flags = match.group(1).split()
    isa = "AVX-512" if "avx512f" in flags else ("AVX2" if "avx2" in flags
                                                 else "no AVX2")
    return cpu, isa, os.cpu_count(), len(os.sched_getaffinity(0))


def summarise(times):
    ms = sorted(t * 1e3 for t in times)
    median = statistics.median(ms)
    if len(ms) >= 4:
        q = statistics.quantiles(ms, n=4)
        spread = (q[2] - q[0]) / median * 100
    else:
        spread = (ms[-1] - ms[0]) / median * 100
    return {"median": median, "min": ms[0], "spread": spread, "n": len(ms)}


def gflops_of(times):
    return 2 * GEMM_SIZE ** 3 / statistics.median(times) / 1e9


def mib(kib):
    return kib / 1024.0


def print_table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]
    line = lambda r: "| " + " | ".join(
        str(c).rjust(w) if i else str(c).ljust(w)
        for i, (c, w) in enumerate(zip(r, widths))) + " |"
    print(line(header))
    print("|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":"
                         for i, w in enumerate(widths)) + "|")
    for r in rows:
        print(line(r))


def require_tools(args):
    """Exits with a message when the compiler, the runtime or the OpenBLAS
    the PyTorch peer runs on is missing."""
    for path, what in ((args.compiler, "transfuse-compile"),
                       (args.runtime, "the runtime")):
        if not os.path.exists(path):
            sys.exit("error: %s not found at %s (build first: make build, or "
                     "--build DIR)" % (what, path))
    if not os.path.isdir(PEER_BLAS_DIR):
        sys.exit("error: %s is missing: apt-get install libopenblas0-openmp "
                 "(the PyTorch peer must run on OpenBLAS)" % PEER_BLAS_DIR)


def driver(args):
    import numpy as np
    sys.path.insert(0, PYTHON_TESTS)
    import safetensors_io

    require_tools(args)
    os.makedirs(CACHE_DIR, exist_ok=True)

    cpu, isa, cpus, usable = machine_description()
    load = os.getloadavg()
    print("Transfuse forward benchmark, %s" % datetime.date.today().isoformat())
    print("machine: %s, %s, %d CPUs (%d usable), %s" % (
        cpu, isa, cpus, usable, platform.platform()))
    print("threads: %d (both sides); repeats: up to %d after %d warm-up runs, "
          "at most ~%gs of timing per side" % (
              args.threads, args.repeats, args.warmup, args.max_seconds))
    print("load average: %.2f %.2f %.2f%s" % (
        load + (("  <-- the machine is busy: timings will be noisy"
                 if load[0] > 1.5 else ""),)))

    # The GEMM rate each side gets from its BLAS, and what the machine can do
    # with OpenBLAS's best kernels for its instruction set.
    ours_gemm = run_worker("ours", args, ["--gemm"], peer=False)
    peer_gemm = run_worker("torch", args, ["--gemm"], peer=True)
    ours_rate, peer_rate = (gflops_of(ours_gemm["times"]),
                            gflops_of(peer_gemm["times"]))
    best_core = BEST_CORE.get(isa)
    probe_rate = None
    if best_core and best_core not in (ours_gemm["core"], peer_gemm["core"]):
        probe = run_worker("ours", args, ["--gemm"], peer=False, core=best_core)
        probe_rate = gflops_of(probe["times"])
    peak = max(r for r in (ours_rate, peer_rate, probe_rate) if r)
    if args.openblas_core:
        print("OPENBLAS_CORETYPE=%s for both sides" % args.openblas_core)
    print("peer: PyTorch %s eager, %d threads, BLAS %s" % (
        peer_gemm["torch"], peer_gemm["threads"],
        ", ".join(peer_gemm["blas"]) or "none mapped"))
    print("ours: %s, BLAS %s" % (
        os.path.relpath(args.runtime, ROOT),
        ", ".join(ours_gemm["blas"]) or "none mapped"))
    print("fp32 GEMM %d^3, median of %d threads:" % (GEMM_SIZE, args.threads))
    print("  peer torch.mm        %6.1f GFLOP/s  (OpenBLAS kernels: %s)" % (
        peer_rate, peer_gemm["core"] or "not OpenBLAS"))
    print("  ours tfrt_matmul_f32 %6.1f GFLOP/s  (OpenBLAS kernels: %s)" % (
        ours_rate, ours_gemm["core"] or "not OpenBLAS"))
    if probe_rate:
        print("  probe tfrt_matmul_f32 %6.1f GFLOP/s  (OPENBLAS_CORETYPE=%s, "
              "the best kernels for %s)" % (probe_rate, best_core, isa))
    print("  machine peak taken as %.1f GFLOP/s (DESIGN.md's reference: "
          "~160-190 on 2 threads of Zen 4)" % peak)
    floor = max(PEER_GEMM_FLOOR_GFLOPS, 0.5 * peak)
    if peer_rate < floor:
        if not peer_gemm["core"]:
            why = ("its BLAS is not OpenBLAS (%s): install libopenblas0-openmp"
                   % (", ".join(peer_gemm["blas"]) or "unknown"))
        else:
            why = "OpenBLAS chose its %s kernels" % peer_gemm["core"]
            if best_core and peer_gemm["core"] != best_core:
                why += (", not %s, for this %s CPU; rerun with "
                        "--openblas-core %s" % (best_core, isa, best_core))
        also = ""
        if ours_rate < floor:
            also = ("\n!! Ours is held back the same way (%.1f GFLOP/s, "
                    "kernels: %s)." % (ours_rate, ours_gemm["core"]))
        banner = "!" * 78
        print("\n%s\n!! THE PEER IS CRIPPLED: PyTorch's GEMM runs at %.1f "
              "GFLOP/s, under %.0f.\n!! Cause: %s.%s\n!! Speed-ups below do "
              "not show what either side can do here.\n%s" % (
                  banner, peer_rate, floor, why, also, banner))
    print()

    have_pypi_peers = os.path.exists(PEER_PYTHON)
    if not have_pypi_peers:
        print("The PyPI peers (%s): not measured (`bash bench/setup.sh` "
              "installs them into bench/.venv)\n" % ", ".join(
                  name for _, name in PYPI_PEERS))
    interposer = build_interposer() if args.gemm_split else None
    rows, details, splits, pypi_rows = [], [], [], []
    pypi_versions = {}
    for model in args.models:
        spec, work, tfm, weights = model_files(CACHE_DIR, model)
        inputs_path = os.path.join(work, "inputs.safetensors")
        try:
            compile_s = compile_model(args, spec, tfm)
            wait_until_quiet(args.wait_quiet)
            manifest = read_manifest(tfm)
            if not newer(weights, os.path.join(PYTHON_TESTS,
                                               "reference_models.py")):
                run_worker("weights", args, ["--model", model, "--weights",
                                             weights], peer=True)
            safetensors_io.save(inputs_path, make_inputs(manifest, args.seed))
            flops = forward_flops(model, manifest, spec_heads(spec))
            tokens = count_tokens(manifest)
            common = ["--model", model, "--weights", weights, "--inputs",
                      inputs_path, "--warmup", str(args.warmup),
                      "--min-repeats", str(args.min_repeats)]
            ours = run_worker("ours", args, common + [
                "--tfm", tfm, "--outputs", os.path.join(work, "ours.safetensors")],
                peer=False)
            peer = run_worker("torch", args, common + [
                "--outputs", os.path.join(work, "torch.safetensors")], peer=True)
            split = None
            if interposer:
                split = run_worker("ours", args, common + [
                    "--tfm", tfm, "--outputs",
                    os.path.join(work, "ours-split.safetensors")],
                    peer=False, preload=interposer)
        except RuntimeError as error:
            print("%s: error: %s" % (model, error))
            rows.append([model] + ["error"] * 9)
            continue

        ours_out = next(iter(safetensors_io.load(
            os.path.join(work, "ours.safetensors"))[0].values()))
        peer_out = safetensors_io.load(
            os.path.join(work, "torch.safetensors"))[0]["output"]
        diff = float(np.max(np.abs(np.asarray(ours_out, np.float64) -
                                   np.asarray(peer_out, np.float64))))
        o, t = summarise(ours["times"]), summarise(peer["times"])
        ours_rate_model = flops / (o["median"] * 1e-3) / 1e9
        peer_rate_model = flops / (t["median"] * 1e-3) / 1e9
        busy = max(ours["others_busy"], peer["others_busy"])
        noisy = busy > QUIET_BUSY
        if noisy:
            print("  note: %s was timed while other work used %.0f%% of the "
                  "CPUs (marked *)" % (model, 100 * busy))
        rows.append([
            model + (" *" if noisy else ""), "%.2f" % (flops / 1e9),
            "%.1f" % o["median"], "%.1f" % o["min"], "%.0f%%" % o["spread"],
            "%.1f" % t["median"], "%.1f" % t["min"], "%.0f%%" % t["spread"],
            "%.2fx" % (t["median"] / o["median"]),
            "%.0f" % (tokens / (o["median"] * 1e-3)),
            "%.0f / %.0f" % (mib(ours["hwm_forward_kib"]),
                             mib(peer["hwm_forward_kib"])),
            "%.0f%% / %.0f%%" % (100 * ours_rate_model / peak,
                                 100 * peer_rate_model / peak),
        ])
        details.append([
            model, "%d / %d" % (o["n"], t["n"]),
            "%.0f / %.0f" % (mib(ours["rss_import_kib"]),
                             mib(peer["rss_import_kib"])),
            "%.0f / %.0f" % (mib(ours["hwm_setup_kib"]),
                             mib(peer["hwm_setup_kib"])),
            "%.0f / %.0f" % (mib(ours["hwm_forward_kib"]),
                             mib(peer["hwm_forward_kib"])),
            "%.0f / %.0f" % (
                mib(ours["hwm_forward_kib"] - ours["rss_import_kib"]),
                mib(peer["hwm_forward_kib"] - peer["rss_import_kib"])),
            "%.1f / %.1f" % (ours_rate_model, peer_rate_model),
            "%.2g" % diff,
            "%.1f s" % compile_s if compile_s is not None else "cached",
        ])
        if split and split["gemm"]:
            s = summarise(split["times"])
            g = split["gemm"]
            runs = len(split["times"])
            in_gemm = g["seconds"] / runs * 1e3
            splits.append([
                model, "%.1f" % s["median"],
                "%.1f (%.0f%%)" % (in_gemm, 100 * in_gemm / s["median"]),
                "%.1f" % (s["median"] - in_gemm),
                "%d" % (g["calls"] // runs),
                "%.1f" % (g["flops"] / g["seconds"] / 1e9),
                "%.4f / %.4f" % (g["flops"] / runs / 1e9, flops / 1e9),
                "%.1f" % t["median"],
            ])
        print("%s: ours %.1f ms, torch %.1f ms (other work on the machine "
              "meanwhile: %.0f%% / %.0f%% of the CPUs)" % (
                  model, o["median"], t["median"], 100 * ours["others_busy"],
                  100 * peer["others_busy"]), flush=True)
        if have_pypi_peers:
            pypi_rows.extend(run_pypi_peers(
                args, model, work, tfm, weights, spec, common, o["median"],
                ours_out, pypi_versions))
        if not (ours["peak_reset"] and peer["peak_reset"]):
            print("  note: /proc/self/clear_refs is not writable: the RSS is "
                  "the whole process's peak, loading included")

    print()
    print_table(["model", "GFLOP", "ours ms", "min", "IQR", "torch ms", "min",
                 "IQR", "torch/ours", "ours tok/s", "RSS MiB ours / torch",
                 "share of GEMM peak ours / torch"],
                [r if len(r) == 12 else r + [""] * (12 - len(r)) for r in rows])
    if details:
        print()
        print_table(["model", "runs ours / torch", "RSS after imports",
                     "peak RSS incl. loading", "peak RSS forward",
                     "forward peak - imports", "GFLOP/s ours / torch", "max|ours - torch|", "compile"],
                    details)
    if pypi_rows:
        print()
        print("The peers from PyPI, %d threads:" % args.threads)
        for kind, name in PYPI_PEERS:
            if kind in pypi_versions:
                print("  %s: %s" % (name, pypi_versions[kind]))
        print_table(["model", "peer", "ms", "min", "IQR", "peer/ours",
                     "peak RSS MiB", "max|ours - peer|", ""], pypi_rows)
    if splits:
        print()
        print("Where our forward's time goes (a separate run of ours with "
              "bench/gemm_interpose.c preloaded):")
        print_table(["model", "ours ms", "in tfrt_matmul_f32 ms",
                     "outside GEMM ms", "GEMM calls", "GFLOP/s in calls",
                     "GFLOP in calls / counted", "torch ms"], splits)
    print()
    print("load average at the end: %.2f %.2f %.2f" % os.getloadavg())


def add_wait_quiet(parser, default, before):
    """--wait-quiet: how long to wait, `before` each model or side, for
    other work on the machine to stop."""
    parser.add_argument("--wait-quiet", type=int, default=default,
                        metavar="S",
                        help="before %s, wait up to S seconds for other work "
                             "on the machine to stop (default %d)"
                             % (before, default))


def add_openblas_core(parser):
    """--openblas-core: the OpenBLAS kernels of every side."""
    parser.add_argument("--openblas-core", metavar="CORE",
                        help="set OPENBLAS_CORETYPE=CORE for both sides (e.g. "
                             "SkylakeX, Haswell); default: OpenBLAS's own "
                             "choice (the shell's setting is removed)")


def add_omp_wait_policy(parser):
    """--omp-wait-policy: OMP_WAIT_POLICY of every side."""
    parser.add_argument("--omp-wait-policy", default="passive",
                        choices=["passive", "active", "default"],
                        help="OMP_WAIT_POLICY of both sides (default "
                             "passive; 'default' leaves it unset)")


def add_common_options(parser, unit, repeats, min_repeats, max_seconds,
                       wait_quiet, threads_help="threads on both sides"):
    """The options both benchmarks take: which models, threads, how long to
    time each side, and the environment of both sides."""
    parser.add_argument("--models", nargs="+", default=MODELS, choices=MODELS,
                        metavar="NAME", help="seed models to run (default: "
                        "all four: %s)" % " ".join(MODELS))
    parser.add_argument("--threads", type=int, default=2,
                        help="%s (default 2)" % threads_help)
    parser.add_argument("--repeats", type=int, default=repeats,
                        help="timed %s per side (default %d)" % (unit, repeats))
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed %s first (default 3)" % unit)
    parser.add_argument("--min-repeats", type=int, default=min_repeats,
                        help="timed %s even past --max-seconds (default %d)"
                             % (unit, min_repeats))
    parser.add_argument("--max-seconds", type=float, default=max_seconds,
                        help="stop timing a side after this long, once "
                             "--min-repeats are done (default %g)"
                             % max_seconds)
    add_wait_quiet(parser, wait_quiet, "each model")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the random inputs (default 1)")
    add_openblas_core(parser)


def add_build_options(parser):
    """Where the compiler and runtime are, and the hidden worker mode the
    driver runs each side in."""
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="the build directory (default build/)")
    parser.add_argument("--compiler", help=argparse.SUPPRESS)
    parser.add_argument("--runtime", help=argparse.SUPPRESS)
    parser.add_argument("--worker",
                        choices=["ours", "torch", "weights", "onnx", "ort",
                                 "jax", "iree", "compile"],
                        help=argparse.SUPPRESS)


def add_side_by_side_options(parser):
    """What the benchmarks that run both sides at several thread counts
    (generate.py, translate.py) share: quiet waiting, the OpenBLAS core and
    OpenMP wait policy of both sides, the JSON output and the build."""
    add_wait_quiet(parser, 60, "each thread count")
    add_openblas_core(parser)
    add_omp_wait_policy(parser)
    parser.add_argument("--json", metavar="PATH",
                        help="also write the results as JSON to PATH")
    add_build_options(parser)


def run_side_by_side(args, workers, driver):
    """Fills in the tools' paths, then runs the worker that args.worker
    names (at its one thread count; `workers` and the weights writer), or
    the driver."""
    args.compiler = args.compiler or os.path.join(args.build, "bin",
                                                  "transfuse-compile")
    args.runtime = os.path.abspath(args.runtime or os.path.join(
        args.build, "lib", "libtransfuse_runtime.so"))
    if args.worker:
        args.threads = args.threads[0]
        dict(workers, weights=worker_weights)[args.worker](args)
    else:
        driver(args)


def parse_arguments(parser):
    """Parses and checks the command line, filling in the tools' paths."""
    args = parser.parse_args()
    if args.threads < 1 or args.repeats < 1 or args.min_repeats < 1:
        parser.error("--threads, --repeats and --min-repeats must be positive")
    args.compiler = args.compiler or os.path.join(args.build, "bin",
                                                  "transfuse-compile")
    args.runtime = os.path.abspath(args.runtime or os.path.join(
        args.build, "lib", "libtransfuse_runtime.so"))
    return args


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(parser, "forward runs", repeats=20, min_repeats=5,
                       max_seconds=20.0, wait_quiet=180)
    add_build_options(parser)
    parser.add_argument("--no-gemm-split", dest="gemm_split",
                        action="store_false",
                        help="skip the extra run of ours that times its GEMM "
                             "calls (bench/gemm_interpose.c)")
    parser.add_argument("--gemm", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--gemm-stats", action="store_true",
                        help=argparse.SUPPRESS)
    for name in ("--model", "--tfm", "--weights", "--inputs", "--outputs",
                 "--onnx", "--heads"):
        parser.add_argument(name, help=argparse.SUPPRESS)
    args = parse_arguments(parser)
    if args.worker:
        {"ours": worker_ours, "torch": worker_torch,
         "weights": worker_weights, "onnx": worker_onnx,
         "ort": worker_ort, "jax": worker_jax, "iree": worker_iree,
         "compile": worker_compile}[args.worker](args)
    else:
        driver(args)


if __name__ == "__main__":
    main()
