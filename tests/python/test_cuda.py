"""CUDA arrays (PyTorch): run on the GPU machine (scripts/gpu-check.sh); skipped without torch or a GPU."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import spk  # noqa: E402
from conftest import random_csr  # noqa: E402


def cuda_csr(rng, rows, cols, dtype=torch.float32):
    S = random_csr(rng, rows, cols, dtype=np.float64 if dtype == torch.float64 else np.float32)
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
        assert spk._backend.stream_of(B) == stream.cuda_stream != torch.cuda.default_stream().cuda_stream
        C = spk.spmm(A, B)
    stream.synchronize()
    assert C.is_cuda and C.dtype == torch.float32
    np.testing.assert_allclose(C.cpu().numpy(), S @ B.cpu().numpy(), rtol=1e-4, atol=1e-4)


cuda_only = pytest.mark.skipif(not spk.built_with_cuda, reason="spk built without CUDA")


@cuda_only
def test_sddmm_matches_the_host(rng):
    A, S = cuda_csr(rng, 300, 300)
    X = torch.randn(300, 16, device="cuda")
    Y = torch.randn(300, 16, device="cuda")
    out = spk.sddmm(A, X, Y)
    assert out.is_cuda
    want = spk.sddmm(S, X.cpu().numpy(), Y.cpu().numpy())
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-4, atol=1e-4)
    # Each forward kernel by name (the rows mode split across warps, or not); a config the CUDA
    # backend does not know is a ValueError that names it.
    for config in ("slices", "rows", "rows.g8.s3", "rows.g32.s1"):
        np.testing.assert_allclose(spk.sddmm(A, X, Y, config=config).cpu().numpy(), want, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="rows.g5"):
        spk.sddmm(A, X, Y, config="rows.g5")


@cuda_only
def test_fusedmm_attention_matches_the_host(rng):
    A, S = cuda_csr(rng, 200, 200)
    X, Y, Z = (torch.randn(200, 8, device="cuda") for _ in range(3))
    opts = dict(score="dot", edge="identity", normalize="softmax", aggregate="sum", heads=2)
    E = spk.fusedmm(A, X, Y, Z, **opts)
    host = spk.fusedmm(S, X.cpu().numpy(), Y.cpu().numpy(), Z.cpu().numpy(), **opts)
    np.testing.assert_allclose(E.cpu().numpy(), host, rtol=1e-4, atol=1e-4)


@cuda_only
@pytest.mark.parametrize("score,edge,aggregate,heads", [("dot", "identity", "sum", 2), ("add", "leaky_relu(0.2)", "sum", 4),
                                                        ("dot", "sigmoid", "mean", 1)])
@pytest.mark.parametrize("edge_terms", [False, True])
def test_torch_fusedmm_gradients_match_the_host(rng, score, edge, aggregate, heads, edge_terms):
    """The GPU backward with Aᵀ's kept pattern and σ taken from E (and with the backward's edge terms
    kept, backward_edge_terms), against the CPU backward."""
    import spk.torch_ops as ops

    S = random_csr(rng, 300, 250, dtype=np.float32)
    width = heads if score == "add" else 8 * heads
    host = [torch.from_numpy(rng.standard_normal(shape).astype(np.float32)) for shape in ((300, width), (250, width), (250, 4 * heads))]
    G = torch.from_numpy(rng.standard_normal((300, 4 * heads)).astype(np.float32))
    grads = {}
    for device in ("cpu", "cuda"):
        t = lambda x, dt: torch.from_numpy(np.ascontiguousarray(x)).to(device, dt)
        A = spk.csr_array((t(S.data, torch.float32), t(S.indices, torch.int32), t(S.indptr, torch.int32)), shape=S.shape)
        X, Y, Z = (h.detach().to(device).requires_grad_(True) for h in host)  # leaves on both devices
        E = ops.fusedmm(A, X, Y, Z, score=score, edge=edge, normalize="softmax", aggregate=aggregate, heads=heads,
                        backward_edge_terms=edge_terms)
        (E * G.to(device)).sum().backward()
        grads[device] = [E.detach().cpu()] + [v.grad.cpu() for v in (X, Y, Z)]
    for got, want in zip(grads["cuda"], grads["cpu"]):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


@cuda_only
def test_torch_fusedmm_kept_plan_over_steps_matches_the_host(rng):
    """spk.torch_ops.fusedmm over training steps: the FusedPlan kept on A serves every step's forward and
    backward (new X, Y, Z each step, A's values changed in place at the third), against the CPU."""
    import spk.torch_ops as ops

    S = random_csr(rng, 300, 250, dtype=np.float32)
    A = {}
    for device in ("cpu", "cuda"):
        t = lambda x, dt: torch.from_numpy(np.ascontiguousarray(x)).to(device, dt)
        A[device] = spk.csr_array((t(S.data, torch.float32), t(S.indices, torch.int32), t(S.indptr, torch.int32)), shape=S.shape)
    opts = dict(score="add", edge="leaky_relu(0.2)", normalize="softmax", aggregate="sum", heads=2)
    for step in range(3):
        host = [torch.from_numpy(rng.standard_normal(shape).astype(np.float32)) for shape in ((300, 2), (250, 2), (250, 8))]
        G = torch.from_numpy(rng.standard_normal((300, 8)).astype(np.float32))
        grads = {}
        for device, a in A.items():
            if step == 2:
                a.data.mul_(-0.5)  # in place: the kept plan reads the new values
            X, Y, Z = (h.detach().to(device).requires_grad_(True) for h in host)
            E = ops.fusedmm(a, X, Y, Z, **opts)
            (E * G.to(device)).sum().backward()
            grads[device] = [E.detach().cpu()] + [v.grad.cpu() for v in (X, Y, Z)]
        for got, want in zip(grads["cuda"], grads["cpu"]):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    assert len(A["cuda"]._torch_kept_fused_plans) == 1  # one plan served every step


@cuda_only
@pytest.mark.parametrize("transpose", [False, True])
def test_torch_spmm_with_new_values_each_step_matches_the_host(rng, transpose):
    """spk.torch_ops.spmm(A, B, values=...) with values new every step (a dropout of A.data): the kept CUDA
    plans over their own value buffers, against the CPU, forward and B's gradient."""
    import spk.torch_ops as ops

    S = random_csr(rng, 300, 250, dtype=np.float32)
    rows, cols = (250, 300) if transpose else (300, 250)
    A = {}
    for device in ("cpu", "cuda"):
        t = lambda x, dt: torch.from_numpy(np.ascontiguousarray(x)).to(device, dt)
        A[device] = spk.csr_array((t(S.data, torch.float32), t(S.indices, torch.int32), t(S.indptr, torch.int32)), shape=S.shape)
    for _ in range(3):
        keep = torch.from_numpy((rng.random(S.nnz) < 0.5).astype(np.float32))
        B = torch.from_numpy(rng.standard_normal((cols, 16)).astype(np.float32))
        G = torch.from_numpy(rng.standard_normal((rows, 16)).astype(np.float32))
        results = {}
        for device, a in A.items():
            b = B.to(device).detach().requires_grad_(True)  # on the CPU, .to() would return B itself
            C = ops.spmm(a, b, transpose=transpose, values=a.data * keep.to(device) * 2.0)
            (C * G.to(device)).sum().backward()
            results[device] = (C.detach().cpu(), b.grad.cpu())
        for got, want in zip(results["cuda"], results["cpu"]):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


@cuda_only
def test_spgemm_and_triangles_match_the_host(rng):
    import scipy.sparse as sp

    A, S = cuda_csr(rng, 150, 150, dtype=torch.float64)
    C = spk.spgemm(A, A)
    assert C.indptr.is_cuda
    host = lambda t: t.cpu().numpy()
    got = sp.csr_array((host(C.data), host(C.indices), host(C.indptr)), shape=C.shape)
    np.testing.assert_allclose(got.toarray(), (S @ S).toarray(), rtol=1e-12, atol=1e-12)
    assert spk.triangle_count(A) == spk.triangle_count(S)


@cuda_only
def test_spgemm_of_dense_blocks_runs_on_blocks(rng):
    import scipy.sparse as sp

    pattern = random_csr(rng, 60, 60, dtype=np.float64)
    S = sp.csr_matrix(sp.kron(pattern, rng.uniform(0.5, 1.5, (3, 3))))
    S.sort_indices()
    t = lambda x, dt: torch.from_numpy(np.ascontiguousarray(x)).to("cuda", dt)
    A = spk.csr_array((t(S.data, torch.float64), t(S.indices, torch.int32), t(S.indptr, torch.int32)), shape=S.shape)
    assert spk.SpgemmPlan(A, A).config == "blocks 3x3x3"
    assert spk.SpgemmPlan(A, A, detect_blocks=False).config == "scalar"
    C = spk.spgemm(A, A)
    host = lambda x: x.cpu().numpy()
    got = sp.csr_array((host(C.data), host(C.indices), host(C.indptr)), shape=C.shape)
    np.testing.assert_allclose(got.toarray(), (S @ S).toarray(), rtol=1e-12, atol=1e-12)


@cuda_only
@pytest.mark.parametrize("reuse", ["automatic", "entries", "places", "search"])
def test_spgemm_plan_recomputes_on_the_device(rng, reuse):
    import scipy.sparse as sp

    A, S = cuda_csr(rng, 150, 150, dtype=torch.float64)
    plan = spk.SpgemmPlan(A, A, reuse=reuse)
    C = plan.compute()
    assert C.data.is_cuda and C.nnz == plan.nnz
    host = lambda t: t.cpu().numpy()
    for _ in range(2):  # the first recompute keeps C's columns on the device, the second uses them
        values = torch.from_numpy(rng.uniform(-1, 1, S.nnz)).to("cuda")
        plan.recompute(C, values, values)
        S2 = sp.csr_matrix((host(values), S.indices, S.indptr), shape=S.shape)
        got = sp.csr_array((host(C.data), host(C.indices), host(C.indptr)), shape=C.shape)
        np.testing.assert_allclose(got.toarray(), (S2 @ S2).toarray(), rtol=1e-12, atol=1e-12)


@cuda_only
def test_device_memory_use_counts_plans_and_workspaces(rng):
    A, _ = cuda_csr(rng, 3000, 3000)
    spk.reset_device_memory_peak(0)
    before, _ = spk.device_memory_use(0)
    plan = spk.SpmmPlan(A, 64)  # keeps its row bins in a device array
    plan.run(torch.randn(3000, 64, device="cuda"))
    torch.cuda.synchronize()
    current, peak = spk.device_memory_use(0)
    assert current > before and peak >= current
    del plan
    after, _ = spk.device_memory_use(0)
    assert after < current
    spk.reset_device_memory_peak(0)
    assert spk.device_memory_use(0)[1] == spk.device_memory_use(0)[0]
