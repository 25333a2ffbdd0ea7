#!/usr/bin/env bash
# On a machine with no network (the GPU machine): spk's Python package built with CUDA against the
# system's Python packages, installed into a fresh folder. Prints the folder (put it on PYTHONPATH);
# fails (exit 1) when the image lacks what the build needs offline (torch, scipy, pytest, nanobind,
# scikit-build-core). The build log goes to $1 (default /dev/null).
# No virtual environment: the image may keep its packages in the user's site folder, which a venv
# over the system site does not see (a venv build could not import scikit_build_core there).
set -uo pipefail
cd "$(dirname "$0")/.."
log=${1:-/dev/null}
python3 -c "import torch, scipy, pytest, nanobind, scikit_build_core" 2>/dev/null || {
  echo "the image lacks one of torch, scipy, pytest, nanobind, scikit-build-core" >&2
  exit 1
}
target=$(mktemp -d)/site
# -v and build.verbose: the compile and link command lines go to the log. With SPK_PREFIX (an installed
# spk built with position-independent code, as scripts/gpu-check.sh leaves build-gpu's) only the
# bindings compile; if that fails, the library is built again here.
pip_install() {
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) python3 -m pip install -v --no-build-isolation --no-deps --break-system-packages \
    --target "$target" ./python -C build.verbose=true >>"$log" 2>&1
}
if [ -n "${SPK_PREFIX:-}" ]; then
  SPK_CUDA=ON pip_install || { echo "the build over SPK_PREFIX=$SPK_PREFIX failed: building the library too" >>"$log"; SPK_PREFIX= SPK_CUDA=ON pip_install; } || exit 1
else
  SPK_CUDA=ON pip_install || exit 1
fi
# The C++ runtime must come from libstdc++.so, shared with PyTorch: a static copy inside the module
# has crashed in locale code on this machine's image. Say so in the log when it is not linked.
readelf -d "$target"/spk/_core*.so | grep NEEDED >>"$log"
readelf -d "$target"/spk/_core*.so | grep -q 'libstdc++' || echo "warning: spk/_core does not link libstdc++.so (a static copy?)" >>"$log"
echo "$target"
