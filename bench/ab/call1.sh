#!/bin/bash
R=$OUT; mkdir -p $R/a
OUT=$R/a SPK_COMMIT=$1 DEADLINE=420 bash scripts/device-call.sh build 'tests:CudaSddmm|SddmmConfig'
export SPK_MATRICES=$PWD/.data/matrices
B=build-gpu/bin/spk
mkdir -p $R/b
timeout 120 $B bench --backend cuda --op sddmm --suite bench/ab/meshes.txt --n 128 --rounds 3 --no-vendor \
  --config default --config rows.w --config rows.w.s4 --config rows.w.s16 --config rows.s8 --config rows.w.s2 --config slices \
  --json $R/b/k128.json > $R/b/k128.txt 2>&1
timeout 90 $B bench --backend cuda --op sddmm --suite bench/ab/meshes.txt --n 32 --rounds 3 --no-vendor \
  --config default --config rows.w --config rows --config rows.w.s2 --config rows.w.s8 --config slices \
  --json $R/b/k32.json > $R/b/k32.txt 2>&1
tar -czf $R/bench.tgz -C $R b
