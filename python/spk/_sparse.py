"""spk.csr_array: a CSR matrix over the caller's arrays (NumPy, PyTorch or CuPy), never copied."""
import numpy as np

from . import _backend, _core


class csr_array:
    """CSR matrix ``csr_array((data, indices, indptr), shape)``, as in SciPy.

    The three arrays are held as given (no copy); they must be 1-D and contiguous, on one device,
    indices and indptr both int32 or both int64, data float16/bfloat16/float32/float64.
    With ``check=True`` (the default) the structure is validated once here (ValueError naming
    the first bad entry); ``check=False`` trusts the caller (malformed arrays may then crash).
    """

    format = "csr"

    def __init__(self, arg, shape=None, *, check=True):
        if _is_scipy_sparse(arg):
            other = from_scipy(arg)
            data, indices, indptr, shape = other.data, other.indices, other.indptr, other.shape
        else:
            try:
                data, indices, indptr = arg
            except (TypeError, ValueError) as e:
                raise TypeError("csr_array: expected (data, indices, indptr) or a SciPy sparse matrix") from e
        # A torch tensor keeps its autograd history here (spk.torch_ops differentiates through it);
        # the extension gets a detached view of the same memory.
        self.data = data if _backend.library_of(data) == "torch" else _backend.as_array(data, "data")
        self.indices = _backend.as_array(indices, "indices")
        self.indptr = _backend.as_array(indptr, "indptr")
        if shape is None:
            if self.indptr.ndim != 1 or self.indices.ndim != 1:
                raise ValueError("indptr and indices must be 1-D")
            cols = int(self.indices.max()) + 1 if self.indices.shape[0] else 0
            shape = (self.indptr.shape[0] - 1, cols)
        rows, cols = (int(s) for s in shape)
        self._handle = _core.SparseMatrix(self.indptr, self.indices, _backend.as_array(self.data, "data"), rows, cols, bool(check), False,
                                          stream=_backend.stream_of(self.indptr))
        self.shape = (rows, cols)

    @classmethod
    def _trusted(cls, data, indices, indptr, shape, sorted_rows):
        """From arrays spk itself produced (valid by construction): no O(nnz) check."""
        self = cls.__new__(cls)
        self.data, self.indices, self.indptr = data, indices, indptr
        self.shape = (int(shape[0]), int(shape[1]))
        self._handle = _core.SparseMatrix(indptr, indices, _backend.as_array(data, "data"), self.shape[0], self.shape[1], False,
                                           bool(sorted_rows))
        return self

    @property
    def nnz(self):
        return self._handle.nnz

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def index_dtype(self):
        return _backend.dtype_name(self.indptr)

    @property
    def has_sorted_indices(self):
        return self._handle.sorted

    def with_data(self, data):
        """The same pattern with new values (e.g. the result of sddmm)."""
        return csr_array._trusted(data if _backend.library_of(data) == "torch" else _backend.as_array(data, "data"), self.indices, self.indptr, self.shape, self.has_sorted_indices)

    def to_scipy(self):
        return to_scipy(self)

    def __matmul__(self, other):
        from . import _ops

        if isinstance(other, csr_array) or _is_scipy_sparse(other):
            return _ops.spgemm(self, other)
        return _ops.spmm(self, other)

    def __repr__(self):
        return f"<spk.csr_array {self.shape[0]}x{self.shape[1]}, nnz={self.nnz}, {_backend.dtype_name(self.data)}, {self.index_dtype}>"


def _is_scipy_sparse(x):
    return type(x).__module__.startswith("scipy.sparse")


def as_csr(a, name="A"):
    if isinstance(a, csr_array):
        return a
    if _is_scipy_sparse(a):
        return from_scipy(a)
    raise TypeError(f"{name}: expected spk.csr_array or a SciPy sparse matrix, got {type(a).__name__}")


_FLOATS = ("float16", "float32", "float64")


def from_scipy(m, dtype=None, index_dtype=None):
    """A csr_array over a SciPy sparse matrix's arrays (no copy when m is CSR of a float dtype)."""
    m = m.tocsr()
    data, indices, indptr = m.data, m.indices, m.indptr
    if dtype is not None:
        data = data.astype(dtype, copy=False)
    elif data.dtype.name not in _FLOATS:
        raise TypeError(f"data: dtype {data.dtype.name} is not a float type; pass dtype= (e.g. dtype='float64')")
    if index_dtype is not None or indices.dtype != indptr.dtype:
        it = np.dtype(index_dtype or np.int64)
        indices, indptr = indices.astype(it, copy=False), indptr.astype(it, copy=False)
    return csr_array((data, indices, indptr), shape=m.shape)


def to_scipy(a):
    """A scipy.sparse.csr_array sharing a host csr_array's arrays (device arrays are copied)."""
    import scipy.sparse

    a = as_csr(a)

    def host(x):
        lib = _backend.library_of(x)
        if lib == "torch":
            return x.cpu().numpy()
        if lib == "cupy":
            return x.get()
        return np.asarray(x)

    return scipy.sparse.csr_array((host(a.data), host(a.indices), host(a.indptr)), shape=a.shape)


def from_edge_index(edge_index, num_nodes=None, values=None, dtype=None):
    """The adjacency matrix of a PyG-style edge_index (2 x E, row 0 sources, row 1 targets).

    Row i of the result holds the edges into node i (A[target, source]), so spmm(A, X) sums the
    messages each node receives (PyG's source_to_target flow). Duplicate edges are kept.
    Works on NumPy arrays and PyTorch tensors (on their device).
    """
    lib = _backend.library_of(edge_index)
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"edge_index: expected shape (2, E), got {tuple(edge_index.shape)}")
    n = int(num_nodes) if num_nodes is not None else (int(edge_index.max()) + 1 if edge_index.shape[1] else 0)
    src, dst = edge_index[0], edge_index[1]
    if lib == "torch":
        import torch

        perm = torch.argsort(dst.to(torch.int64) * n + src, stable=True)
        counts = torch.bincount(dst, minlength=n)
        indptr = torch.zeros(n + 1, dtype=edge_index.dtype, device=edge_index.device)
        indptr[1:] = torch.cumsum(counts, 0)
        indices = src[perm].contiguous()
        if values is None:
            values = torch.ones(indices.shape[0], dtype=dtype or torch.float32, device=edge_index.device)
        else:
            values = values[perm].contiguous()
    else:
        edge_index = np.asarray(edge_index)
        src, dst = edge_index[0], edge_index[1]
        perm = np.argsort(dst.astype(np.int64) * n + src, kind="stable")
        indptr = np.zeros(n + 1, dtype=edge_index.dtype)
        np.cumsum(np.bincount(dst, minlength=n), out=indptr[1:])
        indices = np.ascontiguousarray(src[perm])
        values = np.ones(indices.shape[0], dtype=dtype or np.float32) if values is None else np.ascontiguousarray(np.asarray(values)[perm])
    return csr_array((values, indices, indptr), shape=(n, n))


def from_torch(t, num_nodes=None):
    """A csr_array from a torch sparse CSR or COO tensor, or a PyG edge_index (2 x E integers)."""
    import torch

    if t.layout == torch.sparse_coo:
        t = t.coalesce().to_sparse_csr()
    if t.layout == torch.sparse_csr:
        return csr_array((t.values(), t.col_indices(), t.crow_indices()), shape=tuple(t.shape))
    if t.layout == torch.strided and not t.is_floating_point():
        return from_edge_index(t, num_nodes)
    raise TypeError("from_torch: expected a sparse CSR/COO tensor or an integer edge_index")


def from_cupy(m):
    """A csr_array over a cupyx.scipy.sparse CSR matrix's arrays (no copy)."""
    m = m.tocsr()
    return csr_array((m.data, m.indices, m.indptr), shape=m.shape)
