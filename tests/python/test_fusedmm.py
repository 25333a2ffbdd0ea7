import numpy as np
import pytest

import spk
from conftest import random_csr, tol

EDGES = {
    "identity": lambda s: s,
    "sigmoid": lambda s: 1 / (1 + np.exp(-s)),
    "exp": np.exp,
    "tanh": np.tanh,
    # spk keeps an edge parameter as a float (Edge::param), so the slope is 0.2 rounded to f32
    "leaky_relu(0.2)": lambda s: np.where(s > 0, s, float(np.float32(0.2)) * s),
    "scale(0.5)": lambda s: 0.5 * s,
}


def fused_ref(A, X, Y, Z, score, edge, normalize, aggregate, heads):
    """float64 FusedMM, one row and head at a time, following include/spk/fusedmm.hpp."""
    f = EDGES[edge]
    dz = Z.shape[1] // heads
    E = np.zeros((A.shape[0], Z.shape[1]))
    for i in range(A.shape[0]):
        s_ = slice(A.indptr[i], A.indptr[i + 1])
        cols, vals = A.indices[s_], A.data[s_].astype(np.float64)
        if len(cols) == 0:
            continue
        for h in range(heads):
            if score == "dot":
                d = X.shape[1] // heads
                s = Y[cols, h * d:(h + 1) * d] @ X[i, h * d:(h + 1) * d]
            elif score == "add":
                s = X[i, h] + Y[cols, h]
            elif score == "neg_sqdist":
                d = X.shape[1] // heads
                s = -((X[i, h * d:(h + 1) * d] - Y[cols, h * d:(h + 1) * d]) ** 2).sum(1)
            else:
                s = vals
            w = f(np.asarray(s, dtype=np.float64))
            if normalize == "softmax":
                w = np.exp(w - w.max())
                w /= w.sum()
            Zb = Z[cols, h * dz:(h + 1) * dz].astype(np.float64)
            if aggregate == "max":
                E[i, h * dz:(h + 1) * dz] = (w[:, None] * Zb).max(0)
            else:
                E[i, h * dz:(h + 1) * dz] = w @ Zb / (len(cols) if aggregate == "mean" else 1)
    return E


def inputs(rng, A, score, heads, dtype=np.float64, d=3, dz=2):
    width = heads if score == "add" else d * heads
    X = rng.standard_normal((A.shape[0], width)).astype(dtype) * 0.5
    Y = rng.standard_normal((A.shape[1], width)).astype(dtype) * 0.5
    Z = rng.standard_normal((A.shape[1], dz * heads)).astype(dtype)
    if score == "value":
        X = Y = None
    return X, Y, Z


CASES = [
    ("dot", "identity", "none", "sum", 1),
    ("dot", "exp", "none", "mean", 2),
    ("add", "leaky_relu(0.2)", "softmax", "sum", 2),  # GAT
    ("neg_sqdist", "sigmoid", "softmax", "mean", 1),
    ("value", "scale(0.5)", "none", "sum", 1),
    ("value", "tanh", "softmax", "max", 2),
    ("dot", "identity", "none", "max", 1),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("score,edge,normalize,aggregate,heads", CASES)
def test_fusedmm_forward(rng, dtype, index_dtype, score, edge, normalize, aggregate, heads):
    A = random_csr(rng, 15, 11, density=0.3, dtype=dtype, index_dtype=index_dtype)
    X, Y, Z = inputs(rng, A, score, heads, dtype)
    E = spk.fusedmm(spk.from_scipy(A), X, Y, Z, score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads)
    assert E.dtype == dtype
    np.testing.assert_allclose(E, fused_ref(A, X, Y, Z, score, edge, normalize, aggregate, heads), **tol(dtype))


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        old = x[idx]
        x[idx] = old + eps
        up = f()
        x[idx] = old - eps
        down = f()
        x[idx] = old
        g[idx] = (up - down) / (2 * eps)
    return g


@pytest.mark.parametrize("score,edge,normalize,aggregate,heads", CASES)
def test_fusedmm_backward_matches_finite_differences(rng, score, edge, normalize, aggregate, heads):
    A = random_csr(rng, 7, 6, density=0.4)
    X, Y, Z = inputs(rng, A, score, heads, d=2, dz=2)
    G = rng.standard_normal((7, Z.shape[1]))
    opts = dict(score=score, edge=edge, normalize=normalize, aggregate=aggregate, heads=heads)
    a = spk.from_scipy(A)
    E, saved = spk.fusedmm(a, X, Y, Z, return_saved=True, **opts)
    dX, dY, dZ, dA = spk.fusedmm_backward(a, G, X, Y, Z, saved, **opts)

    def loss():
        return float((fused_ref(A, X, Y, Z, score, edge, normalize, aggregate, heads) * G).sum())

    np.testing.assert_allclose(dZ, numeric_grad(loss, Z), rtol=1e-5, atol=1e-6)
    if X is not None:
        np.testing.assert_allclose(dX, numeric_grad(loss, X), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dY, numeric_grad(loss, Y), rtol=1e-5, atol=1e-6)
    else:
        assert dX is None and dY is None
    if score == "value":
        np.testing.assert_allclose(dA, numeric_grad(loss, A.data), rtol=1e-5, atol=1e-6)


def softmax_case(rng, score, edge, d):
    """A 9 x 8 problem with 2 heads under softmax: (A, its csr_array, X, Y, Z, dE, options)."""
    A = random_csr(rng, 9, 8, density=0.4)
    X, Y, Z = inputs(rng, A, score, 2, d=d, dz=3)
    G = rng.standard_normal((9, Z.shape[1]))
    return A, spk.from_scipy(A), X, Y, Z, G, dict(score=score, edge=edge, normalize="softmax", aggregate="sum", heads=2)


def test_fusedmm_backward_accepts_the_forward_output(rng):
    _, a, X, Y, Z, G, opts = softmax_case(rng, "dot", "leaky_relu(0.1)", 2)
    E, saved = spk.fusedmm(a, X, Y, Z, return_saved=True, **opts)
    plain = spk.fusedmm_backward(a, G, X, Y, Z, saved, **opts)
    given = spk.fusedmm_backward(a, G, X, Y, Z, saved, E=E, **opts)
    for p, g in zip(plain, given):
        np.testing.assert_allclose(g, p, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="E"):
        spk.fusedmm_backward(a, G, X, Y, Z, saved, E=E[:-1], **opts)
    # edge_terms=True (FusedOptions::backward_edge_terms) trades scratch for speed, never the result.
    for p, g in zip(plain, spk.fusedmm_backward(a, G, X, Y, Z, saved, E=E, edge_terms=True, **opts)):
        np.testing.assert_allclose(g, p, rtol=1e-12, atol=1e-12)


def test_fusedmm_saved_attention_gives_the_same_gradients(rng):
    A, a, X, Y, Z, G, opts = softmax_case(rng, "add", "leaky_relu", 1)
    E, plain = spk.fusedmm(a, X, Y, Z, return_saved=True, **opts)
    E2, kept = spk.fusedmm(a, X, Y, Z, return_saved=True, save_attention=True, **opts)
    np.testing.assert_array_equal(E2, E)
    assert plain.attention is None and kept.attention.shape == (A.nnz, 2)
    # alpha sums to one over each non-empty row, per head
    sums = np.add.reduceat(kept.attention, A.indptr[:-1][np.diff(A.indptr) > 0], axis=0)
    np.testing.assert_allclose(sums, 1.0, rtol=1e-12)
    for p, k in zip(spk.fusedmm_backward(a, G, X, Y, Z, plain, **opts), spk.fusedmm_backward(a, G, X, Y, Z, kept, **opts)):
        np.testing.assert_allclose(k, p, rtol=1e-10, atol=1e-12)


def test_fusedmm_saved_is_small(rng):
    A = random_csr(rng, 12, 12, density=0.5)
    X, Y, Z = inputs(rng, A, "add", 2)
    _, saved = spk.fusedmm(spk.from_scipy(A), X, Y, Z, score="add", edge="leaky_relu", normalize="softmax", heads=2, return_saved=True)
    assert saved.row_max.shape == (12, 2) and saved.row_sum.shape == (12, 2) and saved.argmax is None


def test_fusedmm_bad_options(rng):
    A = random_csr(rng, 5, 5)
    X, Y, Z = inputs(rng, A, "dot", 1)
    a = spk.from_scipy(A)
    with pytest.raises(ValueError, match="score"):
        spk.fusedmm(a, X, Y, Z, score="cosine")
    with pytest.raises(ValueError, match="edge"):
        spk.fusedmm(a, X, Y, Z, edge="relu")
    with pytest.raises(ValueError, match="scale"):
        spk.fusedmm(a, X, Y, Z, edge="scale")
    with pytest.raises(ValueError, match="heads"):
        spk.fusedmm(a, X, Y, Z, heads=2)  # 3 columns do not split into 2 heads


def test_fusedmm_config_is_checked_and_ignored_on_the_cpu(rng):
    A, a, X, Y, Z, _, opts = softmax_case(rng, "dot", "identity", 2)
    want = spk.fusedmm(a, X, Y, Z, **opts)
    for config in ("team1", "team4", "team8", "rows64", "team2.rows32"):
        np.testing.assert_array_equal(spk.fusedmm(a, X, Y, Z, config=config, **opts), want)
        np.testing.assert_array_equal(spk.FusedPlan(a, config=config, **opts).forward(X, Y, Z), want)
    with pytest.raises(ValueError, match="FusedOptions.config 'team3'"):
        spk.fusedmm(a, X, Y, Z, config="team3", **opts)


def test_fused_plan_serves_many_calls(rng):
    """A FusedPlan kept across calls (new X, Y, Z each time, and A's values changed in place) gives what
    a plan a call (spk.fusedmm, spk.fusedmm_backward) gives, forward and backward."""
    A, a, X, Y, Z, G, opts = softmax_case(rng, "dot", "leaky_relu(0.2)", 2)
    plan = spk.FusedPlan(a, save_attention=True, **opts)
    for step in range(3):
        if step == 2:
            a.data *= -0.5  # the plan reads A's values when it runs
        X, Y, Z = (rng.standard_normal(t.shape) for t in (X, Y, Z))
        E, saved = plan.forward(X, Y, Z, return_saved=True)
        E_once, saved_once = spk.fusedmm(a, X, Y, Z, return_saved=True, save_attention=True, **opts)
        np.testing.assert_allclose(E, E_once, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(saved.attention, saved_once.attention, rtol=1e-12, atol=1e-12)
        for p, q in zip(plan.backward(G, X, Y, Z, saved, E=E), spk.fusedmm_backward(a, G, X, Y, Z, saved_once, E=E_once, **opts)):
            np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(E, fused_ref(spk.to_scipy(a), X, Y, Z, "dot", "leaky_relu(0.2)", "softmax", "sum", 2), rtol=1e-10,
                               atol=1e-12)


def test_fused_plan_checks_its_saved_attention(rng):
    _, a, X, Y, Z, _, opts = softmax_case(rng, "dot", "identity", 2)
    plan = spk.FusedPlan(a, save_attention=True, **opts)
    E, saved = plan.forward(X, Y, Z, return_saved=True)
    with pytest.raises(ValueError, match="attention"):
        spk.FusedPlan(a, **opts)._plan.forward(X, Y, Z, E, saved.row_max, saved.row_sum, None, saved.attention)
    with pytest.raises(ValueError, match="score"):
        spk.FusedPlan(a, score="cosine")
