"""Matrix Market and FROSTT files (spk's C++ readers; .gz files are read transparently)."""
import os

import numpy as np

from . import _backend, _core
from ._sparse import as_csr, csr_array
from ._tensor import CooTensor


def _dtype_name(dtype):
    if isinstance(dtype, str) and dtype == "bfloat16":
        return dtype
    return np.dtype(dtype).name


def read_mtx(path, dtype="float64", index_dtype="int32"):
    """A Matrix Market file (.mtx, .mtx.gz) or spk binary cache (.spkb) as a NumPy-backed csr_array.

    Symmetric files are expanded, pattern entries become 1, duplicates are summed. Malformed
    files raise spk.FormatError('path:line: ...'); a missing file ValueError.
    """
    indptr, indices, data, rows, cols, is_sorted = _core.read_mtx(os.fspath(path), _dtype_name(dtype), _dtype_name(index_dtype))
    return csr_array._trusted(_backend.adopt(data, None), _backend.adopt(indices, None), _backend.adopt(indptr, None), (rows, cols), is_sorted)


def write_mtx(path, A, precision=17, pattern=False):
    """A (csr_array or SciPy matrix, host arrays) as 'coordinate real general' (.gz: compressed).
    The default precision reads back exactly."""
    _core.write_mtx(os.fspath(path), as_csr(A)._handle, int(precision), bool(pattern))


def read_tns(path, dtype="float64", index_dtype="int64"):
    """A FROSTT 3-way tensor (.tns, .tns.gz; 1-based in the file, 0-based here) as a CooTensor."""
    i0, i1, i2, values, dims = _core.read_tns(os.fspath(path), _dtype_name(dtype), _dtype_name(index_dtype))
    coords = np.stack([_backend.adopt(i0, None), _backend.adopt(i1, None), _backend.adopt(i2, None)])
    return CooTensor(coords, _backend.adopt(values, None), dims)
