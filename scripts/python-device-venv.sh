#!/usr/bin/env bash
# On a machine with no network (the GPU machine): a virtual environment over the system's
# packages with spk's Python package built with CUDA. Prints the venv's path; fails (exit 1)
# when the image lacks what the build needs offline (torch, scipy, pytest, nanobind,
# scikit-build-core). The build log goes to $1 (default /dev/null).
set -uo pipefail
cd "$(dirname "$0")/.."
log=${1:-/dev/null}
python3 -c "import torch, scipy, pytest, nanobind, scikit_build_core" 2>/dev/null || {
  echo "the image lacks one of torch, scipy, pytest, nanobind, scikit-build-core" >&2
  exit 1
}
venv=$(mktemp -d)/venv
python3 -m venv --system-site-packages "$venv" >>"$log" 2>&1 &&
  SPK_CUDA=ON CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$venv/bin/pip" install --no-build-isolation --no-deps ./python >>"$log" 2>&1 ||
  exit 1
echo "$venv"
