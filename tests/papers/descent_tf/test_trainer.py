"""The [P07] primal-dual trainer against hand-computed steps, a problem whose constrained optimum is known in closed
form (dual feasibility, complementary slackness), and the closed form of the resilient relaxation."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from icml26.papers.descent_tf import DescentConstrainedTrainer, LayerwiseModel, resilient_equilibrium


class Toy(LayerwiseModel):
    """States z_0 = 1, z_1 = θ, z_2 = θ + δ (one scalar per sample): ℓ_0 = 1, ℓ_1 = θ², ℓ_2 = (θ + δ)² for y = 0."""

    def __init__(self, delta: float, theta: float = 0.0) -> None:
        super().__init__()
        self.theta = nn.Parameter(torch.tensor(theta, dtype=torch.float64))
        self.delta = delta
        self.blocks = nn.ModuleList([nn.Identity(), nn.Identity()])

    def layer_modules(self):
        return list(self.blocks)

    def layer_states(self, x):
        one = torch.ones(x.shape[0], dtype=torch.float64)
        return [one, self.theta * one, (self.theta + self.delta) * one]


def squared(pred, y):
    return (pred - y) ** 2


X = torch.zeros(1, 1, dtype=torch.float64)
Y = torch.zeros(1, dtype=torch.float64)


def toy_trainer(delta=1.5, theta=0.0, **kw):
    kw = {"epsilon": 0.1, "dual_lr": 0.5, "lr": 0.1, "optimizer": "sgd", "grad_clip": None, "seed": 0, **kw}
    m = Toy(delta, theta)
    return m, DescentConstrainedTrainer(m, nn.Identity(), squared, **kw)


def test_constrained_optimum_dual_feasibility_and_complementary_slackness():
    """min (θ+δ)² s.t. θ² ≤ (1−ε)·1 and (θ+δ)² ≤ (1−ε)θ²: with δ = 1.5, ε = 0.1 the first constraint is active,
    θ* = −√0.9, λ₁* = (θ*+δ)/(−θ*) from stationarity, and the second is slack, so λ₂* = 0."""
    m, tr = toy_trainer()
    lams = []
    for _ in range(1000):
        tr.step(X, Y)
        lams.append(tr.lambdas.clone())
    theta_star = -math.sqrt(0.9)
    lam1 = (theta_star + 1.5) / -theta_star
    assert m.theta.item() == pytest.approx(theta_star, abs=1e-9)
    np.testing.assert_allclose(tr.lambdas.numpy(), [lam1, 0.0], atol=1e-9)
    assert all(bool((lam >= 0).all()) for lam in lams)  # dual feasibility at every step
    g = tr.constraint_values(tr.layer_losses(X, Y))
    assert float(g.max()) <= 1e-9  # primal feasibility
    np.testing.assert_allclose((tr.lambdas * g).numpy(), 0.0, atol=1e-9)  # complementary slackness
    assert float(g[1]) < -0.1  # the slack constraint is strictly inactive, its λ exactly 0


def test_one_step_against_hand_computation():
    theta, delta, eps, lr, dlr = 0.4, 1.5, 0.1, 0.05, 0.3
    lam = np.array([0.2, 0.7])
    _, tr = toy_trainer(delta, theta, epsilon=eps, lr=lr, dual_lr=dlr, dual_init=0.0)
    tr.lambdas = torch.tensor(lam)
    l0, l1, l2 = 1.0, theta ** 2, (theta + delta) ** 2
    # ∂𝓛/∂θ = ∂ℓ₂ + λ₁ ∂ℓ₁ + λ₂ (∂ℓ₂ − (1−ε) ∂ℓ₁), with ∂ℓ₁ = 2θ, ∂ℓ₂ = 2(θ+δ)
    grad = 2 * (theta + delta) + lam[0] * 2 * theta + lam[1] * (2 * (theta + delta) - (1 - eps) * 2 * theta)
    g = np.array([l1 - (1 - eps) * l0, l2 - (1 - eps) * l1])  # at the losses before the step
    losses = tr.step(X, Y)
    np.testing.assert_allclose(losses.numpy(), [l0, l1, l2])
    assert tr.model.theta.item() == pytest.approx(theta - lr * grad, rel=1e-12)
    np.testing.assert_allclose(tr.lambdas.numpy(), np.maximum(lam + dlr * g, 0.0), rtol=1e-12)
    assert tr.lambdas[0] == 0.0  # g₁ = 0.16 − 0.9 < 0 pulled λ₁ = 0.2 below zero: projected to 0


def test_slack_step_against_hand_computation():
    _, tr = toy_trainer(theta=0.4, resilience=2.0, slack_lr=0.1, dual_lr=0.3)
    tr.lambdas = torch.tensor([0.5, 0.5], dtype=torch.float64)
    tr.slacks = torch.tensor([0.1, 0.3], dtype=torch.float64)
    losses = torch.tensor([1.0, 0.16, 3.61], dtype=torch.float64)
    g = np.array([0.16 - 0.9 - 0.1, 3.61 - 0.9 * 0.16 - 0.3])
    lam = np.maximum(np.array([0.5, 0.5]) + 0.3 * g, 0)
    u = np.maximum(np.array([0.1, 0.3]) - 0.1 * (2.0 * np.array([0.1, 0.3]) - lam), 0)  # with the updated λ
    tr.dual_update(losses)
    np.testing.assert_allclose(tr.lambdas.numpy(), lam, rtol=1e-12)
    np.testing.assert_allclose(tr.slacks.numpy(), u, rtol=1e-12)


def test_slack_at_fixed_duals_is_lambda_over_rho():
    _, tr = toy_trainer(resilience=4.0, slack_lr=0.1, dual_lr=0.0, dual_init=0.6)
    for _ in range(300):
        tr.dual_update(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    np.testing.assert_allclose(tr.slacks.numpy(), [0.15, 0.15], atol=1e-10)


def test_resilient_iteration_reaches_the_closed_form():
    """With losses that cannot move, (λ, u) converge to u* = max(c, 0), λ* = ρ u*."""
    losses = torch.tensor([1.0, 1.2, 0.5], dtype=torch.float64)
    _, tr = toy_trainer(epsilon=0.05, resilience=3.0, slack_lr=0.05, dual_lr=0.05)
    for _ in range(5000):
        tr.dual_update(losses)
    c = np.array([1.2 - 0.95 * 1.0, 0.5 - 0.95 * 1.2])
    u, lam = resilient_equilibrium(c, resilience=3.0)
    np.testing.assert_allclose(u, [0.25, 0.0])
    np.testing.assert_allclose(lam, [0.75, 0.0])
    np.testing.assert_allclose(tr.slacks.numpy(), u, atol=1e-8)
    np.testing.assert_allclose(tr.lambdas.numpy(), lam, atol=1e-8)


def test_hard_constraints_keep_the_slack_at_zero():
    _, tr = toy_trainer()
    for _ in range(20):
        tr.step(X, Y)
    assert tr.slacks.tolist() == [0.0, 0.0] and float(tr.lambdas.max()) > 0


def test_baseline_objectives():
    losses = torch.tensor([1.0, 0.5, 0.25], dtype=torch.float64)
    assert float(toy_trainer(method="erm")[1].objective(losses)) == 0.25
    assert float(toy_trainer(method="deep_supervision")[1].objective(losses)) == pytest.approx(0.375)
    _, tr = toy_trainer()
    tr.lambdas = torch.tensor([2.0, 3.0], dtype=torch.float64)
    assert float(tr.objective(losses)) == pytest.approx(0.25 + 2 * (0.5 - 0.9) + 3 * (0.25 - 0.45))
    erm = toy_trainer(method="erm", theta=0.4)[1]
    for _ in range(5):
        erm.step(X, Y)
    assert erm.lambdas.tolist() == [0.0, 0.0]  # a baseline never moves λ


def test_fixed_penalty_keeps_its_duals():
    _, tr = toy_trainer(dual_lr=0.0, dual_init=0.4)
    for _ in range(5):
        tr.step(X, Y)
    assert tr.lambdas.tolist() == [0.4, 0.4]


def test_diverging_training_is_reported():
    _, tr = toy_trainer(theta=1e200)
    with pytest.raises(FloatingPointError, match="lower lr"):
        tr.step(X, Y)


def test_erm_breaks_the_descent_that_the_constraints_restore():
    """On the toy, ERM's optimum θ = −δ gives ℓ_1 = δ² = 2.25 > ℓ_0 = 1 (not monotone); the constrained run descends."""
    erm_model, erm = toy_trainer(method="erm")
    con_model, con = toy_trainer()
    for _ in range(400):
        erm.step(X, Y)
        con.step(X, Y)
    assert erm_model.theta.item() == pytest.approx(-1.5, abs=1e-6)
    e = erm.evaluate(X, Y)
    c = con.evaluate(X, Y)
    assert e[1] > e[0]  # ERM: the first layer's loss rises above z_0's
    assert np.all(np.diff(c) <= 1e-9) and c[-1] < c[0]  # constrained: non-increasing across layers
    assert c[-1] > e[-1]  # the price of the constraint on the last layer
