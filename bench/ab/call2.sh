#!/bin/bash
R=$OUT; mkdir -p $R/a
OUT=$R/a SPK_COMMIT=$1 DEADLINE=300 bash scripts/device-call.sh build:spk_cli
export SPK_MATRICES=$PWD/.data/matrices
B=build-gpu/bin/spk
mkdir -p $R/b
for k in 32 128; do
timeout 150 $B bench --backend cuda --op sddmm --suite bench/suites/gpu-spmm.txt --n $k --rounds 2 --no-vendor \
  --config default --config rows --config rows.w --config rows.s2 --config rows.w.s2 --config rows.s4 --config slices \
  --json $R/b/k$k.json > $R/b/k$k.txt 2>&1
done
tar -czf $R/bench.tgz -C $R b
