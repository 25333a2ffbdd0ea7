#!/usr/bin/env bash
# Copies the shared real matrices into .data/matrices (git-ignored) so that a device run, which
# sees only this checkout, can carry them: name .data in the device call's carry list.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-../shared/matrices}
mkdir -p .data/matrices
cp -u "$src"/*.mtx "$src"/*.mtx.gz "$src"/*.tns "$src"/*.tns.gz "$src"/*.tsv .data/matrices/ 2>/dev/null || true
du -sh .data/matrices
