import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import spk
from conftest import random_csr, shared_matrix


@pytest.mark.parametrize("name", ["karate.mtx", "lp_afiro.mtx", "bcsstk13.mtx.gz", "cora_features.mtx"])
def test_read_mtx_matches_scipy(name):
    path = shared_matrix(name)
    A = spk.read_mtx(path)
    ref = sp.csr_array(scipy.io.mmread(path))
    ref.sum_duplicates()
    assert A.shape == ref.shape and A.has_sorted_indices
    np.testing.assert_allclose(A.to_scipy().toarray(), ref.toarray().astype(np.float64))


@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
def test_write_read_round_trip(rng, tmp_path, suffix):
    A = random_csr(rng, 13, 9, index_dtype=np.int64)
    path = tmp_path / ("a" + suffix)
    spk.write_mtx(path, spk.from_scipy(A))
    B = spk.read_mtx(path, index_dtype="int64")
    assert (B.to_scipy() != A).nnz == 0  # exact with the default precision
    spk.write_mtx(path, A, pattern=True)
    P = spk.read_mtx(path, dtype="float32")
    np.testing.assert_array_equal(P.to_scipy().toarray(), (A.toarray() != 0).astype(np.float32))


def test_read_tns_shared():
    X = spk.read_tns(shared_matrix("collegemsg.tns"))
    assert X.shape == (1899, 1899, 194) and X.nnz == 33837
    assert X.values.sum() == 59835


def random_tensor(rng, shape, nnz):
    coords = np.stack([rng.integers(0, d, nnz) for d in shape]).astype(np.int64)
    return spk.CooTensor(coords, rng.standard_normal(nnz), shape)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mttkrp(rng, mode, dtype):
    X = random_tensor(rng, (9, 7, 5), 60)
    X = spk.CooTensor(X.coords.astype(np.int32), X.values.astype(dtype), X.shape)  # repeats are summed
    U = [rng.standard_normal((d, 4)).astype(dtype) for d in X.shape]
    Xd = X.to_dense().astype(np.float64)
    subs = "ijk"
    others = [m for m in range(3) if m != mode]
    ref = np.einsum(f"ijk,{subs[others[0]]}r,{subs[others[1]]}r->{subs[mode]}r", Xd, U[others[0]], U[others[1]])
    got = spk.mttkrp(X, [None if m == mode else U[m] for m in range(3)], mode)
    np.testing.assert_allclose(got, ref, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-4 if dtype == np.float32 else 1e-12)


def test_mttkrp_plan_all_modes(rng):
    X = random_tensor(rng, (6, 5, 4), 30)
    U = [rng.standard_normal((d, 3)) for d in X.shape]
    plan = spk.MttkrpPlan(X)
    Xd = X.to_dense()
    np.testing.assert_allclose(plan.run(U, 0), np.einsum("ijk,jr,kr->ir", Xd, U[1], U[2]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(plan.run(U, 2), np.einsum("ijk,ir,jr->kr", Xd, U[0], U[1]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_ttm(rng, mode):
    X = random_tensor(rng, (8, 6, 5), 40)
    U = rng.standard_normal((3, X.shape[mode]))
    Y = spk.ttm(X, U, mode)
    assert Y.shape[mode] == 3 and Y.mode == mode
    ref = np.moveaxis(np.tensordot(X.to_dense(), U, axes=([mode], [1])), -1, mode)
    np.testing.assert_allclose(Y.to_dense(), ref, rtol=1e-12, atol=1e-12)
