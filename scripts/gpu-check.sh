#!/usr/bin/env bash
# On the GPU machine: build with CUDA for sm_90, run every GPU test, run compute-sanitizer on a
# representative subset, the Python package's GPU tests and GNN example (scripts/gpu-python.sh; GPU_CHECK_PYTHON=0 skips
# them), then quick benchmarks of every op (GPU_CHECK_BENCH picks which; GPU_CHECK_TESTS=0 skips the tests,
# GPU_CHECK_OTHER_TESTS=0 the non-GPU ones). Logs: $OUT/gpu-logs.tgz (OUT defaults to gpu-out/). All of it takes more
# than one 10-minute device call: split it, e.g. GPU_CHECK_OTHER_TESTS=0 GPU_CHECK_BENCH="fusedmm-backward spgemm" (about
# 2 min build, 1.5 min GPU tests, 3.5 min Python and GNN, then the benchmarks), then GPU_CHECK_TESTS=0 GPU_CHECK_PYTHON=0
# with the other benchmarks on the warm machine.
# Run scripts/stage-matrices.sh first on the machine that has ../shared, and carry .data. SPK_COMMIT: the commit
# whose tree this is, for the logs.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
# Logs are written outside $OUT and packed into $OUT/gpu-logs.tgz at every step: the device tool
# brings back only a few files, and whatever a time limit cuts off, the last archive survives.
LOG=$(mktemp -d)
mkdir -p "$OUT"
matrices=$PWD/.data/matrices
[ -d "$matrices" ] || matrices=$PWD/../shared/matrices
export SPK_MATRICES=$matrices
status=0
pack() { tar -czf "$OUT/gpu-logs.tgz" -C "$LOG" .; }
step() {
  pack
  echo "== $*"
}

step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv | tee "$LOG/device.txt"
# The commit under test: SPK_COMMIT when the caller names it. The device tool copies the working tree,
# and its copy's .git can lag (a run of bb100c6 printed 02ce6db here), so git's HEAD is marked as such.
if [ -n "${SPK_COMMIT:-}" ]; then
  echo "commit $SPK_COMMIT" | tee -a "$LOG/device.txt"
else
  echo "git HEAD (may lag the copied tree) $(git rev-parse HEAD 2>/dev/null)" | tee -a "$LOG/device.txt"
fi

step "build"
# Position-independent code, so that the Python package links this build's library (installed below)
# instead of compiling it again.
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPK_CUDA=ON -DSPK_WERROR=OFF -DSPK_MATRIX_DIR="$matrices" \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON >"$LOG/configure.log" 2>&1 || { tail -30 "$LOG/configure.log"; exit 1; }
# Keep going past a failing target so that the GPU tests that did build still run.
if ! cmake --build build-gpu -j "$(nproc)" -- -k 0 >"$LOG/build.log" 2>&1; then
  grep -E "error" -A3 "$LOG/build.log" | head -40
  status=1
fi

# GPU_CHECK_TESTS=0 skips the tests and the sanitizers (a benchmark-only call after a tested one).
tests=${GPU_CHECK_TESTS:-1}
if [ "$tests" != 0 ]; then
  step "gpu tests"
  ctest --test-dir build-gpu -L gpu --output-on-failure --timeout 900 >"$LOG/gpu-tests.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*" "$LOG/gpu-tests.log" | head -30
  # The other tests run every backend under test, the CUDA one included when a device is present
  # (GPU_CHECK_OTHER_TESTS=0 skips them: CI runs them too, without the CUDA backend).
  if [ "${GPU_CHECK_OTHER_TESTS:-1}" != 0 ]; then
    step "all other tests"
    ctest --test-dir build-gpu -LE gpu -E package -j 8 --output-on-failure --timeout 900 >"$LOG/other-tests.log" 2>&1 || status=1
    grep -E "tests passed|Failed|\*\*\*" "$LOG/other-tests.log" | head -30
  fi
fi

# The Python package's GPU tests and the GNN example (GPU_CHECK_PYTHON=0 skips them, SPK_GNN=0 the example),
# over the library just built.
if [ "${GPU_CHECK_PYTHON:-1}" != 0 ]; then
  step "python on the GPU"
  cmake --install build-gpu --prefix build-gpu/prefix >"$LOG/install.log" 2>&1 && export SPK_PREFIX=$PWD/build-gpu/prefix
  scripts/gpu-python.sh "$LOG" || status=1
fi

step "compute-sanitizer memcheck (subset)"
if [ "$tests" != 0 ] && command -v compute-sanitizer >/dev/null; then
  compute-sanitizer --tool memcheck --error-exitcode 3 build-gpu/tests/test_cuda_spmm_test \
    --gtest_filter='*LongRowBin*:*EmptyShapes*:*TransposedA*:*HalfPrecision*' >"$LOG/memcheck.log" 2>&1 || status=1
  tail -3 "$LOG/memcheck.log"
  compute-sanitizer --tool racecheck --error-exitcode 3 build-gpu/tests/test_cuda_segment_group_test >"$LOG/racecheck.log" 2>&1 || status=1
  tail -3 "$LOG/racecheck.log"
fi

# Benchmarks: GPU_CHECK_BENCH names which (all by default, none when set empty); each writes bench-<name>.{json,txt}.
benches=${GPU_CHECK_BENCH-spmm measured deterministic sddmm fusedmm spgemm}  # set and empty: none
spk_bench() {  # name, then spk bench arguments
  local name=$1
  shift
  step "bench $name"
  timeout 300 build-gpu/bin/spk bench --backend cuda --suite bench/suites/gpu-quick.txt --json "$LOG/bench-$name.json" "$@" \
    >"$LOG/bench-$name.txt" 2>&1 || status=1
  grep -E "^geomean|error" "$LOG/bench-$name.txt"
  pack  # a device call's time limit may cut the next step short: keep this one's results
}
if [ -x build-gpu/bin/spk ]; then
  for b in $benches; do
    case $b in
      spmm) spk_bench spmm --op spmm --n 4,32,128 --warmup 5 --reps 30 ;;
      measured) spk_bench measured --op spmm --n 32,128 --tune measure --warmup 5 --reps 30 ;;  # the selector's oracle
      deterministic) spk_bench deterministic --op spmm --n 32,128 --deterministic --warmup 5 --reps 30 ;;
      sddmm) spk_bench sddmm --op sddmm --n 32,128 --warmup 3 --reps 10 ;;
      fusedmm) spk_bench fusedmm --op fusedmm --n 32,128 --preset attention --heads 4 --warmup 3 --reps 10 ;;
      fusedmm-backward) spk_bench fusedmm-backward --op fusedmm --backward --n 32,128 --preset attention --heads 4 --warmup 2 --reps 5 ;;
      fusedmm-edge-terms) spk_bench fusedmm-edge-terms --op fusedmm --backward --edge-terms --n 32,128 --preset attention --heads 4 \
        --warmup 2 --reps 5 ;;
      spgemm) spk_bench spgemm --op spgemm --warmup 3 --reps 10 ;;
      tc) spk_bench tc --op tc --warmup 2 --reps 5 ;;
      *) echo "unknown benchmark '$b'"; status=1 ;;
    esac
  done
fi
pack
exit $status
