#!/usr/bin/env bash
# The CPU benchmark: spk against SciPy (SpMM), NumPy (SDDMM, attention FusedMM) and
# SuiteSparse:GraphBLAS (SpGEMM, triangle counting) on the matrices of a suite, written up in
# bench/results/cpu.md.
#   scripts/bench-cpu.sh [SUITE [SPGEMM_SUITE]]
# SUITE (default bench/suites/cpu.txt): SpMM vs SciPy, SDDMM and FusedMM vs NumPy, triangle
# counting vs GraphBLAS;
# SPGEMM_SUITE (default bench/suites/cpu-spgemm.txt): SpGEMM vs GraphBLAS.
# Environment: SPK_BUILD_DIR (default build), SPK_MATRICES (shared matrices folder, default
# ../shared/matrices), SPK_THREADS (default: all cores), SPK_BENCH_REPS (default 10).
# Generated matrices are written once to .data/ as .mtx so that every tool reads the same ones.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
suite=${1:-bench/suites/cpu.txt}
spgemm_suite=${2:-bench/suites/cpu-spgemm.txt}
build=${SPK_BUILD_DIR:-build}
matrices=${SPK_MATRICES:-$root/../shared/matrices}
threads=${SPK_THREADS:-$(nproc)}
reps=${SPK_BENCH_REPS:-10}
work=.data/bench-cpu
mkdir -p "$work" bench/results

# --- Python baselines -------------------------------------------------------------------
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv && python3 -m venv .venv; }
fi
if ! .venv/bin/python -c 'import numpy, scipy, graphblas' 2>/dev/null; then
  .venv/bin/pip install -q numpy scipy python-graphblas
fi

# --- spk ------------------------------------------------------------------------------------
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target spk_cli -j "$(nproc)"
spk=$root/$build/bin/spk

# --- the suites, resolved to .mtx files ----------------------------------------------------
names=$work/names.tsv
: >"$names"
# resolve SUITE OUT: one absolute .mtx path a line in OUT; generator specs are written to .data/.
resolve() {
  : >"$2"
  while IFS= read -r line || [ -n "$line" ]; do
    entry=$(printf '%s' "${line%%#*}" | xargs)
    [ -z "$entry" ] && continue
    case "$entry" in
      *.mtx | *.mtx.gz)
        case "$entry" in /*) path=$entry ;; *) path=$matrices/$entry ;; esac
        [ -f "$path" ] || { echo "bench-cpu: $path (from $1) not found; set SPK_MATRICES" >&2; exit 1; }
        ;;
      *)
        spec=${entry#gen:}
        label=$(printf '%s' "$spec" | tr ':,' '__' | tr -d '=')
        path=$root/.data/$label.mtx
        printf '%s\t%s\n' "$label" "$spec" >>"$names"
        [ -f "$path" ] || "$spk" gen "$spec" -o "$path"
        ;;
    esac
    echo "$path" >>"$2"
  done <"$1"
}
resolve "$suite" "$work/suite.txt"
resolve "$spgemm_suite" "$work/suite-spgemm.txt"

# --- measurements (OpenBLAS tuning variables unset for the measured processes only) -----------
clean_env=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
py=$root/.venv/bin/python
"${clean_env[@]}" "$spk" bench --op spmm,sddmm,fusedmm,tc --preset attention --suite "$work/suite.txt" --n 32,128 --warmup 3 --reps "$reps" \
  --threads "$threads" --json "$work/spk-spmm-tc.json"
"${clean_env[@]}" "$spk" bench --op spmm,sddmm,fusedmm --preset attention --suite "$work/suite.txt" --n 32,128 --warmup 3 --reps "$reps" \
  --threads 1 --json "$work/spk-spmm-1t.json"
# Narrow SpMM (SpMV and n = 4) on its own: the other operations have no use for such widths.
"${clean_env[@]}" "$spk" bench --op spmm --suite "$work/suite.txt" --n 1,4 --warmup 3 --reps "$reps" --threads "$threads" \
  --json "$work/spk-narrow.json"
"${clean_env[@]}" "$spk" bench --op spmm --suite "$work/suite.txt" --n 1,4 --warmup 3 --reps "$reps" --threads 1 --json "$work/spk-narrow-1t.json"
"${clean_env[@]}" "$spk" bench --op spgemm --suite "$work/suite-spgemm.txt" --warmup 1 --reps 3 --threads "$threads" --json "$work/spk-spgemm.json"
"${clean_env[@]}" "$py" bench/compare/scipy_spmm.py --suite "$work/suite.txt" --n 1,4,32,128 --warmup 3 --reps "$reps" --json "$work/scipy.json"
"${clean_env[@]}" "$py" bench/compare/numpy_fused.py --suite "$work/suite.txt" --n 32,128 --warmup 3 --reps "$reps" --json "$work/numpy.json"
"${clean_env[@]}" "$py" bench/compare/graphblas_spgemm.py --ops tc --suite "$work/suite.txt" --threads "$threads" --warmup 1 --reps 3 \
  --json "$work/graphblas-tc.json"
"${clean_env[@]}" "$py" bench/compare/graphblas_spgemm.py --ops spgemm --suite "$work/suite-spgemm.txt" --threads "$threads" --warmup 1 --reps 3 \
  --json "$work/graphblas-spgemm.json"
"$py" bench/compare/report.py --spk "$work/spk-spmm-tc.json" "$work/spk-narrow.json" "$work/spk-spgemm.json" \
  --spk-1t "$work/spk-spmm-1t.json" "$work/spk-narrow-1t.json" --scipy "$work/scipy.json" \
  --numpy "$work/numpy.json" \
  --graphblas "$work/graphblas-tc.json" "$work/graphblas-spgemm.json" --names "$names" \
  --suites "suites $suite and $spgemm_suite" --out bench/results/cpu.md
echo "bench-cpu: wrote bench/results/cpu.md (raw measurements in $work/)"
