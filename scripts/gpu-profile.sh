#!/usr/bin/env bash
# Nsight Compute on the GPU machine, summarised: scripts/gpu-profile.sh REGEX COUNT COMMAND...
# profiles the first COUNT launches of kernels whose name matches REGEX while COMMAND runs (for
# example build-gpu/bin/spk bench ... --warmup 0 --reps 1), prints one row per launch
# (scripts/ncu-summary.py: time, DRAM / L2 / SM throughput, hit rates, registers, occupancy,
# spills, cycles between issues and the largest stall) and keeps ncu's full report in $OUT/ncu.txt
# (OUT defaults to gpu-out/). Under ncu every launch replays about 12 times: keep COUNT and the
# problem small enough for one device call.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 REGEX COUNT COMMAND..." >&2; exit 2; }
regex=$1 count=$2
shift 2
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
command -v ncu >/dev/null || { echo "ncu is not on this machine" >&2; exit 1; }
ncu --kernel-name "regex:$regex" --launch-count "$count" --section SpeedOfLight --section LaunchStats --section Occupancy \
  --section MemoryWorkloadAnalysis --section WarpStateStats "$@" >"$OUT/ncu.txt" 2>&1
status=$?
python3 scripts/ncu-summary.py "$OUT/ncu.txt" || tail -20 "$OUT/ncu.txt"
exit $status
