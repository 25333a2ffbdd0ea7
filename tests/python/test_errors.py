"""Bad inputs raise the documented exceptions with spk's messages (never a crash)."""
import numpy as np
import pytest
import scipy.sparse as sp

import spk
from conftest import random_csr


@pytest.fixture
def A(rng):
    return spk.from_scipy(random_csr(rng, 6, 5))


def test_exception_hierarchy():
    assert issubclass(spk.Error, RuntimeError)
    assert issubclass(spk.FormatError, spk.Error) and issubclass(spk.FormatError, ValueError)


def test_wrong_dtypes(A):
    with pytest.raises(TypeError, match="B: dtype float32, expected float64"):
        spk.spmm(A, np.ones((5, 2), np.float32))
    with pytest.raises(TypeError, match="data: dtype int64"):
        spk.csr_array((np.ones(2, np.int64), np.array([0, 1], np.int32), np.array([0, 1, 2], np.int32)), shape=(2, 2))
    with pytest.raises(TypeError, match="indices: dtype int64 differs"):
        spk.csr_array((np.ones(2), np.array([0, 1], np.int64), np.array([0, 1, 2], np.int32)), shape=(2, 2))
    with pytest.raises(TypeError, match="indptr: dtype uint32"):
        spk.csr_array((np.ones(2), np.array([0, 1], np.uint32), np.array([0, 1, 2], np.uint32)), shape=(2, 2))
    with pytest.raises(TypeError, match="dtype="):
        spk.from_scipy(sp.csr_array(np.eye(3, dtype=np.int64)))
    assert spk.from_scipy(sp.csr_array(np.eye(3, dtype=np.int64)), dtype=np.float64).dtype == np.float64


def test_wrong_shapes(A):
    with pytest.raises(ValueError, match="B: shape 4 x 2"):
        spk.spmm(A, np.ones((4, 2)))
    with pytest.raises(ValueError, match="3-D"):
        spk.spmm(A, np.ones((5, 2, 1)))
    with pytest.raises(ValueError, match="Y"):
        spk.sddmm(A, np.ones((6, 3)), np.ones((5, 4)))
    with pytest.raises(ValueError):
        spk.spgemm(A, A)  # 6x5 times 6x5
    with pytest.raises(ValueError, match="out"):
        spk.spmm(A, np.ones((5, 2)), beta=1.0)


def test_non_contiguous_arrays(A):
    B = np.ones((5, 8))[:, ::2]  # strides (8, 2) elements: contiguous along no axis
    with pytest.raises(ValueError, match="contiguous along neither axis"):
        spk.spmm(A, B)
    data = np.ones(4)[::2]
    with pytest.raises(ValueError, match="data: not contiguous"):
        spk.csr_array((data, np.array([0, 1], np.int32), np.array([0, 1, 2], np.int32)), shape=(2, 2))


@pytest.mark.parametrize("indptr,indices,message", [
    ([0, 2, 1], [0, 1], "row_ptr decreases at row 1"),
    ([1, 1, 2], [0, 1], r"row_ptr\[0\] is 1"),
    ([0, 1, 1], [0, 1], r"row_ptr\[rows\] is 1 but nnz is 2"),
    ([0, 1, 2], [0, 7], "column 7 outside"),
    ([0, 1, 2], [0, -1], "column -1 outside"),
    ([0, 2], [0, 1], "indptr: length 2, expected rows \\+ 1 = 3"),
])
def test_malformed_csr(indptr, indices, message):
    with pytest.raises(ValueError, match=message):
        spk.csr_array((np.ones(len(indices)), np.array(indices, np.int32), np.array(indptr, np.int32)), shape=(2, 3))


def test_data_length_mismatch():
    with pytest.raises(ValueError, match="data: length 3 differs"):
        spk.csr_array((np.ones(3), np.array([0, 1], np.int32), np.array([0, 1, 2], np.int32)), shape=(2, 2))


def test_unsorted_rows_are_accepted_and_flagged():
    a = spk.csr_array((np.array([1.0, 2.0]), np.array([1, 0], np.int32), np.array([0, 2], np.int32)), shape=(1, 2))
    assert not a.has_sorted_indices
    np.testing.assert_allclose(spk.spmm(a, np.array([[10.0], [100.0]])), [[120.0]])  # 1 * 100 + 2 * 10


def test_unknown_options(A):
    with pytest.raises(ValueError, match="reduce: unknown value 'median'"):
        spk.spmm(A, np.ones((5, 2)), reduce="median")
    with pytest.raises(ValueError, match="semiring"):
        spk.spgemm(A, spk.from_scipy(sp.csr_array(np.eye(5))), semiring="times_plus")
    with pytest.raises(ValueError, match="reuse: unknown value 'cache'"):
        spk.SpgemmPlan(A, A, reuse="cache")


def test_format_errors(tmp_path):
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1.0\n")
    with pytest.raises(spk.FormatError, match="bad.mtx:3"):
        spk.read_mtx(bad)
    bad.write_text("not a matrix market file\n")
    with pytest.raises(ValueError):  # FormatError is a ValueError too
        spk.read_mtx(bad)
    with pytest.raises(ValueError, match="missing.mtx"):
        spk.read_mtx(tmp_path / "missing.mtx")
    tns = tmp_path / "bad.tns"
    tns.write_text("1 2 x 1.0\n")
    with pytest.raises(spk.FormatError, match="bad.tns:1"):
        spk.read_tns(tns)


def test_wrong_argument_types(A):
    with pytest.raises(TypeError, match="spk.csr_array"):
        spk.spmm(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(TypeError):
        spk.csr_array("nonsense")
    with pytest.raises(TypeError, match="dtype"):
        spk.read_mtx("x.mtx", dtype="int8")


def test_readonly_input_arrays_are_fine(rng):
    S = random_csr(rng, 5, 5)
    for arr in (S.data, S.indices, S.indptr):
        arr.setflags(write=False)
    B = rng.standard_normal((5, 2))
    B.setflags(write=False)
    np.testing.assert_allclose(spk.spmm(spk.from_scipy(S), B), S @ B, rtol=1e-12)


@pytest.mark.skipif(spk.built_with_cuda, reason="spk built with CUDA (tests/python/test_cuda.py covers it)")
def test_device_memory_use_without_cuda_is_not_implemented():
    with pytest.raises(NotImplementedError, match="without CUDA"):
        spk.device_memory_use(0)
