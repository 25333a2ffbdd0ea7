"""Shared helpers for the Python tests: seeded random inputs, the real matrices, references."""
import os
import pathlib
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

REPO = pathlib.Path(__file__).resolve().parents[2]


def matrix_dir():
    env = os.environ.get("SPK_MATRICES")
    return pathlib.Path(env) if env else REPO.parent / "shared" / "matrices"


def shared_matrix(name):
    path = matrix_dir() / name
    if not path.exists():
        pytest.skip(f"shared matrix {path} not found (set SPK_MATRICES)")
    return path


def rng_for(name):
    """A generator seeded from the test's name (printed, so a failure can be replayed)."""
    seed = zlib.crc32(name.encode())
    print(f"seed for {name}: {seed}")
    return np.random.default_rng(seed)


def random_csr(rng, rows, cols, density=0.2, dtype=np.float64, index_dtype=np.int32, empty_rows=True):
    m = sp.random(rows, cols, density=density, format="csr", random_state=rng, dtype=np.float64)
    m.data = rng.uniform(-1, 1, m.nnz)
    if empty_rows and rows > 2:
        m = m.tolil()
        m[1, :] = 0  # at least one empty row
        m = m.tocsr()
    m.sort_indices()
    m.data = m.data.astype(dtype)
    m.indices = m.indices.astype(index_dtype)
    m.indptr = m.indptr.astype(index_dtype)
    return m


TOL = {np.float32: dict(rtol=2e-4, atol=2e-4), np.float64: dict(rtol=1e-10, atol=1e-10)}


def tol(dtype):
    return TOL[np.dtype(dtype).type]


@pytest.fixture
def rng(request):
    return rng_for(request.node.name)
