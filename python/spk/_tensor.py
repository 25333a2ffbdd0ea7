"""3-way sparse tensors (COO) and their MTTKRP and TTM (host arrays; spk's CUDA backend has none yet)."""
from collections import namedtuple

import numpy as np

from . import _backend, _core


class CooTensor:
    """A 3-way COO tensor: coords (3, nnz) integer array (int32 or int64), values (nnz,), shape.
    Entries may repeat (summed by the operations). spk copies the entries when it builds its
    compressed fibers, so any layout of the inputs is accepted."""

    def __init__(self, coords, values, shape):
        coords = np.ascontiguousarray(coords)
        values = np.ascontiguousarray(values)
        if coords.ndim != 2 or coords.shape[0] != 3:
            raise ValueError(f"coords: expected shape (3, nnz), got {coords.shape}")
        if len(shape) != 3:
            raise ValueError(f"shape: expected 3 dims, got {len(shape)}")
        self.coords, self.values, self.shape = coords, values, tuple(int(d) for d in shape)
        self._handle = _core.CooTensor(coords[0], coords[1], coords[2], values, self.shape)

    @property
    def nnz(self):
        return self.values.shape[0]

    def to_dense(self):
        out = np.zeros(self.shape, dtype=self.values.dtype)
        np.add.at(out, tuple(self.coords), self.values)
        return out


def _as_tensor(X):
    if isinstance(X, CooTensor):
        return X
    if isinstance(X, tuple) and len(X) == 3:
        return CooTensor(*X)
    raise TypeError(f"X: expected spk.CooTensor or (coords, values, shape), got {type(X).__name__}")


def _factors(factors):
    if len(factors) != 3:
        raise ValueError(f"factors: expected 3 (one per mode; the output mode's may be None), got {len(factors)}")
    return [None if f is None else _backend.as_array(f, "factors") for f in factors]


class MttkrpPlan:
    """MTTKRP with the compressed fibers built once per planned mode (CP-ALS reuses them)."""

    def __init__(self, X, modes=(0, 1, 2)):
        self.X = _as_tensor(X)
        self._plan = _core.MttkrpPlan(self.X._handle, [int(m) for m in modes], _backend.get_num_threads())

    def run(self, factors, mode, out=None):
        factors = _factors(factors)
        ref = next(f for m, f in enumerate(factors) if m != mode and f is not None)
        if out is None:
            out = np.empty((self.X.shape[mode], ref.shape[1]), dtype=ref.dtype)
        self._plan.run(int(mode), factors, out)
        return out


def mttkrp(X, factors, mode, out=None):
    """out[i_mode, r] = sum over non-zeros X[i0, i1, i2] * prod_{m != mode} factors[m][i_m, r]."""
    X = _as_tensor(X)
    return MttkrpPlan(X, (int(mode),)).run(factors, mode, out)


TtmResult = namedtuple("TtmResult", ["coords", "values", "shape", "mode", "sparse_modes"])
TtmResult.__doc__ = ("Y = X x_mode U, semi-sparse: fiber f sits at coords[:, f] (modes sparse_modes) and holds "
                     "values[f, :] along the dense mode")


def _ttm_to_dense(self):
    out = np.zeros(self.shape, dtype=self.values.dtype)
    index = [slice(None)] * 3
    for f in range(self.values.shape[0]):
        index[self.sparse_modes[0]], index[self.sparse_modes[1]] = self.coords[0, f], self.coords[1, f]
        out[tuple(index)] = self.values[f]
    return out


TtmResult.to_dense = _ttm_to_dense


def ttm(X, U, mode):
    """Y = X x_mode U (Kolda): U is R x shape[mode]; Y has R along `mode`, stored per non-empty fiber."""
    X = _as_tensor(X)
    U = _backend.as_array(U, "U")
    i0, i1, values, shape, sparse_modes = _core.ttm(X._handle, int(mode), U, _backend.get_num_threads())
    coords = np.stack([_backend.adopt(i0, None), _backend.adopt(i1, None)])
    return TtmResult(coords, _backend.adopt(values, None), tuple(shape), int(mode), tuple(sparse_modes))
