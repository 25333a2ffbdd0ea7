import numpy as np
import pytest
import scipy.sparse as sp

import spk
from conftest import random_csr, shared_matrix


def dense_semiring(A, B, semiring):
    """Dense reference over the pattern: C[i, j] exists where some A[i, k] B[k, j] is stored."""
    Ad, Bd = A.toarray(), B.toarray()
    Ap, Bp = A.toarray() != 0, B.toarray() != 0
    reach = (Ap.astype(int) @ Bp.astype(int)) > 0
    C = np.zeros(reach.shape)
    for i, j in zip(*np.nonzero(reach)):
        ks = np.nonzero(Ap[i] & Bp[:, j])[0]
        prods = {"plus_times": Ad[i, ks] * Bd[ks, j], "plus_pair": np.ones(len(ks)), "min_plus": Ad[i, ks] + Bd[ks, j],
                 "max_times": Ad[i, ks] * Bd[ks, j], "lor_land": np.ones(len(ks))}[semiring]
        C[i, j] = {"plus_times": np.sum, "plus_pair": np.sum, "min_plus": np.min, "max_times": np.max, "lor_land": np.max}[semiring](prods)
    return reach, C


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_spgemm_plus_times(rng, dtype, index_dtype):
    A = random_csr(rng, 25, 18, density=0.15, dtype=dtype, index_dtype=index_dtype)
    B = random_csr(rng, 18, 22, density=0.15, dtype=dtype, index_dtype=index_dtype)
    C = spk.spgemm(spk.from_scipy(A), spk.from_scipy(B))
    assert isinstance(C, spk.csr_array) and C.dtype == dtype and C.index_dtype == np.dtype(index_dtype).name
    assert C.has_sorted_indices
    rtol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(C.to_scipy().toarray(), (A.astype(np.float64) @ B.astype(np.float64)).toarray(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("semiring", ["plus_pair", "min_plus", "max_times", "lor_land"])
def test_spgemm_semirings(rng, semiring):
    A = random_csr(rng, 12, 10, density=0.3)
    B = random_csr(rng, 10, 9, density=0.3)
    C = spk.spgemm(spk.from_scipy(A), spk.from_scipy(B), semiring=semiring).to_scipy()
    reach, ref = dense_semiring(A, B, semiring)
    Cd = np.zeros(reach.shape)
    coo = C.tocoo()
    Cd[coo.row, coo.col] = coo.data
    got = np.zeros(reach.shape, dtype=bool)
    got[coo.row, coo.col] = True
    np.testing.assert_array_equal(got, reach)
    np.testing.assert_allclose(Cd[reach], ref[reach], rtol=1e-12)


@pytest.mark.parametrize("complement", [False, True])
def test_spgemm_mask(rng, complement):
    A = random_csr(rng, 14, 14, density=0.3)
    M = random_csr(rng, 14, 14, density=0.3)
    C = spk.spgemm(A, A, mask=M, complement_mask=complement).to_scipy().toarray()
    full = (A @ A).toarray()
    reach = ((A != 0).astype(int) @ (A != 0).astype(int)).toarray() > 0
    keep = (M.toarray() != 0) != complement
    ref = np.where(keep & reach, full, 0)
    np.testing.assert_allclose(C, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("budget", [1, 500, 0])
def test_spgemm_to_host_in_chunks_equals_the_whole_product(rng, budget):
    # On the host a budget forces the chunking too (0: none there): every cut gives the same C.
    A = random_csr(rng, 40, 30, density=0.2)
    B = random_csr(rng, 30, 35, density=0.2)
    M = random_csr(rng, 40, 35, density=0.5)
    whole = spk.spgemm(spk.from_scipy(A), spk.from_scipy(B), mask=spk.from_scipy(M))
    C = spk.spgemm(spk.from_scipy(A), spk.from_scipy(B), mask=spk.from_scipy(M), to_host=True, memory_budget=budget)
    assert isinstance(C.indptr, np.ndarray)
    np.testing.assert_array_equal(C.indptr, whole.indptr)
    np.testing.assert_array_equal(C.indices, whole.indices)
    np.testing.assert_array_equal(C.data, whole.data)


def test_spgemm_negative_budget_is_a_value_error(rng):
    A = spk.from_scipy(random_csr(rng, 4, 4, density=0.5))
    with pytest.raises(ValueError, match="memory_budget"):
        spk.spgemm(A, A, to_host=True, memory_budget=-1)


def test_spgemm_empty_result():
    A = spk.csr_array((np.zeros(0), np.zeros(0, np.int32), np.zeros(4, np.int32)), shape=(3, 3))
    C = spk.spgemm(A, A)
    assert C.shape == (3, 3) and C.nnz == 0


def tc_ref(S):
    G = ((S + S.T) != 0).astype(np.int64).tolil()
    G.setdiag(0)
    G = G.tocsr()
    G.eliminate_zeros()
    return int((G @ G).multiply(G).sum() // 6)


@pytest.mark.parametrize("name,expected", [("karate.mtx", 45), ("west0067.mtx", None), ("ca-GrQc.mtx", None)])
def test_triangle_count_shared(name, expected):
    A = spk.read_mtx(shared_matrix(name))
    ref = tc_ref(A.to_scipy())
    if expected is not None:
        assert ref == expected
    assert spk.triangle_count(A) == ref


def test_triangle_count_random(rng):
    A = random_csr(rng, 40, 40, density=0.2, index_dtype=np.int64)
    assert spk.triangle_count(spk.from_scipy(A)) == tc_ref(A)


def test_spgemm_float16_is_a_type_error(rng):
    A = spk.from_scipy(random_csr(rng, 4, 4, dtype=np.float16))
    with pytest.raises(TypeError, match="float32 and float64"):
        spk.spgemm(A, A)


@pytest.mark.parametrize("semiring,reuse", [("plus_times", "automatic"), ("max_times", "automatic"), ("plus_times", "entries"),
                                            ("plus_times", "places"), ("max_times", "search")])
def test_spgemm_plan_recomputes_with_new_values(rng, semiring, reuse):
    A = random_csr(rng, 40, 30)
    B = random_csr(rng, 30, 35)
    plan = spk.SpgemmPlan(A, B, semiring=semiring, reuse=reuse)
    C = plan.compute()
    assert C.nnz == plan.nnz
    np.testing.assert_allclose(C.to_scipy().toarray(), spk.spgemm(A, B, semiring=semiring).to_scipy().toarray(), rtol=1e-12)
    for _ in range(2):
        a_values, b_values = rng.uniform(-1, 1, A.nnz), rng.uniform(-1, 1, B.nnz)
        A2 = sp.csr_matrix((a_values, A.indices, A.indptr), shape=A.shape)
        B2 = sp.csr_matrix((b_values, B.indices, B.indptr), shape=B.shape)
        plan.recompute(C, a_values, b_values)
        want = spk.spgemm(A2, B2, semiring=semiring)
        np.testing.assert_array_equal(C.indptr, want.indptr)
        np.testing.assert_array_equal(C.indices, want.indices)
        np.testing.assert_allclose(C.data, want.data, rtol=1e-12, atol=1e-12)


def test_spgemm_plan_reads_the_operands_current_values_and_checks_lengths(rng):
    A = spk.from_scipy(random_csr(rng, 20, 20))
    plan = spk.SpgemmPlan(A, A, mask=A)
    C = plan.compute()
    A.data *= 2.0  # in place: recompute() reads A's values as they are now
    plan.recompute(C)
    np.testing.assert_allclose(C.to_scipy().toarray(), spk.spgemm(A, A, mask=A).to_scipy().toarray(), rtol=1e-12)
    with pytest.raises(ValueError, match="a_values: length"):
        plan.recompute(C, A.data[:-1], A.data)
    with pytest.raises(TypeError, match="b_values: dtype"):
        plan.recompute(C, A.data, A.data.astype(np.float32))


def test_spgemm_detect_blocks_is_accepted_and_the_host_plan_is_scalar(rng):
    # Dense 3 x 3 blocks on a random pattern: CUDA may take them a block at a time; the host
    # backends compute them as any matrix, whatever detect_blocks says.
    pattern = random_csr(rng, 20, 20, density=0.2, dtype=np.float64)
    A = sp.csr_matrix(sp.kron(pattern, rng.uniform(0.5, 1.5, (3, 3))))
    A.sort_indices()
    expected = (A @ A).toarray()
    for blocks in (True, False):
        C = spk.spgemm(spk.from_scipy(A), spk.from_scipy(A), detect_blocks=blocks)
        np.testing.assert_allclose(C.to_scipy().toarray(), expected, rtol=1e-12, atol=1e-12)
    assert spk.SpgemmPlan(spk.from_scipy(A), spk.from_scipy(A)).config == "scalar"
