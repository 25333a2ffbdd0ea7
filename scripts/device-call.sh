#!/usr/bin/env bash
# One call on the GPU machine, within its time limit: runs the named steps in order, each cut short
# where the call's deadline would pass, and packs every log into $OUT/device-call.tgz after each
# step (the device tool brings back only a few files, and a cut call keeps what it packed).
#   scripts/device-call.sh STEP ...
# Steps:
#   build            configure and build everything (build-gpu, sm_90, 16 jobs)
#   build:TARGET     build one target (e.g. build:spk_cli, build:test_cuda_fusedmm_test)
#   tests            every C++ GPU test (ctest -L gpu)
#   tests:REGEX      the GPU tests whose names match REGEX (test names are CudaFusedmm.*, CudaSddmm.*, ...)
#   gtest:BINARY[:FILTER]  one test executable of build-gpu/tests run as itself (one process and one CUDA start-up
#                    for all its tests, where ctest starts one a test: test_cuda_spgemm_test's 63 tests took
#                    221 s through ctest, 150 s alone), FILTER a --gtest_filter (its own ':' allowed)
#   python           the Python package's GPU tests (scripts/gpu-python.sh, no GNN example)
#   bench:OP:SUITE[:EXTRA]  spk bench --backend cuda --op OP --suite bench/suites/SUITE.txt --n 32,128, EXTRA's
#                    commas turned to spaces (e.g. bench:fusedmm:gpu-spmm:--preset,attention,--heads,1); an
#                    EXTRA with --n replaces the widths (bench:fusedmm:gpu-small:--n,128,--config,team4), and so
#                    does BENCH_N in the environment for every bench step (BENCH_N=4,32,128: a list EXTRA
#                    cannot carry, its commas being separators)
# Environment: DEADLINE (seconds from the start, default 570), SPK_COMMIT (recorded in device.txt).
# Run scripts/stage-matrices.sh first where ../shared is, and carry .data/matrices.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
LOG=$(mktemp -d)
DEADLINE=${DEADLINE:-570}
export SPK_MATRICES=${SPK_MATRICES:-$PWD/.data/matrices}
pack() { tar -czf "$OUT/device-call.tgz" -C "$LOG" .; }
left() { echo $((DEADLINE - SECONDS)); }
status=0
run_step() {  # name, seconds wanted at most, command...
  local name=$1 want=$2
  shift 2
  local budget
  budget=$(left)
  [ "$budget" -gt "$want" ] && budget=$want
  if [ "$budget" -lt 10 ]; then
    echo "== $name: skipped, $(left) s left"
    return
  fi
  echo "== $name (at most $budget s, at $SECONDS s)"
  timeout "$budget" "$@" >"$LOG/$name.log" 2>&1 || { echo "   exit $?"; status=1; }
  pack
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$LOG/device.txt" 2>&1
echo "commit ${SPK_COMMIT:-unknown: the .git of the copied tree can lag}" >>"$LOG/device.txt"
configure() {
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPK_CUDA=ON -DSPK_WERROR=OFF -DSPK_MATRIX_DIR="$SPK_MATRICES" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON
}
for step in "$@"; do
  case $step in
    build) run_step build 300 bash -c "$(declare -f configure); configure && cmake --build build-gpu -j16 -- -k 0"
      grep -E "error|FAILED" "$LOG/build.log" | head -10 ;;
    build:*) run_step "build-${step#build:}" 300 bash -c "$(declare -f configure); configure && cmake --build build-gpu -j16 --target ${step#build:}" ;;
    tests) run_step gpu-tests 300 ctest --test-dir build-gpu -L gpu --output-on-failure --timeout 250
      grep -E "tests passed|\*\*\*Failed|Timeout" "$LOG/gpu-tests.log" | head -20 ;;
    tests:*) run_step gpu-tests-filtered 300 ctest --test-dir build-gpu -L gpu -R "${step#tests:}" --output-on-failure --timeout 250
      grep -E "tests passed|No tests were found|\*\*\*Failed" "$LOG/gpu-tests-filtered.log" | head -20 ;;
    gtest:*)
      IFS=: read -r _ binary filter <<<"$step"
      run_step "gtest-$binary" 300 env GTEST_FILTER="${filter:-*}" "build-gpu/tests/$binary"
      grep -E "^\[  (PASSED|FAILED) " "$LOG/gtest-$binary.log" | head -12 ;;
    python)
      cmake --install build-gpu --prefix build-gpu/prefix >"$LOG/install.log" 2>&1
      run_step python 200 env SPK_PREFIX="$PWD/build-gpu/prefix" SPK_GNN=0 scripts/gpu-python.sh "$LOG/python"
      grep -hE "passed|failed" "$LOG/python.log" | tail -2 ;;
    bench:*)
      IFS=: read -r _ op suite extra <<<"$step"
      name="bench-$op-$suite"
      # EXTRA in the name, cut to fit a file name (a sweep's many --config values), with a checksum of the whole
      [ -n "$extra" ] && name="$name-$(printf '%s' "$extra" | tr -c 'a-zA-Z0-9' '_' | cut -c1-80)-$(printf '%s' "$extra" | cksum | cut -d' ' -f1)"
      widths="--n ${BENCH_N:-32,128}"
      [[ ",$extra," == *,--n,* ]] && widths=""  # EXTRA gives its own
      # shellcheck disable=SC2086
      run_step "$name" 300 build-gpu/bin/spk bench --backend cuda --op "$op" --suite "bench/suites/$suite.txt" $widths \
        --warmup 3 --reps 10 --json "$LOG/$name.json" ${extra//,/ }
      grep -h "^geomean.*vs" "$LOG/$name.log" ;;
    *) echo "unknown step '$step'"; status=1 ;;
  esac
done
pack
echo "== done at $SECONDS s"
exit $status
