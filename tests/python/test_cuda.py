"""CUDA arrays (PyTorch): run on the GPU machine (scripts/gpu-check.sh); skipped without torch or a GPU."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import spk  # noqa: E402
from conftest import random_csr  # noqa: E402


def cuda_csr(rng, rows, cols, dtype=torch.float32):
    S = random_csr(rng, rows, cols)
    t = lambda x, dt: torch.from_numpy(np.ascontiguousarray(x)).to("cuda", dt)
    return spk.csr_array((t(S.data, dtype), t(S.indices, torch.int32), t(S.indptr, torch.int32)), shape=S.shape), S


def test_mixed_devices_are_a_value_error(rng):
    A, _ = cuda_csr(rng, 8, 6)
    with pytest.raises(ValueError, match="mixed devices"):
        spk.spmm(A, torch.ones(6, 2))


@pytest.mark.skipif(not spk.built_with_cuda, reason="spk built without CUDA (SPK_CUDA=AUTO pip install ./python)")
def test_spmm_on_the_callers_stream(rng):
    A, S = cuda_csr(rng, 300, 200)
    B = torch.randn(200, 32, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        C = spk.spmm(A, B)
    stream.synchronize()
    assert C.is_cuda and C.dtype == torch.float32
    np.testing.assert_allclose(C.cpu().numpy(), S @ B.cpu().numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(not spk.built_with_cuda, reason="spk built without CUDA")
def test_sddmm_runs_or_says_it_has_no_cuda_kernel(rng):
    # Until the CUDA SDDMM lands, spk::Error(Unsupported) must arrive as NotImplementedError.
    A, S = cuda_csr(rng, 8, 8)
    X = torch.randn(8, 4, device="cuda")
    try:
        out = spk.sddmm(A, X, X)
    except NotImplementedError:
        return
    x = X.cpu().numpy()
    np.testing.assert_allclose(out.cpu().numpy(), spk.sddmm(S, x, x), rtol=1e-4, atol=1e-4)
