import numpy as np
import pytest

import spk
from conftest import random_csr, tol


def sddmm_ref(A, X, Y, heads, scale_by_a):
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    d = X.shape[1] // heads
    out = np.empty((A.nnz, heads))
    for h in range(heads):
        blk = slice(h * d, (h + 1) * d)
        out[:, h] = np.einsum("pk,pk->p", X[rows, blk].astype(np.float64), Y[A.indices, blk].astype(np.float64))
    if scale_by_a:
        out *= A.data.astype(np.float64)[:, None]
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("heads,scale_by_a", [(1, True), (2, False), (3, True)])
def test_sddmm_random(rng, dtype, index_dtype, heads, scale_by_a):
    A = random_csr(rng, 21, 17, dtype=dtype, index_dtype=index_dtype)
    X = rng.standard_normal((21, 4 * heads)).astype(dtype)
    Y = rng.standard_normal((17, 4 * heads)).astype(dtype)
    out = spk.sddmm(spk.from_scipy(A), X, Y, heads=heads, scale_by_a=scale_by_a)
    ref = sddmm_ref(A, X, Y, heads, scale_by_a)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.reshape(A.nnz, heads), ref, **tol(dtype))


def test_sddmm_config_is_ignored_on_the_cpu(rng):
    A = random_csr(rng, 12, 10)
    X, Y = rng.standard_normal((12, 8)), rng.standard_normal((10, 8))
    want = spk.sddmm(spk.from_scipy(A), X, Y)
    for config in ("rows.g8.s3", "slices"):
        np.testing.assert_array_equal(spk.sddmm(spk.from_scipy(A), X, Y, config=config), want)


def test_sddmm_with_data_gives_matrix(rng):
    A = random_csr(rng, 10, 9)
    X, Y = rng.standard_normal((10, 3)), rng.standard_normal((9, 3))
    M = spk.from_scipy(A).with_data(spk.sddmm(spk.from_scipy(A), X, Y))
    np.testing.assert_allclose(M.to_scipy().toarray(), A.multiply(X @ Y.T).toarray(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("heads,scale_by_a", [(1, True), (2, True), (2, False)])
def test_sddmm_backward(rng, heads, scale_by_a):
    A = random_csr(rng, 9, 7)
    X, Y = rng.standard_normal((9, 2 * heads)), rng.standard_normal((7, 2 * heads))
    d_out = rng.standard_normal((A.nnz, heads))
    dX, dY, dA = spk.sddmm_backward(spk.from_scipy(A), X, Y, d_out, heads=heads, scale_by_a=scale_by_a)
    rows = np.repeat(np.arange(9), np.diff(A.indptr))
    s = A.data if scale_by_a else np.ones(A.nnz)
    d = 2
    dX_ref, dY_ref, dA_ref = np.zeros_like(X), np.zeros_like(Y), np.zeros(A.nnz)
    for p in range(A.nnz):
        i, j = rows[p], A.indices[p]
        for h in range(heads):
            blk = slice(h * d, (h + 1) * d)
            dX_ref[i, blk] += d_out[p, h] * s[p] * Y[j, blk]
            dY_ref[j, blk] += d_out[p, h] * s[p] * X[i, blk]
            dA_ref[p] += d_out[p, h] * X[i, blk] @ Y[j, blk]
    np.testing.assert_allclose(dX, dX_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dY, dY_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dA, dA_ref, rtol=1e-12, atol=1e-12)
    only_x = spk.sddmm_backward(spk.from_scipy(A), X, Y, d_out, heads=heads, scale_by_a=scale_by_a, need=("X",))
    assert only_x[1] is None and only_x[2] is None
    np.testing.assert_allclose(only_x[0], dX_ref, rtol=1e-12, atol=1e-12)
