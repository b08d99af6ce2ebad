"""The pure methods of P26: worked examples, invariants, torch.optim as an oracle, the torch wrapper, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from icml26.papers.affine_smooth import (
    OptState,
    adagrad,
    adam,
    amsgrad,
    gd,
    heavy_ball,
    normalized_gd,
    rmsprop,
    sign_gd,
)

ALL = {
    "gd": lambda: gd(lr=0.1),
    "heavy_ball": lambda: heavy_ball(lr=0.1, momentum=0.9),
    "sign_gd": lambda: sign_gd(lr=0.1),
    "normalized_gd": lambda: normalized_gd(lr=0.1),
    "rmsprop": lambda: rmsprop(lr=0.1, beta2=0.9),
    "adam": lambda: adam(lr=0.1, beta1=0.9, beta2=0.9),
    "amsgrad": lambda: amsgrad(lr=0.1, beta1=0.9, beta2=0.9),
    "adagrad": lambda: adagrad(lr=0.1),
}
vec = arrays(np.float64, st.integers(1, 6), elements=st.floats(-1e3, 1e3, allow_subnormal=False))


def test_worked_example_sign_gd_and_rmsprop_first_step():
    theta, g = np.array([1.0, -2.0, 0.5]), np.array([3.0, -1e-30, 0.0])
    m = sign_gd(lr=0.5)
    new, s = m.update(g, m.init(theta), theta)
    np.testing.assert_array_equal(new, [0.5, -1.5, 0.5])
    assert s.count == 1
    # RMSProp from v0 = 0: v1 = (1 − β2) g², step = η g / √v1 = η sign(g) / √(1 − β2), whatever |g|
    r = rmsprop(lr=0.1, beta2=0.75)
    new, s = r.update(g, r.init(theta), theta)
    np.testing.assert_allclose(new, theta - 0.1 / 0.5 * np.sign(g), rtol=1e-15)
    np.testing.assert_allclose(s.v, 0.25 * g * g)


def test_heavy_ball_equals_two_step_recursion():
    """θ_{k+1} = θ_k − η g_k + β (θ_k − θ_{k−1}) on f = ½‖θ‖² (g = θ)."""
    hb = heavy_ball(lr=0.3, momentum=0.7)
    t, s = np.array([1.0, -2.0]), None
    s = hb.init(t)
    prev, cur = t.copy(), t.copy()
    for _ in range(20):
        t, s = hb.update(t, s, t)
        nxt = cur - 0.3 * cur + 0.7 * (cur - prev)
        prev, cur = cur, nxt
        np.testing.assert_allclose(t, cur, rtol=1e-12, atol=1e-15)


@given(theta=vec, data=st.data())
@settings(max_examples=40, deadline=None)
def test_step_norms_sign_and_normalized(theta, data):
    g = data.draw(arrays(np.float64, theta.shape, elements=st.floats(-1e3, 1e3, allow_subnormal=False)))
    s = sign_gd(lr=0.2)
    new, _ = s.update(g, s.init(theta), theta)
    assert np.all(np.abs(np.abs(new - theta) - 0.2 * (g != 0)) <= 1e-9 * (1 + np.abs(theta)))
    n = normalized_gd(lr=0.2)
    new, _ = n.update(g, n.init(theta), theta)
    expect = 0.2 if np.any(g != 0) else 0.0
    assert np.linalg.norm(new - theta) == pytest.approx(expect, rel=1e-6, abs=1e-9 * (1 + np.abs(theta).max()))


@given(scale=st.floats(1e-120, 1e120))
@settings(max_examples=30, deadline=None)
def test_rmsprop_adam_scale_invariant(scale):
    """With ε = 0 the adaptive steps do not change when all gradients are scaled (why they survive f ~ 1e-40)."""
    rng = np.random.default_rng(0)
    gs = rng.standard_normal((5, 3))
    for make in (ALL["rmsprop"], ALL["adam"], ALL["amsgrad"], ALL["adagrad"]):
        m = make()
        a, b = np.zeros(3), np.zeros(3)
        sa, sb = m.init(a), m.init(b)
        for g in gs:
            a, sa = m.update(g, sa, a)
            b, sb = m.update(g * scale, sb, b)
        np.testing.assert_allclose(a, b, rtol=1e-9)


@pytest.mark.parametrize("name", sorted(ALL))
def test_pure_inputs_untouched_and_zero_grad_is_fixed_point(name):
    m = ALL[name]()
    theta = np.array([0.3, -0.7])
    s0 = m.init(theta)
    snap = [None if x is None else np.copy(x) for x in s0[1:]]
    new, s1 = m.update(np.array([1.0, -1.0]), s0, theta)
    np.testing.assert_array_equal(theta, [0.3, -0.7])
    for before, after in zip(snap, s0[1:]):
        if before is not None:
            np.testing.assert_array_equal(before, after)
    assert s1.count == 1 and not np.array_equal(new, theta)
    z, _ = m.update(np.zeros(2), m.init(theta), theta)
    np.testing.assert_array_equal(z, theta)  # 0/0 steps are 0, never NaN


def _torch_pairs():
    import torch

    return [
        (lambda p: torch.optim.SGD(p, lr=0.1), gd(lr=0.1)),
        (lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.8), heavy_ball(lr=0.1, momentum=0.8)),
        (lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, eps=1e-8), rmsprop(lr=0.01, beta2=0.9, eps=1e-8)),
        (lambda p: torch.optim.Adagrad(p, lr=0.1, eps=1e-10), adagrad(lr=0.1, eps=1e-10)),
        (lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.8, 0.95), eps=1e-8),
         adam(lr=0.01, beta1=0.8, beta2=0.95, eps=1e-8, bias_correction=True)),
        (lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.8, 0.95), eps=1e-8, amsgrad=True),
         amsgrad(lr=0.01, beta1=0.8, beta2=0.95, eps=1e-8, bias_correction=True)),
    ]


def _quartic_grad(x):
    return x**3 - np.array([1.0, -2.0, 0.5, 3.0])


@pytest.mark.parametrize("i", range(6))
def test_pure_methods_match_torch_optim(i):
    """Oracle: torch's own optimisers on the same deterministic gradient sequence (f = Σ x⁴/4 − cᵀx)."""
    torch = pytest.importorskip("torch")
    make_torch, pure = _torch_pairs()[i]
    x0 = np.array([0.5, 1.0, -0.3, 0.2])
    p = torch.nn.Parameter(torch.tensor(x0, dtype=torch.float64))
    opt = make_torch([p])
    x, s = x0.copy(), pure.init(x0)
    for _ in range(30):
        p.grad = torch.from_numpy(_quartic_grad(p.detach().numpy()))
        opt.step()
        x, s = pure.update(_quartic_grad(x), s, x)
    np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ALL))
def test_torch_wrapper_equals_pure(name):
    torch = pytest.importorskip("torch")
    from icml26.papers.affine_smooth import PureMethodOptimizer, torch_optimizer

    hyper = ALL[name]().hyper
    x0 = np.array([[0.5, 1.0], [-0.3, 0.2]])
    p = torch.nn.Parameter(torch.tensor(x0, dtype=torch.float64))
    opt = torch_optimizer([p], name, **hyper)
    assert isinstance(opt, PureMethodOptimizer)
    pure = ALL[name]()
    x, s = x0.ravel().copy(), pure.init(x0.ravel())
    for _ in range(15):
        opt.zero_grad()
        loss = (p**4).sum() / 4 - (p * torch.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=torch.float64)).sum()
        loss.backward()
        opt.step()
        x, s = pure.update(_quartic_grad(x), s, x)
    np.testing.assert_allclose(p.detach().numpy().ravel(), x, rtol=1e-12, atol=1e-14)


def test_torch_wrapper_bad_input():
    pytest.importorskip("torch")
    from icml26.papers.affine_smooth import PureMethodOptimizer, torch_optimizer

    with pytest.raises(ValueError, match="name"):
        torch_optimizer([], "lion", lr=0.1)
    with pytest.raises(TypeError, match="method"):
        PureMethodOptimizer([], "adam")  # type: ignore[arg-type]


def test_bad_hyper_parameters_rejected():
    with pytest.raises(ValueError, match="lr"):
        gd(lr=-0.1)
    with pytest.raises(ValueError, match="lr"):
        sign_gd(lr=float("nan"))
    with pytest.raises(TypeError, match="lr"):
        rmsprop(lr="0.1", beta2=0.9)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="beta2"):
        rmsprop(lr=0.1, beta2=1.0)
    with pytest.raises(ValueError, match="beta1"):
        adam(lr=0.1, beta1=-0.1, beta2=0.9)
    with pytest.raises(ValueError, match="momentum"):
        heavy_ball(lr=0.1, momentum=1.5)
    with pytest.raises(ValueError, match="eps"):
        adagrad(lr=0.1, eps=-1.0)
    with pytest.raises(TypeError, match="eps"):
        rmsprop(lr=0.1, beta2=0.9, eps="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="eps"):
        adam(lr=0.1, beta1=0.9, beta2=0.9, eps=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bias_correction must be a bool"):
        adam(lr=0.1, beta1=0.9, beta2=0.9, bias_correction=1)  # type: ignore[arg-type]


def test_bad_update_input_rejected():
    m = adam(lr=0.1, beta1=0.9, beta2=0.9)
    t = np.zeros(3)
    s = m.init(t)
    with pytest.raises(ValueError, match="grad and theta must have the same shape"):
        m.update(np.zeros(2), s, t)
    with pytest.raises(ValueError, match="grad must be finite"):
        m.update(np.array([0.0, np.nan, 1.0]), s, t)
    with pytest.raises(ValueError, match="theta must be finite"):
        m.update(np.zeros(3), s, np.array([np.inf, 0.0, 0.0]))
    with pytest.raises(ValueError, match="theta must be 1-dimensional"):
        m.init(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="grad must hold real numbers"):
        m.update(np.zeros(3) + 1j, s, t)
    with pytest.raises(TypeError, match="grad must hold real numbers"):
        m.update(np.array(["1", "0", "0"]), s, t)
    with pytest.raises(TypeError, match="state"):
        m.update(np.zeros(3), {"count": 0}, t)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="state.m"):
        m.update(np.zeros(3), OptState(count=0), t)
