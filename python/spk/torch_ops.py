"""PyTorch ops: spk::spmm, spk::sddmm, spk::fusedmm (and their backward ops) registered with
torch.library, with fake (meta) kernels for torch.compile and autograd formulas for the dense
inputs and for A's values.

The ops take A as raw tensors (indptr, indices, values, rows, cols); the functions at the
bottom (spmm, sddmm, fusedmm) take a spk.csr_array holding torch tensors. On the CPU each call
re-validates A's structure (O(nnz), small next to the op); on CUDA the structure is trusted
(spk.csr_array validated it when it was made), so hand-made malformed tensors are the caller's
responsibility there. Work runs on the current CUDA stream of the inputs' device.

Gradients: spmm for every reduction (max/min: each output element's gradient flows through the one
entry of A whose product won it, none through empty rows), sddmm and fusedmm for every option spk
supports.
"""
from typing import Optional

import torch
from torch import Tensor
from torch.utils.dlpack import to_dlpack

from . import _backend, _core
from ._ops import parse_edge
from ._torch_kept import (cached_transposed_pattern, kept_fused_plan, kept_plan, kept_plans,  # noqa: F401 (transposed_pattern: API)
                          transposed_pattern)


def _matrix(indptr, indices, values, rows, cols):
    return _core.SparseMatrix(_dense(indptr), _dense(indices), _dense(values), rows, cols, not indptr.is_cuda, False)


def _dense(t):
    """An input tensor as the extension reads it: torch hands ops any strides (expanded gradients
    have stride 0), spk wants one unit-stride axis, so others are made contiguous. Tensors cross as
    DLPack capsules: Tensor.__dlpack__ costs a few microseconds of Python a call, more than the
    rest of a small product's call."""
    return None if t is None else to_dlpack(t.detach().contiguous())


def _out(t):
    """An output tensor the op allocated, as a DLPack capsule (see _dense)."""
    return None if t is None else to_dlpack(t)


def _stream(t):
    return _backend.stream_of(t)


def _threads():
    return _backend.get_num_threads()


def _accum_dtype(values):
    return torch.float64 if values.dtype == torch.float64 else torch.float32


# --- spmm ------------------------------------------------------------------------------------


def _spmm_impl(indptr: Tensor, indices: Tensor, values: Tensor, rows: int, cols: int, B: Tensor, reduce: str, transpose: bool,
               t_indptr: Optional[Tensor] = None, t_indices: Optional[Tensor] = None, t_entry: Optional[Tensor] = None, plan: int = -1,
               backward_plan: int = -1) -> Tensor:
    """C = reduce(A B) (or Aᵀ B). t_indptr, t_indices, t_entry: Aᵀ's pattern and, per entry of Aᵀ,
    its entry in A (transposed_pattern); with them a transposed product runs on Aᵀ directly instead
    of building Aᵀ on every call. plan, backward_plan: kept plans (KeptPlan ids) for this product
    and for B's gradient, or -1; a plan that is gone, or made for other values, is not used."""
    kept = kept_plans.get(plan) if plan >= 0 else None
    if kept is not None and kept.serves(values, B):
        return kept.run(values, B)
    C = B.new_empty((cols if transpose else rows, B.shape[1]))
    if transpose and t_indptr is not None:
        a = _matrix(t_indptr, t_indices, values[t_entry], cols, rows)
        transpose = False
    else:
        a = _matrix(indptr, indices, values, rows, cols)
    _core.spmm(a, _dense(B), _out(C), reduce, 1.0, 0.0, transpose, None, False, "", _stream(B), _threads())
    return C


spmm_op = torch.library.custom_op("spk::spmm", _spmm_impl, mutates_args=())


@spmm_op.register_fake
def _(indptr, indices, values, rows, cols, B, reduce, transpose, t_indptr=None, t_indices=None, t_entry=None, plan=-1, backward_plan=-1):
    return B.new_empty((cols if transpose else rows, B.shape[1]))


def _output_counts(indptr, indices, rows, cols, transpose):
    """Non-zeros per output row (what 'mean' divides by), at least 1."""
    if transpose:
        counts = torch.bincount(indices.to(torch.int64), minlength=cols)
    else:
        counts = (indptr[1:] - indptr[:-1]).to(torch.int64)
    return counts.clamp(min=1)


def _spmm_setup(ctx, inputs, output):
    indptr, indices, values, rows, cols, B, reduce, transpose, t_indptr, t_indices, t_entry, _, backward_plan = inputs
    ctx.save_for_backward(indptr, indices, values, B, t_indptr, t_indices, t_entry)
    ctx.shape, ctx.reduce, ctx.transpose, ctx.backward_plan = (rows, cols), reduce, transpose, backward_plan


def _spmm_backward(ctx, dC):
    indptr, indices, values, B, t_indptr, t_indices, t_entry = ctx.saved_tensors
    rows, cols = ctx.shape
    none = (None,) * 7  # no gradients for reduce, transpose, Aᵀ's pattern and the plans
    if ctx.reduce in ("max", "min"):
        # spk::spmm keeps no arg indices: find the winners again (spk::spmm_arg saves them instead)
        _, arg = spmm_arg_op(indptr, indices, values, rows, cols, B, ctx.reduce, ctx.transpose)
        dB, dvalues = spmm_arg_backward_op(indptr, indices, values, rows, cols, B, arg, dC.contiguous(), ctx.reduce, ctx.transpose)
        return (None, None, dvalues if ctx.needs_input_grad[2] else None, None, None, dB if ctx.needs_input_grad[5] else None) + none
    if ctx.reduce == "mean":
        dC = dC / _output_counts(indptr, indices, rows, cols, ctx.transpose).to(dC.dtype).unsqueeze(1)
    dB = dvalues = None
    if ctx.needs_input_grad[5]:
        # The eager Function (ctx.eager) runs the product directly unless autograd records it (create_graph);
        # the registered op's backward goes through the op, which tracing (torch.compile, opcheck) needs.
        run = _spmm_impl if getattr(ctx, "eager", False) and not torch.is_grad_enabled() else spmm_op
        dB = run(indptr, indices, values, rows, cols, dC.contiguous(), "sum", not ctx.transpose, t_indptr, t_indices, t_entry,
                 ctx.backward_plan)
    if ctx.needs_input_grad[2]:
        # d values[p] for p = (i, j): <dC_i, B_j> (or <B_i, dC_j> when the forward pass used Aᵀ)
        x, y = (B, dC) if ctx.transpose else (dC, B)
        dvalues = sddmm_op(indptr, indices, values, rows, cols, x.contiguous(), y.contiguous(), 1, False).reshape(-1)
    return (None, None, dvalues, None, None, dB) + none


spmm_op.register_autograd(_spmm_backward, setup_context=_spmm_setup)


# --- spmm with reduce = max / min, keeping the winners -----------------------------------------


@torch.library.custom_op("spk::spmm_arg", mutates_args=())
def spmm_arg_op(indptr: Tensor, indices: Tensor, values: Tensor, rows: int, cols: int, B: Tensor, reduce: str,
                transpose: bool) -> tuple[Tensor, Tensor]:
    """(C, arg) for reduce='max' or 'min': arg[r, q] is the column of op(A) whose product won
    C[r, q] (a row of A when transpose), -1 for empty rows; the backward pass needs it."""
    a = _matrix(indptr, indices, values, rows, cols)
    C = B.new_empty((cols if transpose else rows, B.shape[1]))
    arg = B.new_empty(C.shape, dtype=indptr.dtype)
    _core.spmm(a, _dense(B), _out(C), reduce, 1.0, 0.0, transpose, _out(arg), False, "", _stream(B), _threads())
    return C, arg


@spmm_arg_op.register_fake
def _(indptr, indices, values, rows, cols, B, reduce, transpose):
    shape = (cols if transpose else rows, B.shape[1])
    return B.new_empty(shape), B.new_empty(shape, dtype=indptr.dtype)


def _winning_entries(indptr, indices, values, rows, cols, i, j, largest):
    """Position in A's arrays of the entry (i[t], j[t]) that won output element t. A may be unsorted
    and repeat (i, j): among repeats the winner of A(i, j) * b is the largest value (largest[t]:
    max with b >= 0 or min with b < 0) or else the smallest, so entries are sorted by (i, j) and
    then by value, and the run of (i, j) is entered from its end or its start."""
    entry_rows = torch.repeat_interleave(torch.arange(rows, device=indptr.device), (indptr[1:] - indptr[:-1]).to(torch.int64))
    keys = entry_rows * cols + indices.to(torch.int64)
    by_value = torch.argsort(values, stable=True)
    order = by_value[torch.argsort(keys[by_value], stable=True)]
    sorted_keys = keys[order]
    wanted = i * cols + j
    first = torch.searchsorted(sorted_keys, wanted)
    last = torch.searchsorted(sorted_keys, wanted, right=True) - 1
    return order[torch.where(largest, last, first)]


@torch.library.custom_op("spk::spmm_arg_backward", mutates_args=())
def spmm_arg_backward_op(indptr: Tensor, indices: Tensor, values: Tensor, rows: int, cols: int, B: Tensor, arg: Tensor, dC: Tensor,
                         reduce: str, transpose: bool) -> tuple[Tensor, Tensor]:
    """(dB, dvalues) of spmm_arg: for C[r, q] won by w = arg[r, q] through entry p = (i, j) of A
    ((r, w), or (w, r) when transpose), dB[w, q] += A[p] dC[r, q] and dvalues[p] += B[w, q] dC[r, q]."""
    r, q = torch.nonzero(arg >= 0, as_tuple=True)  # empty rows (-1) pass no gradient
    w = arg[r, q].to(torch.int64)
    i, j = (w, r) if transpose else (r, w)
    acc = _accum_dtype(values)
    b, g = B[w, q].to(acc), dC[r, q].to(acc)
    p = _winning_entries(indptr, indices, values, rows, cols, i, j, (b >= 0) == (reduce == "max"))
    dB = torch.zeros(B.shape, dtype=acc, device=B.device).index_put_((w, q), values[p].to(acc) * g, accumulate=True)
    dvalues = torch.zeros(values.shape, dtype=acc, device=values.device).index_add_(0, p, b * g)
    return dB.to(B.dtype), dvalues.to(values.dtype)


@spmm_arg_backward_op.register_fake
def _(indptr, indices, values, rows, cols, B, arg, dC, reduce, transpose):
    return B.new_empty(B.shape), values.new_empty(values.shape)


def _spmm_arg_setup(ctx, inputs, output):
    indptr, indices, values, rows, cols, B, reduce, transpose = inputs
    _, arg = output
    ctx.mark_non_differentiable(arg)
    ctx.save_for_backward(indptr, indices, values, B, arg)
    ctx.shape, ctx.reduce, ctx.transpose = (rows, cols), reduce, transpose


def _spmm_arg_backward(ctx, dC, _darg):
    indptr, indices, values, B, arg = ctx.saved_tensors
    dB, dvalues = spmm_arg_backward_op(indptr, indices, values, *ctx.shape, B, arg, dC.contiguous(), ctx.reduce, ctx.transpose)
    need = ctx.needs_input_grad
    return None, None, dvalues if need[2] else None, None, None, dB if need[5] else None, None, None


spmm_arg_op.register_autograd(_spmm_arg_backward, setup_context=_spmm_arg_setup)


# --- sddmm -----------------------------------------------------------------------------------


@torch.library.custom_op("spk::sddmm", mutates_args=())
def sddmm_op(indptr: Tensor, indices: Tensor, values: Tensor, rows: int, cols: int, X: Tensor, Y: Tensor, heads: int, scale_by_a: bool) -> Tensor:
    a = _matrix(indptr, indices, values, rows, cols)
    out = X.new_empty((indices.shape[0], heads))
    _core.sddmm(a, _dense(X), _dense(Y), _out(out), scale_by_a, heads, "", _stream(X), _threads())
    return out


@sddmm_op.register_fake
def _(indptr, indices, values, rows, cols, X, Y, heads, scale_by_a):
    return X.new_empty((indices.shape[0], heads))


@torch.library.custom_op("spk::sddmm_backward", mutates_args=())
def sddmm_backward_op(indptr: Tensor, indices: Tensor, values: Tensor, rows: int, cols: int, X: Tensor, Y: Tensor, d_out: Tensor, heads: int,
                      scale_by_a: bool) -> tuple[Tensor, Tensor, Tensor]:
    a = _matrix(indptr, indices, values, rows, cols)
    dX, dY, dA = X.new_empty(X.shape), Y.new_empty(Y.shape), X.new_empty((indices.shape[0], 1))
    _core.sddmm_backward(a, _dense(X), _dense(Y), _dense(d_out), _out(dX), _out(dY), _out(dA), scale_by_a, heads, _stream(X), _threads())
    return dX, dY, dA.reshape(-1)


@sddmm_backward_op.register_fake
def _(indptr, indices, values, rows, cols, X, Y, d_out, heads, scale_by_a):
    return X.new_empty(X.shape), Y.new_empty(Y.shape), X.new_empty((indices.shape[0],))


def _sddmm_setup(ctx, inputs, output):
    indptr, indices, values, rows, cols, X, Y, heads, scale_by_a = inputs
    ctx.save_for_backward(indptr, indices, values, X, Y)
    ctx.shape, ctx.heads, ctx.scale_by_a = (rows, cols), heads, scale_by_a


def _sddmm_backward(ctx, d_out):
    indptr, indices, values, X, Y = ctx.saved_tensors
    dX, dY, dA = sddmm_backward_op(indptr, indices, values, *ctx.shape, X, Y, d_out.contiguous(), ctx.heads, ctx.scale_by_a)
    dvalues = dA if ctx.scale_by_a and ctx.needs_input_grad[2] else None
    return (None, None, dvalues, None, None, dX if ctx.needs_input_grad[5] else None, dY if ctx.needs_input_grad[6] else None, None, None)


sddmm_op.register_autograd(_sddmm_backward, setup_context=_sddmm_setup)


# --- fusedmm ---------------------------------------------------------------------------------


def _fused_stat_shapes(rows, heads, z_cols, normalize, aggregate):
    softmax = normalize == "softmax"
    stat = (rows, heads) if softmax else (0,)
    arg = (rows, z_cols) if aggregate == "max" else (0,)
    return stat, arg


def _fusedmm_impl(indptr: Tensor, indices: Tensor, values: Tensor, rows: int, cols: int, X: Optional[Tensor], Y: Optional[Tensor], Z: Tensor,
                  score: str, edge: str, edge_param: float, normalize: str, aggregate: str, heads: int, t_indptr: Optional[Tensor] = None,
                  t_indices: Optional[Tensor] = None, t_entry: Optional[Tensor] = None,
                  save_attention: bool = False, edge_terms: bool = False, plan: int = -1) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """(E, row_max, row_sum, argmax, attention): the last four are what the backward pass needs
    (empty when the options need none of them; attention, nnz x heads, only with save_attention).
    t_indptr, t_indices, t_entry: Aᵀ's pattern (transposed_pattern) for the backward pass, which then
    builds none. edge_terms: the backward pass's option (FusedOptions::backward_edge_terms). plan: a
    kept FusedPlan (KeptFusedPlan id) for these options, or -1; one that is gone, or does not serve
    these values, is not used."""
    stat, arg = _fused_stat_shapes(rows, heads, Z.shape[1], normalize, aggregate)
    E = Z.new_empty((rows, Z.shape[1]))
    row_max = Z.new_empty(stat, dtype=_accum_dtype(values))
    row_sum = Z.new_empty(stat, dtype=_accum_dtype(values))
    argmax = Z.new_empty(arg, dtype=indptr.dtype)
    attention = Z.new_empty((indices.shape[0], heads) if save_attention else (0,))
    softmax = normalize == "softmax"
    saved = (_out(row_max) if softmax else None, _out(row_sum) if softmax else None, _out(argmax) if aggregate == "max" else None,
             _out(attention) if save_attention else None)
    kept = kept_plans.get(plan) if plan >= 0 else None
    if kept is not None and kept.serves(values, Z):
        kept.plan.forward(_dense(X), _dense(Y), _dense(Z), _out(E), *saved)
    else:
        _core.fusedmm_forward(_matrix(indptr, indices, values, rows, cols), _dense(X), _dense(Y), _dense(Z), _out(E), score, edge,
                              edge_param, normalize, aggregate, heads, *saved, _stream(Z), _threads())
    return E, row_max, row_sum, argmax, attention


fusedmm_op = torch.library.custom_op("spk::fusedmm", _fusedmm_impl, mutates_args=())


@fusedmm_op.register_fake
def _(indptr, indices, values, rows, cols, X, Y, Z, score, edge, edge_param, normalize, aggregate, heads, t_indptr=None, t_indices=None,
      t_entry=None, save_attention=False, edge_terms=False, plan=-1):
    stat, arg = _fused_stat_shapes(rows, heads, Z.shape[1], normalize, aggregate)
    return (Z.new_empty((rows, Z.shape[1])), Z.new_empty(stat, dtype=_accum_dtype(values)), Z.new_empty(stat, dtype=_accum_dtype(values)),
            Z.new_empty(arg, dtype=indptr.dtype), Z.new_empty((indices.shape[0], heads) if save_attention else (0,)))


def _fusedmm_backward_impl(indptr: Tensor, indices: Tensor, values: Tensor, rows: int, cols: int, dE: Tensor, X: Optional[Tensor],
                           Y: Optional[Tensor], Z: Tensor, row_max: Tensor, row_sum: Tensor, argmax: Tensor, score: str, edge: str,
                           edge_param: float, normalize: str, aggregate: str, heads: int, t_indptr: Optional[Tensor] = None,
                           t_indices: Optional[Tensor] = None, t_entry: Optional[Tensor] = None,
                           need: Optional[list[bool]] = None, E: Optional[Tensor] = None,
                           attention: Optional[Tensor] = None, edge_terms: bool = False,
                           plan: int = -1) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(dX, dY, dZ, dA); need: which of the four to compute (None: all), the others (and dX, dY when
    X, Y are None) come back empty. t_indptr, t_indices, t_entry: Aᵀ's pattern, or None to build it here.
    E: the forward's output (FusedPlan::backward's e), or None. attention: what a forward pass with
    save_attention kept, or None. edge_terms: FusedOptions::backward_edge_terms. plan: the forward's
    kept FusedPlan (KeptFusedPlan id), or -1."""
    dX, dY, dZ, dA = _fused_gradients(X, Y, Z, indices.shape[0], need)
    softmax, is_max = normalize == "softmax", aggregate == "max"
    given = lambda t: _out(t) if t.numel() > 0 else None
    inputs = (_dense(dE), _dense(X), _dense(Y), _dense(Z), _dense(E), _dense(row_max) if softmax else None,
              _dense(row_sum) if softmax else None, _dense(argmax) if is_max else None, _dense(attention), given(dX), given(dY), given(dZ),
              None if dA.numel() == 0 else _out(dA.view(-1, 1)))
    kept = kept_plans.get(plan) if plan >= 0 else None
    if kept is not None and kept.serves(values, Z):
        kept.plan.backward(*inputs)
    else:
        _core.fusedmm_backward(_matrix(indptr, indices, values, rows, cols), *inputs, score, edge, edge_param, normalize, aggregate, heads,
                               _dense(t_indptr), _dense(t_indices), _dense(t_entry), _stream(Z), _threads(), edge_terms)
    return dX, dY, dZ, dA


fusedmm_backward_op = torch.library.custom_op("spk::fusedmm_backward", _fusedmm_backward_impl, mutates_args=())


def _fused_gradients(X, Y, Z, nnz, need):
    """Empty gradient tensors of the right shapes: (0,) for those not needed (or without an input)."""
    need = need if need is not None else [True] * 4
    empty = lambda: Z.new_empty((0,))
    dX = X.new_empty(X.shape) if X is not None and need[0] else empty()
    dY = Y.new_empty(Y.shape) if Y is not None and need[1] else empty()
    dZ = Z.new_empty(Z.shape) if need[2] else empty()
    dA = Z.new_empty((nnz,)) if need[3] else empty()
    return dX, dY, dZ, dA


@fusedmm_backward_op.register_fake
def _(indptr, indices, values, rows, cols, dE, X, Y, Z, row_max, row_sum, argmax, score, edge, edge_param, normalize, aggregate, heads,
      t_indptr=None, t_indices=None, t_entry=None, need=None, E=None, attention=None, edge_terms=False, plan=-1):
    return _fused_gradients(X, Y, Z, indices.shape[0], need)


def _fusedmm_setup(ctx, inputs, output):
    (indptr, indices, values, rows, cols, X, Y, Z, score, edge, edge_param, normalize, aggregate, heads, t_indptr, t_indices, t_entry,
     save_attention, edge_terms, plan) = inputs
    E, row_max, row_sum, argmax, attention = output
    ctx.mark_non_differentiable(row_max, row_sum, argmax, attention)
    # E under softmax only: the backward takes σ from it (FusedPlan::backward's e).
    ctx.save_for_backward(indptr, indices, values, X, Y, Z, row_max, row_sum, argmax, t_indptr, t_indices, t_entry,
                          E if normalize == "softmax" else None, attention if save_attention else None)
    ctx.shape = (rows, cols)
    ctx.options = (score, edge, edge_param, normalize, aggregate, heads)
    ctx.edge_terms = edge_terms
    ctx.plan = plan


def _fusedmm_backward(ctx, dE, _row_max, _row_sum, _argmax, _attention):
    indptr, indices, values, X, Y, Z, row_max, row_sum, argmax, t_indptr, t_indices, t_entry, E, attention = ctx.saved_tensors
    need = ctx.needs_input_grad
    wanted = [X is not None and need[5], Y is not None and need[6], need[7], need[2]]
    run = _fusedmm_backward_impl if getattr(ctx, "eager", False) and not torch.is_grad_enabled() else fusedmm_backward_op  # as in spmm
    dX, dY, dZ, dA = run(indptr, indices, values, *ctx.shape, dE.contiguous(), X, Y, Z, row_max, row_sum, argmax, *ctx.options, t_indptr,
                         t_indices, t_entry, wanted, E, attention, ctx.edge_terms, ctx.plan)
    pick = lambda g, w: g if w else None
    return (None, None, pick(dA, wanted[3]), None, None, pick(dX, wanted[0]), pick(dY, wanted[1]), pick(dZ, wanted[2])) + (None,) * 12


fusedmm_op.register_autograd(_fusedmm_backward, setup_context=_fusedmm_setup)


# --- eager mode without the dispatcher ------------------------------------------------------


def _eager(name, impl, setup, backward):
    """An autograd.Function running a registered op's implementation, with the op's own
    setup_context and backward formula (the Function takes the op's arguments in the op's order,
    so its needs_input_grad and gradient tuple line up). Outside torch.compile the functions below
    call it instead of the op: the custom-op dispatch costs about 100 us a call in Python, which is
    most of a small graph's epoch. The gradients call the registered ops, as the op's would."""
    def forward(ctx, *inputs):  # ctx in forward: a separate setup_context costs an inspect.signature a call
        output = impl(*inputs)
        setup(ctx, inputs, output)
        ctx.eager = True
        return output

    return type(name, (torch.autograd.Function,), {
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
        "__doc__": f"Eager {name}: see _eager.",
    })


_SpmmEager = _eager("_SpmmEager", _spmm_impl, _spmm_setup, _spmm_backward)
_FusedmmEager = _eager("_FusedmmEager", _fusedmm_impl, _fusedmm_setup, _fusedmm_backward)


def _call(op, eager, *args):
    return op(*args) if torch.compiler.is_compiling() else eager.apply(*args)


# --- the functions users call ----------------------------------------------------------------


def _parts(A, values):
    v = A.data if values is None else values
    return A.indptr, A.indices, v, A.shape[0], A.shape[1]


def spmm(A, B, reduce="sum", *, transpose=False, values=None):
    """C = reduce(A B) (or Aᵀ B), differentiable in B and in A's values (A.data, or `values`).
    For max and min the forward pass keeps the winners (spk::spmm_arg) for the backward pass.
    Products with Aᵀ (the forward pass with transpose, or B's gradient without) use Aᵀ's pattern,
    built once per A and kept on it. The plans of the product and of B's gradient are kept on A too,
    for A's own values and for other values of A's pattern (a dropout of A.data made afresh each
    step, say: see spk._torch_kept.KeptPlan)."""
    if reduce in ("max", "min"):
        return spmm_arg_op(*_parts(A, values), B, reduce, transpose)[0]
    needs_grad = torch.is_grad_enabled() and B.requires_grad
    pattern = cached_transposed_pattern(A) if transpose or needs_grad else (None, None, None)
    plan = backward_plan = -1
    if B.dim() == 2 and not torch.compiler.is_compiling():  # a compiled graph has no use for them
        own = values is None
        plan = kept_plan(A, B.shape[1], reduce, transpose, B, own)
        if needs_grad:
            backward_plan = kept_plan(A, B.shape[1], "sum", not transpose, B, own)
    return _call(spmm_op, _SpmmEager, *_parts(A, values), B, reduce, transpose, *pattern, plan, backward_plan)


def sddmm(A, X, Y, *, heads=1, scale_by_a=True, values=None):
    """Per entry p = (i, j) of A and head h: A_ij <X_i, Y_j> (per head block); shape (nnz, heads)."""
    return sddmm_op(*_parts(A, values), X, Y, heads, scale_by_a)


def fusedmm(A, X, Y, Z, *, score="dot", edge="identity", normalize="none", aggregate="sum", heads=1, values=None, save_attention=False,
            backward_edge_terms=False):
    """spk.fusedmm as a differentiable op (gradients for X, Y, Z and A's values). save_attention=True
    keeps the nnz x heads attention for the backward pass, which then reads it instead of
    recomputing the scores: faster, at nnz x heads memory. backward_edge_terms=True: the backward
    pass keeps 2 nnz x heads values of scratch while it runs, so that its gradients over Aᵀ
    recompute no score (FusedOptions::backward_edge_terms; CUDA, sum and mean aggregation). With A's
    own values the plan is kept on A for these options (spk._torch_kept.KeptFusedPlan), so that later
    calls launch no analysis and wait for nothing."""
    name, param = parse_edge(edge)
    needs_grad = torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (X, Y, Z, _parts(A, values)[2]))
    pattern = cached_transposed_pattern(A) if needs_grad else (None, None, None)
    plan = -1
    if values is None and not torch.compiler.is_compiling():  # a compiled graph has no use for it
        plan = kept_fused_plan(A, (score, name, param, normalize, aggregate, heads), save_attention, backward_edge_terms, needs_grad, Z)
    return _call(fusedmm_op, _FusedmmEager, *_parts(A, values), X, Y, Z, score, name, param, normalize, aggregate, heads, *pattern,
                 bool(save_attention), bool(backward_edge_terms), plan)[0]
