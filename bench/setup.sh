#!/usr/bin/env bash
# Installs the benchmark peers that Debian does not package (ONNX Runtime,
# JAX, IREE, PyTorch 2 for torch.compile; about 6 GB with PyTorch's CUDA
# libraries) from PyPI into bench/.venv, pinned by bench/requirements.txt, and prints
# the virtualenv's Python. The product and its tests never use it;
# bench/forward.py runs the peers from it when it is there.
#
#   bash bench/setup.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=$here/.venv
if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv "$venv" ||
    { echo "bench/setup.sh: cannot make a virtualenv: apt-get install" \
        "python3-venv" >&2; exit 1; }
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
  --requirement "$here/requirements.txt"
"$venv/bin/python" -c "import onnxruntime, jax, iree.compiler, iree.runtime, torch" ||
  { echo "bench/setup.sh: the peers do not import from $venv" >&2; exit 1; }
echo "$venv/bin/python"
