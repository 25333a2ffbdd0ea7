#!/usr/bin/env bash
# Builds the Python package (python/) into a virtual environment and runs its pytest suite.
# The venv (build/python-venv, or $SPK_PYTHON_VENV) and the extension's CMake tree (build/python,
# or $SPK_PYTHON_BUILD) are kept, so a second run only rebuilds what changed. PyTorch is not
# installed here (gigabytes of CUDA wheels): test_torch_ops.py is reported as skipped without it.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=$(realpath -m "${SPK_PYTHON_VENV:-build/python-venv}")
build_dir=${SPK_PYTHON_BUILD:-build/python}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check numpy scipy pytest nanobind scikit-build-core
# --no-build-isolation: use the venv's nanobind and scikit-build-core instead of fetching them again.
SPK_WERROR=ON "$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation ./python \
  -C build-dir="$(realpath -m "$build_dir")"
cd tests/python
exec "$venv/bin/python" -m pytest -q -ra "$@"
