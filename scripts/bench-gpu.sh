#!/usr/bin/env bash
# The GPU benchmark suites of the CUDA issues, against cuSPARSE in the same process:
#   scripts/bench-gpu.sh [PART ...]     PART: spmm sddmm fusedmm spgemm spgemm-f64 amg amg-large tc sweep gnn (default: all),
#                                       or small (SpMM, SDDMM and one-head FusedMM on bench/suites/gpu-small.txt)
# Each part fits one 10-minute device call. Results: $OUT/<part>.json and .txt (OUT defaults to
# bench/results/raw), a markdown table per JSON by scripts/bench-table.py.
# Environment: SPK_BUILD_DIR (default build-gpu), SPK_MATRICES (shared matrices folder), SPK_BENCH_PACK=1: results go
# to one archive, $OUT/bench-results.tgz, rewritten after every benchmark (the device tool brings back only a few files
# from $OUT, and what a time limit cuts off leaves the last archive). SPK_BENCH_TIMING=graph: short calls timed by
# graph replay (spk bench --timing graph: the device's time alone) instead of stream batches.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${SPK_BUILD_DIR:-build-gpu}
OUT=${OUT:-bench/results/raw}
mkdir -p "$OUT" .data/amg
pack() { :; }
if [ "${SPK_BENCH_PACK:-0}" != 0 ]; then
  archive=$(realpath "$OUT")/bench-results.tgz
  OUT=$(mktemp -d)
  pack() { tar -czf "$archive" -C "$OUT" .; }
fi
if [ -z "${SPK_MATRICES:-}" ]; then
  SPK_MATRICES=$PWD/.data/matrices
  [ -d "$SPK_MATRICES" ] || SPK_MATRICES=$PWD/../shared/matrices
fi
export SPK_MATRICES
parts=${*:-spmm sddmm fusedmm spgemm spgemm-f64 amg amg-large tc sweep gnn}
status=0

# Configure once, then always bring the tool up to date (a kept build folder may be older).
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPK_CUDA=ON -DSPK_WERROR=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    >/dev/null || exit 1
fi
cmake --build "$build" -j "$(nproc)" --target spk_cli >/dev/null || exit 1
spk=$build/bin/spk

bench() {  # name, then spk bench arguments
  local name=$1
  shift
  echo "== $name"
  "$spk" bench --backend cuda --timing "${SPK_BENCH_TIMING:-stream}" --json "$OUT/$name.json" "$@" >"$OUT/$name.txt" 2>&1 || status=1
  grep -E "^geomean|error" "$OUT/$name.txt"
  python3 scripts/bench-table.py "$OUT/$name.json" >"$OUT/$name.md" 2>/dev/null || true
  pack
}

amg() {  # kind spec: R·A, A·P and (R·A)·P of the smoothed-aggregation hierarchy's first level
  local name=$1 spec=$2 base=.data/amg/$1
  [ -f "${base}_A.spkb" ] || "$spk" gen "$spec" --amg --quiet -o "$base.spkb" || { status=1; return; }
  bench "amg-$name-RA" --op spgemm --matrix "${base}_R.spkb" --b "${base}_A.spkb" --warmup 2 --reps 5
  bench "amg-$name-AP" --op spgemm --matrix "${base}_A.spkb" --b "${base}_P.spkb" --warmup 2 --reps 5
  if [ ! -f "${base}_RA.spkb" ] &&
    ! "$spk" run spgemm "${base}_R.spkb" --b "${base}_A.spkb" --backend cuda -o "${base}_RA.spkb" >"$OUT/amg-$name-RA-run.txt" 2>&1; then
    echo "amg $name: R·A for (R·A)·P failed: $(tail -2 "$OUT/amg-$name-RA-run.txt")"
    status=1
    return
  fi
  bench "amg-$name-RAP" --op spgemm --matrix "${base}_RA.spkb" --b "${base}_P.spkb" --warmup 2 --reps 5
}

for part in $parts; do
  case $part in
    spmm)
      bench spmm --op spmm --suite bench/suites/gpu-spmm.txt --n 4,32,128,512 --warmup 5 --reps 30
      bench spmm-deterministic --op spmm --suite bench/suites/gpu-quick.txt --n 32,128 --deterministic --warmup 5 --reps 30
      bench spmm-measured --op spmm --suite bench/suites/gpu-quick.txt --n 32,128 --tune measure --warmup 5 --reps 30 ;;
    sddmm) bench sddmm --op sddmm --suite bench/suites/gpu-spmm.txt --n 32,128 --warmup 3 --reps 20 ;;
    small)  # the cases spk trails on: a quick check of a change to the small-matrix paths
      bench small-spmm --op spmm --suite bench/suites/gpu-small.txt --n 4,32,128 --warmup 5 --reps 20
      bench small-sddmm --op sddmm --suite bench/suites/gpu-small.txt --n 32,128 --warmup 5 --reps 20
      bench small-fusedmm --op fusedmm --preset attention --heads 1 --suite bench/suites/gpu-small.txt --n 32,128 --warmup 3 --reps 10 ;;
    fusedmm)
      # The forward on the SpMM issue's suite (its four generators and the shared real matrices), as issue 4 asks.
      bench fusedmm-attention-h1 --op fusedmm --preset attention --heads 1 --suite bench/suites/gpu-spmm.txt --n 32,128 --warmup 3 --reps 10
      bench fusedmm-attention-h4 --op fusedmm --preset attention --heads 4 --suite bench/suites/gpu-spmm.txt --n 32,128 --warmup 3 --reps 10
      bench fusedmm-gcn --op fusedmm --preset gcn --suite bench/suites/gpu-quick.txt --n 32,128 --warmup 3 --reps 10
      # The backward pass against its forward (the issue's 2.5x goal), recomputing the scores and with the edge terms kept.
      bench fusedmm-backward --op fusedmm --backward --preset attention --heads 4 --suite bench/suites/gpu-quick.txt --n 32,128 \
        --warmup 2 --reps 5
      bench fusedmm-backward-edge-terms --op fusedmm --backward --edge-terms --preset attention --heads 4 \
        --suite bench/suites/gpu-quick.txt --n 32,128 --warmup 2 --reps 5 ;;
    spgemm) bench spgemm --op spgemm --suite bench/suites/gpu-spgemm.txt --warmup 2 --reps 5 ;;
    # In f64, as the issue's OpSparse figures are (bench/suites/opsparse.txt lists them).
    spgemm-f64) bench spgemm-f64 --op spgemm --dtype f64 --suite bench/suites/opsparse.txt --warmup 2 --reps 5 ;;
    amg)
      amg laplace3d-100 laplace3d:n=100
      amg bigstar2d-2000 bigstar2d:n=2000
      amg brick3d-64 brick3d:n=64
      amg elasticity3d-40 elasticity3d:n=40 ;;
    amg-large)  # the same products at 3-16M rows (about 20 GB of generated files under .data/amg)
      amg laplace3d-250 laplace3d:n=250
      amg bigstar2d-4000 bigstar2d:n=4000
      amg brick3d-200 brick3d:n=200
      amg elasticity3d-100 elasticity3d:n=100 ;;
    tc) bench tc --op tc --suite bench/suites/gpu-spgemm.txt --warmup 2 --reps 5 ;;
    sweep)
      bench sweep-spmm --op spmm --suite bench/suites/sweep72.txt --n 32,128 --warmup 3 --reps 10
      bench sweep-sddmm --op sddmm --suite bench/suites/sweep72.txt --n 32,128 --warmup 3 --reps 10 ;;
    gnn)  # examples/gnn: GCN and GAT with spk's ops and with PyTorch Geometric (the Python issue's figures)
      echo "== gnn"
      # The Python package over this build's library (installed; no second CUDA build) when it is position independent.
      cmake --install "$build" --prefix "$build/prefix" >/dev/null 2>&1 && export SPK_PREFIX=$(realpath "$build/prefix")
      scripts/gpu-python.sh "$OUT" || status=1
      pack ;;
    *) echo "unknown part '$part' (spmm sddmm fusedmm spgemm spgemm-f64 amg amg-large tc sweep gnn small)"; status=2 ;;
  esac
done
pack
exit $status
