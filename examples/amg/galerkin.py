"""An AMG level's coarse operator A_c = R A P, recomputed as A's coefficients change (a time step, a new
material), with spk's SpGEMM plans: each product's symbolic phase (its pattern) runs once, and every later
step reruns only the numeric phase. Checked against SciPy at every step.

    spk gen laplace3d:n=60 --amg -o lap.mtx       # writes lap_A.mtx, lap_P.mtx, lap_R.mtx (smoothed aggregation)
    python examples/amg/galerkin.py lap            # NumPy / SciPy on the CPU
    python examples/amg/galerkin.py lap --device cuda   # PyTorch tensors on the GPU

It prints, per step, the time of the two numeric phases (R·A, then (R·A)·P) against a whole spk.spgemm of each and
SciPy's R @ A @ P, and the largest difference from SciPy's A_c.
"""
import argparse
import time

import numpy as np
import scipy.sparse as sp

import spk


def on_device(m, device):
    """A SciPy CSR as a spk.csr_array: NumPy arrays on the CPU, PyTorch tensors on a CUDA device."""
    m = m.tocsr()
    if device == "cpu":
        return spk.from_scipy(m)
    import torch

    t = lambda x: torch.from_numpy(np.ascontiguousarray(x)).to(device)
    return spk.csr_array((t(m.data), t(m.indices), t(m.indptr)), shape=m.shape)


def to_scipy(a):
    host = lambda x: x.cpu().numpy() if hasattr(x, "cpu") else np.asarray(x)
    return sp.csr_matrix((host(a.data), host(a.indices), host(a.indptr)), shape=a.shape)


def timed(f, device):
    if device != "cpu":
        import torch

        torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = f()
    if device != "cpu":
        torch.cuda.synchronize()
    return out, (time.perf_counter() - t0) * 1e3


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("prefix", help="PREFIX_A.mtx, PREFIX_P.mtx and PREFIX_R.mtx (from spk gen ... --amg -o PREFIX.mtx)")
    p.add_argument("--steps", type=int, default=5, help="coefficient changes to recompute A_c for")
    p.add_argument("--device", default="cpu", help="cpu, or a CUDA device (PyTorch tensors), e.g. cuda")
    args = p.parse_args(argv)
    A, P, R = (spk.read_mtx(f"{args.prefix}_{name}.mtx").to_scipy().tocsr() for name in "APR")
    print(f"A {A.shape[0]} x {A.shape[1]} ({A.nnz} entries), P {P.shape[0]} x {P.shape[1]}, device {args.device}")
    a, p_, r = (on_device(m, args.device) for m in (A, P, R))
    ra_plan = spk.SpgemmPlan(r, a)
    RA = ra_plan.compute()
    rap_plan = spk.SpgemmPlan(RA, p_)  # RA's pattern never changes: its plan reads RA's values at each recompute
    Ac = rap_plan.compute()
    # "blocks 6x3x3" where the level's operators consist of dense blocks (on CUDA), else "scalar"
    print(f"paths: R·A {ra_plan.config}, (R·A)·P {rap_plan.config}")
    rng = np.random.default_rng(0)
    worst = 0.0
    print("| step | numeric R·A + (R·A)·P ms | spk.spgemm both ms | SciPy R @ A @ P ms | max abs difference |")
    print("|---|---:|---:|---:|---:|")
    for step in range(args.steps):
        scale = rng.uniform(0.5, 2.0, A.nnz)  # new coefficients on A's pattern
        A.data *= scale
        a.data[:] = on_device(A, args.device).data  # in place: the plans keep reading a's array
        _, numeric = timed(lambda: (ra_plan.recompute(RA), rap_plan.recompute(Ac)), args.device)
        _, whole = timed(lambda: spk.spgemm(spk.spgemm(r, a), p_), args.device)
        want, scipy_ms = timed(lambda: R @ A @ P, "cpu")
        got = to_scipy(Ac)
        diff = abs(got - want).max() if want.nnz else 0.0
        worst = max(worst, diff / max(abs(want).max(), 1e-300))
        print(f"| {step} | {numeric:.2f} | {whole:.2f} | {scipy_ms:.2f} | {diff:.2e} |")
    return worst


if __name__ == "__main__":
    relative = main()
    print(f"largest difference relative to A_c's largest entry: {relative:.2e}")
