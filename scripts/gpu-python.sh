#!/usr/bin/env bash
# The Python package on the GPU machine: builds it with CUDA (scripts/python-device-build.sh), runs
# its GPU tests (test_cuda.py, test_torch_ops.py), then, unless SPK_GNN=0, the GNN example
# (examples/gnn/train.py: GCN and GAT with spk's ops and with PyTorch Geometric on Cora, CiteSeer,
# PubMed and R-MAT scale 20). Logs: $1 (a folder; default gpu-out). Needs build-gpu/bin/spk for
# the R-MAT graph. Exit status: non-zero when the build or a test fails.
set -uo pipefail
cd "$(dirname "$0")/.."
log=${1:-gpu-out}
mkdir -p "$log" .data
site=$(scripts/python-device-build.sh "$log/python-build.log") || {
  echo "skipped: the Python package could not be built here (see python-build.log)"
  exit 1
}
status=0
(cd tests/python && PYTHONPATH=$site python3 -m pytest -q -ra -p no:cacheprovider test_cuda.py test_torch_ops.py) >"$log/python-tests.log" 2>&1 ||
  status=1
tail -3 "$log/python-tests.log"
[ "${SPK_GNN:-1}" = 0 ] && exit $status
gnn() { PYTHONPATH=$site timeout 300 python3 examples/gnn/train.py --device cuda "$@" >>"$log/gnn.txt" 2>&1 || status=1; }
for d in cora citeseer pubmed; do gnn --dataset $d; done
if [ -x build-gpu/bin/spk ]; then
  [ -f .data/rmat20.mtx ] || build-gpu/bin/spk gen rmat:scale=20,edge_factor=16,seed=1 --quiet -o .data/rmat20.mtx
  gnn --graph .data/rmat20.mtx --features 128 --hidden 128 --heads 4 --epochs 20
fi
grep -E "^\||nodes|Error|error" "$log/gnn.txt" | tail -30
exit $status
