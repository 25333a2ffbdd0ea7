"""spk: sparse kernels (CUDA and OpenMP) for NumPy, SciPy, CuPy and PyTorch.

Arrays cross into spk without copies (DLPack / buffer protocol); outputs are new arrays of the
input's library on the input's device. On CUDA, spk queues work on the caller's current stream
(PyTorch's or CuPy's). The PyTorch autograd ops are in spk.torch_ops (imported on demand).
"""
from . import _errors
from ._errors import Error, FormatError
from . import _core
from ._backend import get_num_threads, set_num_threads
from ._sparse import csr_array, from_cupy, from_edge_index, from_scipy, from_torch, to_scipy
from ._ops import (FusedPlan, FusedSaved, SpgemmPlan, SpmmPlan, fusedmm, fusedmm_backward, sddmm, sddmm_backward, spgemm, spmm,
                   triangle_count)
from ._tensor import CooTensor, MttkrpPlan, TtmResult, mttkrp, ttm
from ._io import read_mtx, read_tns, write_mtx

__version__ = "0.1.0"
built_with_cuda = _core.built_with_cuda


def device_memory_use(device=0):
    """(current, peak): bytes of CUDA device memory spk itself holds (its plans' arrays and its
    workspaces), which PyTorch's or CuPy's memory statistics do not see; the peak is since
    reset_device_memory_peak, and adds two high-water marks, so it may overstate."""
    return _core.device_memory_use(int(device))


def reset_device_memory_peak(device=0):
    """Restarts device_memory_use's peak from the current use."""
    _core.reset_device_memory_peak(int(device))


__all__ = [
    "Error", "FormatError", "csr_array", "from_scipy", "to_scipy", "from_torch", "from_cupy", "from_edge_index", "spmm", "SpmmPlan",
    "sddmm", "sddmm_backward", "fusedmm", "fusedmm_backward", "FusedPlan", "FusedSaved", "spgemm", "SpgemmPlan", "triangle_count",
    "CooTensor", "mttkrp", "MttkrpPlan", "ttm", "TtmResult", "read_mtx", "write_mtx", "read_tns", "set_num_threads", "get_num_threads",
    "built_with_cuda", "device_memory_use", "reset_device_memory_peak",
]


def __getattr__(name):
    # spk.torch_ops on first use only, so that importing spk never imports torch.
    if name == "torch_ops":
        import importlib

        return importlib.import_module(".torch_ops", __name__)
    raise AttributeError(f"module 'spk' has no attribute {name!r}")
