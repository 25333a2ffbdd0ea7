#!/usr/bin/env bash
# The CPU benchmark: spk against SciPy (SpMM) and SuiteSparse:GraphBLAS (SpGEMM, triangle
# counting) on the matrices of a suite, written up in bench/results/cpu.md.
#   scripts/bench-cpu.sh [SUITE]      (default bench/suites/cpu.txt)
# Environment: SPK_BUILD_DIR (default build), SPK_MATRICES (shared matrices folder, default
# ../shared/matrices), SPK_THREADS (default: all cores), SPK_BENCH_REPS (default 10).
# Generated matrices are written once to .data/ as .mtx so that every tool reads the same ones.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
suite=${1:-bench/suites/cpu.txt}
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

# --- the suite, resolved to .mtx files ------------------------------------------------------
resolved=$work/suite.txt
names=$work/names.tsv
: >"$resolved"
: >"$names"
while IFS= read -r line || [ -n "$line" ]; do
  entry=$(printf '%s' "${line%%#*}" | xargs)
  [ -z "$entry" ] && continue
  case "$entry" in
    *.mtx | *.mtx.gz)
      case "$entry" in /*) path=$entry ;; *) path=$matrices/$entry ;; esac
      [ -f "$path" ] || { echo "bench-cpu: $path (from $suite) not found; set SPK_MATRICES" >&2; exit 1; }
      label=$(basename "$path"); label=${label%.gz}; label=${label%.mtx}
      ;;
    *)
      spec=${entry#gen:}
      label=$(printf '%s' "$spec" | tr ':,' '__' | tr -d '=')
      path=$root/.data/$label.mtx
      [ -f "$path" ] || "$spk" gen "$spec" -o "$path"
      ;;
  esac
  echo "$path" >>"$resolved"
  printf '%s\t%s\n' "$label" "$entry" >>"$names"
done <"$suite"

# --- measurements (OpenBLAS tuning variables unset for the measured processes only) -----------
clean_env=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
"${clean_env[@]}" "$spk" bench --op spmm --suite "$resolved" --n 32,128 --warmup 3 --reps "$reps" --threads "$threads" --json "$work/spk-spmm.json"
"${clean_env[@]}" "$spk" bench --op spgemm,tc --suite "$resolved" --warmup 1 --reps 5 --threads "$threads" --json "$work/spk-spgemm.json"
cd bench/compare
"${clean_env[@]}" "$root/.venv/bin/python" scipy_spmm.py --suite "$root/$resolved" --n 32,128 --warmup 3 --reps "$reps" --json "$root/$work/scipy.json"
"${clean_env[@]}" "$root/.venv/bin/python" graphblas_spgemm.py --suite "$root/$resolved" --threads "$threads" --warmup 1 --reps 5 --json "$root/$work/graphblas.json"
cd "$root"
.venv/bin/python bench/compare/report.py --spk "$work/spk-spmm.json" "$work/spk-spgemm.json" --scipy "$work/scipy.json" \
  --graphblas "$work/graphblas.json" --names "$names" --out bench/results/cpu.md
echo "bench-cpu: wrote bench/results/cpu.md (raw measurements in $work/)"
