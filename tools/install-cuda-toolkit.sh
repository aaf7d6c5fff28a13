#!/usr/bin/env bash
# Prints the root of a CUDA 13 toolkit that builds and tests the CUDA
# target (nvcc, ptxas, libdevice, the CUDA and cuBLASLt headers), installing
# one when the machine has none.
#
# A toolkit at $CUDA_HOME, $CUDA_PATH or /usr/local/cuda is used as it is.
# Otherwise NVIDIA's pinned PyPI wheels of the parts the build needs are
# installed into .cuda-toolkit/ of this checkout (a virtual environment of
# Debian's python3, about 0.8 GB, once) and completed into the directory
# layout nvcc and CMake expect. TRANSFUSE_CUDA_FROM_PYPI=1 skips the search
# and uses (or makes) that copy. Progress goes to stderr, the root alone to
# stdout.
set -euo pipefail

top="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$top/.cuda-toolkit"

# The parts, pinned: compiler and assembler, the headers nvcc includes,
# CUDA's, cuBLASLt's and NCCL's headers, libdevice.
wheels=(
  nvidia-cuda-nvcc==13.0.88
  nvidia-cuda-crt==13.0.88
  nvidia-cuda-runtime==13.0.96
  nvidia-cuda-cccl==13.0.85
  nvidia-nvvm==13.0.88
  nvidia-cublas==13.1.0.3
  nvidia-nccl-cu13==2.28.9
)

complete() {
  local root=$1
  [ -x "$root/bin/nvcc" ] && [ -x "$root/bin/ptxas" ] &&
    [ -f "$root/nvvm/libdevice/libdevice.10.bc" ] &&
    [ -f "$root/include/cuda.h" ] && [ -f "$root/include/cublasLt.h" ] &&
    [ -f "$root/include/nccl.h" ]
}

if [ "${TRANSFUSE_CUDA_FROM_PYPI:-0}" != 1 ]; then
  for candidate in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    if [ -n "$candidate" ] && complete "$candidate"; then
      echo "$candidate"
      exit 0
    fi
  done
fi

root="$prefix/cuda"
if ! complete "$root"; then
  echo "install-cuda-toolkit: no CUDA 13 toolkit here; installing NVIDIA's" \
    "wheels into $prefix" >&2
  rm -rf "$prefix"
  /usr/bin/python3 -m venv "$prefix/venv"
  "$prefix/venv/bin/pip" install --quiet --disable-pip-version-check \
    --no-deps "${wheels[@]}" >&2
  site=$("$prefix/venv/bin/python3" -c \
    'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  ln -s "$site/nvidia/cu13" "$root"
  # What the toolkit installer lays out and the wheels leave out: the
  # per-target directories nvcc.profile points to, and lib64.
  mkdir -p "$root/targets/x86_64-linux"
  ln -sfn ../../include "$root/targets/x86_64-linux/include"
  ln -sfn ../../lib "$root/targets/x86_64-linux/lib"
  ln -sfn lib "$root/lib64"
  # NCCL's wheel has a directory of its own.
  ln -sfn "$site/nvidia/nccl/include/nccl.h" "$root/include/nccl.h"
  ln -sfn "$site/nvidia/nccl/lib/libnccl.so.2" "$root/lib/libnccl.so.2"
  complete "$root" || {
    echo "install-cuda-toolkit: the wheels in $prefix lack a part" >&2
    exit 1
  }
fi
echo "$root"
