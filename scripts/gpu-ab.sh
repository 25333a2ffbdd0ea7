#!/usr/bin/env bash
# A/B of source variants in one device call: scripts/gpu-ab.sh -b "BENCH ARGS" [-b ...] [-t TEST ...] [PATCH...]
# builds spk_cli from the tree as it is (variant "base"), runs every `spk bench --backend cuda BENCH ARGS` given with -b,
# then, for each PATCH (a `git diff` of the variant against the tree), applies it alone, rebuilds (only what the patch
# touches recompiles), runs the same benches and reverses it. -t names a test executable (e.g. test_cuda_spgemm_test)
# to build and run in every variant but the base, so that a variant's figures come with its correctness (GTEST_FILTER
# from the environment, or a patch's own: a line "GTEST_FILTER=..." before its diff). Prints each
# variant's geomean lines as they come, then every variant's test results again (a device call returns only the end of
# its output), then one table per bench with every case's median ms in every variant and its ratio to base
# (scripts/ab-table.py); the variants' full bench output is in the files. Files:
# ab/<variant>-<bench>.{txt,json}, packed into $OUT/ab.tgz after each variant (OUT defaults to gpu-out/; the device
# tool brings back a few files only, and a call cut at its limit keeps what was packed). Variants share one build folder of their own,
# build-ab (build-gpu, which scripts/gpu-check.sh tests, never holds a variant's objects), so a later variant costs the
# rebuild of the files its patch touches (about a minute for a FusedMM or SpMM kernel header).
# Why build-ab/patched-files: the device's copy of the tree takes this machine's file times, so a file a patch touched
# and reversed comes back OLDER than the objects built from the patched text, and ninja would keep those objects in the
# next call. Every file a patch touched is listed there and touched before the next base build.
# AB_SETUP (environment): a shell command run once after the base build, before any bench, e.g. to
# generate AMG operators with build-ab/bin/spk (their files stay for every variant's benches).
# Run scripts/stage-matrices.sh first where ../shared exists, and carry .data/matrices.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
benches=()
tests=()
usage="usage: $0 -b \"BENCH ARGS\" [-b ...] [-t TEST ...] [PATCH...]"
while getopts "b:t:" opt; do
  case $opt in
    b) benches+=("$OPTARG") ;;
    t) tests+=("$OPTARG") ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ ${#benches[@]} -gt 0 ] || { echo "$usage" >&2; exit 2; }
for patch in "$@"; do git apply --check "$patch" || { echo "$patch does not apply to this tree" >&2; exit 2; }; done
OUT=${OUT:-$PWD/gpu-out}
log=$(mktemp -d)/ab
mkdir -p "$log" "$OUT"
pack() { tar -czf "$OUT/ab.tgz" -C "$(dirname "$log")" ab; }
matrices=$PWD/.data/matrices
[ -d "$matrices" ] || matrices=$PWD/../shared/matrices
export SPK_MATRICES=$matrices
t0=$(date +%s)
stamp() { echo "== $* ($(($(date +%s) - t0)) s)"; }

build() {  # variant, then test targets
  local variant=$1
  shift
  cmake --build build-ab -j "$(nproc)" --target spk_cli "$@" >"$log/build-$variant.log" 2>&1 || {
    grep -E "error" -A3 "$log/build-$variant.log" | head -20
    return 1
  }
  stamp "built $variant"
}
test_summary=()
run_tests() {  # variant
  for t in "${tests[@]}"; do
    build-ab/tests/"$t" >"$log/$1-$t.log" 2>&1
    test_summary+=("$1 $t: $(grep -E "PASSED|FAILED" "$log/$1-$t.log" | tail -1)")
    echo "${test_summary[-1]}"
    grep "^\[  FAILED" "$log/$1-$t.log" | head -5
  done
}
run_benches() {  # variant
  local k=0
  for args in "${benches[@]}"; do
    k=$((k + 1))
    # shellcheck disable=SC2086 # the bench arguments are a word list
    timeout 300 build-ab/bin/spk bench --backend cuda $args --json "$log/$1-$k.json" >"$log/$1-$k.txt" 2>&1 ||
      echo "bench $k of $1 failed: $(tail -1 "$log/$1-$k.txt")"
    echo "-- $1, bench $k: $args"
    grep -E "^geomean" "$log/$1-$k.txt"
  done
  stamp "benched $1"
}

cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPK_CUDA=ON -DSPK_WERROR=OFF -DSPK_MATRIX_DIR="$matrices" \
  >"$log/configure.log" 2>&1 || { tail -20 "$log/configure.log"; exit 1; }
patched=build-ab/patched-files
if [ -f "$patched" ]; then  # left by an earlier call: its objects may hold a variant's text
  sort -u "$patched" | while read -r f; do [ -f "$f" ] && touch "$f"; done
  rm -f "$patched"
fi
build base || { pack; exit 1; }
if [ -n "${AB_SETUP:-}" ]; then  # e.g. operators for the benches that only the built spk can generate
  bash -c "$AB_SETUP" >"$log/setup.log" 2>&1 || echo "AB_SETUP failed: $(tail -3 "$log/setup.log")"
  stamp "set up"
fi
run_benches base
pack
variants=(base)
for patch in "$@"; do
  name=$(basename "$patch")
  name=${name%.*}
  git apply --numstat "$patch" | cut -f3 >>"$patched"
  git apply "$patch" || continue
  if build "$name" "${tests[@]}"; then
    # A patch may name its own test filter: a line "GTEST_FILTER=..." before its diff (the long
    # tests only where the patch's code runs them).
    own_filter=$(sed -n '/^diff --git/q; s/^GTEST_FILTER=//p' "$patch")
    if [ -n "$own_filter" ]; then GTEST_FILTER=$own_filter run_tests "$name"; else run_tests "$name"; fi
    run_benches "$name"
    variants+=("$name")
  fi
  git apply -R "$patch"
  pack
done
if [ ${#test_summary[@]} -gt 0 ]; then
  echo "## tests"
  printf '%s\n' "${test_summary[@]}"
fi
for ((k = 1; k <= ${#benches[@]}; k++)); do
  echo "## bench $k: ${benches[$((k - 1))]}"
  python3 scripts/ab-table.py "${variants[@]/%/-$k.json}" --prefix "$log/"
done
