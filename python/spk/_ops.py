"""The operations: thin wrappers that allocate outputs like the inputs and call the extension."""
from collections import namedtuple

from . import _backend, _core
from ._sparse import as_csr, csr_array

_INDEX_TYPES = {"int32", "int64"}


def _dense(x, name, ndim=2):
    x = _backend.as_array(x, name)
    if x.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-D array, got {x.ndim}-D")
    return x


def _accum_dtype(a):
    return "float64" if _backend.dtype_name(a.data) == "float64" else "float32"


def spmm(A, B, reduce="sum", *, alpha=1.0, beta=0.0, out=None, transpose=False, return_arg=False, deterministic=False, config=""):
    """C = alpha * reduce_j(A[i, j] * B[j, :]) + beta * out, reduce in sum, mean, max, min.

    B: k x n (or a vector of length k); the result is a new array like B (or `out`, updated in
    place). transpose=True uses Aᵀ. return_arg=True (max, min) also returns, per element, the
    column of A whose product won (-1 for empty rows).
    """
    A = as_csr(A)
    B = _backend.as_array(B, "B")
    vector = B.ndim == 1
    if vector:
        B = B.reshape(-1, 1)
    if B.ndim != 2:
        raise ValueError(f"B: expected a 1-D or 2-D array, got {B.ndim}-D")
    rows = A.shape[1] if transpose else A.shape[0]
    if out is None:
        if beta != 0:
            raise ValueError("beta: a non-zero beta needs out= (the C it scales)")
        C = _backend.empty(B, (rows, B.shape[1]))
    else:
        C = out.reshape(-1, 1) if vector else out
    arg = _backend.empty(B, C.shape, A.index_dtype) if return_arg else None
    _core.spmm(A._handle, B, C, reduce, float(alpha), float(beta), bool(transpose), arg, bool(deterministic), config,
               _backend.stream_of(B), _backend.get_num_threads())
    if vector:
        C = C.reshape(-1)
        arg = arg.reshape(-1) if arg is not None else None
    return (C, arg) if return_arg else C


class SpmmPlan:
    """SpMM with A analysed once (row bins, kernel choice; Aᵀ built once if transpose) for many B.

    A's arrays must not change shape while the plan lives (values may change). The plan uses the
    CUDA stream current when it was made.
    """

    def __init__(self, A, n, reduce="sum", *, alpha=1.0, beta=0.0, transpose=False, deterministic=False, config=""):
        self.A = as_csr(A)
        self.n = int(n)
        self._rows = self.A.shape[1] if transpose else self.A.shape[0]
        self._beta = float(beta)
        self._plan = _core.SpmmPlan(self.A._handle, self.n, reduce, float(alpha), float(beta), bool(transpose), bool(deterministic), config,
                                    _backend.stream_of(self.A.indptr), _backend.get_num_threads())

    @property
    def config(self):
        """The kernel configuration the plan chose."""
        return self._plan.config

    def run(self, B, out=None, return_arg=False, values=None):
        """C for this B. values: other values of A's pattern for this run (nnz of them, in A's entry order,
        e.g. a dropout of A.data), which the plan serves as well as A's own (not with transpose=True)."""
        B = _dense(B, "B")
        if out is None and self._beta != 0:
            raise ValueError("beta: a non-zero beta needs out= (the C it scales)")
        C = _backend.empty(B, (self._rows, B.shape[1])) if out is None else out
        arg = _backend.empty(B, C.shape, self.A.index_dtype) if return_arg else None
        self._plan.run(B, C, arg, None if values is None else _dense(values, "values", ndim=1))
        return (C, arg) if return_arg else C

    __call__ = run


def sddmm(A, X, Y, *, heads=1, scale_by_a=True, config=""):
    """Per stored A[i, j] and head h: A[i, j] * <X[i, h-block], Y[j, h-block]> (no A factor when
    scale_by_a=False). Returns the values in A's entry order: shape (nnz,) for one head, else
    (nnz, heads); A.with_data(values) makes them a matrix. config picks the CUDA kernel ("slices",
    "rows[.g<lanes>][.s<split>]"; empty: chosen from A's rows) and is ignored on the CPU.
    """
    A = as_csr(A)
    X, Y = _dense(X, "X"), _dense(Y, "Y")
    out = _backend.empty(X, (A.nnz, int(heads)))
    _core.sddmm(A._handle, X, Y, out, bool(scale_by_a), int(heads), str(config), _backend.stream_of(X), _backend.get_num_threads())
    return out.reshape(-1) if heads == 1 else out


def sddmm_backward(A, X, Y, d_out, *, heads=1, scale_by_a=True, need=("X", "Y", "A")):
    """Gradients (dX, dY, dA) of sddmm given d_out (its shape); those not in `need` are None."""
    A = as_csr(A)
    X, Y = _dense(X, "X"), _dense(Y, "Y")
    d_out = _backend.as_array(d_out, "d_out")
    if d_out.ndim == 1:
        d_out = d_out.reshape(-1, 1)
    dx = _backend.empty(X, X.shape) if "X" in need else None
    dy = _backend.empty(Y, Y.shape) if "Y" in need else None
    da = _backend.empty(X, (A.nnz, 1)) if "A" in need else None
    _core.sddmm_backward(A._handle, X, Y, d_out, dx, dy, da, bool(scale_by_a), int(heads), _backend.stream_of(X), _backend.get_num_threads())
    return dx, dy, (da.reshape(-1) if da is not None else None)


FusedSaved = namedtuple("FusedSaved", ["row_max", "row_sum", "argmax", "attention"], defaults=[None])
FusedSaved.__doc__ = ("What fusedmm's forward pass keeps for the backward pass: O(rows x heads), and the nnz x heads "
                      "attention only with save_attention=True.")


def parse_edge(edge):
    """'identity', 'sigmoid', 'exp', 'tanh', 'leaky_relu' (slope 0.2), 'leaky_relu(0.1)', 'scale(0.5)'
    or a (name, parameter) pair -> (name, parameter)."""
    if isinstance(edge, tuple):
        return str(edge[0]), float(edge[1])
    edge = str(edge).replace(" ", "")
    if edge.endswith(")") and "(" in edge:
        name, param = edge[:-1].split("(", 1)
        try:
            return name, float(param)
        except ValueError:
            raise ValueError(f"edge: cannot read the parameter of '{edge}'") from None
    if edge == "scale":
        raise ValueError("edge: 'scale' needs a factor, e.g. 'scale(0.5)'")
    return edge, 0.2 if edge == "leaky_relu" else 0.0


def _fused_args(score, edge, normalize, aggregate, heads):
    name, param = parse_edge(edge)
    return dict(score=score, edge=name, edge_param=param, normalize=normalize, aggregate=aggregate, heads=int(heads))


class FusedPlan:
    """FusedMM with A analysed once, for many calls with the same options (a GNN layer's, step after step).
    On CUDA the plan keeps its long-row search, so that later calls launch none and wait for nothing;
    spk.fusedmm and spk.fusedmm_backward make a plan a call. Options as in fusedmm; save_attention=True
    keeps alpha (nnz x heads) in the forward's FusedSaved for a faster backward; edge_terms=True: the
    backward keeps 2 nnz x heads values of scratch while it runs (FusedOptions::backward_edge_terms).
    config: the CUDA forward's configuration, "auto", "team1/2/4/8" (groups of lanes sharing each
    row), "rows<T>" (a block on each row longer than about T entries; rows0: none) or both as
    "team2.rows64" (FusedOptions::config), checked everywhere and ignored on the CPU.
    The plan reads A's values when it runs (they may change, not their number) and uses the CUDA
    stream current when it was made."""

    def __init__(self, A, *, score="dot", edge="identity", normalize="none", aggregate="sum", heads=1, save_attention=False,
                 edge_terms=False, config="auto"):
        self.A = as_csr(A)
        self._opts = _fused_args(score, edge, normalize, aggregate, heads)
        self._save_attention = bool(save_attention)
        self._plan = _core.FusedPlan(self.A._handle, save_attention=self._save_attention, edge_terms=bool(edge_terms), t_col_ptr=None,
                                     t_row_idx=None, t_entry=None, stream=_backend.stream_of(self.A.indptr),
                                     threads=_backend.get_num_threads(), config=config, **self._opts)

    def forward(self, X, Y, Z, *, return_saved=False):
        """E (rows x Z's columns); with return_saved=True also the FusedSaved that backward needs."""
        A, heads = self.A, self._opts["heads"]
        Z = _dense(Z, "Z")
        X = _dense(X, "X") if X is not None else None
        Y = _dense(Y, "Y") if Y is not None else None
        E = _backend.empty(Z, (A.shape[0], Z.shape[1]))
        softmax = self._opts["normalize"] == "softmax"
        row_max = _backend.empty(Z, (A.shape[0], heads), _accum_dtype(A)) if softmax else None
        row_sum = _backend.empty(Z, (A.shape[0], heads), _accum_dtype(A)) if softmax else None
        argmax = _backend.empty(Z, (A.shape[0], Z.shape[1]), A.index_dtype) if self._opts["aggregate"] == "max" else None
        attention = _backend.empty(Z, (A.nnz, heads)) if self._save_attention else None
        self._plan.forward(X, Y, Z, E, row_max, row_sum, argmax, attention)
        return (E, FusedSaved(row_max, row_sum, argmax, attention)) if return_saved else E

    def backward(self, dE, X, Y, Z, saved, *, need=("X", "Y", "Z", "A"), E=None):
        """Gradients (dX, dY, dZ, dA) given dE and the forward's FusedSaved; dA (nnz,) is for A's values.
        Those not in `need` (or whose input is None) are None. E: the forward's output, if kept; under
        softmax the CUDA backend then takes sigma = <dE_i, E_i> from it instead of a pass over each row."""
        A = self.A
        Z = _dense(Z, "Z")
        dE = _dense(dE, "dE")
        X = _dense(X, "X") if X is not None else None
        Y = _dense(Y, "Y") if Y is not None else None
        dx = _backend.empty(X, X.shape) if X is not None and "X" in need else None
        dy = _backend.empty(Y, Y.shape) if Y is not None and "Y" in need else None
        dz = _backend.empty(Z, Z.shape) if "Z" in need else None
        da = _backend.empty(Z, (A.nnz, 1)) if "A" in need else None
        E = _dense(E, "E") if E is not None else None
        self._plan.backward(dE, X, Y, Z, E, saved.row_max, saved.row_sum, saved.argmax, saved.attention, dx, dy, dz, da)
        return dx, dy, dz, (da.reshape(-1) if da is not None else None)


def fusedmm(A, X, Y, Z, *, score="dot", edge="identity", normalize="none", aggregate="sum", heads=1, return_saved=False,
            save_attention=False, config="auto"):
    """E[i, h] = aggregate_j alpha_ij Z[j, h-block] with alpha = normalize(edge(score(X_i, Y_j, A_ij)))
    in one pass over A (no per-edge array). X, Y may be None for score='value'.
    return_saved=True also returns the FusedSaved that fusedmm_backward needs; save_attention=True
    keeps alpha in it too (nnz x heads), so that the backward pass reads it instead of recomputing.
    config: the CUDA forward's configuration (FusedPlan). Calls repeated with the same A and options: FusedPlan.
    """
    plan = FusedPlan(A, score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads, save_attention=save_attention,
                     config=config)
    return plan.forward(X, Y, Z, return_saved=return_saved)


def fusedmm_backward(A, dE, X, Y, Z, saved, *, score="dot", edge="identity", normalize="none", aggregate="sum", heads=1,
                     need=("X", "Y", "Z", "A"), E=None, edge_terms=False):
    """Gradients (dX, dY, dZ, dA) of fusedmm given dE; dA (nnz,) is for A's values. Those not in
    `need` (or whose input is None) are None. Options must be the forward pass's. E: the forward's
    output, if kept; under softmax the CUDA backend then takes sigma = <dE_i, E_i> from it instead of
    a pass over each row. edge_terms=True: a faster backward for 2 nnz x heads values of scratch
    while it runs (FusedOptions::backward_edge_terms; CUDA, sum and mean aggregation)."""
    plan = FusedPlan(A, score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads,
                     save_attention=saved.attention is not None, edge_terms=edge_terms)
    return plan.backward(dE, X, Y, Z, saved, need=need, E=E)


def spgemm(A, B, *, semiring="plus_times", mask=None, complement_mask=False, sorted=True, to_host=False, memory_budget=0,
           detect_blocks=True):
    """C = A (+).(x) B over a semiring (plus_times, plus_pair, min_plus, max_times, lor_land), kept
    to mask's pattern (or outside it with complement_mask=True). Returns a csr_array whose
    arrays (new, of A's array type) spk allocated.

    to_host=True computes C in chunks of rows whose share fits memory_budget bytes of the device
    (0: a quarter of it) and returns C in host memory (NumPy arrays, or CPU tensors for torch
    inputs): for products too large for the device.

    detect_blocks (CUDA): where A and B consist of dense blocks (a system of several unknowns a node,
    such as elasticity's 3 x 3), compute C a block at a time; False keeps the scalar kernels."""
    A, B = as_csr(A), as_csr(B, "B")
    M = as_csr(mask, "mask") if mask is not None else None
    if int(memory_budget) < 0:
        raise ValueError(f"memory_budget: must be >= 0, got {memory_budget}")
    indptr, indices, data, rows, cols, is_sorted = _core.spgemm(A._handle, B._handle, M._handle if M is not None else None, semiring,
                                                                bool(complement_mask), bool(sorted), bool(detect_blocks), bool(to_host),
                                                                int(memory_budget),
                                                                _backend.stream_of(A.indptr), _backend.get_num_threads())
    like = A.indptr if not to_host or _backend.library_of(A.indptr) == "torch" else None
    return csr_array._trusted(_backend.adopt(data, like), _backend.adopt(indices, like), _backend.adopt(indptr, like), (rows, cols), is_sorted)


class SpgemmPlan:
    """C = A (+).(x) B with the symbolic phase (C's pattern) done once, for products repeated with new
    values of A and B of the same patterns (an AMG hierarchy's Galerkin products as the coefficients
    change). compute() returns a new C as spgemm() does; recompute(C) writes C's values from A's and
    B's current values (or the values given) into C.data, in place. The plan keeps A, B (and mask).
    reuse (CUDA; the host backends ignore it): what the first recompute keeps for the later ones,
    "automatic", "places", "entries" or "search" (spk::SpgemmReuse). detect_blocks as in spgemm();
    config tells which path the plan takes ("blocks 3x3x3" or "scalar")."""

    def __init__(self, A, B, *, semiring="plus_times", mask=None, complement_mask=False, sorted=True, reuse="automatic",
                 detect_blocks=True):
        self.A, self.B = as_csr(A), as_csr(B, "B")
        self.mask = as_csr(mask, "mask") if mask is not None else None
        self._plan = _core.SpgemmPlan(self.A._handle, self.B._handle, self.mask._handle if self.mask is not None else None, semiring,
                                      bool(complement_mask), bool(sorted), bool(detect_blocks), str(reuse), _backend.stream_of(self.A.indptr),
                                      _backend.get_num_threads())

    @property
    def nnz(self):
        """Stored entries of C (the symbolic phase's count)."""
        return self._plan.nnz

    @property
    def config(self):
        """How the plan computes C: "scalar", or on CUDA "blocks BRxBKxBC" for matrices of dense blocks."""
        return self._plan.config

    def compute(self):
        indptr, indices, data, rows, cols, is_sorted = self._plan.compute()
        like = self.A.indptr
        return csr_array._trusted(_backend.adopt(data, like), _backend.adopt(indices, like), _backend.adopt(indptr, like), (rows, cols),
                                  is_sorted)

    def recompute(self, C, a_values=None, b_values=None):
        """C's values (C from compute()) for A's and B's values now, or a_values / b_values (same lengths and
        order); returns C."""
        a_values = _dense(self.A.data if a_values is None else a_values, "a_values", ndim=1)
        b_values = _dense(self.B.data if b_values is None else b_values, "b_values", ndim=1)
        self._plan.recompute(a_values, b_values, C.data)
        return C


def triangle_count(A):
    """Triangles of the undirected simple graph under A's pattern (A + Aᵀ, no diagonal)."""
    A = as_csr(A)
    return int(_core.triangle_count(A._handle, _backend.stream_of(A.indptr), _backend.get_num_threads()))
