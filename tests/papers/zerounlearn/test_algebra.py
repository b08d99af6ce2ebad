"""The closed forms of [P27] against their defining optimality conditions (autograd gradients, normal equations)."""

import numpy as np
import pytest
import torch

from icml26.papers.zerounlearn import (
    alphaedit_delta,
    closed_form_edit,
    memit_delta,
    null_space_basis,
    null_space_projector,
    sensitive_projector,
)


def _problem(d=5, m=8, n=3, seed=0):
    g = np.random.default_rng(seed)
    w = g.normal(size=(d, m))
    k = g.normal(size=(40, m))
    v = g.normal(size=(40, d))
    return w, k, v, g.normal(size=(n, d))


def test_edit_zeroes_the_gradient_of_its_objective():
    """Σ‖D W k − P v‖² + λ‖D W − P W‖² (with S_VK = Vᵀ K, S_KK = Kᵀ K) is stationary at the closed form."""
    w, k, v, z = _problem()
    p = sensitive_projector(z, eps=0.01).numpy()
    lam = 0.7
    d = closed_form_edit(w, p, v.T @ k, k.T @ k, lam=lam)
    wt, kt, vt, pt = (torch.from_numpy(a) for a in (w, k, v, p))
    dt = d.clone().requires_grad_(True)
    loss2 = ((dt @ wt @ kt.T - pt @ vt.T) ** 2).sum() + lam * ((dt @ wt - pt @ wt) ** 2).sum()
    loss2.backward()
    assert dt.grad is not None and float(dt.grad.abs().max()) < 1e-8


def test_edit_matches_brute_force_least_squares():
    w, k, v, z = _problem(d=3, m=4)
    p = sensitive_projector(z[:1], eps=0.05).numpy()
    lam = 1.3
    d = closed_form_edit(w, p, v.T @ k, k.T @ k, lam=lam).numpy()
    # vec(D W Kᵀ) = ((W Kᵀ)ᵀ ⊗ I) vec(D): stack both terms and solve by lstsq
    a1 = np.kron((w @ k.T).T, np.eye(3))
    a2 = np.sqrt(lam) * np.kron(w.T, np.eye(3))
    b = np.concatenate([(p @ v.T).ravel(order="F"), np.sqrt(lam) * (p @ w).ravel(order="F")])
    sol = np.linalg.lstsq(np.vstack([a1, a2]), b, rcond=None)[0].reshape(3, 3, order="F")
    np.testing.assert_allclose(d, sol, atol=1e-9)


def test_projector_scales_the_sensitive_span_by_eps():
    _, _, _, z = _problem(d=6, n=2)
    p = sensitive_projector(z, eps=0.01).numpy()
    np.testing.assert_allclose(p, p.T, atol=1e-14)
    for vec in z:
        np.testing.assert_allclose(p @ vec, 0.01 * vec, atol=1e-12)
    q, _ = np.linalg.qr(np.column_stack([z.T, np.random.default_rng(1).normal(size=(6, 4))]))
    for u in q[:, 2:].T:  # orthogonal to the span
        np.testing.assert_allclose(p @ u, 1.01 * u, atol=1e-12)
    # a rank-deficient Z (a repeated vector) gives the projector of its span
    np.testing.assert_allclose(sensitive_projector(np.vstack([z[0], 2 * z[0]]), eps=0.0).numpy() @ z[0], 0,
                               atol=1e-12)


def test_edit_is_the_identity_when_nothing_is_forgotten():
    w, k, _, _ = _problem()
    s_kk = k.T @ k / len(k)
    d = closed_form_edit(w, np.eye(5), w @ s_kk, s_kk, lam=1.0)  # retain values v = W k, no projector
    np.testing.assert_allclose(d.numpy(), np.eye(5), atol=1e-10)


def test_null_space_projector_is_an_orthogonal_projector_onto_small_eigenvalues():
    g = np.random.default_rng(2)
    u, _ = np.linalg.qr(g.normal(size=(6, 6)))
    c = u @ np.diag([5.0, 3.0, 1.0, 1e-4, 1e-5, 0.0]) @ u.T
    pn = null_space_projector(c, threshold=1e-2).numpy()
    np.testing.assert_allclose(pn @ pn, pn, atol=1e-12)
    np.testing.assert_allclose(pn @ u[:, :3], 0, atol=1e-12)
    np.testing.assert_allclose(pn @ u[:, 3:], u[:, 3:], atol=1e-12)
    assert null_space_basis(c, threshold=1e-2).shape == (6, 3)


def test_memit_and_alphaedit_updates_solve_their_normal_equations():
    g = np.random.default_rng(3)
    r, k = torch.from_numpy(g.normal(size=(3, 5))), torch.from_numpy(g.normal(size=(3, 7)))
    c = torch.from_numpy(np.cov(g.normal(size=(7, 50))))
    dw = memit_delta(r, k, c, weight=2.0)
    torch.testing.assert_close(dw @ (2.0 * c + k.T @ k), r.T @ k, atol=1e-7, rtol=0)
    pn = null_space_projector(c.numpy(), threshold=float(torch.linalg.eigvalsh(c)[3]))
    da = alphaedit_delta(r, k, pn, l2=0.5)
    torch.testing.assert_close(da @ (k.T @ k @ pn + 0.5 * torch.eye(7, dtype=torch.float64)), r.T @ k @ pn,
                               atol=1e-7, rtol=0)
    torch.testing.assert_close(da @ (torch.eye(7, dtype=torch.float64) - pn), torch.zeros(5, 7, dtype=torch.float64),
                               atol=1e-7, rtol=0)


def test_bad_shapes_and_values_are_refused():
    w, k, v, z = _problem()
    p = np.eye(5)
    with pytest.raises(ValueError, match="P"):
        closed_form_edit(w, np.eye(4), v.T @ k, k.T @ k)
    with pytest.raises(ValueError, match="S_KK"):
        closed_form_edit(w, p, v.T @ k, np.eye(3))
    with pytest.raises(ValueError, match="lam"):
        closed_form_edit(w, p, v.T @ k, k.T @ k, lam=-1.0)
    with pytest.raises(ValueError, match="eps"):
        sensitive_projector(z, eps=float("nan"))
    with pytest.raises(ValueError, match="singular"):
        closed_form_edit(np.zeros((5, 8)), p, v.T @ k, k.T @ k, lam=0.0)
