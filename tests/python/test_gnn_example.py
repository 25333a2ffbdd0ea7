"""examples/gnn/train.py on the CPU (skipped without PyTorch; the PyG comparison also without PyTorch Geometric):
its sparse-feature path, its learning, and its claim that with dense features spk's models and PyG's start from the
same weights and drop the same entries."""
import importlib.util
import sys

import numpy as np
import pytest
import scipy.sparse as sp

torch = pytest.importorskip("torch")

from conftest import REPO, shared_matrix  # noqa: E402


@pytest.fixture(scope="module")
def train():
    path = REPO / "examples" / "gnn" / "train.py"
    spec = importlib.util.spec_from_file_location("gnn_train", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gnn_train"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cora(train):
    shared_matrix("cora.mtx")
    adj, features, labels, split = train.load_planetoid("cora", np.random.default_rng(0))
    return train.symmetric_with_self_loops(adj), features, labels, split


@pytest.mark.parametrize("model", ["gcn", "gat"])
def test_sparse_features_give_the_logits_of_dense_ones(train, cora, model):
    adj, features, labels, _ = cora
    torch.manual_seed(0)
    net = train.build(model, "spk", adj, features.shape[1], int(labels.max()) + 1, torch.device("cpu"), (16, 2)).eval()
    dense = torch.from_numpy(features)
    sparse = train.to_spk(sp.csr_matrix(features), "cpu")
    assert sparse.nnz < features.size // 20  # bag-of-words: the sparse path is the one exercised
    with torch.no_grad():
        torch.testing.assert_close(net(sparse), net(dense), rtol=1e-4, atol=1e-5)


def test_spk_gcn_learns_cora_from_sparse_features(train, cora):
    adj, features, labels, split = cora
    accuracy, ms, _, _ = train.run("gcn", "spk", adj, features, labels, split, 60, torch.device("cpu"), (16, 8), sparse_features=True)
    assert accuracy > 0.7  # a 7-class problem: chance is about 0.3 (the largest class)
    assert ms > 0


def test_dense_features_train_as_pyg_does_seed_by_seed(train, cora):
    pytest.importorskip("torch_geometric")
    adj, features, labels, split = cora
    run = lambda impl: train.run("gcn", impl, adj, features, labels, split, 20, torch.device("cpu"), (16, 8), seed=3)
    assert run("spk")[0] == pytest.approx(run("pyg")[0], abs=1e-9)
