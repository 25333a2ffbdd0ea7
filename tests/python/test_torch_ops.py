"""spk.torch_ops: opcheck and f64 gradcheck on the CPU (skipped when PyTorch is not installed)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import spk  # noqa: E402
import spk.torch_ops as ops  # noqa: E402
from conftest import random_csr  # noqa: E402


def torch_csr(rng, rows, cols, density=0.3, dtype=torch.float64, index_dtype=torch.int64):
    S = random_csr(rng, rows, cols, density=density)
    return spk.csr_array((torch.tensor(S.data, dtype=dtype), torch.tensor(S.indices, dtype=index_dtype),
                          torch.tensor(S.indptr, dtype=index_dtype)), shape=S.shape), S


def rand(rng, *shape, grad=True):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float64, requires_grad=grad)


def test_numpy_api_accepts_and_returns_tensors(rng):
    A, S = torch_csr(rng, 8, 6, dtype=torch.float32, index_dtype=torch.int32)
    B = torch.randn(6, 3)
    C = spk.spmm(A, B)
    assert isinstance(C, torch.Tensor) and C.dtype == torch.float32
    np.testing.assert_allclose(C.numpy(), S @ B.numpy(), rtol=1e-5, atol=1e-5)
    T = S.T.tocsr().astype(np.float32)
    C2 = spk.spgemm(A, spk.csr_array((torch.from_numpy(T.data), torch.from_numpy(T.indices), torch.from_numpy(T.indptr)), shape=(6, 8)))
    assert isinstance(C2.data, torch.Tensor)
    np.testing.assert_allclose(C2.to_scipy().toarray(), (S @ S.T).toarray(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reduce", ["sum", "mean"])
@pytest.mark.parametrize("transpose", [False, True])
def test_spmm_gradcheck(rng, reduce, transpose):
    A, _ = torch_csr(rng, 7, 5)
    values = A.data.clone().requires_grad_(True)
    B = rand(rng, 7 if transpose else 5, 3)
    torch.autograd.gradcheck(lambda v, b: ops.spmm(A, b, reduce, transpose=transpose, values=v), (values, B))


def test_spmm_forward_matches_numpy_api(rng):
    A, S = torch_csr(rng, 9, 9)
    B = rand(rng, 9, 4, grad=False)
    for reduce in ("sum", "mean", "max", "min"):
        np.testing.assert_allclose(ops.spmm(A, B, reduce).numpy(), spk.spmm(spk.from_scipy(S), B.numpy(), reduce), rtol=1e-12)


def test_spmm_max_has_no_gradient(rng):
    A, _ = torch_csr(rng, 5, 5)
    B = rand(rng, 5, 2)
    with pytest.raises(NotImplementedError, match="max"):
        ops.spmm(A, B, "max").sum().backward()


@pytest.mark.parametrize("heads,scale_by_a", [(1, True), (2, False)])
def test_sddmm_gradcheck(rng, heads, scale_by_a):
    A, _ = torch_csr(rng, 6, 5)
    values = A.data.clone().requires_grad_(True)
    X, Y = rand(rng, 6, 2 * heads), rand(rng, 5, 2 * heads)
    torch.autograd.gradcheck(lambda v, x, y: ops.sddmm(A, x, y, heads=heads, scale_by_a=scale_by_a, values=v), (values, X, Y))


FUSED = [
    ("dot", "identity", "none", "sum", 1),
    ("add", "leaky_relu(0.2)", "softmax", "sum", 2),  # GAT
    ("neg_sqdist", "sigmoid", "softmax", "mean", 1),
    ("value", "exp", "softmax", "sum", 1),
    ("dot", "tanh", "none", "max", 1),
]


@pytest.mark.parametrize("score,edge,normalize,aggregate,heads", FUSED)
def test_fusedmm_gradcheck(rng, score, edge, normalize, aggregate, heads):
    A, _ = torch_csr(rng, 6, 5, density=0.5)
    values = A.data.clone().requires_grad_(True)
    width = heads if score == "add" else 2 * heads
    X, Y, Z = rand(rng, 6, width), rand(rng, 5, width), rand(rng, 5, 2 * heads)
    if score == "value":
        f = lambda v, z: ops.fusedmm(A, None, None, z, score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads, values=v)
        torch.autograd.gradcheck(f, (values, Z))
    else:
        f = lambda x, y, z: ops.fusedmm(A, x, y, z, score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads)
        torch.autograd.gradcheck(f, (X, Y, Z))


def test_opcheck(rng):
    A, _ = torch_csr(rng, 6, 5, density=0.5)
    ip, ix, v = A.indptr, A.indices, A.data.clone().requires_grad_(True)
    X, Y, Z, B = rand(rng, 6, 4), rand(rng, 5, 4), rand(rng, 5, 4), rand(rng, 5, 3)
    G = rand(rng, 6, 4, grad=False)
    torch.library.opcheck(ops.spmm_op, (ip, ix, v, 6, 5, B, "sum", False))
    torch.library.opcheck(ops.spmm_op, (ip, ix, v, 6, 5, rand(rng, 6, 3), "mean", True))
    torch.library.opcheck(ops.sddmm_op, (ip, ix, v, 6, 5, X, Y, 2, True))
    torch.library.opcheck(ops.sddmm_backward_op, (ip, ix, v.detach(), 6, 5, X.detach(), Y.detach(), torch.ones(A.nnz, 2, dtype=torch.float64), 2, True))
    for score, edge, normalize, aggregate, heads in FUSED:
        x, y = (rand(rng, 6, heads), rand(rng, 5, heads)) if score == "add" else (X, Y)
        if score == "value":
            x = y = None
        z = rand(rng, 5, 2 * heads)
        args = (ip, ix, v, 6, 5, x, y, z, score, *spk._ops.parse_edge(edge), normalize, aggregate, heads)
        torch.library.opcheck(ops.fusedmm_op, args)
        E, rm, rs, am = ops.fusedmm_op(*args)
        de = torch.ones_like(E)
        torch.library.opcheck(ops.fusedmm_backward_op, (ip, ix, v.detach(), 6, 5, de, None if x is None else x.detach(),
                                                        None if y is None else y.detach(), z.detach(), rm, rs, am, *args[8:]))


def test_from_edge_index_and_torch_sparse(rng):
    edge_index = torch.tensor([[0, 1, 2, 2], [1, 2, 0, 1]])
    A = spk.from_torch(edge_index)
    dense = torch.zeros(3, 3)
    dense[edge_index[1], edge_index[0]] = 1  # row = target, column = source
    np.testing.assert_array_equal(spk.to_scipy(A).toarray(), dense.numpy())
    T = dense.to_sparse_csr()
    np.testing.assert_array_equal(spk.to_scipy(spk.from_torch(T)).toarray(), dense.numpy())
    np.testing.assert_array_equal(spk.to_scipy(spk.from_torch(dense.to_sparse())).toarray(), dense.numpy())


def test_torch_compile_smoke(rng):
    A, S = torch_csr(rng, 8, 8, dtype=torch.float32)
    B = torch.randn(8, 4)

    @torch.compile(backend="aot_eager", fullgraph=True)
    def f(indptr, indices, values, b):
        return ops.spmm_op(indptr, indices, values, 8, 8, b, "sum", False).relu()

    np.testing.assert_allclose(f(A.indptr, A.indices, A.data, B).numpy(), np.maximum(S @ B.numpy(), 0), rtol=1e-5, atol=1e-5)
