#!/usr/bin/env bash
# Configures and builds spk (library, `spk` command, tests) into the folder given (default build/).
# Extra arguments go to cmake, e.g. scripts/build.sh build-cuda -DSPK_CUDA=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
jobs=${SPK_JOBS:-$(nproc)}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$dir" -j "$jobs"
