"""Thm 4.1 of [P04] via the Jacobian co-rank, with the closed forms of ReLU, SwiGLU and linear nets as oracles."""

from __future__ import annotations

import pytest
import torch

from icml26.papers.conservation import TwoLayerNet, expected_corank, law_corank, per_sample_jacobian


@pytest.mark.parametrize("act", ["gelu", "silu", "tanh", "relu", "swiglu", "linear"])
@pytest.mark.parametrize("m", [1, 3])
def test_corank_matches_closed_form(act: str, m: int) -> None:
    net = TwoLayerNet.random(d=3, m=m, c=2, activation=act, seed=m)
    r = law_corank(net, seed=0)
    assert r.corank == expected_corank(act, d=3, m=m, c=2)
    assert r.sv_ratio > 1e-8  # a clear margin above the threshold


def test_law_gradients_span_the_null_space() -> None:
    """ReLU's ‖w_i‖² − u_i² and SwiGLU's ‖A_i‖² − ‖C_i‖² have gradients in the kernel of J (oracle: the laws)."""
    X = torch.randn(40, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    for act in ("relu", "swiglu"):
        net = TwoLayerNet.random(d=3, m=3, c=2, activation=act, seed=1)
        J = per_sample_jacobian(net, X)
        for i in range(3):
            gW = torch.zeros_like(net.W)
            gW[:, i] = 2 * net.W[:, i]
            gU = torch.zeros_like(net.U)
            gU[i] = -2 * net.U[i]
            parts = [gW, gU] + ([torch.zeros_like(net.B)] if act == "swiglu" else [])
            v = torch.cat([p.reshape(-1) for p in parts])
            assert (J @ v).abs().max() < 1e-10 * J.abs().max() * v.abs().max()


def test_jacobian_matches_finite_differences() -> None:
    net = TwoLayerNet.random(d=2, m=2, c=1, activation="gelu", seed=3)
    X = torch.randn(5, 2, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    J = per_sample_jacobian(net, X)
    eps = 1e-6
    W2 = net.W.clone()
    W2[0, 1] += eps
    fd = (net.forward(X, W2, net.U, None) - net.forward(X, net.W, net.U, None)).reshape(-1) / eps
    torch.testing.assert_close(J[:, 1], fd, atol=1e-5, rtol=1e-5)


def test_bad_input() -> None:
    W = torch.zeros(3, 2, dtype=torch.float64)
    with pytest.raises(ValueError, match="activation must be one of"):
        TwoLayerNet(W=W, U=torch.zeros(2, 1), activation="elu")
    with pytest.raises(ValueError, match="W has 2 hidden units but U has 3"):
        TwoLayerNet(W=W, U=torch.zeros(3, 1), activation="gelu")
    with pytest.raises(ValueError, match="W must be finite"):
        TwoLayerNet(W=W.fill_(float("nan")), U=torch.zeros(2, 1), activation="gelu")
    net = TwoLayerNet.random(d=3, m=2, activation="gelu", seed=0)
    with pytest.raises(ValueError, match=r"X must have shape \(\*, 3\)"):
        per_sample_jacobian(net, torch.zeros(4, 2))
    with pytest.raises(ValueError, match="n_samples must be an int >= 1"):
        law_corank(net, n_samples=0)
    for bad in (float("nan"), 0.0, -1e-10, 1.0, float("inf")):
        with pytest.raises(ValueError, match="rtol must be"):
            law_corank(net, rtol=bad)


def test_sizes_must_be_positive_ints() -> None:
    """d, m, c: ints >= 1; negative or zero sizes and bools (which would be read as 1) are refused."""
    for kw in (dict(d=-1, m=4), dict(d=0, m=4), dict(d=3, m=0), dict(d=3, m=4, c=0)):
        bad = next(k for k, v in kw.items() if v < 1)
        with pytest.raises(ValueError, match=f"{bad} must be an int >= 1, got {kw[bad]}"):
            expected_corank("relu", **kw)
    for kw in (dict(d=True, m=4), dict(d=3, m=True), dict(d=3, m=4, c=True), dict(d=3.0, m=4)):
        bad = next(k for k, v in kw.items() if type(v) is not int)
        with pytest.raises(TypeError, match=f"{bad} must be an int"):
            expected_corank("linear", **kw)
        with pytest.raises(TypeError, match=f"{bad} must be an int"):
            TwoLayerNet.random(activation="relu", seed=0, **kw)
    with pytest.raises(ValueError, match="m must be an int >= 1"):
        TwoLayerNet.random(d=3, m=0, activation="relu", seed=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        TwoLayerNet.random(d=3, m=2, activation="relu", seed=True)
    with pytest.raises(TypeError, match="n_samples must be an int"):
        law_corank(TwoLayerNet.random(d=3, m=2, activation="gelu", seed=0), n_samples=True)
    assert expected_corank("linear", d=3, m=2, c=2) == 4  # m <= min(d, c): m² (unchanged for valid input)
