#!/usr/bin/env bash
# The Python package on the GPU machine: builds it with CUDA (scripts/python-device-build.sh), runs
# its GPU tests (test_cuda.py, test_torch_ops.py), then, unless SPK_GNN=0, the GNN example
# (examples/gnn/train.py: GCN and GAT with spk's ops and with PyTorch Geometric on Cora, CiteSeer,
# PubMed and R-MAT scale 20). Logs: $1 (a folder; default gpu-out). Needs build-gpu/bin/spk for
# the R-MAT graph. Python runs under gdb where the machine has it, so that a crash in native code
# leaves its backtrace in the log. Exit status: non-zero when the build or a test fails.
set -uo pipefail
cd "$(dirname "$0")/.."
log=${1:-gpu-out}
mkdir -p "$log" .data
# The example and tests read the matrices staged in .data/matrices (scripts/stage-matrices.sh).
[ -z "${SPK_MATRICES:-}" ] && [ -d .data/matrices ] && export SPK_MATRICES=$PWD/.data/matrices
site=$(scripts/python-device-build.sh "$log/python-build.log") || {
  echo "skipped: the Python package could not be built here (see python-build.log)"
  exit 1
}
python() {
  if command -v gdb >/dev/null; then
    PYTHONPATH=$site gdb -q -batch -return-child-result -ex run -ex bt --args python3 "$@"
  else
    PYTHONPATH=$site python3 "$@"
  fi
}
status=0
(cd tests/python && python -m pytest -q -ra -p no:cacheprovider test_cuda.py test_torch_ops.py) >"$log/python-tests.log" 2>&1 ||
  status=1
grep -E "passed|failed|^#[0-9]" "$log/python-tests.log" | tail -12
[ "${SPK_GNN:-1}" = 0 ] && exit $status
gnn() { timeout 300 bash -c "$(declare -f python); site=$site; python examples/gnn/train.py --device cuda $*" >>"$log/gnn.txt" 2>&1 || status=1; }
# Citation-graph epochs are host-bound and vary from run to run, and accuracy varies with the seed: each
# implementation trains 5 times (5 seeds), alternating.
for d in cora citeseer pubmed; do gnn --dataset $d --repeats 5; done
# The GCNs with a captured training step replayed (--cuda-graph): the device work without the host's overhead
# (PyG's GATConv removes self loops through a boolean mask, a device wait no capture allows).
for d in cora citeseer pubmed; do gnn --dataset $d --model gcn --repeats 3 --cuda-graph; done
if [ -x build-gpu/bin/spk ]; then
  [ -f .data/rmat20.mtx ] || build-gpu/bin/spk gen rmat:scale=20,edge_factor=16,seed=1 --quiet -o .data/rmat20.mtx
  gnn --graph .data/rmat20.mtx --features 128 --hidden 128 --heads 4 --epochs 20
fi
grep -E "^\||nodes|Error|error|^#[0-9]" "$log/gnn.txt" | tail -40
exit $status
