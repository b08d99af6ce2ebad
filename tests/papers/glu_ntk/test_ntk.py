"""The empirical NTK of [P21]: oracles (closed-form Jacobians, per-sample autograd, finite differences, the
infinite-width arc-cosine kernel), invariants (symmetric PSD), and the meaning of K (one GD step ≈ −ηK r)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from icml26.papers.glu_ntk import (
    GLU_PAIRS,
    TwoLayerMLP,
    empirical_ntk,
    jacobian,
    make_mlp,
    ntk_spectrum_stats,
)


def _X(n: int, d: int, seed: int = 1) -> torch.Tensor:
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _closed_form_jacobian(net: TwoLayerMLP, X: torch.Tensor) -> torch.Tensor:
    """∂z/∂θ by hand for c = 1, no bias: parameter order W, P, V as in named_parameters."""
    W, v = net.W.weight.detach(), net.V.weight.detach()[0]
    a = X @ W.T  # (N, m) pre-activations
    relu, drelu = torch.relu(a), (a > 0).to(a.dtype)
    if net.kind == "relu":
        dW = (v * drelu)[:, :, None] * X[:, None, :]
        return torch.cat([dW.flatten(1), relu], dim=1)
    assert net.kind == "reglu"
    g = X @ net.P.weight.detach().T  # gate Px
    dW = (v * g * drelu)[:, :, None] * X[:, None, :]
    dP = (v * relu)[:, :, None] * X[:, None, :]
    return torch.cat([dW.flatten(1), dP.flatten(1), g * relu], dim=1)


@pytest.mark.parametrize("kind", ["relu", "reglu"])
def test_ntk_matches_closed_form_jacobian(kind):
    net = make_mlp(kind, in_dim=7, width=23, seed=3)
    X = _X(6, 7)
    J = _closed_form_jacobian(net, X)
    torch.testing.assert_close(jacobian(net, X)[:, 0, :], J, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(empirical_ntk(net, X), J @ J.T, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("kind", ["gelu", "silu", "geglu", "swiglu", "bilinear"])
def test_ntk_matches_per_sample_autograd(kind):
    net = TwoLayerMLP(kind, in_dim=5, hidden=9, out_dim=2, bias=True, seed=0)
    X = _X(4, 5)
    rows = []
    for i in range(X.shape[0]):
        for k in range(2):
            grads = torch.autograd.grad(net(X[i : i + 1])[0, k], list(net.parameters()))
            rows.append(torch.cat([g.reshape(-1) for g in grads]))
    J = torch.stack(rows).reshape(4, 2, -1)
    torch.testing.assert_close(jacobian(net, X), J, rtol=1e-12, atol=1e-12)
    K = torch.einsum("ikp,jkp->ij", J, J)
    torch.testing.assert_close(empirical_ntk(net, X), K, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("kind", ["gelu", "swiglu"])
def test_jacobian_matches_finite_differences(kind):
    net = make_mlp(kind, in_dim=4, width=11, seed=5)
    X = _X(5, 4)
    J = jacobian(net, X)[:, 0, :]
    theta = torch.cat([p.detach().reshape(-1) for p in net.parameters()])
    u = torch.randn(theta.numel(), generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    eps = 1e-6

    def f_at(t: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            torch.nn.utils.vector_to_parameters(t, net.parameters())
            return net(X)[:, 0].clone()

    fd = (f_at(theta + eps * u) - f_at(theta - eps * u)) / (2 * eps)
    torch.nn.utils.vector_to_parameters(theta, net.parameters())
    torch.testing.assert_close(J @ u, fd, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("kind", sorted(GLU_PAIRS) + sorted(GLU_PAIRS.values()))
def test_ntk_is_symmetric_psd_float64_and_leaves_model_alone(kind):
    net = make_mlp(kind, in_dim=6, width=30, seed=2, dtype=torch.float32)
    before = [p.detach().clone() for p in net.parameters()]
    K = empirical_ntk(net, _X(8, 6).float())
    assert K.dtype == torch.float64 and K.shape == (8, 8)
    torch.testing.assert_close(K, K.T, rtol=0, atol=0)
    assert torch.linalg.eigvalsh(K).min() > -1e-8 * K.abs().max()
    assert all(torch.equal(a, p) for a, p in zip(before, net.parameters()))


def test_one_gd_step_moves_outputs_by_minus_eta_K_r():
    """The NTK's defining property: for L = ½‖f − y‖², f(θ − η∇L) − f(θ) = −η K r + O(η²)."""
    net = make_mlp("reglu", in_dim=5, width=40, seed=4)
    X, y = _X(7, 5), _X(7, 1, seed=8)[:, 0]
    K = empirical_ntk(net, X)
    r = (net(X)[:, 0] - y).detach()
    loss = 0.5 * ((net(X)[:, 0] - y) ** 2).sum()
    grads = torch.autograd.grad(loss, list(net.parameters()))
    eta = 1e-6
    with torch.no_grad():
        f0 = net(X)[:, 0].clone()
        for p, g in zip(net.parameters(), grads):
            p -= eta * g
        df = net(X)[:, 0] - f0
    torch.testing.assert_close(df, -eta * K @ r, rtol=1e-4, atol=1e-12)


def _arccos1(X: torch.Tensor) -> torch.Tensor:
    """E_w[relu(w·x) relu(w·x')] for w ~ N(0, I/d) (Cho & Saul's arc-cosine kernel of degree 1)."""
    d = X.shape[1]
    nrm = X.norm(dim=1)
    cos = ((X @ X.T) / torch.outer(nrm, nrm)).clamp(-1, 1)
    th = torch.arccos(cos)
    return torch.outer(nrm, nrm) / (2 * math.pi * d) * (torch.sin(th) + (math.pi - th) * cos)


def test_feature_kernels_converge_to_infinite_width_limits():
    """Oracle for the mechanism: ReLU features have a non-zero mean (an all-ones-like mode); the zero-mean gate Px
    turns the kernel into (xᵀx'/d)·k_arccos, which has none."""
    X = _X(4, 6)
    m = 40_000
    # tolerance: 4 Monte-Carlo standard errors, sqrt(Var/m)·sqrt(k_ii k_jj),
    # with Var/mean² = 5 for relu² and 17 for (Px)²·relu²
    for kind, limit, var in (("relu", _arccos1(X), 5.0), ("reglu", (X @ X.T) / 6 * _arccos1(X), 17.0)):
        net = TwoLayerMLP(kind, in_dim=6, hidden=m, seed=11)
        with torch.no_grad():
            h = net.features(X)
        scale = torch.outer(limit.diag(), limit.diag()).sqrt()  # entry-wise standard-error scale
        assert ((h @ h.T / m - limit).abs() <= 4 * math.sqrt(var / m) * scale).all(), kind


def test_worked_example_glu_has_smaller_condition_number():
    X = _X(50, 75, seed=0)
    k_relu = ntk_spectrum_stats(empirical_ntk(make_mlp("relu", in_dim=75, width=1000, seed=0), X))
    k_reglu = ntk_spectrum_stats(empirical_ntk(make_mlp("reglu", in_dim=75, width=1000, seed=0), X))
    assert k_relu.condition_number > 3 * k_reglu.condition_number
    assert k_relu.top_share > k_reglu.top_share
    assert k_relu.second_gap > k_reglu.second_gap  # the outlying top eigenvalue


def test_jacobian_rejects_bad_inputs():
    net = make_mlp("relu", in_dim=3, width=4, seed=0)
    with pytest.raises(ValueError, match="X must have shape"):
        empirical_ntk(net, torch.zeros(3))
    with pytest.raises(ValueError, match="X must have shape"):
        empirical_ntk(net, torch.zeros(0, 3))
    with pytest.raises(ValueError, match="in_dim=3"):
        empirical_ntk(net, torch.zeros(2, 4))
    with pytest.raises(ValueError, match="X contains non-finite"):
        empirical_ntk(net, torch.tensor([[0.0, float("nan"), 1.0]]))
    with pytest.raises(TypeError, match="X must be"):
        empirical_ntk(net, [[0.0, 1.0, 2.0]])
    with pytest.raises(TypeError, match="model must be"):
        empirical_ntk(lambda x: x, torch.zeros(2, 3))
    assert empirical_ntk(net, np.ones((2, 3))).shape == (2, 2)  # numpy input accepted
