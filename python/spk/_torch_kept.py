"""What the torch ops keep on a spk.csr_array across calls, because a training loop multiplies by the
same adjacency every step: Aᵀ's pattern (with each entry's place in A), SpMM plans and FusedMM plans."""
import itertools
import weakref

import torch
from torch.utils.dlpack import to_dlpack

from . import _backend, _core
from ._ops import SpmmPlan
from ._sparse import csr_array


def transposed_pattern(indptr, indices, rows, cols):
    """(t_indptr, t_indices, t_entry): Aᵀ's CSR pattern and, for each of its entries, the entry of A
    it comes from (rows stay in increasing order within each column)."""
    entry = torch.argsort(indices, stable=True)
    lengths = (indptr[1:] - indptr[:-1]).to(torch.int64)
    entry_rows = torch.repeat_interleave(torch.arange(rows, device=indptr.device, dtype=indices.dtype), lengths, output_size=indices.shape[0])
    t_indptr = torch.zeros(cols + 1, dtype=indptr.dtype, device=indptr.device)
    t_indptr[1:] = torch.cumsum(torch.bincount(indices, minlength=cols), 0)
    return t_indptr, entry_rows[entry].contiguous(), entry.to(indices.dtype)


def cached_transposed_pattern(A):
    """A's transposed_pattern, computed once per csr_array (its index arrays never change)."""
    cached = getattr(A, "_torch_transposed_pattern", None)
    if cached is None:
        cached = transposed_pattern(A.indptr, A.indices, *A.shape)
        A._torch_transposed_pattern = cached
    return cached


class KeptPlan:
    """A SpmmPlan over A's pattern, made once and kept on A's csr_array, so that repeated products (a
    GNN layer's, epoch after epoch) skip the analysis, its wait for the device and its allocations. It
    serves calls whose B has its width, dtype, device and current stream. The ops find it by its id
    (an op's arguments are tensors and scalars).

    Which values it multiplies by: a plan for A's own values (own_values, not transposed) reads
    A.data itself and serves only calls with A.data; a plan over A for other values (a dropout of
    A's values, made afresh each step) hands each call's values to the extension's plan
    (SpmmPlan::run_with_values); a plan over Aᵀ gathers Aᵀ's values from the call's into a buffer of
    its own before each run. Either way a change of A's values in place is seen."""

    def __init__(self, A, n, reduce, transposed, B, own_values):
        self.own_values = own_values
        self.values_ptr = A.data.data_ptr()
        self.values_like = (A.data.shape, A.data.dtype, A.data.device)
        self.key = plan_key(n, reduce, transposed, B, own_values)
        self.t_entry = self.buffer = None
        target = A
        if transposed:
            t_indptr, t_indices, self.t_entry = cached_transposed_pattern(A)
            self.buffer = torch.empty_like(A.data)
            target = csr_array._trusted(self.buffer, t_indices, t_indptr, (A.shape[1], A.shape[0]), True)
        self.plan = SpmmPlan(target, n, reduce)
        self.rows = target.shape[0]
        self.id = next(_plan_ids)
        kept_plans[self.id] = self

    def serves(self, values, B):
        if self.own_values:
            fits = values.data_ptr() == self.values_ptr
        else:
            fits = (values.shape, values.dtype, values.device) == self.values_like
        return fits and plan_key(B.shape[1], self.key[1], self.key[2], B, self.own_values) == self.key

    def run(self, values, B):
        # The extension's plan directly, with DLPack capsules: SpmmPlan.run's checks and array-library dispatch,
        # and Tensor.__dlpack__, cost more than the call (the op has checked B already).
        given = None
        if self.t_entry is not None:
            torch.index_select(values.detach(), 0, self.t_entry, out=self.buffer)
        elif not self.own_values:
            given = to_dlpack(values.detach().contiguous())
        C = torch.empty((self.rows, B.shape[1]), dtype=B.dtype, device=B.device)
        self.plan._plan.run(to_dlpack(B.detach().contiguous()), to_dlpack(C), None, given)
        return C


kept_plans = weakref.WeakValueDictionary()  # id -> KeptPlan; each lives as long as its csr_array
_plan_ids = itertools.count()


def plan_key(n, reduce, transposed, B, own_values):
    return (int(n), reduce, bool(transposed), B.dtype, B.device, _backend.stream_of(B), bool(own_values))


def kept_plan(A, n, reduce, transposed, B, own_values=True):
    """The id of A's kept plan for this product, made on first use. own_values: the product uses A.data
    (else values of A's shape given by the call)."""
    own_values = own_values and not transposed  # a plan over Aᵀ gathers its values from any call's
    plans = A.__dict__.setdefault("_torch_kept_plans", {})
    key = plan_key(n, reduce, transposed, B, own_values)
    if key not in plans:
        plans[key] = KeptPlan(A, n, reduce, transposed, B, own_values)
    return plans[key].id


class KeptFusedPlan:
    """A FusedPlan over A with A's own values (A.data), made once per set of options and kept on A's
    csr_array: the fusedmm op's forward and backward calls then launch no long-row search and wait for
    nothing (a plan a call waited for the device at each). With Aᵀ's pattern when the calls need
    gradients. It serves calls with A.data (a call with other values, or after A.data was replaced,
    runs a plan of its own) whose Z has its device and current stream."""

    def __init__(self, A, options, save_attention, edge_terms, with_pattern, Z):
        score, edge, edge_param, normalize, aggregate, heads = options
        self.values_ptr = A.data.data_ptr()
        self.key = fused_plan_key(options, save_attention, edge_terms, with_pattern, Z)
        pattern = [to_dlpack(t) for t in cached_transposed_pattern(A)] if with_pattern else [None] * 3
        self.plan = _core.FusedPlan(A._handle, score, edge, float(edge_param), normalize, aggregate, int(heads), bool(save_attention),
                                    bool(edge_terms), *pattern, _backend.stream_of(Z), _backend.get_num_threads())
        self.id = next(_plan_ids)
        kept_plans[self.id] = self

    def serves(self, values, Z):
        return values.data_ptr() == self.values_ptr and (Z.device, _backend.stream_of(Z)) == self.key[-2:]


def fused_plan_key(options, save_attention, edge_terms, with_pattern, Z):
    return (tuple(options), bool(save_attention), bool(edge_terms), bool(with_pattern), Z.device, _backend.stream_of(Z))


def kept_fused_plan(A, options, save_attention, edge_terms, with_pattern, Z):
    """The id of A's kept FusedPlan for these options (A's own values), made on first use."""
    plans = A.__dict__.setdefault("_torch_kept_fused_plans", {})
    key = fused_plan_key(options, save_attention, edge_terms, with_pattern, Z)
    if key not in plans:
        plans[key] = KeptFusedPlan(A, options, save_attention, edge_terms, with_pattern, Z)
    return plans[key].id
