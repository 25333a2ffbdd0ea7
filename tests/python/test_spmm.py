import numpy as np
import pytest
import scipy.sparse as sp

import spk
from conftest import random_csr, shared_matrix, tol

DTYPES = [np.float32, np.float64]
INDEX = [np.int32, np.int64]


def reduce_ref(A, B, reduce):
    """float64 reference of spmm's reductions (empty rows give 0)."""
    A = A.astype(np.float64)
    B = B.astype(np.float64)
    if reduce == "sum":
        return A @ B
    lens = np.diff(A.indptr)
    if reduce == "mean":
        return (A @ B) / np.maximum(lens, 1)[:, None]
    out = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        s = slice(A.indptr[i], A.indptr[i + 1])
        if lens[i]:
            prod = A.data[s][:, None] * B[A.indices[s]]
            out[i] = prod.max(0) if reduce == "max" else prod.min(0)
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
def test_spmm_random(rng, dtype, index_dtype, reduce):
    A = random_csr(rng, 37, 29, dtype=dtype, index_dtype=index_dtype)
    B = rng.standard_normal((29, 7)).astype(dtype)
    C = spk.spmm(spk.from_scipy(A), B, reduce=reduce)
    assert isinstance(C, np.ndarray) and C.dtype == dtype and C.shape == (37, 7)
    np.testing.assert_allclose(C, reduce_ref(A, B, reduce), **tol(dtype))


def test_spmm_alpha_beta_out_and_vector(rng):
    A = random_csr(rng, 20, 15)
    B = rng.standard_normal((15, 3))
    C0 = rng.standard_normal((20, 3))
    C = C0.copy()
    res = spk.spmm(spk.from_scipy(A), B, alpha=2.0, beta=0.5, out=C)
    assert res is C
    np.testing.assert_allclose(C, 2.0 * (A @ B) + 0.5 * C0, rtol=1e-12, atol=1e-12)
    v = rng.standard_normal(15)
    np.testing.assert_allclose(spk.spmm(spk.from_scipy(A), v), A @ v, rtol=1e-12, atol=1e-12)


def test_spmm_transpose_and_fortran_order(rng):
    A = random_csr(rng, 20, 15)
    B = np.asfortranarray(rng.standard_normal((20, 4)))
    np.testing.assert_allclose(spk.spmm(spk.from_scipy(A), B, transpose=True), A.T @ B, rtol=1e-12, atol=1e-12)
    # a column slice of a C-ordered array: row-major with a leading dimension > cols
    wide = rng.standard_normal((15, 10))
    np.testing.assert_allclose(spk.spmm(spk.from_scipy(A), wide[:, 2:6]), A @ wide[:, 2:6], rtol=1e-12, atol=1e-12)


def test_spmm_return_arg(rng):
    A = random_csr(rng, 12, 9)
    B = rng.standard_normal((9, 5))
    C, arg = spk.spmm(spk.from_scipy(A), B, reduce="max", return_arg=True)
    for i in range(12):
        s = slice(A.indptr[i], A.indptr[i + 1])
        if A.indptr[i] == A.indptr[i + 1]:
            assert (arg[i] == -1).all()
            continue
        for c in range(5):
            j = arg[i, c]
            assert j in A.indices[s]
            assert C[i, c] == pytest.approx(A[i, j] * B[j, c])


def test_spmm_plan_reuse(rng):
    A = random_csr(rng, 30, 30)
    plan = spk.SpmmPlan(spk.from_scipy(A), 6)
    assert isinstance(plan.config, str) and plan.config
    for _ in range(3):
        B = rng.standard_normal((30, 6))
        np.testing.assert_allclose(plan(B), A @ B, rtol=1e-12, atol=1e-12)


def test_spmm_plan_runs_with_other_values_of_the_pattern(rng):
    A = random_csr(rng, 40, 30)
    plan = spk.SpmmPlan(spk.from_scipy(A), 5)
    for _ in range(2):
        values = A.data * (rng.random(A.nnz) < 0.5)  # a dropout of A's values
        B = rng.standard_normal((30, 5))
        other = sp.csr_matrix((values, A.indices, A.indptr), shape=A.shape)
        np.testing.assert_allclose(plan.run(B, values=values), other @ B, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(plan.run(B), A @ B, rtol=1e-12, atol=1e-12)  # A's own values again
    with pytest.raises(ValueError, match="values: length"):
        plan.run(B, values=values[:-1])
    transposed = spk.SpmmPlan(spk.from_scipy(A), 5, transpose=True)
    with pytest.raises(ValueError, match="transpose_a"):
        transposed.run(rng.standard_normal((40, 5)), values=values)


def test_spmm_empty_matrix():
    A = spk.csr_array((np.zeros(0), np.zeros(0, np.int32), np.zeros(1, np.int32)), shape=(0, 0))
    assert spk.spmm(A, np.zeros((0, 3))).shape == (0, 3)
    A = spk.csr_array((np.zeros(0), np.zeros(0, np.int32), np.zeros(4, np.int32)), shape=(3, 2))
    np.testing.assert_array_equal(spk.spmm(A, np.ones((2, 3))), np.zeros((3, 3)))


def test_spmm_scipy_input_and_matmul(rng):
    A = random_csr(rng, 10, 8)
    B = rng.standard_normal((8, 2))
    np.testing.assert_allclose(spk.spmm(A, B), A @ B, rtol=1e-12)  # SciPy matrices are accepted directly
    np.testing.assert_allclose(spk.from_scipy(A) @ B, A @ B, rtol=1e-12)


@pytest.mark.parametrize("name", ["cora.mtx", "west0067.mtx", "lp_afiro.mtx", "add32.mtx.gz"])
def test_spmm_shared_matrices(rng, name):
    A = spk.read_mtx(shared_matrix(name))
    S = A.to_scipy()
    B = rng.standard_normal((A.shape[1], 16))
    np.testing.assert_allclose(spk.spmm(A, B), S @ B, rtol=1e-10, atol=1e-10)
    A32 = spk.read_mtx(shared_matrix(name), dtype="float32", index_dtype="int64")
    np.testing.assert_allclose(spk.spmm(A32, B.astype(np.float32)), S @ B, rtol=1e-3, atol=1e-3)


def test_spmm_float16(rng):
    A = random_csr(rng, 16, 12, dtype=np.float16)
    B = rng.standard_normal((12, 4)).astype(np.float16)
    C = spk.spmm(spk.from_scipy(A), B)
    assert C.dtype == np.float16
    np.testing.assert_allclose(C.astype(np.float64), reduce_ref(A, B, "sum"), rtol=2e-2, atol=2e-2)


def test_threads_setting(rng):
    A = random_csr(rng, 40, 40)
    B = rng.standard_normal((40, 3))
    old = spk.get_num_threads()
    try:
        spk.set_num_threads(1)
        np.testing.assert_allclose(spk.spmm(A, B), A @ B, rtol=1e-12)
    finally:
        spk.set_num_threads(old)
    with pytest.raises(ValueError):
        spk.set_num_threads(-1)
