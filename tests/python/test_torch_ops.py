"""spk.torch_ops: opcheck and f64 gradcheck on the CPU (skipped when PyTorch is not installed)."""
import numpy as np
import pytest
import scipy.sparse as sp

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


def test_transposed_pattern_matches_scipy(rng):
    A, S = torch_csr(rng, 9, 7, dtype=torch.float64, index_dtype=torch.int32)
    t_indptr, t_indices, t_entry = ops.transposed_pattern(A.indptr, A.indices, *A.shape)
    T = S.T.tocsr()
    T.sort_indices()
    np.testing.assert_array_equal(t_indptr.numpy(), T.indptr)
    np.testing.assert_array_equal(t_indices.numpy(), T.indices)
    np.testing.assert_array_equal(A.data[t_entry.to(torch.int64)].numpy(), T.data)


@pytest.mark.parametrize("transpose", [False, True])
def test_spmm_over_the_kept_transposed_pattern_matches_the_plain_op(rng, transpose):
    A, _ = torch_csr(rng, 8, 6)
    B = rand(rng, 8 if transpose else 6, 3)
    C = ops.spmm(A, B, transpose=transpose)  # B needs a gradient: the pattern is built and kept on A
    assert getattr(A, "_torch_transposed_pattern", None) is not None
    C.pow(2).sum().backward()
    B2 = B.detach().clone().requires_grad_(True)
    C2 = ops.spmm_op(A.indptr, A.indices, A.data, *A.shape, B2, "sum", transpose)
    C2.pow(2).sum().backward()
    torch.testing.assert_close(C, C2)
    torch.testing.assert_close(B.grad, B2.grad)


@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_kept_plans_serve_repeated_products_and_follow_value_changes(rng, reduce):
    A, S = torch_csr(rng, 8, 6)
    for step in range(3):
        B = rand(rng, 6, 3)
        C = ops.spmm(A, B, reduce)
        G = rand(rng, 8, 3, grad=False)
        (C * G).sum().backward()
        dense = torch.tensor(S.toarray()) * (2.0**step)
        if reduce == "mean":
            dense = dense / torch.tensor(np.maximum(np.diff(S.indptr), 1), dtype=torch.float64).unsqueeze(1)
        torch.testing.assert_close(C, dense @ B.detach())
        torch.testing.assert_close(B.grad, dense.T @ G)
        with torch.no_grad():
            A.data.mul_(2.0)  # in place: the kept plans read the new values
    kept = A.__dict__["_torch_kept_plans"]
    assert {(key[1], key[2]) for key in kept} == {(reduce, False), ("sum", True)}


@pytest.mark.parametrize("transpose", [False, True])
def test_spmm_with_other_values_keeps_a_plan_of_its_own(rng, transpose):
    """Values other than A.data (a dropout of them, new each step) get kept plans over a buffer of their own,
    and A's own plan still multiplies by A.data."""
    A, S = torch_csr(rng, 8, 6)
    dense = torch.tensor(S.toarray())
    op = (lambda M: M.T) if transpose else (lambda M: M)
    for step in range(3):
        B = rand(rng, 8 if transpose else 6, 3)
        keep = torch.tensor(rng.random(A.nnz) < 0.5, dtype=torch.float64)
        other = A.data * keep * (step + 2.0)
        C = ops.spmm(A, B, transpose=transpose, values=other)
        G = rand(rng, 6 if transpose else 8, 3, grad=False)
        (C * G).sum().backward()
        masked = torch.tensor(sp.csr_matrix((other.detach().numpy(), S.indices, S.indptr), shape=S.shape).toarray())
        torch.testing.assert_close(C, op(masked) @ B.detach())
        torch.testing.assert_close(B.grad, op(masked).T @ G)
        torch.testing.assert_close(ops.spmm(A, B.detach(), transpose=transpose), op(dense) @ B.detach())
    own = {key[-1] for key in A.__dict__["_torch_kept_plans"] if key[2] == transpose}
    assert own == ({False} if transpose else {False, True})  # one plan over Aᵀ serves both: it gathers any call's values


def test_spmm_forward_matches_numpy_api(rng):
    A, S = torch_csr(rng, 9, 9)
    B = rand(rng, 9, 4, grad=False)
    for reduce in ("sum", "mean", "max", "min"):
        np.testing.assert_allclose(ops.spmm(A, B, reduce).numpy(), spk.spmm(spk.from_scipy(S), B.numpy(), reduce), rtol=1e-12)


def extremum_inputs(rng, rows=7, cols=5, n=3, transpose=False):
    """A (with an empty row and an empty column, so that both C and Cᵀ-products have an empty
    output row) and B whose products A[i, j] B[j, q] are well apart in every output element, so
    gradcheck's perturbations never change a winner."""
    S = random_csr(rng, rows, cols, density=0.5).tolil()
    S[:, 2] = 0
    S = S.tocsr()
    S.sort_indices()
    A = spk.csr_array((torch.tensor(S.data), torch.tensor(S.indices, dtype=torch.int64), torch.tensor(S.indptr, dtype=torch.int64)),
                      shape=S.shape)
    B = rand(rng, rows if transpose else cols, n)
    assert_well_apart(A, B, transpose)
    return A, B


def assert_well_apart(A, B, transpose):
    rows = torch.repeat_interleave(torch.arange(A.shape[0]), A.indptr[1:] - A.indptr[:-1])
    out, w = (A.indices, rows) if transpose else (rows, A.indices)
    products = A.data.unsqueeze(1) * B.detach()[w]
    for r in range(A.shape[1] if transpose else A.shape[0]):
        p = products[out == r].sort(dim=0).values
        if p.shape[0] > 1:
            assert (p[1:] - p[:-1]).min() > 1e-4, "near tie: pick another seed"


@pytest.mark.parametrize("reduce", ["max", "min"])
@pytest.mark.parametrize("transpose", [False, True])
def test_spmm_extremum_gradcheck(rng, reduce, transpose):
    A, B = extremum_inputs(rng, transpose=transpose)
    values = A.data.clone().requires_grad_(True)
    torch.autograd.gradcheck(lambda v, b: ops.spmm(A, b, reduce, transpose=transpose, values=v), (values, B))


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_spmm_op_extremum_gradcheck_without_saved_arg(rng, reduce):
    """spk::spmm itself (not spk::spmm_arg) finds the winners again in its backward pass."""
    A, B = extremum_inputs(rng)
    values = A.data.clone().requires_grad_(True)
    torch.autograd.gradcheck(lambda v, b: ops.spmm_op(A.indptr, A.indices, v, *A.shape, b, reduce, False), (values, B))


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_spmm_extremum_gradient_values(reduce):
    """Known winners: row 0 holds A[0, 0] = 2, A[0, 1] = -1; row 1 is empty; row 2 holds A[2, 1] = 3."""
    A = spk.csr_array((torch.tensor([2.0, -1.0, 3.0], dtype=torch.float64, requires_grad=True), torch.tensor([0, 1, 1]),
                       torch.tensor([0, 2, 2, 3])), shape=(3, 2))
    B = torch.tensor([[1.0, -1.0], [4.0, 5.0]], dtype=torch.float64, requires_grad=True)
    dC = torch.tensor([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]], dtype=torch.float64)
    C = ops.spmm(A, B, reduce)
    C.backward(dC)
    # products of row 0: column 0 gives (2, -2), column 1 gives (-4, -5)
    win0 = (0, 0) if reduce == "max" else (1, 1)
    expected_C = [[(2.0, -2.0)[q] if win0[q] == 0 else (-4.0, -5.0)[q] for q in range(2)], [0.0, 0.0], [12.0, 15.0]]
    torch.testing.assert_close(C.detach(), torch.tensor(expected_C, dtype=torch.float64))
    dB = torch.zeros(2, 2, dtype=torch.float64)
    dvalues = torch.zeros(3, dtype=torch.float64)
    for q in range(2):
        j = win0[q]
        dB[j, q] += A.data[j].item() * dC[0, q]
        dvalues[j] += B[j, q].item() * dC[0, q]
        dB[1, q] += 3.0 * dC[2, q]
        dvalues[2] += B[1, q].item() * dC[2, q]
    torch.testing.assert_close(B.grad, dB)
    torch.testing.assert_close(A.data.grad, dvalues)


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_spmm_extremum_gradcheck_unsorted_and_repeated_entries(rng, reduce):
    """A row stores (0, 1) twice and its columns out of order: the gradient goes to the copy whose
    product won (the larger value for max with B >= 0, the smaller one for B < 0)."""
    indptr = torch.tensor([0, 4, 4, 6])
    indices = torch.tensor([2, 1, 0, 1, 1, 0])
    values = torch.tensor([0.3, 1.7, -0.6, 0.9, -1.2, 2.1], dtype=torch.float64, requires_grad=True)
    A = spk.csr_array((values.detach(), indices, indptr), shape=(3, 3))
    # winners in row 0 among the copies 1.7 and 0.9 of (0, 1): max picks 1.7 in column 0 and 0.9 in column 1,
    # min picks 1.7 in column 1 and 0.9 in column 2
    B = torch.tensor([[0.5, 1.1, -1.0], [1.3, -0.7, 0.5], [-0.4, -3.0, 3.0]], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda v, b: ops.spmm(A, b, reduce, values=v), (values, B))


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


@pytest.mark.parametrize("save_attention", [False, True])
@pytest.mark.parametrize("score,edge,normalize,aggregate,heads", FUSED)
def test_fusedmm_gradcheck(rng, score, edge, normalize, aggregate, heads, save_attention):
    A, _ = torch_csr(rng, 6, 5, density=0.5)
    values = A.data.clone().requires_grad_(True)
    width = heads if score == "add" else 2 * heads
    X, Y, Z = rand(rng, 6, width), rand(rng, 5, width), rand(rng, 5, 2 * heads)
    if score == "value":
        f = lambda v, z: ops.fusedmm(A, None, None, z, score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads, values=v,
                                     save_attention=save_attention)
        torch.autograd.gradcheck(f, (values, Z))
    else:
        f = lambda x, y, z: ops.fusedmm(A, x, y, z, score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads,
                                        save_attention=save_attention)
        torch.autograd.gradcheck(f, (X, Y, Z))


@pytest.mark.parametrize("score,edge,normalize,aggregate,heads", FUSED)
def test_eager_fusedmm_matches_the_registered_op(rng, score, edge, normalize, aggregate, heads):
    """ops.fusedmm runs an autograd.Function outside torch.compile; the registered op must agree."""
    A, _ = torch_csr(rng, 7, 6, density=0.5)
    width = heads if score == "add" else 2 * heads
    inputs = [rand(rng, 7, width), rand(rng, 6, width), rand(rng, 6, 2 * heads)]
    G = rand(rng, 7, 2 * heads, grad=False)
    results = []
    for eager in (True, False):
        X, Y, Z = (t.detach().clone().requires_grad_(True) for t in inputs)
        values = A.data.clone().requires_grad_(True)
        x, y = (None, None) if score == "value" else (X, Y)
        if eager:
            E = ops.fusedmm(A, x, y, Z, score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads, values=values)
        else:
            name, param = spk._ops.parse_edge(edge)
            E = ops.fusedmm_op(A.indptr, A.indices, values, 7, 6, x, y, Z, score, name, param, normalize, aggregate, heads)[0]
        (E * G).sum().backward()
        results.append([E.detach()] + [t.grad for t in (X, Y, Z, values)])
    for got, want in zip(*results):
        if want is None:
            assert got is None
        else:
            torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_opcheck(rng):
    A, _ = torch_csr(rng, 6, 5, density=0.5)
    ip, ix, v = A.indptr, A.indices, A.data.clone().requires_grad_(True)
    X, Y, Z, B = rand(rng, 6, 4), rand(rng, 5, 4), rand(rng, 5, 4), rand(rng, 5, 3)
    G = rand(rng, 6, 4, grad=False)
    torch.library.opcheck(ops.spmm_op, (ip, ix, v, 6, 5, B, "sum", False))
    torch.library.opcheck(ops.spmm_op, (ip, ix, v, 6, 5, rand(rng, 6, 3), "mean", True))
    for reduce in ("max", "min"):
        torch.library.opcheck(ops.spmm_op, (ip, ix, v, 6, 5, B, reduce, False))
        for transpose, b in ((False, B), (True, rand(rng, 6, 3))):
            torch.library.opcheck(ops.spmm_arg_op, (ip, ix, v, 6, 5, b, reduce, transpose))
            C, arg = ops.spmm_arg_op(ip, ix, v.detach(), 6, 5, b.detach(), reduce, transpose)
            backward_args = (ip, ix, v.detach(), 6, 5, b.detach(), arg, torch.ones_like(C), reduce, transpose)
            torch.library.opcheck(ops.spmm_arg_backward_op, backward_args)
    torch.library.opcheck(ops.sddmm_op, (ip, ix, v, 6, 5, X, Y, 2, True))
    torch.library.opcheck(ops.sddmm_backward_op, (ip, ix, v.detach(), 6, 5, X.detach(), Y.detach(), torch.ones(A.nnz, 2, dtype=torch.float64), 2, True))
    for score, edge, normalize, aggregate, heads in FUSED:
        x, y = (rand(rng, 6, heads), rand(rng, 5, heads)) if score == "add" else (X, Y)
        if score == "value":
            x = y = None
        z = rand(rng, 5, 2 * heads)
        args = (ip, ix, v, 6, 5, x, y, z, score, *spk._ops.parse_edge(edge), normalize, aggregate, heads)
        torch.library.opcheck(ops.fusedmm_op, args)
        E, rm, rs, am, _ = ops.fusedmm_op(*args)
        de = torch.ones_like(E)
        torch.library.opcheck(ops.fusedmm_backward_op, (ip, ix, v.detach(), 6, 5, de, None if x is None else x.detach(),
                                                        None if y is None else y.detach(), z.detach(), rm, rs, am, *args[8:]))
        # With the attention kept: the forward returns it, the backward reads it.
        kept = args + (None, None, None, True)
        torch.library.opcheck(ops.fusedmm_op, kept)
        E, rm, rs, am, att = ops.fusedmm_op(*kept)
        backward_args = (ip, ix, v.detach(), 6, 5, de, None if x is None else x.detach(), None if y is None else y.detach(), z.detach(),
                         rm, rs, am, *args[8:])
        torch.library.opcheck(ops.fusedmm_backward_op, backward_args + (None, None, None, None, None, att))
        # The backward's edge terms (FusedOptions::backward_edge_terms): an option of both ops, same shapes.
        torch.library.opcheck(ops.fusedmm_op, args + (None, None, None, False, True))
        torch.library.opcheck(ops.fusedmm_backward_op, backward_args + (None, None, None, None, None, None, True))


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


@pytest.mark.parametrize("op", ["spmm_arg", "spmm"])
def test_torch_compile_extremum_backward(rng, op):
    A, B = extremum_inputs(rng)
    values = A.data.clone().requires_grad_(True)

    def f(indptr, indices, v, b):
        if op == "spmm_arg":
            C = ops.spmm_arg_op(indptr, indices, v, 7, 5, b, "max", False)[0]
        else:
            C = ops.spmm_op(indptr, indices, v, 7, 5, b, "max", False)
        return C.square().sum()

    expected = torch.autograd.grad(f(A.indptr, A.indices, values, B), (values, B))
    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    got = torch.autograd.grad(compiled(A.indptr, A.indices, values, B), (values, B))
    for e, g in zip(expected, got):
        torch.testing.assert_close(g, e)
