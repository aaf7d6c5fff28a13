#!/usr/bin/env bash
# The GPU check (docs/gpu-check.md): the one command a machine with an
# NVIDIA GPU runs, from the repository root, on what `make gpu-check-prep`
# left in build-gpu-check/ where the compiler is.
#
#   bash tools/gpu-check.sh                results in build-gpu-check/
#   OUT=DIR bash tools/gpu-check.sh        results in DIR
#   bash tools/gpu-check.sh --bench        then bench/gpu.py against PyTorch
#   bash tools/gpu-check.sh --no-gpu       everything up to the GPU
#
# It reports the machine and what was prepared (and stops if that was made
# for another commit), builds the runtime and its tools only -- there is no
# MLIR there --, then runs test/python/gpu_check.py's checks, each with its
# own time limit, all within BUDGET seconds (default 530: under 9 minutes
# with the build), prints a table and writes OUT/gpu-check.json and
# OUT/logs/. With --bench it then times the artifacts `make
# gpu-check-prep` compiled for bench/gpu.py against PyTorch, in what is
# left of the budget, and writes OUT/gpu-bench.json (BENCH_ARGS: more of
# `gpu.py run`'s options, e.g. "--compile --models transformer_base").
# Other options after the script's name go to `gpu_check.py run`
# (--no-gpu, --cpu-stand-in, --models ..., --check-timeout S). The exit
# status is 0 when every check passed (and, with --bench, every model was
# timed).
#
# Environment: OUT, BUDGET, BENCH_ARGS, JOBS (build jobs, default: the CPUs), PYTHON
# (default python3), GPU_CHECK_BUILD (the build directory, default
# build-gpu-check/build), CUDA_HOME (a toolkit when nvcc is not on PATH).
set -euo pipefail

case ${1:-} in
  -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
bench=0
check_args=()
for arg in "$@"; do
  if [ "$arg" = --bench ]; then
    bench=1
  else
    check_args+=("$arg")
  fi
done

start=$(date +%s)
budget=${BUDGET:-530}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
prep=$top/build-gpu-check
out=$(mkdir -p "${OUT:-$prep}" && cd "${OUT:-$prep}" && pwd)
logs=$out/logs
python=${PYTHON:-python3}
check=(test/python/gpu_check.py)

fail() {
  echo "gpu-check: $*" >&2
  exit 1
}

mkdir -p "$logs"
command -v "$python" > /dev/null ||
  fail "no $python here: the checks are Python (numpy, PyTorch)"
[ -f "$prep/index.json" ] ||
  fail "build-gpu-check/index.json is missing: run 'make gpu-check-prep'" \
       "where the compiler is, and bring build-gpu-check/ along"
[ "$bench" = 0 ] || [ -d "$prep/bench" ] ||
  fail "--bench: build-gpu-check/bench/ is missing: prepare with" \
       "'make gpu-check-prep' (not BENCH=0)"

# The CUDA toolkit: nvcc's on PATH, else CUDA_HOME's, CUDA_PATH's or the
# default installation's.
cuda_root=
if nvcc=$(command -v nvcc); then
  cuda_root=$(dirname "$(dirname "$nvcc")")
else
  for candidate in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    if [ -n "$candidate" ] && [ -x "$candidate/bin/nvcc" ]; then
      cuda_root=$candidate
      break
    fi
  done
fi

echo "== Machine ($(date -u '+%Y-%m-%d %H:%M:%S UTC'), budget ${budget} s)"
"$python" "${check[@]}" machine ${cuda_root:+--cuda-root "$cuda_root"} \
  --out "$logs/machine.json" || echo "  (the report failed; going on)"
echo "== Prepared"
"$python" "${check[@]}" prepared --prepared "$prep" \
  --out "$logs/prepared.json" ||
  fail "build-gpu-check/ cannot be used here (see above)"

build=$(mkdir -p "${GPU_CHECK_BUILD:-$prep/build}" &&
        cd "${GPU_CHECK_BUILD:-$prep/build}" && pwd)
echo "== Build: the runtime and its tools ($build)"
[ -n "$cuda_root" ] ||
  fail "no CUDA toolkit: nvcc is neither on PATH nor in CUDA_HOME," \
       "CUDA_PATH or /usr/local/cuda"
generator="Unix Makefiles"
if command -v ninja > /dev/null; then
  generator=Ninja
fi
config=(-G "$generator" -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release
        -DTRANSFUSE_RUNTIME_ONLY=ON -DTRANSFUSE_CUDA=ON
        -DCUDAToolkit_ROOT="$cuda_root"
        # Used only where CMake finds no nlohmann-json package.
        -DTRANSFUSE_NLOHMANN_JSON_INCLUDE="$prep/nlohmann")
# NCCL's header from the preparation where the toolkit has none.
if [ ! -f "$cuda_root/include/nccl.h" ]; then
  config+=(-DTRANSFUSE_NCCL_INCLUDE="$prep/nccl")
fi

# The runtime opens OpenBLAS whenever it creates a session, a CUDA one too
# (it sets the CPU kernels' thread count then). Where OpenBLAS is missing,
# a stand-in with its three functions lets CUDA sessions be created; CUDA
# artifacts call no CPU GEMM, and the stand-in's stops the process with a
# message should anything try.
openblas=system
libraries=$({ ldconfig -p || /sbin/ldconfig -p; } 2> /dev/null || true)
arch_dir=/usr/lib/$(uname -m)-linux-gnu
if [[ $libraries != *"libopenblas.so.0 "* ]] &&
   [ ! -e "$arch_dir/openblas-openmp/libopenblas.so.0" ]; then
  openblas=stand-in
  mkdir -p "$build/openblas-stand-in"
  "${CC:-cc}" -shared -fPIC -O2 -o "$build/openblas-stand-in/libopenblas.so.0" \
    -x c - << 'EOF'
#include <stdio.h>
#include <stdlib.h>
void cblas_sgemm(void) {
  fputs("gpu-check: OpenBLAS is not installed here and its stand-in runs "
        "no CPU GEMM\n", stderr);
  abort();
}
void openblas_set_num_threads(int threads) { (void)threads; }
char *openblas_get_corename(void) { return "none (gpu-check stand-in)"; }
EOF
  config+=(-DTRANSFUSE_OPENBLAS_OPENMP="$build/openblas-stand-in/libopenblas.so.0")
  echo "  OpenBLAS is not installed: using a stand-in for CUDA sessions"
else
  # Found again, should an earlier configuration have chosen the stand-in.
  config+=(-UTRANSFUSE_OPENBLAS_OPENMP)
fi

# NCCL for the nccl check, where neither the loader nor the toolkit has it:
# the copy PyTorch's CUDA wheels install.
if [ -z "${TRANSFUSE_NCCL_LIBRARY:-}" ] &&
   [[ $libraries != *"libnccl.so.2 "* ]] &&
   [ ! -e "$cuda_root/lib64/libnccl.so.2" ]; then
  nccl=$("$python" -c 'import glob, site, sys
found = [p for d in site.getsitepackages() + [site.getusersitepackages()]
         for p in glob.glob(d + "/nvidia/**/libnccl.so.2", recursive=True)]
print(found[0] if found else "")' 2> /dev/null || true)
  if [ -n "$nccl" ]; then
    export TRANSFUSE_NCCL_LIBRARY="$nccl"
    echo "  NCCL: $nccl"
  fi
fi

# Configure and build within five minutes: on a 16-core machine it takes
# about one (nvcc on the attention kernels is the longest part).
build_limit=300
build_start=$(date +%s)
build_status=PASS
left() {
  local seconds=$((build_limit - $(date +%s) + build_start))
  echo $((seconds > 1 ? seconds : 1))
}
if ! timeout "$(left)" cmake "${config[@]}" > "$logs/build.log" 2>&1 ||
   ! timeout "$(left)" cmake --build "$build" -j "${JOBS:-$(nproc)}" \
       >> "$logs/build.log" 2>&1
then
  build_status=FAIL
  tail -n 25 "$logs/build.log"
fi
build_seconds=$(($(date +%s) - build_start))
echo "  $build_status in $build_seconds s ($generator, OpenBLAS $openblas;" \
     "log: $logs/build.log)"
printf '{"status": "%s", "seconds": %d, "generator": "%s", "openblas": "%s", "directory": "%s", "log": "logs/build.log"}\n' \
  "$build_status" "$build_seconds" "$generator" "$openblas" "$build" \
  > "$logs/build.json"

echo "== Checks"
status=0
"$python" "${check[@]}" run --prepared "$prep" \
  --runtime "$build/lib/libtransfuse_runtime.so" --bin-dir "$build/bin" \
  --out "$out" ${cuda_root:+--cuda-root "$cuda_root"} \
  --machine "$logs/machine.json" --build "$logs/build.json" \
  --deadline $((start + budget)) ${check_args[@]+"${check_args[@]}"} ||
  status=$?
[ "$bench" = 1 ] || exit "$status"

left=$((start + budget - $(date +%s)))
echo "== Benchmark (bench/gpu.py, ${left} s of the budget left)"
mode=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["mode"])' \
       "$out/gpu-check.json" 2> /dev/null || echo unknown)
not_run=
if [ "$mode" != gpu ]; then
  not_run="the checks ran in mode $mode, not on a GPU"
elif [ "$build_status" != PASS ]; then
  not_run="the runtime did not build"
elif [ "$left" -lt 30 ]; then
  not_run="only $left s of the budget left"
fi
if [ -n "$not_run" ]; then
  echo "  not run: $not_run"
  exit 1
fi
# BENCH_ARGS is a list of options: split on purpose.
# shellcheck disable=SC2086
"$python" bench/gpu.py run --runtime "$build/lib/libtransfuse_runtime.so" \
  --artifacts "$prep/bench" --out "$out" --time-limit "$left" \
  ${BENCH_ARGS:-} || status=1
exit "$status"
