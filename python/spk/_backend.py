"""Which array library an argument comes from, and how to make outputs like it.

Outputs are allocated by the library of a reference input (NumPy, PyTorch or CuPy) on that
input's device, then filled by the extension, so results come back as the caller's array type.
"""
import numpy as np

_threads = 0


def set_num_threads(n):
    """Threads for the CPU backend (0: every hardware thread OpenMP offers)."""
    global _threads
    if int(n) < 0:
        raise ValueError(f"threads: must be >= 0, got {n}")
    _threads = int(n)


def get_num_threads():
    return _threads


def library_of(x):
    root = type(x).__module__.split(".")[0]
    return root if root in ("torch", "cupy") else "numpy"


def as_array(x, name):
    """x as an array the extension takes without copying (lists become NumPy arrays)."""
    lib = library_of(x)
    if lib == "torch":
        return x.detach()  # DLPack refuses tensors that require grad; spk never writes inputs
    if lib == "cupy" or isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(x)
    except Exception as e:  # objects NumPy cannot read at all
        raise TypeError(f"{name}: expected an array, got {type(x).__name__}") from e


def dtype_name(x):
    if library_of(x) == "torch":
        return str(x.dtype).replace("torch.", "")
    return np.dtype(x.dtype).name if x.dtype != object else "object"


def empty(like, shape, dtype=None):
    """An uninitialised array of `like`'s library and device (dtype: a name, or like's dtype)."""
    lib = library_of(like)
    if lib == "torch":
        import torch

        return torch.empty(shape, dtype=getattr(torch, dtype) if dtype else like.dtype, device=like.device)
    if lib == "cupy":
        import cupy

        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=dtype or like.dtype)
    return np.empty(shape, dtype=dtype or like.dtype)


def zeros(like, shape, dtype=None):
    out = empty(like, shape, dtype)
    out[...] = 0
    return out


def _torch_raw_stream():
    """PyTorch's current raw CUDA stream by device index: the private binding that torch.cuda.current_stream
    wraps (a Stream object a call, a few microseconds on the host), else that public function."""
    import torch

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda index: torch.cuda.current_stream(index).cuda_stream


_raw_stream = None


def stream_of(x):
    """The caller's current CUDA stream for x's device (0 on the host): spk queues work there."""
    global _raw_stream
    lib = library_of(x)
    if lib == "torch" and x.is_cuda:
        if _raw_stream is None:
            _raw_stream = _torch_raw_stream()
        return _raw_stream(x.device.index)
    if lib == "cupy":
        import cupy

        return cupy.cuda.get_current_stream().ptr
    return 0


def adopt(arr, like):
    """An array the extension created (spk memory, DLPack) as `like`'s array type (NumPy for None), without copying."""
    lib = "numpy" if like is None else library_of(like)
    if lib == "torch":
        import torch

        return torch.from_dlpack(arr)
    if lib == "cupy":
        import cupy

        return cupy.from_dlpack(arr)
    return np.from_dlpack(arr)
